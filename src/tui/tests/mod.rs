//! The console's model without a terminal: synthetic messages go into
//! `App::update`, the screen is drawn on ratatui's `TestBackend` and
//! compared with insta snapshots; key handling is checked on the commands
//! the model asks for. Times are fixed (`Clock` values, UTC), so snapshots
//! are stable. This file holds the harness, the fixtures the modules
//! share and the whole-screen snapshots; each module below tests one pane
//! or one concern.

mod cluster;
mod custom_rules;
mod documents;
mod engine_keys;
mod external;
mod findings;
mod graph_and_lookup;
mod in_flight;
mod keys;
mod labels_filter;
mod log_and_queue;
mod log_reasons;
mod loopback;
mod markup_audits;
mod near;
mod real_crawl;
mod resources;
mod run_decisions;
mod runs;
mod search_agrees;
mod secrets;
mod status_bar;
mod widths;

use std::time::{Duration, Instant};

use crate::crawl::{
    CrawlCommand, CrawlEvent, CrawlStats, FetchedPage, SkipCounts, Summary, WorkAtHand,
};
use crate::search::{Hit, Results};
use crate::store::{PageRecord, PointRecord, SkipReason, StateCounts};
use crate::tui::app::{App, Clock, Command, Modal, Msg, Options, Snapshot};
use crate::tui::panes::graph::{LinkRow, PageView};
use crate::tui::panes::lookup::Detail;
use crate::tui::panes::queue::QueueRow;
use crate::tui::panes::status::RunState;
use crate::tui::panes::{Pane, PaneId};
use crate::tui::runtime::Runtime;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;

/// 2023-11-14 22:13:20 UTC.
const UNIX: i64 = 1_700_000_000;
const SITE: &str = "http://127.0.0.1:8080";

struct Harness {
    app: App,
    t0: Instant,
}

impl Harness {
    fn new() -> Harness {
        Harness::sized(120, 40)
    }

    fn sized(w: u16, h: u16) -> Harness {
        let t0 = Instant::now();
        let mut app = App::new(Options {
            db_label: "/data/crawlscope/store".into(),
            tz_offset: 0,
            clock: Clock {
                now: t0,
                unix: UNIX,
            },
        });
        app.update(Msg::Resize(w, h));
        Harness { app, t0 }
    }

    /// A console sharing a frontier: every pane is shown, Cluster too.
    fn cluster() -> Harness {
        let mut h = Harness::new();
        h.app.set_cluster();
        h
    }

    fn at(&self, ms: u64) -> Clock {
        Clock {
            now: self.t0 + Duration::from_millis(ms),
            unix: UNIX + (ms / 1000) as i64,
        }
    }

    fn tick(&mut self, ms: u64) -> Option<Command> {
        let c = self.at(ms);
        self.app.update(Msg::Tick(c))
    }

    /// The search a tick asks for, among the commands it returns.
    fn tick_search(&mut self, ms: u64) -> Option<(u64, String)> {
        self.tick_searches(ms).map(|(seq, query, _)| (seq, query))
    }

    /// The search a tick asks for, with its limit.
    fn tick_searches(&mut self, ms: u64) -> Option<(u64, String, usize)> {
        let mut cmds = vec![self.tick(ms)?];
        while let Some(c) = cmds.pop() {
            match c {
                Command::Search { seq, query, limit } => return Some((seq, query, limit)),
                Command::Batch(v) => cmds.extend(v),
                _ => {}
            }
        }
        None
    }

    fn send(&mut self, msg: Msg) -> Option<Command> {
        self.app.update(msg)
    }

    fn key(&mut self, code: KeyCode) -> Option<Command> {
        self.app
            .update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    fn ctrl(&mut self, c: char) -> Option<Command> {
        self.app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        )))
    }

    fn typing(&mut self, s: &str) {
        for c in s.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    fn click(&mut self, x: u16, y: u16) -> Option<Command> {
        self.app.update(Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        }))
    }

    /// The point form's error line, if the form is open and shows one.
    fn form_error(&self) -> Option<String> {
        self.app
            .points()
            .form()
            .and_then(|f| f.error())
            .map(str::to_string)
    }

    fn screen(&self, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| self.app.render(f)).unwrap();
        text(t.backend().buffer())
    }
}

/// The buffer as text, one line a row, trailing blanks cut.
fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The id of a page a test's crawl stored.
fn page_id(store: &crate::store::Store, url: &str) -> crate::store::PageId {
    use crate::store::prelude::*;
    (store.read().expect("read"))
        .page_id(&crate::url::Url::parse(url).expect("URL"))
        .expect("look-up")
        .expect("the page")
}

fn url(path: &str) -> String {
    format!("{SITE}{path}")
}

fn fetched(page: u32, path: &str, status: u16, title: &str, depth: u32) -> CrawlEvent {
    CrawlEvent::Fetched(FetchedPage {
        page,
        url: url(path),
        status,
        bytes: 1000 + u64::from(page) * 731,
        elapsed: Duration::from_millis(12 + u64::from(page) * 3),
        title: Some(title.to_string()),
        reason: (status >= 400).then(|| crate::crawl::reason::phrase(status, None)),
        depth,
        render: Default::default(),
    })
}

fn point(path: &str, active: bool) -> PointRecord {
    PointRecord {
        url: url(path),
        root: url("/"),
        active,
        updated_at: UNIX - 7200,
        updated_by: "ann".into(),
        ..Default::default()
    }
}

fn snapshot() -> Snapshot {
    Snapshot {
        frontier: (0..6)
            .map(|i| QueueRow {
                page: 100 + i,
                url: url(&format!("/topic/{i}/")),
                depth: 2,
                point: 1,
            })
            .collect(),
        work: WorkAtHand {
            queued: 1234,
            ..Default::default()
        },
        store_bytes: 12 << 20,
        totals: StateCounts {
            queued: 1234,
            done: 45_210,
            failed: 37,
            skipped: 1_802,
            ..Default::default()
        },
        points: vec![(1, point("/", true))],
        docs: Vec::new(),
        origins: Vec::new(),
        runs: Vec::new(),
    }
}

/// A crawl under way: pages fetched, one failure, one skip, a redirect, a
/// fetch still in flight, and the engine's stats.
fn crawling() -> Harness {
    let mut h = Harness::new();
    h.send(Msg::Snapshot(snapshot()));
    h.send(Msg::CrawlStarted);
    h.tick(0);
    h.send(Msg::Engine(vec![
        CrawlEvent::Started {
            page: 1,
            url: url("/"),
        },
        fetched(1, "/", 200, "Harbor Lantern Orchard — page 0", 0),
        CrawlEvent::Started {
            page: 2,
            url: url("/a/"),
        },
        CrawlEvent::Started {
            page: 3,
            url: url("/b/"),
        },
        CrawlEvent::Started {
            page: 4,
            url: url("/missing"),
        },
        CrawlEvent::Queued { count: 40 },
    ]));
    h.tick(1500);
    h.send(Msg::Engine(vec![
        fetched(2, "/a/", 200, "Copper Meadow — page 1", 1),
        CrawlEvent::Failed {
            page: 3,
            url: url("/b/"),
            reason: "connection reset".into(),
        },
        fetched(4, "/missing", 404, "Not found", 1),
        CrawlEvent::Skipped {
            page: 5,
            url: "https://elsewhere.example/".into(),
            reason: SkipReason::OutOfScope,
        },
        CrawlEvent::Redirected {
            page: 6,
            url: url("/old"),
            to: url("/new"),
            status: 301,
        },
        CrawlEvent::NotModified {
            page: 7,
            url: url("/same"),
        },
        CrawlEvent::Started {
            page: 8,
            url: url("/slow/"),
        },
        CrawlEvent::Stats(CrawlStats {
            fetched: 1,
            queued: 1200,
            in_flight: 3,
            elapsed: Duration::from_secs(81),
            store_bytes: 11 << 20,
            ..Default::default()
        }),
        CrawlEvent::Stats(CrawlStats {
            fetched: 3,
            not_modified: 1,
            failed: 1,
            skipped: 1,
            skipped_by: SkipCounts {
                out_of_scope: 1,
                ..Default::default()
            },
            queued: 1234,
            in_flight: 1,
            elapsed: Duration::from_secs(83),
            store_bytes: 12 << 20,
            ..Default::default()
        }),
    ]));
    h.tick(2700);
    h
}

fn hit(page: u32, score: f32, title: &str, path: &str) -> Hit {
    Hit {
        page,
        score,
        url: url(path),
        title: Some(title.into()),
        last_modified: UNIX - 86_400,
        size: 14_336,
    }
}

/// The lookup with "harbor" typed and answered.
fn searched() -> Harness {
    let mut h = Harness::new();
    h.key(KeyCode::Char('/'));
    h.typing("harbor");
    let Some((seq, query)) = h.tick_search(200) else {
        panic!("expected a search");
    };
    assert_eq!(query, "harbor");
    let next = h.send(Msg::SearchDone {
        seq,
        query,
        result: Ok(Results {
            hits: vec![
                hit(1, 0.912, "Harbor Lantern Orchard — page 0", "/"),
                hit(17, 0.455, "Quiet Harbor Stone — page 17", "/q/17/"),
                hit(42, 0.101, "Orchard Gate — page 42", "/o/42/"),
            ],
            note: None,
            total: 3,
        }),
    });
    assert_eq!(
        next,
        Some(Command::LoadDetail {
            page: 1,
            query: "harbor".into()
        })
    );
    h.send(Msg::DetailDone(Detail {
        page: 1,
        keywords: vec![
            ("harbor".into(), 12),
            ("lantern".into(), 9),
            ("orchard".into(), 7),
        ],
        snippet: Some("… the old harbor keeps its lanterns lit while the orchard sleeps …".into()),
    }));
    h
}

fn link(page: u32, path: &str, title: Option<&str>, status: Option<u16>, state: &str) -> LinkRow {
    LinkRow {
        page,
        url: if path.starts_with("http") {
            path.into()
        } else {
            url(path)
        },
        title: title.map(Into::into),
        status,
        state: Some(state.into()),
        nofollow: false,
        rendered_only: false,
        external: None,
        resource: None,
    }
}

fn view(page: u32, title: &str, path: &str) -> PageView {
    PageView {
        page,
        url: url(path),
        record: Some(PageRecord {
            title: Some(title.into()),
            status: 200,
            size: 14_336,
            last_modified: UNIX - 3600,
            depth: 1,
            ..Default::default()
        }),
        state: Some("done".into()),
        external: None,
        parents: vec![link(
            1,
            "/",
            Some("Harbor Lantern Orchard — page 0"),
            Some(200),
            "done",
        )],
        children: vec![
            link(
                20,
                "/c/20/",
                Some("Copper Meadow — page 20"),
                Some(200),
                "done",
            ),
            link(21, "/c/21/", None, None, "queued"),
            link(
                22,
                "https://elsewhere.example/",
                None,
                None,
                "skipped:out_of_scope",
            ),
            link(23, "/private/", None, None, "skipped:excluded"),
            link(24, "/gone/", Some("Not found"), Some(404), "done"),
        ],
        parents_total: 1,
        children_total: 5,
        from_sitemap: None,
        resource: None,
        extract: Vec::new(),
    }
}

/// Opens page 17 from the lookup and answers the graph's load.
fn graph() -> Harness {
    let mut h = searched();
    h.key(KeyCode::Down);
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::LoadPage { seq, page }) = cmd else {
        panic!("expected a page load, got {cmd:?}");
    };
    assert_eq!(page, 17);
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(17, "Quiet Harbor Stone — page 17", "/q/17/")),
    });
    h
}

#[test]
fn empty_store_idle() {
    let mut h = Harness::sized(80, 24);
    h.send(Msg::Snapshot(Snapshot::default()));
    insta::assert_snapshot!(h.screen(80, 24));
}

#[test]
fn crawling_shows_status_queue_and_log() {
    let h = crawling();
    assert_eq!(h.app.run_state(), RunState::Running);
    insta::assert_snapshot!(h.screen(120, 40));
}

#[test]
fn crawling_at_minimum_size() {
    let mut h = crawling();
    h.send(Msg::Resize(80, 24));
    insta::assert_snapshot!(h.screen(80, 24));
}

#[test]
fn log_filter_by_status() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    h.typing("4xx");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.log().filter(), "4xx");
    assert_eq!(h.app.log().shown(), 1);
    insta::assert_snapshot!(h.screen(120, 40));
}

#[test]
fn search_results_with_details() {
    let h = searched();
    assert_eq!(h.app.focus(), PaneId::Lookup);
    insta::assert_snapshot!(h.screen(120, 40));
}

#[test]
fn link_graph_with_parents_and_children() {
    let h = graph();
    assert_eq!(h.app.focus(), PaneId::Graph);
    insta::assert_snapshot!(h.screen(120, 40));
}

#[test]
fn a_page_only_a_sitemap_led_to_says_so_in_the_graph() {
    let mut h = searched();
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { seq, .. }) = h.key(KeyCode::Enter) else {
        panic!("expected a page load");
    };
    let mut v = view(17, "Quiet Harbor Stone — page 17", "/q/17/");
    v.parents.clear();
    v.parents_total = 0;
    v.from_sitemap = Some(url("/sitemap.xml"));
    h.send(Msg::PageLoaded { seq, result: Ok(v) });
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("Parents (0)") && screen.contains("from sitemap http://"),
        "{screen}"
    );
    assert!(!screen.contains("  none"), "{screen}");
}

#[test]
fn point_form_shows_validation_error() {
    let mut h = Harness::new();
    h.send(Msg::Snapshot(snapshot()));
    assert_eq!(h.key(KeyCode::Char('a')), None);
    assert_eq!(h.app.focus(), PaneId::Points);
    h.typing("example.com/docs");
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.typing("two");
    assert_eq!(h.key(KeyCode::Enter), None);
    let error = h.form_error();
    assert_eq!(
        error.as_deref(),
        Some("URL: invalid URL: \"example.com/docs\" needs an http:// or https:// prefix")
    );
    insta::assert_snapshot!(h.screen(120, 40));
}

#[test]
fn point_list() {
    let mut h = Harness::new();
    let mut s = snapshot();
    s.points.push((
        2,
        PointRecord {
            depth: Some(3),
            max_pages: Some(500),
            excludes: vec![url("/private/")],
            user: Some("ann".into()),
            password: Some("secret".into()),
            ..point("/docs/", false)
        },
    ));
    s.points.push((
        3,
        PointRecord {
            distinct_www: true,
            resolve: vec![crate::points::parse_resolve("site.test:8080:127.0.0.1").unwrap()],
            append_query: vec![("key".into(), "k1".into())],
            dirty: true,
            ..point("/site/", true)
        },
    ));
    h.send(Msg::Snapshot(s));
    h.key(KeyCode::Char('6'));
    h.key(KeyCode::Down);
    insta::assert_snapshot!(h.screen(120, 40));
    // Wide enough to show every setting of point 3.
    insta::assert_snapshot!("point_list_wide", h.screen(230, 40));
}

#[test]
fn help_overlay_lists_the_keys() {
    let mut h = Harness::sized(80, 24);
    h.key(KeyCode::Char('?'));
    assert_eq!(h.app.modal(), Some(Modal::Help));
    insta::assert_snapshot!(h.screen(80, 24));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.modal(), None);
}

#[test]
fn quit_confirmation_while_crawling() {
    let mut h = crawling();
    assert_eq!(h.key(KeyCode::Char('q')), None);
    assert_eq!(h.app.modal(), Some(Modal::ConfirmQuit));
    insta::assert_snapshot!(h.screen(120, 40));
}

#[test]
fn too_small_terminal_says_so() {
    let mut h = crawling();
    h.send(Msg::Resize(60, 20));
    insta::assert_snapshot!(h.screen(60, 20));
}

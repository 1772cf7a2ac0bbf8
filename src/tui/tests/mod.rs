//! The console's model without a terminal: synthetic messages go into
//! `App::update`, the screen is drawn on ratatui's `TestBackend` and
//! compared with insta snapshots; key handling is checked on the commands
//! the model asks for. Times are fixed (`Clock` values, UTC), so snapshots
//! are stable.

mod cluster;
mod custom_rules;
mod documents;
mod external;
mod findings;
mod in_flight;
mod keys;
mod labels_filter;
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
    let error = h
        .app
        .points()
        .form()
        .and_then(|f| f.error())
        .map(str::to_string);
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

#[test]
fn tab_and_digits_move_the_focus() {
    let mut h = Harness::cluster();
    let start = h.app.focus();
    let mut seen = vec![start];
    for _ in 1..PaneId::ALL.len() {
        h.key(KeyCode::Tab);
        seen.push(h.app.focus());
    }
    for p in PaneId::ALL {
        assert!(seen.contains(&p), "{p:?} never focused");
    }
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus(), start);
    h.key(KeyCode::BackTab);
    assert_eq!(h.app.focus(), start.prev());
    for (i, p) in PaneId::ALL.into_iter().enumerate() {
        h.key(KeyCode::Char(char::from(b'1' + i as u8)));
        assert_eq!(h.app.focus(), p);
    }
}

#[test]
fn quit_asks_only_while_crawling() {
    let mut idle = Harness::new();
    assert_eq!(idle.key(KeyCode::Char('q')), Some(Command::Quit));

    let mut h = crawling();
    assert_eq!(h.key(KeyCode::Char('q')), None);
    assert_eq!(h.key(KeyCode::Char('n')), None);
    assert_eq!(h.app.modal(), None);
    assert_eq!(h.ctrl('c'), None);
    assert_eq!(h.app.modal(), Some(Modal::ConfirmQuit));
    assert_eq!(h.key(KeyCode::Char('y')), Some(Command::Quit));
}

#[test]
fn pause_resume_and_stop_go_to_the_engine() {
    let mut h = crawling();
    assert_eq!(
        h.key(KeyCode::Char('p')),
        Some(Command::Engine(CrawlCommand::Pause))
    );
    h.send(Msg::Engine(vec![CrawlEvent::Paused]));
    assert_eq!(h.app.run_state(), RunState::Paused);
    assert_eq!(
        h.key(KeyCode::Char('p')),
        Some(Command::Engine(CrawlCommand::Resume))
    );
    h.send(Msg::Engine(vec![CrawlEvent::Resumed]));
    assert_eq!(
        h.key(KeyCode::Char('s')),
        Some(Command::Engine(CrawlCommand::Stop))
    );
    assert_eq!(h.app.run_state(), RunState::Stopping);
    h.send(Msg::Engine(vec![CrawlEvent::Finished(Summary::default())]));
    h.send(Msg::CrawlEnded(Ok(())));
    // Stopped by the user, not finished: the queue is still there.
    assert_eq!(h.app.run_state(), RunState::Stopped);
    assert_eq!(h.key(KeyCode::Char('p')), None);
    assert_eq!(h.key(KeyCode::Char('q')), Some(Command::Quit));
}

#[test]
fn crawl_key_starts_the_active_points() {
    let mut h = Harness::new();
    assert_eq!(h.key(KeyCode::Char('c')), Some(Command::StartCrawl(vec![])));
    h.send(Msg::Snapshot(snapshot()));
    h.key(KeyCode::Char('6'));
    assert_eq!(
        h.key(KeyCode::Char('c')),
        Some(Command::StartCrawl(vec![1]))
    );
    let mut busy = crawling();
    assert_eq!(busy.key(KeyCode::Char('c')), None);
}

#[test]
fn filter_box_takes_the_keys() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    assert!(h.app.log().editing());
    // Letters that are global keys elsewhere go into the box.
    h.typing("qs1p");
    assert_eq!(h.app.focus(), PaneId::Log);
    assert_eq!(h.app.modal(), None);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.typing("failed");
    h.key(KeyCode::Enter);
    assert!(!h.app.log().editing());
    assert_eq!(h.app.log().filter(), "failed");
    assert_eq!(h.app.log().shown(), 1);
    h.key(KeyCode::Char('f'));
    h.ctrl('u');
    h.key(KeyCode::Esc);
    assert_eq!(h.app.log().shown(), 7);
}

#[test]
fn log_scrolls_and_follows_again() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    assert!(h.app.log().following());
    h.key(KeyCode::Up);
    h.key(KeyCode::Up);
    assert!(!h.app.log().following());
    h.send(Msg::Engine(vec![fetched(9, "/late/", 200, "Late", 2)]));
    assert!(
        !h.app.log().following(),
        "new lines must not yank a scrolled log"
    );
    h.key(KeyCode::End);
    assert!(h.app.log().following());
    let cmd = h.key(KeyCode::Enter);
    assert!(
        matches!(cmd, Some(Command::LoadPage { page: 9, .. })),
        "{cmd:?}"
    );
}

#[test]
fn origin_and_sitemap_notices_show_in_the_log_with_their_reasons() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    h.send(Msg::Engine(vec![
        CrawlEvent::Sitemap {
            url: url("/sitemap.xml"),
            result: Ok(12),
        },
        CrawlEvent::Sitemap {
            url: url("/gone.xml"),
            result: Err("404 Not Found".into()),
        },
        CrawlEvent::OriginThrottled {
            origin: SITE.into(),
            status: 429,
            wait: Duration::from_secs(30),
        },
        CrawlEvent::OriginUnreachable {
            origin: "http://dead.test:80".into(),
            reason: "connection refused".into(),
        },
    ]));
    let screen = h.screen(160, 40);
    for shown in [
        "sitemap   ",
        "sitemap.xml  12 URLs",
        "gone.xml  404 Not Found",
        "429 Too Many Requests; nothing sent to it for 30s",
        "dead.test:80  connection refused; its queued URLs are",
    ] {
        assert!(screen.contains(shown), "{shown:?} not in\n{screen}");
    }
    // A notice names no page: Enter on it opens nothing.
    let cmd = h.key(KeyCode::Enter);
    assert!(cmd.is_none(), "{cmd:?}");
    h.key(KeyCode::Char('f'));
    h.typing("origin refused");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.log().shown(), 1);
}

#[test]
fn graph_back_walks_the_trail() {
    let mut h = graph();
    assert_eq!(h.app.graph().trail_len(), 0);
    // Children are selected first; the second is a queued URL.
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { seq, page: 21 }) = h.key(KeyCode::Enter) else {
        panic!("Enter on a child loads it");
    };
    let mut child = view(21, "Queued", "/c/21/");
    child.record = None;
    child.state = Some("queued".into());
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(child),
    });
    assert_eq!(h.app.graph().current().map(|v| v.page), Some(21));
    assert_eq!(h.app.graph().trail_len(), 1);
    let Some(Command::LoadPage { seq, page: 17 }) = h.key(KeyCode::Backspace) else {
        panic!("Backspace loads the previous page");
    };
    assert_eq!(h.app.graph().trail_len(), 0);
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(17, "Quiet Harbor Stone — page 17", "/q/17/")),
    });
    assert_eq!(h.app.graph().current().map(|v| v.page), Some(17));
    assert_eq!(h.key(KeyCode::Backspace), None);
}

#[test]
fn stale_search_results_are_dropped() {
    let mut h = Harness::new();
    h.key(KeyCode::Char('/'));
    h.typing("har");
    let Some((old, _)) = h.tick_search(200) else {
        panic!("first search");
    };
    h.typing("bor");
    assert_eq!(
        h.tick_search(250),
        None,
        "debounced: typing resets the wait"
    );
    let Some((new, query)) = h.tick_search(400) else {
        panic!("second search");
    };
    assert_eq!(query, "harbor");
    let stale = Ok(Results {
        hits: vec![hit(5, 0.3, "Stale", "/stale/")],
        note: None,
        total: 1,
    });
    assert_eq!(
        h.send(Msg::SearchDone {
            seq: old,
            query: "har".into(),
            result: stale
        }),
        None
    );
    assert!(h.app.lookup().hits().is_empty());
    h.send(Msg::SearchDone {
        seq: new,
        query,
        result: Ok(Results {
            hits: vec![hit(1, 0.9, "Fresh", "/")],
            note: None,
            total: 1,
        }),
    });
    assert_eq!(h.app.lookup().hits().len(), 1);
}

#[test]
fn adding_a_point_while_crawling_goes_to_the_engine() {
    let mut h = crawling();
    h.key(KeyCode::Char('a'));
    h.typing("http://127.0.0.1:9090/");
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::Engine(CrawlCommand::AddPoint(rec))) = cmd else {
        panic!("expected AddPoint, got {cmd:?}");
    };
    assert_eq!(rec.url, "http://127.0.0.1:9090/");
    assert_eq!(rec.root, "http://127.0.0.1:9090/");
    assert!(rec.active);

    let mut idle = Harness::new();
    idle.send(Msg::Snapshot(snapshot()));
    idle.key(KeyCode::Char('a'));
    idle.typing(&url("/"));
    idle.key(KeyCode::Enter);
    let error = idle
        .app
        .points()
        .form()
        .and_then(|f| f.error())
        .map(str::to_string);
    assert_eq!(
        error.as_deref(),
        Some("URL: already crawl point 1 (edit that one)")
    );
    idle.key(KeyCode::Esc);
    idle.key(KeyCode::Char('a'));
    idle.typing("https://example.com/docs/");
    idle.key(KeyCode::Tab);
    idle.typing("ftp://example.com/");
    idle.key(KeyCode::Enter);
    let error = idle
        .app
        .points()
        .form()
        .and_then(|f| f.error())
        .map(str::to_string);
    assert_eq!(
        error.as_deref(),
        Some("Root prefix: must start with http:// or https://")
    );
    idle.ctrl('u');
    idle.key(KeyCode::Tab);
    idle.typing("2");
    let cmd = idle.key(KeyCode::Enter);
    let Some(Command::SavePoint { id: None, rec }) = cmd else {
        panic!("expected SavePoint, got {cmd:?}");
    };
    assert_eq!(rec.root, "https://example.com/");
    assert_eq!(rec.depth, Some(2));
}

#[test]
fn point_keys_toggle_and_delete() {
    let mut h = Harness::new();
    h.send(Msg::Snapshot(snapshot()));
    h.key(KeyCode::Char('6'));
    assert_eq!(
        h.key(KeyCode::Char(' ')),
        Some(Command::SetActive(1, false))
    );
    assert_eq!(h.key(KeyCode::Char('d')), None);
    assert_eq!(h.key(KeyCode::Char('n')), None);
    assert_eq!(h.key(KeyCode::Char('d')), None);
    assert_eq!(h.key(KeyCode::Char('y')), Some(Command::DeletePoint(1)));
}

#[test]
fn click_focuses_a_pane_and_selects_a_row() {
    let mut h = crawling();
    assert_eq!(h.app.focus(), PaneId::Log);
    // The queue pane sits top left, under the 4-row status bar.
    h.click(5, 6);
    assert_eq!(h.app.focus(), PaneId::Queue);
    // The explorer's tabs are on its top border: click "5 Graph".
    let screen = h.screen(120, 40);
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("5 Graph"))
        .expect("explorer tabs on screen");
    let byte = line.find("5 Graph").unwrap_or(0);
    let x = line[..byte].chars().count();
    h.click(x as u16 + 1, y as u16);
    assert_eq!(h.app.focus(), PaneId::Graph);
}

#[test]
fn ticks_ask_for_store_snapshots_and_idle_ticks_do_not_redraw() {
    let mut h = Harness::new();
    assert_eq!(h.tick(0), Some(Command::Refresh));
    assert!(h.app.take_dirty());
    // No answer yet: no second refresh.
    assert_eq!(h.tick(2000), None);
    h.send(Msg::Snapshot(Snapshot::default()));
    assert!(h.app.take_dirty());
    assert_eq!(h.tick(2000), None);
    assert!(!h.app.take_dirty(), "nothing changed: no redraw");
    assert_eq!(h.tick(3100), Some(Command::Refresh));
}

#[tokio::test]
async fn runtime_draws_and_quits_on_a_test_backend() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(crate::store::Store::open(&dir.path().join("store")).unwrap());
    let mut h = Harness::new();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut runtime = Runtime::new(store, crate::crawl::CrawlConfig::default());
    let keys = [KeyCode::Char('?'), KeyCode::Esc, KeyCode::Char('q')]
        .map(|c| Ok(Event::Key(KeyEvent::new(c, KeyModifiers::NONE))));
    runtime
        .run(
            &mut terminal,
            &mut h.app,
            futures_util::stream::iter(keys),
            vec![],
        )
        .await
        .unwrap();
    let screen = text(terminal.backend().buffer());
    assert!(screen.contains("1 Status"), "{screen}");
    assert!(runtime.take_engine().is_none());
}

#[test]
fn in_flight_is_what_the_queue_pane_lists_and_the_rest_of_the_work_is_claimed() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    let started: Vec<CrawlEvent> = (0..40)
        .map(|i| CrawlEvent::Started {
            page: i,
            url: url(&format!("/p/{i}")),
        })
        .collect();
    h.send(Msg::Engine(started));
    h.send(Msg::Engine(vec![CrawlEvent::Stats(CrawlStats {
        queued: 100,
        claimed: 10,
        in_flight: 40,
        ..Default::default()
    })]));
    let screen = h.screen(120, 40);
    assert!(screen.contains("claimed 10  in flight 40 "), "{screen}");
    // Answered, not yet committed: claimed until a stats tick says
    // otherwise, and the three still add up to the tick's 150.
    h.send(Msg::Engine(
        (0..37).map(|page| CrawlEvent::Answered { page }).collect(),
    ));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("queue 100  claimed 47  in flight 3 "),
        "{screen}"
    );
    assert!(screen.contains("In flight (3)"), "{screen}");
}

#[test]
fn lookup_shows_the_true_count_and_loads_more_as_the_list_scrolls() {
    let mut h = Harness::new();
    h.key(KeyCode::Char('/'));
    for c in "harbor".chars() {
        h.key(KeyCode::Char(c));
    }
    let (seq, query) = h.tick_search(1000).expect("a search after the pause");
    let first: Vec<Hit> = (0..50)
        .map(|i| hit(i + 1, 1.0 - i as f32 / 100.0, "Harbor", &format!("/h/{i}")))
        .collect();
    h.send(Msg::SearchDone {
        seq,
        query: query.clone(),
        result: Ok(Results {
            hits: first,
            note: None,
            total: 1000,
        }),
    });
    let screen = h.screen(120, 40);
    assert!(screen.contains("1000 results (50 loaded"), "{screen}");
    // Down to the last loaded hit: the next tick asks for more.
    for _ in 0..49 {
        h.key(KeyCode::Down);
    }
    let more = h.tick(1200);
    let found = matches!(
        &more,
        Some(Command::Search { limit: 100, query: q, .. }) if *q == query
    ) || matches!(&more, Some(Command::Batch(v)) if v.iter().any(|c| matches!(c, Command::Search { limit: 100, .. })));
    assert!(found, "{more:?}");
}

#[test]
fn status_filters_match_the_status_never_a_url() {
    let mut h = crawling();
    h.send(Msg::Engine(vec![fetched(
        40,
        "/docs/404.html",
        200,
        "How to write a 404 page",
        1,
    )]));
    let shown = |h: &mut Harness, filter: &str| {
        h.key(KeyCode::Char('3'));
        h.key(KeyCode::Char('f'));
        // Clear what an earlier filter left.
        for _ in 0..10 {
            h.key(KeyCode::Backspace);
        }
        h.typing(filter);
        h.key(KeyCode::Esc);
        h.app.log().shown()
    };
    assert_eq!(shown(&mut h, "404"), 1, "only the page that answered 404");
    assert_eq!(shown(&mut h, "3xx"), 2, "the 301 redirect and the 304");
    assert_eq!(shown(&mut h, "301"), 1);
    assert_eq!(shown(&mut h, "docs/404"), 1, "words still search URLs");
}

#[test]
fn selected_rows_stay_readable() {
    let mut h = crawling();
    h.key(KeyCode::Char('2'));
    h.key(KeyCode::Down);
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| h.app.render(f)).unwrap();
    let buf = t.backend().buffer();
    let mut selected = 0;
    for cell in buf.content() {
        if cell.bg == ratatui::style::Color::DarkGray && !cell.symbol().trim().is_empty() {
            selected += 1;
            assert_ne!(
                cell.fg,
                cell.bg,
                "{:?} drawn in its own background",
                cell.symbol()
            );
        }
    }
    assert!(selected > 10, "a row is drawn selected");
}

#[test]
fn graph_rows_with_the_same_title_show_their_url() {
    let mut h = searched();
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { seq, .. }) = h.key(KeyCode::Enter) else {
        panic!("expected a page load");
    };
    let mut v = view(17, "Docs", "/docs/");
    v.children = vec![
        link(30, "/docs/a/", Some("Index"), Some(200), "done"),
        link(31, "/docs/b/", Some("Index"), Some(200), "done"),
        link(32, "/docs/c/", Some("Setup"), Some(200), "done"),
    ];
    h.send(Msg::PageLoaded { seq, result: Ok(v) });
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("Index · 127.0.0.1:8080/docs/a/"),
        "{screen}"
    );
    assert!(
        screen.contains("Index · 127.0.0.1:8080/docs/b/"),
        "{screen}"
    );
    assert!(!screen.contains("Setup ·"), "{screen}");
}

/// The end of a crawl reaches the screen with no key pressed: the runtime
/// draws engine events by itself.
#[tokio::test]
async fn a_crawl_that_ends_in_failures_shows_it_ended_without_input() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(crate::store::Store::open(&dir.path().join("store")).unwrap());
    // A port nothing listens on: every fetch fails at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = crate::url::parse_start(&format!("http://127.0.0.1:{port}/")).unwrap();
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).unwrap();
    let mut h = Harness::new();
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let mut runtime = Runtime::new(store, crate::crawl::CrawlConfig::default());
    // No key for three seconds, then quit (confirming, in case the console
    // still believes the crawl runs).
    let keys = futures_util::StreamExt::flat_map(
        futures_util::stream::once(tokio::time::sleep(Duration::from_secs(3))),
        |()| {
            futures_util::stream::iter(
                [KeyCode::Char('q'), KeyCode::Char('y')]
                    .map(|c| Ok(Event::Key(KeyEvent::new(c, KeyModifiers::NONE)))),
            )
        },
    );
    tokio::time::timeout(
        Duration::from_secs(30),
        runtime.run(&mut terminal, &mut h.app, Box::pin(keys), vec![point]),
    )
    .await
    .expect("the console quits")
    .unwrap();
    let screen = text(terminal.backend().buffer());
    let status = screen.lines().nth(1).unwrap_or_default();
    assert!(status.contains("finished"), "{screen}");
    assert!(status.contains("errors 1"), "{screen}");
}

#[test]
fn the_breadcrumb_starts_at_the_first_page_the_user_opens() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    // The crawl's first page shows itself in the empty graph.
    let Some(Command::LoadPage { seq, page }) =
        h.send(Msg::Engine(vec![fetched(1, "/", 200, "Home", 0)]))
    else {
        panic!("the start page opens in the graph");
    };
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(page, "Home", "/")),
    });
    // The user opens a page: nothing behind it yet.
    h.key(KeyCode::Char('5'));
    h.key(KeyCode::Right);
    let Some(Command::LoadPage { seq, page }) = h.key(KeyCode::Enter) else {
        panic!("Enter opens the selected child");
    };
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(page, "Copper Meadow — page 20", "/c/20/")),
    });
    assert_eq!(h.app.graph().trail_len(), 0);
    // The next page the user opens has that one behind it.
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { .. }) = h.key(KeyCode::Enter) else {
        panic!("Enter opens the selected child");
    };
    assert_eq!(h.app.graph().trail_len(), 1);
}

#[test]
fn the_graph_says_why_and_leads_on_from_a_redirect() {
    use crate::store::UrlState;
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::open(&dir.path().join("store")).unwrap();
    let u = |p: &str| crate::url::Url::parse(&url(p)).unwrap();
    let (old, new, dead) = store
        .update(|w| {
            let old = w.page_id_for(&u("/old"))?;
            let new = w.page_id_for(&u("/new"))?;
            let dead = w.page_id_for(&u("/dead"))?;
            w.set_state(
                old,
                &UrlState::Redirected {
                    point: 1,
                    gen: 1,
                    to: new,
                    status: 308,
                },
            )?;
            w.set_state(
                dead,
                &UrlState::Failed {
                    point: 1,
                    gen: 1,
                    reason: "connection refused".into(),
                    status: None,
                },
            )?;
            Ok((old, new, dead))
        })
        .unwrap();
    let v = crate::tui::jobs::page_view(&store, old).unwrap();
    assert_eq!(v.state.as_deref(), Some("redirected (308)"));
    assert_eq!(
        v.children.first().map(|c| c.page),
        Some(new),
        "the target is a row"
    );
    let v = crate::tui::jobs::page_view(&store, dead).unwrap();
    assert_eq!(v.state.as_deref(), Some("failed: connection refused"));
}

#[test]
fn b_shows_this_runs_answers_by_status_class() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    h.send(Msg::Engine(vec![
        fetched(1, "/a", 200, "A", 1),
        fetched(2, "/b", 404, "B", 1),
        fetched(3, "/c", 503, "C", 1),
        CrawlEvent::Redirected {
            page: 4,
            url: url("/d"),
            to: url("/a"),
            status: 301,
        },
        CrawlEvent::NotModified {
            page: 5,
            url: url("/e"),
        },
        CrawlEvent::Failed {
            page: 6,
            url: url("/f"),
            reason: "connection refused".into(),
        },
    ]));
    assert!(!h.screen(160, 40).contains("by class"));
    h.key(KeyCode::Char('b'));
    let screen = h.screen(160, 40);
    assert!(
        screen.contains("this run by class: 2xx 1  3xx 2  4xx 1  5xx 1  no answer 1"),
        "{screen}"
    );
    h.key(KeyCode::Char('b'));
    assert!(h.screen(160, 40).contains("all runs: done"));
}

#[test]
fn the_graph_shows_directives_canonicals_nofollow_and_rendered_only_links() {
    let mut h = searched();
    h.key(KeyCode::Down);
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::LoadPage { seq, .. }) = cmd else {
        panic!("expected a page load, got {cmd:?}");
    };
    let mut v = view(17, "Quiet Harbor Stone — page 17", "/q/17/");
    if let Some(r) = v.record.as_mut() {
        r.noindex = Some(crate::store::DirectiveSource::Header);
        r.canonical = Some(url("/canon/"));
    }
    v.children[0].nofollow = true;
    v.children[1].rendered_only = true;
    h.send(Msg::PageLoaded { seq, result: Ok(v) });
    let screen = h.screen(160, 40);
    assert!(screen.contains("noindex (header)"), "{screen}");
    assert!(
        screen.contains("canonical 127.0.0.1:8080/canon/"),
        "{screen}"
    );
    assert!(
        screen.contains("Copper Meadow — page 20 · nofollow"),
        "{screen}"
    );
    assert_eq!(screen.matches("· nofollow").count(), 1, "{screen}");
    assert_eq!(screen.matches("· rendered only").count(), 1, "{screen}");
}

//! The status, log and graph panes fed by a real crawl: the demo site served
//! on loopback, the engine crawling it into a store in a temp dir, every
//! `CrawlEvent` it sent going into `App::update`, and the graph's page read
//! from that store by the console's own job. The crawl is set up so that
//! its events come in the same order on every run; what still
//! varies (the port, fetch times, the store's size, the elapsed time and
//! the rate) is masked in the snapshots.

use std::net::SocketAddr;
use std::sync::Arc;

use super::*;
use crate::crawl::{CrawlConfig, Summary};
use crate::store::{PointId, Store};
use crate::tui::panes::status::RunState;
use crate::tui::panes::PaneId;
use crate::tui::{format, jobs};
use crossterm::event::KeyCode;

/// Pages of the demo site: `/`, its ten children and one grandchild.
const PAGES: u32 = 12;

pub(super) struct Crawled {
    /// Holds the store's directory until the test ends.
    _dir: tempfile::TempDir,
    pub(super) store: Arc<Store>,
    site: SocketAddr,
    pub(super) events: Vec<CrawlEvent>,
}

async fn crawl_demo() -> Crawled {
    crawl_demo_with(PAGES, false).await
}

/// The demo site of `pages` pages crawled into a fresh store; with
/// `ignore_robots` its `/private/N.html` links are fetched (and answer 404).
pub(super) async fn crawl_demo_with(pages: u32, ignore_robots: bool) -> Crawled {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&dir.path().join("store")).expect("open store"));
    let (addr, server) = crate::demo::spawn(0, pages).await.expect("serve demo");
    let url = crate::url::parse_start(&format!("http://{addr}/")).expect("start URL");
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).expect("point");
    // One fetch at a time, and writer batches cut only where the
    // dispatcher asks for more work (never by a timer): the events come in
    // the same order however slow the machine.
    let cfg = CrawlConfig {
        concurrency: 1,
        per_host: 1,
        batch_interval: Duration::from_secs(60),
        ignore_robots,
        ..CrawlConfig::default()
    };
    let events = crawl_events(&store, cfg, point).await;
    server.abort();
    Crawled {
        _dir: dir,
        store,
        site: addr,
        events,
    }
}

/// Every event of a crawl of `point` into `store`, through its end.
pub(super) async fn crawl_events(
    store: &Arc<Store>,
    cfg: CrawlConfig,
    point: PointId,
) -> Vec<CrawlEvent> {
    let mut handle = crate::crawl::start(store.clone(), cfg, vec![point]).expect("start crawl");
    let mut events = Vec::new();
    while let Some(ev) = handle.events.recv().await {
        let last = matches!(ev, CrawlEvent::Finished(_));
        events.push(ev);
        if last {
            break;
        }
    }
    handle.done.await.expect("crawl task").expect("crawl");
    events
}

impl Crawled {
    fn summary(&self) -> Summary {
        self.events
            .iter()
            .find_map(|e| match e {
                CrawlEvent::Finished(s) => Some(*s),
                _ => None,
            })
            .expect("the crawl finished")
    }
}

/// One pane drawn alone on a `w`×`h` buffer, as text.
pub(super) fn pane(h: &Harness, p: PaneId, w: u16, rows: u16) -> String {
    let area = ratatui::layout::Rect::new(0, 0, w, rows);
    let mut buf = Buffer::empty(area);
    h.app.pane(p).draw(area, &mut buf);
    text(&buf)
}

/// The console after the whole crawl: started, every event in one batch
/// (as the runtime drains them), ended, the store read, and the page the
/// first fetch opened in the graph loaded from the store. Also returns
/// the store's size as the console was told it.
fn console_after(c: &Crawled) -> (Harness, u64) {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    h.tick(0);
    let cmd = h.send(Msg::Engine(c.events.clone()));
    h.send(Msg::CrawlEnded(Ok(())));
    let Some(Command::LoadPage { seq, page }) = cmd else {
        panic!("the first page fetched opens in the graph, got {cmd:?}");
    };
    let view = jobs::page_view(&c.store, page).map_err(|e| e.to_string());
    h.send(Msg::PageLoaded { seq, result: view });
    let snapshot = jobs::snapshot(&c.store).expect("store snapshot");
    let store_bytes = snapshot.store_bytes;
    h.send(Msg::Snapshot(snapshot));
    (h, store_bytes)
}

/// `text` with what differs between runs masked: the site's address, the
/// elapsed time, the store's size, the rate and its sparkline (a sample a
/// second, so its shape depends on the machine's speed, and a second
/// without a fetch, as a loaded machine has, draws a blank), fetch times
/// (right-aligned in the same width, so the columns stay put) and the
/// busiest origin's response-time buckets.
fn stable(text: &str, c: &Crawled, store_bytes: u64) -> String {
    let elapsed = Duration::from_secs_f64(c.summary().elapsed_s.max(0.0));
    let text = text
        .replace(&c.site.to_string(), "127.0.0.1:[port]")
        .replace(&format::clock(elapsed), "[elapsed]")
        .replace(&format::bytes(store_bytes), "[size]");
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim_end_matches(|ch| "▁▂▃▄▅▆▇█ ".contains(ch));
        let mut rest = line;
        while let Some(start) = rest.find(|ch: char| ch != ' ') {
            let (blanks, tail) = rest.split_at(start);
            let end = tail.find(' ').unwrap_or(tail.len());
            let (word, after) = tail.split_at(end);
            let number = |s: &str| !s.is_empty() && s.parse::<f64>().is_ok();
            if word
                .strip_prefix('≤')
                .and_then(|w| w.strip_suffix("ms"))
                .is_some_and(number)
            {
                out.push_str(blanks);
                out.push_str("≤[ms]");
            } else if word.strip_suffix("ms").is_some_and(number) {
                let w = blanks.len() + word.len();
                out.push_str(&format!("{:>w$}", "[ms]"));
            } else if word.strip_suffix("/s").is_some_and(number) {
                out.push_str(blanks);
                out.push_str("[rate]/s");
            } else {
                out.push_str(blanks);
                out.push_str(word);
            }
            rest = after;
        }
        out.push('\n');
    }
    out
}

#[tokio::test]
async fn status_log_and_graph_of_a_real_crawl() {
    let c = crawl_demo().await;
    let fetched = c
        .events
        .iter()
        .filter(|e| matches!(e, CrawlEvent::Fetched(_)))
        .count();
    assert!(fetched >= PAGES as usize, "{:#?}", c.events);
    let (h, store_bytes) = console_after(&c);
    assert_eq!(h.app.run_state(), RunState::Finished);
    let shown = |p, w, rows| stable(&pane(&h, p, w, rows), &c, store_bytes);
    insta::assert_snapshot!("status", shown(PaneId::Status, 200, 2));
    insta::assert_snapshot!("log", shown(PaneId::Log, 140, 48));
    insta::assert_snapshot!("graph", shown(PaneId::Graph, 140, 24));
}

/// A console opened after the crawl has an empty log; its filter still
/// finds every URL of the crawl that matches, read from the store.
#[tokio::test]
async fn the_log_filter_searches_the_whole_crawl() {
    let c = crawl_demo().await;
    let robots_skips = c
        .events
        .iter()
        .filter(|e| matches!(e, CrawlEvent::Skipped { reason, .. } if reason.as_str() == "robots"))
        .count();
    assert!(robots_skips > 0);
    let mut h = Harness::new();
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    h.typing("robots");
    assert_eq!(h.app.log().shown(), 0, "this session saw nothing");
    h.key(KeyCode::Esc);
    let mut cmds = vec![h.tick(0).expect("commands")];
    let mut asked = None;
    while let Some(cmd) = cmds.pop() {
        match cmd {
            Command::LogSearch { seq, terms } => asked = Some((seq, terms)),
            Command::Batch(v) => cmds.extend(v),
            _ => {}
        }
    }
    let (seq, terms) = asked.expect("the filter asks the store");
    let found = jobs::log_matches(&c.store, &terms).map_err(|e| e.to_string());
    h.send(Msg::LogFound { seq, result: found });
    assert_eq!(h.app.log().shown(), robots_skips);
    let screen = h.screen(140, 40);
    assert!(
        screen.contains(&format!("{robots_skips} in the store")),
        "{screen}"
    );
    assert!(screen.contains("disallowed by robots.txt"), "{screen}");
    // "200" is a status: every page fetched, none of the skips.
    let found = jobs::log_matches(&c.store, &["200".to_string()]).expect("store");
    assert_eq!(found.len(), c.summary().fetched as usize);
}

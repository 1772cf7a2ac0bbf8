//! The Points pane shows a point's runs with the figures `runs --json`
//! gives: a point of the demo site on loopback crawled twice by the
//! engine, the console told each crawl ended, its snapshot read by the
//! console's own job, and the runs list drawn.

use std::sync::Arc;

use super::real_crawl::{crawl_events, pane};
use super::*;
use crate::cli::runs::json_rows;
use crate::crawl::CrawlConfig;
use crate::store::Store;
use crate::tui::jobs;

/// A crawl's end as the console sees it, and the snapshot it asks for
/// then, read from `store`.
fn crawl_ends(h: &mut Harness, store: &Store, events: Vec<CrawlEvent>, ms: u64) {
    h.send(Msg::CrawlStarted);
    h.send(Msg::Engine(events));
    h.send(Msg::CrawlEnded(Ok(())));
    let asked = h.tick(ms);
    assert!(
        matches!(&asked, Some(Command::Refresh))
            || matches!(&asked, Some(Command::Batch(c)) if c.contains(&Command::Refresh)),
        "a run's end reads the store again, got {asked:?}"
    );
    h.send(Msg::Snapshot(jobs::snapshot(store).expect("snapshot")));
}

/// The runs list's rows: the lines under the heading that start with a
/// run id.
fn run_rows(screen: &str) -> Vec<Vec<String>> {
    screen
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|w| w.len() >= 8 && w[0].parse::<u32>().is_ok())
        .collect()
}

#[tokio::test]
async fn a_points_runs_show_with_the_figures_runs_json_gives() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&dir.path().join("store")).expect("open store"));
    let (addr, server) = crate::demo::spawn(0, 12).await.expect("serve demo");
    let url = crate::url::parse_start(&format!("http://{addr}/")).expect("start URL");
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).expect("point");
    let cfg = CrawlConfig {
        concurrency: 1,
        per_host: 1,
        ..CrawlConfig::default()
    };
    let mut h = Harness::sized(160, 45);
    h.key(KeyCode::Char('6'));

    let first = crawl_events(&store, cfg.clone(), point).await;
    crawl_ends(&mut h, &store, first, 2_000);
    assert_eq!(h.key(KeyCode::Char('r')), None);
    let drawn = pane(&h, PaneId::Points, 160, 10);
    assert_eq!(run_rows(&drawn).len(), 1, "{drawn}");

    // The list open, a second run's end refreshes it.
    let second = crawl_events(&store, cfg, point).await;
    server.abort();
    crawl_ends(&mut h, &store, second, 4_000);
    let drawn = pane(&h, PaneId::Points, 160, 10);
    let rows = run_rows(&drawn);

    let r = store.read().expect("read");
    let all = crate::runs::newest_first(&r, Some(point)).expect("runs");
    let json = json_rows(&r, all, None).expect("runs --json");
    let json = serde_json::to_value(json).expect("json");
    let json = json.as_array().expect("a list of runs");
    assert_eq!(json.len(), 2);
    assert_eq!(rows.len(), json.len(), "{drawn}");
    for (row, run) in rows.iter().zip(json) {
        let n = |k: &str| run[k].as_u64().expect(k);
        let expected = [
            n("id").to_string(),
            n("point").to_string(),
            run["started_at"].as_str().expect("started").to_string(),
            run["ended"].as_str().expect("ended").to_string(),
            n("fetched").to_string(),
            (n("not_modified") + n("unchanged")).to_string(),
            n("failed").to_string(),
            n("skipped").to_string(),
        ];
        assert_eq!(row[..8], expected, "{drawn}");
    }
    // Newest first, and the second crawl found the site again.
    assert_eq!(json[0]["id"].as_u64(), Some(2));
    assert!(json[1]["fetched"].as_u64() > Some(0), "{json:?}");
    assert!(drawn.contains("304/="), "{drawn}");

    // `r` again gives the points back.
    h.key(KeyCode::Char('r'));
    let drawn = pane(&h, PaneId::Points, 160, 10);
    assert!(!drawn.contains("304/="), "{drawn}");
    assert!(drawn.contains(&addr.to_string()), "{drawn}");
}

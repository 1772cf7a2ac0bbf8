//! The numbers agree: every outcome the engine counts is an event a face
//! shows, reason by reason, and the store holds the same states.

use std::collections::HashMap;
use std::sync::Arc;

use crate::support::{page, Reply, TestServer};
use crawlscope::crawl::{self, CrawlConfig, CrawlEvent, Summary};
use crawlscope::store::prelude::*;
use crawlscope::store::Store;

fn site() -> TestServer {
    let s = TestServer::start();
    crate::support::robots(&s, "User-agent: *\nDisallow: /private\n");
    crate::support::home(
        &s,
        &[
            "a",
            "private",
            "deep/1",
            "skip/x",
            "missing",
            "http://elsewhere.test/",
            "http://elsewhere.test/2",
        ],
    );
    s.route("/a", Reply::Respond(page("A", "alpha", &["/deep/1"])));
    s.route("/deep/1", Reply::Respond(page("D1", "one", &["/deep/2"])));
    s.route("/deep/2", Reply::Respond(page("D2", "two", &["/deep/3"])));
    s
}

/// Runs the engine in this process and returns every event and the summary.
fn crawl_events(db: &std::path::Path, url: &str) -> (Vec<CrawlEvent>, Summary) {
    let store = Arc::new(Store::open(db).unwrap());
    let mut rec = crawlscope::points::new_record(&crawlscope::url::parse_start(url).unwrap());
    rec.depth = Some(2);
    rec.excludes = vec![format!("{url}skip/")];
    let (id, _) = crawlscope::points::add(&store, rec).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async move {
        let mut h = crawl::start(store, CrawlConfig::default(), vec![id]).unwrap();
        let mut events = Vec::new();
        while let Some(e) = h.events.recv().await {
            if matches!(e, CrawlEvent::Finished(_)) {
                break;
            }
            events.push(e);
        }
        (events, h.done.await.unwrap().unwrap())
    })
}

#[test]
fn counts_events_and_store_agree_reason_by_reason() {
    let s = site();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let (events, sum) = crawl_events(&db, &s.base());
    let mut skipped: HashMap<&str, u64> = HashMap::new();
    let (mut ok, mut failed) = (0, 0);
    for e in &events {
        match e {
            CrawlEvent::Fetched(f) if f.status < 300 => ok += 1,
            CrawlEvent::Fetched(_) | CrawlEvent::Failed { .. } => failed += 1,
            CrawlEvent::Skipped { reason, .. } => *skipped.entry(reason.as_str()).or_default() += 1,
            _ => {}
        }
    }
    // home, a, deep/1, deep/2 (deep/3 is depth 3); /missing is a 404.
    assert_eq!((sum.fetched, ok), (4, 4), "{sum:?}");
    assert_eq!((sum.failed, failed), (1, 1), "{sum:?}");
    let by = |r: &str| skipped.get(r).copied().unwrap_or(0);
    assert_eq!((sum.skipped_robots, by("robots")), (1, 1), "{sum:?}");
    assert_eq!((sum.out_of_scope, by("out_of_scope")), (2, 2), "{sum:?}");
    assert_eq!((sum.excluded, by("excluded")), (1, 1), "{sum:?}");
    assert_eq!((sum.too_deep, by("too_deep")), (1, 1), "{sum:?}");

    let store = Store::open(&db).unwrap();
    let counts = store.read().unwrap().state_counts().unwrap();
    assert_eq!(counts.done, 4);
    assert_eq!(counts.failed, 1);
    assert_eq!(counts.skipped, 5);
}

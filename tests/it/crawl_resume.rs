//! Resume and sharing: a crawler killed with SIGKILL or stopped with Ctrl-C
//! in the middle of a crawl loses nothing it committed, and the next run
//! finishes the site to the exact page; two crawlers on one store share the
//! frontier, both get work, and no page is fetched twice.

use std::path::Path;
use std::process::Child;

use crate::support::crawl::*;
use crawlscope::demo::DemoSite;
use crawlscope::store::prelude::*;

const PAGES: u32 = 1500;

/// Asserts that a signal sent now hits a crawl under way: the store shows
/// work left and the child is still running.
fn assert_under_way(db: &Path, child: &mut Child, total: u64) {
    let st = store(db);
    let r = st.read().unwrap();
    let counts = r.state_counts().unwrap();
    assert!(counts.done < total, "all {total} pages were already done");
    assert!(
        r.frontier_len().unwrap() + counts.claimed > 0,
        "nothing was left to fetch"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "the crawler had already ended"
    );
}

/// Asserts that the store holds the whole demo site, each document once.
fn assert_complete(db: &Path, total: u64) {
    assert_eq!(done_count(db), total);
    assert_eq!(store(db).read().unwrap().page_count().unwrap(), total);
    assert_whole(db);
}

#[test]
fn sigkill_loses_nothing_committed_and_the_next_run_resumes() {
    let demo = serve_demo(PAGES);
    let total = documents(&DemoSite::new(PAGES));
    let db = tempfile::tempdir().unwrap();
    // Slowed like the Ctrl-C test, so the kill always lands mid-crawl.
    let mut child = crawl_child(
        db.path(),
        &[&demo.1, "--concurrency", "8", "--delay-ms", "5"],
    );
    wait_for_done(db.path(), &mut child, 200);
    assert_under_way(db.path(), &mut child, total);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let committed = done_count(db.path());
    assert!(committed >= 200);
    assert!(committed < total, "the kill came after the crawl's end");

    let sum = crawl_ok(db.path(), &[]);
    assert_eq!(
        committed + sum["fetched"].as_u64().unwrap(),
        total,
        "pages committed before the kill were fetched again, or some never"
    );
    assert_complete(db.path(), total);
}

#[test]
fn two_crawlers_share_one_store_without_fetching_a_page_twice() {
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let total = documents(&site);
    let db = tempfile::tempdir().unwrap();
    let a = crawl_child(db.path(), &[&server.base(), "--concurrency", "8"]);
    let b = crawl_child(db.path(), &[&server.base(), "--concurrency", "8"]);
    let mut fetched = 0;
    for (name, child) in [("a", a), ("b", b)] {
        let n = summary(&child.wait_with_output().unwrap())["fetched"]
            .as_u64()
            .unwrap();
        assert!(n > 0, "crawler {name} fetched nothing");
        fetched += n;
    }
    assert_eq!(
        fetched_more_than_once(&server),
        vec![],
        "pages fetched by both crawlers"
    );
    assert_eq!(fetched, total);
    assert_complete(db.path(), total);
}

#[test]
fn ctrl_c_stops_gracefully_and_leaves_no_claim_behind() {
    let demo = serve_demo(PAGES);
    let total = documents(&DemoSite::new(PAGES));
    let db = tempfile::tempdir().unwrap();
    // 5 ms between requests: the whole crawl takes over 8 s, so a loaded
    // machine cannot finish it between the check below and the signal
    // (at full speed it sometimes did: a test of nothing).
    let mut child = crawl_child(
        db.path(),
        &[&demo.1, "--concurrency", "8", "--delay-ms", "5"],
    );
    wait_for_done(db.path(), &mut child, 100);
    assert_under_way(db.path(), &mut child, total);
    // SAFETY: sending SIGINT to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let sum = summary(&child.wait_with_output().unwrap());
    let stopped_at = done_count(db.path());
    assert_eq!(
        sum["fetched"].as_u64().unwrap(),
        stopped_at,
        "everything fetched was committed"
    );
    assert!(stopped_at < total, "the crawl ended before it was stopped");
    let st = store(db.path());
    let r = st.read().unwrap();
    assert!(r.claims().unwrap().is_empty(), "claims were left behind");
    assert!(
        r.frontier_len().unwrap() > 0,
        "what was not fetched is not back in the queue"
    );
    drop(r);
    drop(st);
    assert_whole(db.path());
    let rest = crawl_ok(db.path(), &[]);
    assert_eq!(stopped_at + rest["fetched"].as_u64().unwrap(), total);
    assert_complete(db.path(), total);
}

//! Resume and sharing: a crawler killed with SIGKILL loses nothing it
//! committed and the next run goes on from there; two crawlers on one store
//! share the frontier and never fetch the same page twice.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crawlscope::store::prelude::*;

fn done_count(db: &Path) -> u64 {
    store(db).read().unwrap().state_counts().unwrap().done
}

/// Polls the store (a crawler in another process writes it) until `n`
/// pages are done, within a minute.
fn wait_for_done(db: &Path, n: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while done_count(db) < n {
        assert!(Instant::now() < deadline, "the crawl made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn crawl_child(db: &Path, args: &[&str]) -> Command {
    let mut c = crate::support::crawlscope();
    c.arg("--db").arg(db).args(["crawl", "--json"]).args(args);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

#[test]
fn sigkill_loses_nothing_committed_and_the_next_run_resumes() {
    let demo = serve_demo(1500);
    let db = tempfile::tempdir().unwrap();
    let mut child = crawl_child(db.path(), &[&demo.1, "--concurrency", "8"])
        .spawn()
        .unwrap();
    wait_for_done(db.path(), 200);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let committed = done_count(db.path());
    assert!(committed >= 200);

    let sum = crawl_ok(db.path(), &[]);
    let total = done_count(db.path());
    assert_eq!(
        committed + sum["fetched"].as_u64().unwrap(),
        total,
        "pages committed before the kill were fetched again"
    );
    let html_pages = store(db.path()).read().unwrap().page_count().unwrap();
    assert!(html_pages >= 1500, "only {html_pages} pages stored");
    assert_whole(db.path());
}

#[test]
fn two_crawlers_share_one_store_without_fetching_a_page_twice() {
    let demo = serve_demo(1500);
    let db = tempfile::tempdir().unwrap();
    let a = crawl_child(db.path(), &[&demo.1, "--concurrency", "8"])
        .spawn()
        .unwrap();
    let b = crawl_child(db.path(), &[&demo.1, "--concurrency", "8"])
        .spawn()
        .unwrap();
    let mut fetched = 0;
    for child in [a, b] {
        fetched += summary(&child.wait_with_output().unwrap())["fetched"]
            .as_u64()
            .unwrap();
    }
    assert_eq!(
        fetched,
        done_count(db.path()),
        "some page was fetched by both crawlers"
    );
    assert!(store(db.path()).read().unwrap().page_count().unwrap() >= 1500);
    assert_whole(db.path());
}

#[test]
fn ctrl_c_stops_gracefully_and_leaves_no_claim_behind() {
    let demo = serve_demo(1500);
    let db = tempfile::tempdir().unwrap();
    let child = crawl_child(db.path(), &[&demo.1, "--concurrency", "8"])
        .spawn()
        .unwrap();
    wait_for_done(db.path(), 100);
    // SAFETY: sending SIGINT to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let sum = summary(&child.wait_with_output().unwrap());
    let stopped_at = done_count(db.path());
    assert_eq!(
        sum["fetched"].as_u64().unwrap(),
        stopped_at,
        "everything fetched was committed"
    );
    let st = store(db.path());
    assert!(
        st.read().unwrap().claims().unwrap().is_empty(),
        "claims were left behind"
    );
    drop(st);
    assert_whole(db.path());
    let rest = crawl_ok(db.path(), &[]);
    assert_eq!(
        stopped_at + rest["fetched"].as_u64().unwrap(),
        done_count(db.path())
    );
}

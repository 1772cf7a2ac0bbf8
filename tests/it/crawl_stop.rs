//! A stop is not held up by what a site asked: Ctrl-C while a URL waits
//! out a `Retry-After` pause (of the page or of robots.txt) or a robots
//! `Crawl-delay` gap ends the crawl at once, the waiting URL goes back to
//! the queue (no claim left, the store whole) and the next crawl fetches
//! it. The console's stop is the same command to the engine, and ends the
//! same wait as soon.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crate::support::{home, on_store, page, Reply, Resp, TestServer};
use crawlscope::crawl::{self, CrawlCommand, CrawlConfig, CrawlEvent};
use crawlscope::store::prelude::*;
use crawlscope::store::Store;

/// Far longer than the test may take: a crawl that waits it out fails.
const LONG: &str = "600";
/// How long a stopped crawl may take to end on a loaded machine (the
/// bound asked is one second; a debug build on shared cores gets slack).
const STOP_WITHIN: Duration = Duration::from_secs(2);

/// Waits until the server has answered `path` once, then a little more
/// so the crawler has read the answer and is waiting.
fn wait_for_answer(s: &TestServer, path: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !s
        .requests()
        .iter()
        .any(|r| r.path == path && r.answered.is_some())
    {
        assert!(Instant::now() < deadline, "{path} was never asked for");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
}

/// Sends SIGINT to a crawl waiting on the site; asserts it ends soon,
/// gracefully, with `url` back in the queue and the store whole.
fn interrupt_and_check(db: &Path, mut child: std::process::Child, url: &str) {
    assert!(
        child.try_wait().unwrap().is_none(),
        "the crawl ended before it was stopped"
    );
    let sent = Instant::now();
    // SAFETY: sending SIGINT to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let ended = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the crawl was still running 15 s after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    assert!(took < STOP_WITHIN, "the crawl took {took:?} to stop");
    assert!(ended.success(), "a graceful stop exits 0: {ended:?}");
    let st = store(db);
    let r = st.read().unwrap();
    assert!(r.claims().unwrap().is_empty(), "claims were left behind");
    drop(r);
    drop(st);
    assert_eq!(state(db, url).as_deref(), Some("queued"));
    assert_whole(db);
    let check = on_store(db, &["check"]);
    assert!(
        check.status.success(),
        "check: {}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// A home linking `/a`, which first answers 429 asking for a long pause,
/// then the page.
fn throttled_site() -> TestServer {
    let s = TestServer::start();
    home(&s, &["a"]);
    s.route(
        "/a",
        Reply::Sequence(vec![
            Reply::Respond(Resp::status(429).header("Retry-After", LONG)),
            Reply::Respond(page("A", "alpha", &[])),
        ]),
    );
    s
}

#[test]
fn ctrl_c_ends_a_retry_after_wait_and_the_url_is_fetched_later() {
    let s = throttled_site();
    let db = tempfile::tempdir().unwrap();
    let child = crawl_child(db.path(), &[&s.base(), "--no-sitemaps"]);
    wait_for_answer(&s, "/a");
    interrupt_and_check(db.path(), child, &s.url("a"));

    let sum = crawl_ok(db.path(), &[]);
    assert_eq!(sum["fetched"], 1, "{sum}");
    assert_eq!(state(db.path(), &s.url("a")).as_deref(), Some("done"));
    assert_eq!(s.hits("/a"), 2);
}

#[test]
fn ctrl_c_ends_a_crawl_delay_wait_and_the_url_is_fetched_later() {
    let s = TestServer::start();
    crate::support::robots(&s, "User-agent: *\nCrawl-delay: 60\n");
    home(&s, &["a"]);
    s.route("/a", Reply::Respond(page("A", "alpha", &[])));
    let db = tempfile::tempdir().unwrap();
    let child = crawl_child(db.path(), &[&s.base(), "--no-sitemaps"]);
    wait_for_answer(&s, "/");
    interrupt_and_check(db.path(), child, &s.url("a"));
    assert_eq!(s.hits("/a"), 0, "the gap was not kept");

    // A new run's first request need not wait: /a is fetched at once.
    let sum = crawl_ok(db.path(), &[]);
    assert_eq!(sum["fetched"], 1, "{sum}");
    assert_eq!(state(db.path(), &s.url("a")).as_deref(), Some("done"));
}

#[test]
fn the_console_s_stop_ends_a_retry_after_wait_too() {
    let s = throttled_site();
    let db = tempfile::tempdir().unwrap();
    let st = Arc::new(Store::open(db.path()).unwrap());
    let mut rec = crawlscope::points::new_record(&crawlscope::url::parse_start(&s.base()).unwrap());
    rec.no_sitemaps = true;
    let (id, _) = crawlscope::points::add(&st, rec).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let took = rt.block_on(async move {
        let mut h = crawl::start(st, CrawlConfig::default(), vec![id]).unwrap();
        while let Some(e) = h.events.recv().await {
            if matches!(e, CrawlEvent::OriginThrottled { .. }) {
                break;
            }
        }
        // What the console's `s` (and its quit) sends.
        h.commands.send(CrawlCommand::Stop).unwrap();
        let sent = Instant::now();
        tokio::time::timeout(Duration::from_secs(15), h.done)
            .await
            .expect("the crawl was still running 15 s after the stop")
            .unwrap()
            .unwrap();
        sent.elapsed()
    });
    assert!(took < STOP_WITHIN, "the crawl took {took:?} to stop");
    assert!(store(db.path())
        .read()
        .unwrap()
        .claims()
        .unwrap()
        .is_empty());
    assert_eq!(state(db.path(), &s.url("a")).as_deref(), Some("queued"));
}

#[test]
fn ctrl_c_ends_a_robots_txt_retry_after_wait() {
    let s = TestServer::start();
    s.route(
        "/robots.txt",
        Reply::Sequence(vec![
            Reply::Respond(Resp::status(429).header("Retry-After", LONG)),
            Reply::Respond(Resp::text("User-agent: *\nAllow: /\n")),
        ]),
    );
    home(&s, &[]);
    let db = tempfile::tempdir().unwrap();
    let child = crawl_child(db.path(), &[&s.base(), "--no-sitemaps"]);
    wait_for_answer(&s, "/robots.txt");
    interrupt_and_check(db.path(), child, &s.base());
    assert_eq!(s.hits("/"), 0, "the pause was not kept");
}

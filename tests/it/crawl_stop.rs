//! A stop is not held up by what a site asked: Ctrl-C while a URL waits
//! out a `Retry-After` pause (of the page or of robots.txt) or a robots
//! `Crawl-delay` gap ends the crawl at once, the waiting URL goes back to
//! the queue (no claim left, the store whole) and the next crawl fetches
//! it. The console's stop is the same command to the engine, and ends the
//! same wait as soon.
//!
//! "At once" is observed by events, not by a machine's speed: the stop
//! comes once the crawler is in the wait (it said it was throttled, or it
//! holds the URL's claim with the gap still to run), the crawl ends while
//! that wait has minutes left, and the site hears nothing after the stop.

use std::path::Path;
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crate::support::{home, on_store, page, Reply, Resp, TestServer};
use crawlscope::crawl::{self, CrawlCommand, CrawlConfig, CrawlEvent};
use crawlscope::store::prelude::*;
use crawlscope::store::Store;

/// Far longer than the test may take: a crawl that waits it out fails.
const LONG: &str = "600";
/// How long a stopped crawl may take to end: ten times the second a stop
/// is meant to take, so a loaded machine never trips it, and still a
/// sixth of the shortest wait a stop must cut (the 60 s gap).
const STOP_WITHIN: Duration = Duration::from_secs(10);
/// What the crawl says once it has read the 429 and waits out its pause.
const THROTTLED: &str = "nothing sent to it for 600s";

/// Sends SIGINT to a crawl waiting on the site; asserts it ends gracefully
/// without a request more, with `url` back in the queue and the store whole.
fn interrupt_and_check(db: &Path, s: &TestServer, mut child: Child, url: &str) {
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
        if sent.elapsed() > STOP_WITHIN {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the crawl was still running {STOP_WITHIN:?} after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(ended.success(), "a graceful stop exits 0: {ended:?}");
    assert_nothing_asked_since(s, sent);
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

/// Nothing was on the wire when the crawl was stopped in its wait, so
/// whatever reached the site after the stop was started because of it.
fn assert_nothing_asked_since(s: &TestServer, stopped: Instant) {
    let after: Vec<String> = s
        .requests()
        .into_iter()
        .filter(|r| r.arrived >= stopped)
        .map(|r| r.path)
        .collect();
    assert!(after.is_empty(), "asked after the stop: {after:?}");
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
    let mut child = crawl_child(db.path(), &[&s.base(), "--no-sitemaps"]);
    wait_for_line(&stderr_lines(&mut child), THROTTLED);
    interrupt_and_check(db.path(), &s, child, &s.url("a"));

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
    let mut child = crawl_child(db.path(), &[&s.base(), "--no-sitemaps"]);
    // Claimed and not asked for: the crawler waits out the gap.
    wait_for_claim(db.path(), &mut child, &s.url("a"));
    interrupt_and_check(db.path(), &s, child, &s.url("a"));
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
    let sent = rt.block_on(async move {
        let mut h = crawl::start(st, CrawlConfig::default(), vec![id]).unwrap();
        while let Some(e) = h.events.recv().await {
            if matches!(e, CrawlEvent::OriginThrottled { .. }) {
                break;
            }
        }
        // What the console's `s` (and its quit) sends.
        let sent = Instant::now();
        h.commands.send(CrawlCommand::Stop).unwrap();
        tokio::time::timeout(STOP_WITHIN, h.done)
            .await
            .expect("the crawl was still running long after the stop")
            .unwrap()
            .unwrap();
        sent
    });
    assert_nothing_asked_since(&s, sent);
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
    let mut child = crawl_child(db.path(), &[&s.base(), "--no-sitemaps"]);
    wait_for_line(&stderr_lines(&mut child), THROTTLED);
    interrupt_and_check(db.path(), &s, child, &s.base());
    assert_eq!(s.hits("/"), 0, "the pause was not kept");
}

//! A site that says "slow down" is obeyed: a 429 with `Retry-After` pauses
//! its origin for the time asked (the server records when each request
//! arrived), the URL is retried and stored once, not failed; a site that
//! never stops throttling fails the URL with a reason that says so. The
//! origin's figures (requests, ok, failed, throttled, response times) are
//! kept in the store.

use std::time::Duration;

use crate::support::crawl::*;
use crate::support::{home, page, peak_in_flight, Reply, Resp, TestServer};
use crawlscope::store::prelude::*;

fn too_many(retry_after: &str) -> Reply {
    Reply::Respond(Resp::status(429).header("Retry-After", retry_after))
}

fn origin_of(s: &TestServer) -> String {
    s.base().trim_end_matches('/').to_string()
}

#[test]
fn a_429_with_retry_after_pauses_the_origin_and_the_url_is_retried() {
    let s = TestServer::start();
    home(&s, &["a", "b", "c"]);
    s.route(
        "/a",
        Reply::Sequence(vec![too_many("2"), Reply::Respond(page("A", "a", &[]))]),
    );
    s.route("/b", Reply::Respond(page("B", "b", &[])));
    s.route("/c", Reply::Respond(page("C", "c", &[])));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    // One request at a time, so the next one after the 429 can only start
    // once the crawler has read it.
    let sum = crawl_ok(&db, &[&s.base(), "--per-host", "1", "--no-sitemaps"]);
    assert_eq!(sum["fetched"], 4, "{sum}");
    assert_eq!(sum["failed"], 0, "{sum}");
    assert_eq!(sum["throttled"], 1, "{sum}");
    assert_eq!(s.hits("/a"), 2, "retried once");
    assert_eq!(state(&db, &s.url("a")).as_deref(), Some("done"));
    assert_eq!(stored_page(&db, &s.url("a")).unwrap().status, 200);

    let reqs = s.requests();
    let throttled = reqs.iter().find(|r| r.path == "/a").unwrap();
    let answered = throttled.answered.expect("the 429 was answered");
    let after: Vec<_> = reqs.iter().filter(|r| r.arrived > answered).collect();
    assert!(!after.is_empty(), "nothing was requested after the 429");
    for r in after {
        assert!(
            r.arrived - answered >= Duration::from_secs(2),
            "{} arrived {:?} after the 429",
            r.path,
            r.arrived - answered
        );
    }

    let st = store(&db);
    let figures = st.read().unwrap().origin_figures().unwrap();
    let (origin, f) = figures
        .iter()
        .find(|(o, _)| *o == origin_of(&s))
        .expect("figures of the site");
    // `/`, `/a` twice, `/b`, `/c` (robots.txt is not a page request).
    assert_eq!(
        (f.requests, f.ok, f.failed, f.throttled),
        (5, 4, 0, 1),
        "{origin}: {f:?}"
    );
    assert!(f.p50_ms().is_some() && f.p90_ms() >= f.p50_ms());
}

#[test]
fn a_throttle_halves_the_requests_in_flight_to_the_origin() {
    let s = TestServer::start();
    // The home links only the four first pages, so all four are in flight
    // together whatever order the queue hands them out in; the twelve
    // others are found on three of them, so they are requested only after
    // the crawler knew of the 429.
    home(&s, &["t", "b0", "b1", "b2"]);
    let slow: Vec<String> = (0..12).map(|i| format!("slow/{i}")).collect();
    for (b, found) in slow.chunks(4).enumerate() {
        let links: Vec<&str> = found.iter().map(String::as_str).collect();
        let path = format!("/b{b}");
        s.route(
            &path,
            Reply::Delay(Duration::from_millis(400), page(&path, "slow", &links)),
        );
    }
    for p in &slow {
        let path = format!("/{p}");
        s.route(
            &path,
            Reply::Delay(Duration::from_millis(400), page(p, "slow", &[])),
        );
    }
    // Quicker than the three others, so it answers while they are in flight.
    let throttle = Resp::status(429).header("Retry-After", "0");
    s.route(
        "/t",
        Reply::Sequence(vec![
            Reply::Delay(Duration::from_millis(100), throttle),
            Reply::Respond(page("t", "slow", &[])),
        ]),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let sum = crawl_ok(&db, &[&s.base(), "--per-host", "4", "--no-sitemaps"]);
    assert_eq!(sum["fetched"], 17, "{sum}");
    let reqs = s.requests();
    let answered = reqs
        .iter()
        .find(|r| r.path == "/t")
        .and_then(|r| r.answered)
        .unwrap();
    let (before, after): (Vec<_>, Vec<_>) = reqs
        .iter()
        .filter(|r| r.path != "/robots.txt" && r.path != "/")
        .cloned()
        .partition(|r| r.arrived <= answered);
    assert_eq!(peak_in_flight(&before), 4, "the cap was reached before");
    assert_eq!(after.len(), 13, "the retry and the twelve found later");
    // Fewer than 20 answers follow: the halved limit never grows back.
    assert_eq!(peak_in_flight(&after), 2, "after the 429");
}

#[test]
fn an_origin_that_never_stops_throttling_fails_the_url_saying_so() {
    let s = TestServer::start();
    home(&s, &["busy"]);
    s.route("/busy", too_many("0"));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let sum = crawl_ok(&db, &[&s.base(), "--no-sitemaps"]);
    assert_eq!(sum["failed"], 1, "{sum}");
    assert_eq!(sum["throttled"], 6, "{sum}");
    assert_eq!(s.hits("/busy"), 6, "the first try and five waits");
    let p = crate::support::json_of(&db, &["page", &s.url("busy"), "--json"]);
    assert_eq!(p["state"], "failed");
    assert_eq!(
        p["reason"],
        "throttled: 429 Too Many Requests after 5 waits (Retry-After honoured)"
    );
}

#[test]
fn a_bare_503_is_an_error_and_a_503_with_retry_after_a_throttle() {
    let s = TestServer::start();
    home(&s, &["down", "busy"]);
    s.route("/down", Reply::Respond(Resp::status(503)));
    s.route(
        "/busy",
        Reply::Sequence(vec![
            Reply::Respond(Resp::status(503).header("Retry-After", "0")),
            Reply::Respond(page("Busy", "busy", &[])),
        ]),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let sum = crawl_ok(&db, &[&s.base(), "--no-sitemaps"]);
    assert_eq!(sum["throttled"], 1, "{sum}");
    assert_eq!(state(&db, &s.url("busy")).as_deref(), Some("done"));
    // Retried twice as any 5xx is, then recorded as the error it is.
    assert_eq!(s.hits("/down"), 3);
    let p = crate::support::json_of(&db, &["page", &s.url("down"), "--json"]);
    assert_eq!(p["reason"], "Service Unavailable");
}

#[test]
fn a_paused_origin_does_not_hold_the_slots_other_origins_need() {
    let a = TestServer::start();
    let b = TestServer::start();
    let a_paths: Vec<String> = (0..8).map(|i| format!("/a/{i}")).collect();
    let b_paths: Vec<String> = (0..8).map(|i| format!("/b/{i}")).collect();
    home(&a, &a_paths.iter().map(String::as_str).collect::<Vec<_>>());
    // B's links are known only after A's 429 (B's home is slow), so every
    // B page is due while A is paused.
    let b_links: Vec<&str> = b_paths.iter().map(String::as_str).collect();
    b.route(
        "/",
        Reply::Delay(Duration::from_millis(400), page("B", "b", &b_links)),
    );
    a.route(
        "/a/0",
        Reply::Sequence(vec![too_many("3"), Reply::Respond(page("A0", "a", &[]))]),
    );
    for p in &a_paths[1..] {
        a.route(p, Reply::Respond(page("A", "a", &[])));
    }
    for p in &b_paths {
        b.route(
            p,
            Reply::Delay(Duration::from_millis(50), page("B", "b", &[])),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let sum = crawl_ok(
        &db,
        &[
            &a.base(),
            &b.base(),
            "--concurrency",
            "2",
            "--no-sitemaps",
            "--ignore-robots",
        ],
    );
    assert_eq!(sum["fetched"], 18, "{sum}");
    let throttled = a.requests().into_iter().find(|r| r.path == "/a/0").unwrap();
    let paused_from = throttled.answered.expect("the 429 was answered");
    let paused_to = paused_from + Duration::from_millis(2_800);
    let during = b
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/b/") && r.arrived > paused_from && r.arrived < paused_to)
        .count();
    // Both slots free for B while A waits: B's pages (50 ms each) all fit
    // in A's pause. Workers waiting on A held both slots before.
    let b_left = b_paths.len()
        - b.requests()
            .iter()
            .filter(|r| r.path.starts_with("/b/") && r.arrived <= paused_from)
            .count();
    assert!(
        b_left > 2,
        "B was nearly done before the 429: test of nothing"
    );
    assert_eq!(during, b_left, "B's requests during A's pause");
}

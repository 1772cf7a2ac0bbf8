//! A site that says "slow down" is obeyed: a 429 with `Retry-After` pauses
//! its origin for the time asked (the server records when each request
//! arrived), the URL is retried and stored once, not failed; a site that
//! never stops throttling fails the URL with a reason that says so. The
//! origin's figures (requests, ok, failed, throttled, response times) are
//! kept in the store.

use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crate::support::{home, page, peak_in_flight, Gate, Reply, Resp, TestServer};
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
    // The home links only the four first pages; `/t`'s 429 waits until
    // the three others have arrived, so all four are in flight together
    // however slowly the crawler sends them. The three answer only once
    // the crawler said it was throttled, and the twelve pages they link
    // are found only then.
    home(&s, &["t", "b0", "b1", "b2"]);
    let (throttle_gate, found_gate) = (Gate::default(), Gate::default());
    let slow: Vec<String> = (0..12).map(|i| format!("slow/{i}")).collect();
    for (b, found) in slow.chunks(4).enumerate() {
        let links: Vec<&str> = found.iter().map(String::as_str).collect();
        let path = format!("/b{b}");
        s.route(
            &path,
            Reply::Held(found_gate.clone(), page(&path, "slow", &links)),
        );
    }
    // Slow, so that those let through together overlap.
    for p in &slow {
        let path = format!("/{p}");
        s.route(
            &path,
            Reply::Delay(Duration::from_millis(400), page(p, "slow", &[])),
        );
    }
    let throttle = Resp::status(429).header("Retry-After", "0");
    s.route(
        "/t",
        Reply::Sequence(vec![
            Reply::Held(throttle_gate.clone(), throttle),
            Reply::Respond(page("t", "slow", &[])),
        ]),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let mut child = crawl_child(&db, &[&s.base(), "--per-host", "4", "--no-sitemaps"]);
    let lines = stderr_lines(&mut child);
    wait_for_arrivals(&s, &["/t", "/b0", "/b1", "/b2"]);
    throttle_gate.open();
    wait_for_line(&lines, "fewer requests at once");
    found_gate.open();
    let sum = summary(&child.wait_with_output().unwrap());
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

/// Waits (a minute at most, a guard against a hang) until the server has
/// seen a request for each of `paths`.
fn wait_for_arrivals(s: &TestServer, paths: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !paths.iter().all(|p| s.hits(p) > 0) {
        assert!(
            Instant::now() < deadline,
            "never asked for all of {paths:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
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
    // B's home answers once the crawler said A paused it, so every B page
    // is due while A is paused; and A's pause outlasts the test: B's pages
    // are fetched within it or never.
    let b_links: Vec<&str> = b_paths.iter().map(String::as_str).collect();
    let b_home = Gate::default();
    b.route("/", Reply::Held(b_home.clone(), page("B", "b", &b_links)));
    a.route(
        "/a/0",
        Reply::Sequence(vec![too_many("600"), Reply::Respond(page("A0", "a", &[]))]),
    );
    for p in &a_paths[1..] {
        a.route(p, Reply::Respond(page("A", "a", &[])));
    }
    for p in &b_paths {
        b.route(p, Reply::Respond(page("B", "b", &[])));
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let mut child = crawl_child(
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
    let lines = stderr_lines(&mut child);
    wait_for_line(&lines, "nothing sent to it for 600s");
    b_home.open();
    // Workers waiting on A held both slots before: B's pages waited for
    // A's pause, here for ten minutes.
    let b_done = || {
        b_paths
            .iter()
            .all(|p| state(&db, &b.url(p)).as_deref() == Some("done"))
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !b_done() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let fetched_b = b_done();
    // SAFETY: sending SIGINT to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    assert!(fetched_b, "B's pages were not fetched while A was paused");
    assert!(out.status.success(), "a stopped crawl exits 0: {out:?}");
    assert_eq!(a.hits("/a/0"), 1, "A's pause was not kept");
    assert_eq!(state(&db, &a.url("/a/0")).as_deref(), Some("queued"));
}

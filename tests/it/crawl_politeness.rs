//! Per-host politeness end to end: the real binary against loopback servers
//! that record when each request arrived and when it was answered. Checked:
//! `--per-host` caps the requests in flight to one origin (and is reached,
//! so an ignored cap would show), the cap is per origin, and request starts
//! to one origin keep the `--delay-ms` gap and robots' `Crawl-delay`.
//! Assertions are on counts and lower bounds of arrivals (`assert_spaced`),
//! never on upper time bounds.

use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crate::support::{assert_spaced, page, peak_in_flight, Recorded, Reply, TestServer};

/// A server whose home links to `n` pages that each take `slow` to answer,
/// so that requests to it overlap when the crawler lets them.
fn slow_site(n: usize, slow: Duration) -> TestServer {
    let s = TestServer::start();
    let paths: Vec<String> = (0..n).map(|i| format!("/slow/{i}")).collect();
    let links: Vec<&str> = paths.iter().map(String::as_str).collect();
    crate::support::home(&s, &links);
    for p in &paths {
        s.route(p, Reply::Delay(slow, page(p, "slow page", &[])));
    }
    s
}

/// The requests through the politeness gate: pages and sitemaps (robots.txt
/// is fetched outside it).
fn page_requests(s: &TestServer) -> Vec<Recorded> {
    s.requests()
        .into_iter()
        .filter(|r| r.path != "/robots.txt")
        .collect()
}

/// When each of them arrived.
fn arrivals(reqs: &[Recorded]) -> Vec<Instant> {
    reqs.iter().map(|r| r.arrived).collect()
}

#[test]
fn per_host_caps_the_requests_in_flight_to_one_origin() {
    let s = slow_site(12, Duration::from_millis(300));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(
        db.path(),
        &[&s.base(), "--per-host", "3", "--concurrency", "16"],
    );
    assert_eq!(sum["fetched"], 13);
    // Twelve pages of 300 ms each and room for sixteen: only the cap can
    // hold the overlap at three, and nothing can keep it below.
    assert_eq!(peak_in_flight(&page_requests(&s)), 3);
}

#[test]
fn the_per_host_cap_is_per_origin_not_global() {
    let a = slow_site(8, Duration::from_millis(300));
    let b = slow_site(8, Duration::from_millis(300));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(
        db.path(),
        &[
            &a.base(),
            &b.base(),
            "--per-host",
            "2",
            "--concurrency",
            "16",
        ],
    );
    assert_eq!(sum["fetched"], 18);
    let (a, b) = (page_requests(&a), page_requests(&b));
    assert_eq!(peak_in_flight(&a), 2, "origin A");
    assert_eq!(peak_in_flight(&b), 2, "origin B");
    let both: Vec<Recorded> = a.into_iter().chain(b).collect();
    assert!(
        peak_in_flight(&both) > 2,
        "the two origins never had requests in flight at once"
    );
}

#[test]
fn delay_ms_spaces_request_starts_to_one_origin() {
    let s = TestServer::start();
    let links = ["/1", "/2", "/3", "/4", "/5"];
    crate::support::home(&s, &links);
    for p in links {
        s.route(p, Reply::Respond(page(p, "quick page", &[])));
    }
    let db = tempfile::tempdir().unwrap();
    let since = Instant::now();
    let sum = crawl_ok(
        db.path(),
        &[&s.base(), "--delay-ms", "200", "--per-host", "4"],
    );
    assert_eq!(sum["fetched"], 6);
    let asked = arrivals(&page_requests(&s));
    // Six pages and /sitemap.xml, read through the same gate.
    assert_eq!(asked.len(), 7);
    assert_spaced("--delay-ms 200", asked, Duration::from_millis(200), since);
}

#[test]
fn robots_crawl_delay_spaces_request_starts() {
    let s = TestServer::start();
    crate::support::robots(&s, "User-agent: *\nCrawl-delay: 1\n");
    crate::support::home(&s, &["/1", "/2"]);
    s.route("/1", Reply::Respond(page("1", "quick page", &[])));
    s.route("/2", Reply::Respond(page("2", "quick page", &[])));
    let db = tempfile::tempdir().unwrap();
    let since = Instant::now();
    let sum = crawl_ok(db.path(), &[&s.base(), "--per-host", "4"]);
    assert_eq!(sum["fetched"], 3);
    let asked = arrivals(&page_requests(&s));
    // Three pages and /sitemap.xml, read through the same gate.
    assert_eq!(asked.len(), 4);
    assert_spaced("Crawl-delay: 1", asked, Duration::from_secs(1), since);
}

//! What one crawler knows, shared by every crawler of a `--frontier`: of
//! an origin, `--per-host` as the cluster's bound, a Retry-After pause and
//! robots.txt's answer; of a point, the run's `--max-pages`; and the
//! points themselves, one added mid-crawl. Real crawler processes, a real
//! `redis-server`, and the recording test servers' logs as the judge.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use crawlscope::demo::DemoSite;

use crate::support::crawl::{crawl_child, serve_site, state, summary};
use crate::support::redis::RedisServer;
use crate::support::{crawlscope, home, page, peak_in_flight, Gate, Reply, Resp, TestServer};

fn crawler(db: &Path, server: &TestServer, redis: &RedisServer, extra: &[&str]) -> Child {
    let base = server.base();
    let mut args = vec![base.as_str(), "--frontier", redis.url.as_str()];
    args.extend(extra);
    crawl_child(db, &args)
}

/// Three crawlers of one site with `extra` flags, each on its own shard;
/// each must exit 0. Returns what each fetched.
fn three_crawl(server: &TestServer, redis: &RedisServer, extra: &[&str]) -> Vec<u64> {
    let dbs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let children: Vec<Child> = dbs
        .iter()
        .map(|db| crawler(db.path(), server, redis, extra))
        .collect();
    children
        .into_iter()
        .map(|c| {
            summary(&c.wait_with_output().unwrap())["fetched"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// `/` links `n` pages `/p/1`... that each answer after `delay`.
fn slow_pages(n: usize, delay: Duration) -> TestServer {
    let server = TestServer::start();
    let paths: Vec<String> = (1..=n).map(|i| format!("/p/{i}")).collect();
    let links: Vec<&str> = paths.iter().map(String::as_str).collect();
    home(&server, &links);
    for path in &paths {
        server.route(path, Reply::Delay(delay, page(path, "a page", &[])));
    }
    server
}

#[test]
fn per_host_bounds_the_requests_of_every_crawler_together() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = slow_pages(40, Duration::from_millis(80));
    // One request at a time per crawler takes 8 URLs a claim: the three
    // share the 40 pages.
    let fetched = three_crawl(&server, &redis, &["--per-host", "1", "--concurrency", "1"]);
    assert_eq!(fetched.iter().sum::<u64>(), 41, "{fetched:?}");
    assert!(
        fetched.iter().filter(|&&n| n > 0).count() >= 2,
        "one crawler did all: nothing was shared {fetched:?}"
    );
    assert_eq!(
        peak_in_flight(&server.requests()),
        1,
        "two requests to the origin at once across the crawlers"
    );
}

#[test]
fn a_retry_after_one_crawler_is_told_holds_for_all() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = slow_pages(100, Duration::from_millis(100));
    // Longer than the test: no crawler may ask the site anything more once
    // the cluster holds the pause, however long the test watches.
    let throttle = Resp::status(429).header("Retry-After", "600");
    server.route(
        "/p/5",
        Reply::Sequence(vec![
            Reply::Respond(throttle),
            Reply::Respond(page("/p/5", "a page", &[])),
        ]),
    );
    let dbs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let children: Vec<Child> = dbs
        .iter()
        .map(|db| {
            let flags = ["--concurrency", "2", "--no-sitemaps"];
            crawler(db.path(), &server, &redis, &flags)
        })
        .collect();
    let origin = server.base().trim_end_matches('/').to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    // Five minutes and more: the pause, not a Crawl-delay gap.
    while redis.wait_at(&origin) < Duration::from_secs(300) {
        assert!(
            Instant::now() < deadline,
            "the cluster never held the pause"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let held = Instant::now();
    // A request that had its slot when the pause came may still arrive:
    // one a fetch task of each crawler, but the one that was told.
    let on_the_way = 3 * 2 - 1;
    // Not a bound on speed: time for crawlers that ignored the pause to
    // show it. Those that keep it ask nothing for ten minutes.
    std::thread::sleep(Duration::from_secs(2));
    let after: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.arrived > held)
        .map(|r| r.path)
        .collect();
    for mut child in children {
        // SAFETY: sending SIGINT to our own child process.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        let status = child.wait().unwrap();
        assert!(status.success(), "a stopped crawler exits 0: {status:?}");
    }
    assert!(
        after.len() <= on_the_way,
        "asked during the pause: {after:?}"
    );
    assert_eq!(server.hits("/p/5"), 1, "asked again during the pause");
    let asked = server
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/p/"))
        .count();
    assert!(
        asked <= 80,
        "{asked} of the 100 pages asked: too few left to test the pause on"
    );
}

#[test]
fn robots_txt_is_fetched_by_one_crawler_and_obeyed_by_all() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = TestServer::start();
    let paths: Vec<String> = (1..=30).map(|i| format!("/p/{i}")).collect();
    let mut links: Vec<&str> = paths.iter().map(String::as_str).collect();
    links.push("/private/x");
    home(&server, &links);
    for path in &paths {
        let linked = ["/private/y"];
        let slow = Duration::from_millis(40);
        server.route(path, Reply::Delay(slow, page(path, "a page", &linked)));
    }
    for path in ["/private/x", "/private/y"] {
        server.route(path, Reply::Respond(page(path, "secret", &[])));
    }
    // Slow, so every crawler needs it while the first fetches it.
    let robots = Resp::text("User-agent: *\nDisallow: /private/\n");
    server.route(
        "/robots.txt",
        Reply::Delay(Duration::from_millis(300), robots),
    );
    let fetched = three_crawl(&server, &redis, &["--concurrency", "1"]);
    // Two that fetched both needed robots.txt (a crawler slow to start on
    // a loaded machine may find the queue empty).
    assert!(
        fetched.iter().filter(|&&n| n > 0).count() >= 2,
        "one crawler did all: nothing was shared {fetched:?}"
    );
    assert_eq!(server.hits("/robots.txt"), 1, "robots.txt fetched again");
    assert_eq!(server.hits("/private/x") + server.hits("/private/y"), 0);
}

#[test]
fn max_pages_bounds_the_run_across_crawlers() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(300);
    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let limit = ["--max-pages", "40", "--concurrency", "2"];
    let ca = crawler(a.path(), &server, &redis, &limit);
    let cb = crawler(b.path(), &server, &redis, &limit);
    let fetched: Vec<u64> = [ca, cb]
        .into_iter()
        .map(|c| {
            summary(&c.wait_with_output().unwrap())["fetched"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(fetched.iter().sum::<u64>(), 40, "{fetched:?}");
    let pages: BTreeSet<String> = (0..site.pages()).map(|n| site.path_of(n)).collect();
    let asked = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && pages.contains(&r.path))
        .count();
    assert_eq!(asked, 40, "pages asked of the site");
}

#[test]
fn a_point_added_mid_crawl_is_crawled_by_the_running_crawlers() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    // /p/1 is answered only once the point is added: the first point's
    // crawl cannot end before, however slow the machine.
    let first = slow_pages(30, Duration::from_millis(150));
    let gate = Gate::default();
    first.route(
        "/p/1",
        Reply::Held(gate.clone(), page("/p/1", "a page", &[])),
    );
    let second = slow_pages(10, Duration::ZERO);
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let one = ["--concurrency", "1"];
    let ca = crawler(a.path(), &first, &redis, &one);
    let cb = crawler(b.path(), &first, &redis, &one);
    while first.hits("/p/1") == 0 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let added = crawlscope()
        .arg("--db")
        .arg(c.path())
        .args(["point", "add", &second.base(), "--frontier", &redis.url])
        .output()
        .unwrap();
    assert!(added.status.success(), "{added:?}");
    gate.open();
    for child in [ca, cb] {
        summary(&child.wait_with_output().unwrap());
    }
    let urls: Vec<String> = std::iter::once(second.base())
        .chain((1..=10).map(|i| second.url(&format!("/p/{i}"))))
        .collect();
    for url in &urls {
        let path = url.trim_start_matches(&second.base()[..second.base().len() - 1]);
        assert_eq!(
            second.hits(path),
            1,
            "{url} fetched {} times",
            second.hits(path)
        );
        let done: Vec<Option<String>> = [&a, &b].iter().map(|db| state(db.path(), url)).collect();
        assert!(
            done.contains(&Some("done".into())),
            "{url} in no shard: {done:?}"
        );
    }
    assert!(
        first
            .requests()
            .iter()
            .filter(|r| r.path.starts_with("/p/"))
            .count()
            == 30,
        "the first point was not finished"
    );
}

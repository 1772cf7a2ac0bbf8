//! One console for the cluster: `tui --frontier` in a real terminal shows
//! every crawler and the merged log and pauses the cluster with `p`; the
//! cluster's pause and stop (`crawlscope::crawl::shared::control`, what
//! the console's `p` and `s` order) obeyed by real `crawl --frontier`
//! processes on a real `redis-server`; `runs --frontier` lists the shared
//! queue they leave.

use std::collections::BTreeSet;
use std::process::Child;
use std::time::{Duration, Instant};

use crawlscope::crawl::shared::cluster;
use crawlscope::crawl::shared::control::{self, Order};
use crawlscope::demo::DemoSite;

use crate::support::crawl::{
    crawl_child, fetched_more_than_once, serve_site, summary, wait_for_done,
};
use crate::support::redis::RedisServer;
use crate::support::tmux::{quoted, Tmux};
use crate::support::{json_of, TestServer};

const PAGES: u32 = 200;
const DEADLINE: Duration = Duration::from_secs(90);

/// A crawler slowed by a shared delay, so the orders land mid-crawl; a
/// short lease, so heartbeats come every second.
fn crawler(db: &std::path::Path, server: &TestServer, redis: &RedisServer) -> Child {
    crawl_child(
        db,
        &[
            &server.base(),
            "--frontier",
            &redis.url,
            "--delay-ms",
            "20",
            "--lease-s",
            "3",
        ],
    )
}

/// Every path the site answers a crawl with, pages and files.
fn site_paths(site: &DemoSite) -> BTreeSet<String> {
    (0..site.pages())
        .map(|n| site.path_of(n))
        .chain(site.file_paths())
        .collect()
}

fn got(server: &TestServer) -> BTreeSet<String> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && r.path != "/robots.txt" && r.path != "/sitemap.xml")
        .map(|r| r.path)
        .collect()
}

/// Waits until every crawler of the cluster beat `beats` more times after
/// `since` (unix ms) with nothing on the wire; they beat every second.
fn beats_after(redis: &RedisServer, since: i64, beats: i64) {
    let start = Instant::now();
    loop {
        let crawlers = crawlscope::crawl::shared::crawlers(&redis.url).unwrap();
        if crawlers
            .iter()
            .all(|c| c.heartbeat > since + 1000 * beats && c.in_flight == 0)
        {
            return;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "no quiet heartbeats: {crawlers:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn now_ms() -> i64 {
    crawlscope::time::unix_now_ms()
}

#[test]
fn a_paused_cluster_sends_nothing_and_finishes_once_resumed() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut ca = crawler(a.path(), &server, &redis);
    let cb = crawler(b.path(), &server, &redis);
    wait_for_done(a.path(), &mut ca, 10);
    control::order(&redis.url, Order::Pause).unwrap();
    assert_quiet_after(&redis, &server, &site, now_ms());
    control::order(&redis.url, Order::Resume).unwrap();
    let (sa, sb) = (
        summary(&ca.wait_with_output().unwrap()),
        summary(&cb.wait_with_output().unwrap()),
    );
    assert_eq!((&sa["crawlers"], &sb["crawlers"]), (&2.into(), &2.into()));
    let fetched = sa["fetched"].as_u64().unwrap() + sb["fetched"].as_u64().unwrap();
    assert_eq!(got(&server), site_paths(&site));
    assert_eq!(fetched_more_than_once(&server), vec![]);
    assert_eq!(fetched as usize, site_paths(&site).len());
}

#[test]
fn a_stopped_cluster_exits_leaves_its_queue_and_a_later_crawl_finishes_it() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let mut ca = crawler(a.path(), &server, &redis);
    let cb = crawler(b.path(), &server, &redis);
    wait_for_done(a.path(), &mut ca, 10);
    control::order(&redis.url, Order::Stop).unwrap();
    let start = Instant::now();
    let (oa, ob) = (
        ca.wait_with_output().unwrap(),
        cb.wait_with_output().unwrap(),
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the stop took {:?}",
        start.elapsed()
    );
    // A stopped crawler exits as a stopped crawl does: 0, with its summary.
    let first =
        summary(&oa)["fetched"].as_u64().unwrap() + summary(&ob)["fetched"].as_u64().unwrap();
    assert!(
        (first as usize) < site_paths(&site).len(),
        "finished before the stop"
    );

    // The queue stays on the server, nothing leased.
    let points = json_of(c.path(), &["runs", "--frontier", &redis.url, "--json"]);
    let rows = points.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{points}");
    let row = &rows[0];
    assert_eq!(row["point"], server.base());
    assert_eq!(row["run"], 1);
    assert_eq!(row["leased"], 0);
    assert_eq!(row["finished"], false);
    assert!(row["queued"].as_u64().unwrap() > 0, "{points}");
    // Done counts every URL settled, fetched or not (a redirect's).
    assert!(row["done"].as_u64().unwrap() >= first, "{points}");
    assert_eq!(
        cluster::points(&redis.url).unwrap()[0].queued,
        row["queued"].as_u64().unwrap()
    );

    // A crawler started after the stop is a new crawl of the cluster: it
    // finishes the site, each page fetched once overall.
    let later = crawler(c.path(), &server, &redis)
        .wait_with_output()
        .unwrap();
    // Its progress (a line every 2 s off a terminal; the rest takes more
    // than 3 s at the delay) says how many share the frontier.
    let progress = String::from_utf8_lossy(&later.stderr);
    assert!(progress.contains(" · crawlers 1"), "{progress}");
    assert_eq!(summary(&later)["crawlers"], 1);
    // The store's runs still answer `--point` with the frontier in the
    // environment.
    let local = crate::support::crawlscope()
        .arg("--db")
        .arg(c.path())
        .args(["runs", "--point", "1", "--json"])
        .env("CRAWLSCOPE_FRONTIER", &redis.url)
        .output()
        .unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&local.stdout).unwrap_or_default();
    assert_eq!(
        runs[0]["point"],
        1,
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    assert_eq!(got(&server), site_paths(&site));
    assert_eq!(fetched_more_than_once(&server), vec![]);
    let rows = cluster::points(&redis.url).unwrap();
    assert!(rows[0].finished && rows[0].queued == 0, "{rows:?}");
}

#[test]
fn the_console_lists_the_cluster_and_its_p_pauses_every_crawler() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let cmd = format!(
        "{} --db {} tui {} --frontier {} --delay-ms 20 --lease-s 3",
        quoted(std::path::Path::new(env!("CARGO_BIN_EXE_crawlscope"))),
        quoted(&a.path().join("store")),
        server.base(),
        redis.url
    );
    let tmux = Tmux::start("cluster", &cmd, a.path());
    let cb = crawler(b.path(), &server, &redis);
    let other = cb.id().to_string();
    tmux.keys("8");
    // Both crawlers, the console marked as itself, and the merged log.
    let screen = tmux.wait_for("two crawlers and the log", |s| {
        s.contains("Crawlers (2)") && s.contains(&other) && s.contains("Merged log")
    });
    assert!(
        screen.lines().any(|l| l.contains("│* ")),
        "the console is not marked:\n{screen}"
    );
    let log_start = Instant::now();
    loop {
        let log = cluster::read(&redis.url, 1000).unwrap().log;
        let by = |pid: &str| log.iter().any(|e| e.crawler.ends_with(&format!(":{pid}")));
        let console = crawlscope::crawl::shared::crawlers(&redis.url)
            .unwrap()
            .into_iter()
            .find(|c| c.pid.to_string() != other)
            .map(|c| c.pid.to_string());
        if by(&other) && console.is_some_and(|pid| by(&pid)) {
            break;
        }
        assert!(
            log_start.elapsed() < DEADLINE,
            "the merged log lacks a crawler: {log:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    tmux.keys("p");
    let paused_at = now_ms();
    tmux.wait_for("the console paused", |s| s.contains("paused"));
    assert_quiet_after(&redis, &server, &site, paused_at);
    tmux.keys("p");
    summary(&cb.wait_with_output().unwrap());
    tmux.wait_for("the console's crawl finished", |s| s.contains("finished"));
    assert_eq!(got(&server), site_paths(&site));
    assert_eq!(fetched_more_than_once(&server), vec![]);
    tmux.quit();
}

/// Asserts that the cluster paused at `paused_at` sends nothing: once
/// every crawler beat after it (requests on the wire done), two more
/// beats each pass without a request, before the site was finished.
fn assert_quiet_after(redis: &RedisServer, server: &TestServer, site: &DemoSite, paused_at: i64) {
    beats_after(redis, paused_at, 1);
    let before = server.requests().len();
    beats_after(redis, now_ms(), 2);
    assert_eq!(
        server.requests().len(),
        before,
        "a request started while the cluster was paused"
    );
    assert!(
        got(server).len() < site_paths(site).len(),
        "finished before the pause"
    );
}

//! `crawl --frontier redis://...`: real crawler processes, each with its
//! own store (its shard), share one frontier on a real `redis-server` and
//! crawl one recording test server together.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use crawlscope::demo::DemoSite;
use crawlscope::store::prelude::*;
use crawlscope::store::UrlState;
use crawlscope::url::Url;

use crate::support::crawl::{
    assert_whole, crawl_child, crawl_ok, documents, fetched_more_than_once, serve_site, store,
    summary, wait_for_done,
};
use crate::support::redis::RedisServer;
use crate::support::{assert_spaced, home, json_of, page, Gate, Reply, TestServer};

const PAGES: u32 = 300;
const CONCURRENCY: usize = 4;

/// The paths (and queries) of the URLs a store holds a fetch result for.
pub(crate) fn fetched_paths(db: &Path) -> BTreeSet<String> {
    let s = store(db);
    let r = s.read().unwrap();
    let mut ids = Vec::new();
    r.for_each_state(|id, state| {
        if matches!(
            state,
            UrlState::Done { .. } | UrlState::Failed { .. } | UrlState::Redirected { .. }
        ) {
            ids.push(id);
        }
        Ok(true)
    })
    .unwrap();
    ids.into_iter()
        .map(|id| {
            let url = Url::parse(&r.url_of(id).unwrap().unwrap()).unwrap();
            match url.query() {
                Some(q) => format!("{}?{q}", url.path()),
                None => url.path().to_string(),
            }
        })
        .collect()
}

/// Every path of the site a crawl fetches: its pages and the files they link.
pub(crate) fn site_paths(site: &DemoSite) -> BTreeSet<String> {
    (0..site.pages())
        .map(|n| site.path_of(n))
        .chain(site.file_paths())
        .collect()
}

pub(crate) fn crawler(
    db: &Path,
    server: &TestServer,
    redis: &RedisServer,
    extra: &[&str],
) -> Child {
    let concurrency = CONCURRENCY.to_string();
    let mut args = vec![
        server.base(),
        "--frontier".into(),
        redis.url.clone(),
        "--concurrency".into(),
        concurrency,
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crawl_child(db, &args)
}

/// Waits for a crawler that must exit 0; returns how many pages it fetched.
pub(crate) fn fetched_by(name: &str, child: Child) -> u64 {
    let n = summary(&child.wait_with_output().unwrap())["fetched"]
        .as_u64()
        .unwrap();
    assert!(
        n > 0,
        "crawler {name} fetched nothing: no sharing was tested"
    );
    n
}

#[test]
fn two_crawlers_crawl_one_site_together_each_page_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let alone = tempfile::tempdir().unwrap();
    let alone_server = serve_site(&site);
    crawl_ok(alone.path(), &[&alone_server.base()]);
    let one_process = fetched_paths(alone.path());
    assert_eq!(one_process.len() as u64, documents(&site));

    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ca = crawler(a.path(), &server, &redis, &[]);
    let cb = crawler(b.path(), &server, &redis, &[]);
    let fetched = fetched_by("a", ca) + fetched_by("b", cb);

    assert_eq!(
        fetched_more_than_once(&server),
        vec![],
        "pages fetched by both crawlers"
    );
    assert_eq!(fetched, documents(&site));
    let (in_a, in_b) = (fetched_paths(a.path()), fetched_paths(b.path()));
    assert!(
        in_a.is_disjoint(&in_b),
        "pages in both shards: {:?}",
        in_a.intersection(&in_b).collect::<Vec<_>>()
    );
    let union: BTreeSet<String> = in_a.union(&in_b).cloned().collect();
    assert_eq!(
        union, one_process,
        "the shards add up to a one-process crawl"
    );
    assert_whole(a.path());
    assert_whole(b.path());
}

#[test]
fn a_killed_crawlers_urls_come_back_after_its_lease() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Slowed, so the kill lands mid-crawl; a short lease, so the test
    // does not wait out the default one.
    let slow = ["--delay-ms", "5", "--lease-s", "2"];
    let mut ca = crawler(a.path(), &server, &redis, &slow);
    let cb = crawler(b.path(), &server, &redis, &slow);
    wait_for_done(a.path(), &mut ca, 30);
    ca.kill().unwrap(); // SIGKILL
    ca.wait().unwrap();
    let held = held_paths(&redis, &server, ca.id());
    fetched_by("b", cb);

    let (in_a, in_b) = (fetched_paths(a.path()), fetched_paths(b.path()));
    assert!(
        (in_a.len() as u64) < documents(&site),
        "the kill came after the crawl's end"
    );
    let union: BTreeSet<String> = in_a.union(&in_b).cloned().collect();
    assert_eq!(union, site_paths(&site), "every page is in some shard");
    let twice = assert_only_held_fetched_twice(&server, &held);
    // A page is in both shards only when the kill fell between the dead
    // crawler's local commit and its done mark on the frontier (marked
    // before the commit, a kill there would lose the page instead): it
    // is then one of the pages fetched twice.
    let both: BTreeSet<String> = in_a.intersection(&in_b).cloned().collect();
    assert!(
        both.is_subset(&twice),
        "pages committed in both shards that were not the dead crawler's last: {both:?}"
    );
    assert_whole(b.path());
}

/// The paths of the URLs the frontier leased to crawler `pid` (read
/// right after its death: its leases live on until they expire).
pub(crate) fn held_paths(redis: &RedisServer, server: &TestServer, pid: u32) -> BTreeSet<String> {
    let held = redis.leased_to(&server.base(), pid);
    assert!(
        !held.is_empty(),
        "the dead crawler held nothing: killed too late"
    );
    held.iter()
        .map(|u| Url::parse(u).unwrap().path().to_string())
        .collect()
}

/// Asserts that the only pages fetched twice are those a dead crawler
/// held, each fetched twice; returns them.
pub(crate) fn assert_only_held_fetched_twice(
    server: &TestServer,
    held: &BTreeSet<String>,
) -> BTreeSet<String> {
    let twice = fetched_more_than_once(server);
    assert!(
        twice.iter().all(|(path, n)| *n == 2 && held.contains(path)),
        "fetched again beyond the dead crawler's leases {held:?}: {twice:?}"
    );
    twice.into_iter().map(|(path, _)| path).collect()
}

/// `/` links 20 pages and `/slow`, whose first request is answered only
/// once `gate` opens (later ones at once); the count of the others.
fn slow_site(gate: &Gate) -> (TestServer, usize) {
    let server = TestServer::start();
    let others: Vec<String> = (1..=20).map(|n| format!("/p/{n}")).collect();
    let mut links: Vec<&str> = others.iter().map(String::as_str).collect();
    links.push("/slow");
    home(&server, &links);
    for path in &others {
        server.route(path, Reply::Respond(page(path, "a page", &[])));
    }
    let slow = page("Slow", "slow", &[]);
    server.route(
        "/slow",
        Reply::Sequence(vec![
            Reply::Held(gate.clone(), slow.clone()),
            Reply::Respond(slow),
        ]),
    );
    (server, others.len())
}

/// Waits until the crawler of `db` committed every page of [`slow_site`]
/// but `/slow`, and asked for that.
fn until_only_slow_is_left(db: &Path, server: &TestServer, child: &mut Child, others: usize) {
    wait_for_done(db, child, 1 + others as u64);
    while server.hits("/slow") == 0 {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn stats_lists_the_crawlers_sharing_the_frontier() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let gate = Gate::default();
    let (server, others) = slow_site(&gate);
    let a = tempfile::tempdir().unwrap();
    let mut ca = crawler(a.path(), &server, &redis, &[]);
    until_only_slow_is_left(a.path(), &server, &mut ca, others);
    // /slow stays on the wire until the gate opens: a heartbeat (every
    // 2 s) comes that says so.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let crawlers = loop {
        let stats = json_of(a.path(), &["stats", "--json", "--frontier", &redis.url]);
        let crawlers = stats["crawlers"]
            .as_array()
            .expect("crawlers listed")
            .clone();
        if crawlers.len() != 1 || crawlers[0]["in_flight"].as_u64() == Some(1) {
            break crawlers;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no heartbeat told of /slow on the wire: {stats}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(crawlers.len(), 1, "{crawlers:?}");
    let c = &crawlers[0];
    assert_eq!(c["pid"].as_u64(), Some(u64::from(ca.id())));
    assert!(!c["host"].as_str().unwrap().is_empty());
    assert_eq!(c["in_flight"].as_u64(), Some(1), "/slow is on the wire");
    assert!(c["rate"].as_f64().unwrap() > 0.0);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let age = now_ms - c["heartbeat"].as_i64().unwrap();
    assert!((0..15_000).contains(&age), "heartbeat {age} ms old");
    gate.open();
    summary(&ca.wait_with_output().unwrap());
    let stats = json_of(a.path(), &["stats", "--json", "--frontier", &redis.url]);
    assert_eq!(
        stats["crawlers"],
        serde_json::json!([]),
        "a crawler that ended left"
    );
    // Without --frontier, no crawlers field.
    assert!(json_of(a.path(), &["stats", "--json"])
        .get("crawlers")
        .is_none());
}

#[test]
fn a_crawler_woken_after_its_lease_drops_what_another_took() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    // A's request of /slow waits until B has taken it over; B's is
    // answered at once.
    let gate = Gate::default();
    let (server, others) = slow_site(&gate);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let lease = ["--lease-s", "2"];
    let mut ca = crawler(a.path(), &server, &redis, &lease);
    // Everything but /slow committed and marked done on the frontier,
    // /slow asked: A holds only its lease.
    until_only_slow_is_left(a.path(), &server, &mut ca, others);
    let slow = server.url("/slow");
    while redis.leased_to(&server.base(), ca.id()) != [slow.clone()] {
        assert!(ca.try_wait().unwrap().is_none(), "A ended holding /slow");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: signals to our own child process.
    assert_eq!(unsafe { libc::kill(ca.id() as i32, libc::SIGSTOP) }, 0);
    // B takes /slow once A's lease ran out, and finishes the crawl.
    let cb = crawler(b.path(), &server, &redis, &lease);
    fetched_by("b", cb);
    gate.open();
    assert_eq!(unsafe { libc::kill(ca.id() as i32, libc::SIGCONT) }, 0);
    // A wakes to its answer of /slow: not its to write any more.
    summary(&ca.wait_with_output().unwrap());

    assert_eq!(server.hits("/slow"), 2, "B fetched /slow again");
    let (in_a, in_b) = (fetched_paths(a.path()), fetched_paths(b.path()));
    assert_eq!(in_b, BTreeSet::from(["/slow".to_string()]));
    assert!(
        !in_a.contains("/slow"),
        "A wrote /slow after its lease was lost"
    );
    assert_eq!(in_a.len(), 1 + others);
    assert_whole(a.path());
    assert_whole(b.path());
}

#[test]
fn crawlers_wait_out_a_restart_of_the_server() {
    let Some(mut redis) = RedisServer::persistent() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Slowed, so the restart lands mid-crawl.
    let slow = ["--delay-ms", "5"];
    let mut ca = crawler(a.path(), &server, &redis, &slow);
    let cb = crawler(b.path(), &server, &redis, &slow);
    wait_for_done(a.path(), &mut ca, 30);
    redis.restart(Duration::from_millis(500));
    assert!(
        ca.try_wait().unwrap().is_none(),
        "the crawler ended while the server was down"
    );
    fetched_by("a", ca);
    fetched_by("b", cb);

    assert_eq!(
        fetched_more_than_once(&server),
        vec![],
        "pages fetched again after the restart"
    );
    let (in_a, in_b) = (fetched_paths(a.path()), fetched_paths(b.path()));
    assert!(in_a.is_disjoint(&in_b));
    let union: BTreeSet<String> = in_a.union(&in_b).cloned().collect();
    assert_eq!(union, site_paths(&site), "nothing lost in the restart");
}

#[test]
fn the_delay_between_requests_to_an_origin_holds_across_crawlers() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(30);
    let server = serve_site(&site);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let delay = ["--delay-ms", "100"];
    let since = std::time::Instant::now();
    let ca = crawler(a.path(), &server, &redis, &delay);
    let cb = crawler(b.path(), &server, &redis, &delay);
    fetched_by("a", ca);
    fetched_by("b", cb);

    // The pages' requests (each crawler reads robots.txt and sitemaps for
    // itself). The slot is taken on the frontier's clock when a URL is
    // claimed, and the request leaves after the claim's local commit,
    // which a loaded machine may delay: `assert_spaced` bounds arrivals
    // from below only, which no delay can break.
    let pages = site_paths(&site);
    let requests: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && pages.contains(&r.path))
        .collect();
    assert_eq!(requests.len(), pages.len(), "every page fetched once");
    let arrivals = requests.iter().map(|r| r.arrived).collect();
    assert_spaced(
        "two crawlers at --delay-ms 100",
        arrivals,
        Duration::from_millis(100),
        since,
    );
}

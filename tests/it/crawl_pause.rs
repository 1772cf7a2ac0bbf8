//! The console's pause pauses: once the engine is told to pause, no new
//! request reaches the site (those on the wire finish; URLs claimed ahead
//! and waiting for their origin's turn wait for the resume too), the
//! resume carries on to the end, and the run's running time leaves the
//! pause out. While a crawl runs, what is queued, claimed and on the wire
//! adds up with what was fetched, at every stats tick.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crate::support::{home, json_of, page, Reply, TestServer};
use crawlscope::crawl::{self, CrawlCommand, CrawlConfig, CrawlEvent, CrawlHandle};
use crawlscope::store::Store;

const PAGES: usize = 12;
/// Each page answers this late: two at a time, the crawl lasts seconds.
const SLOW: Duration = Duration::from_millis(600);
const PAUSED_FOR: Duration = Duration::from_secs(4);
/// What the run record's whole milliseconds may lose of the running time:
/// under a millisecond at each heartbeat (every 2 s) and at the end.
const MS_LOST: f64 = 0.01;
/// Requests to the site at once: those the crawler had sent when told to
/// pause may reach the server after it, however late a loaded machine
/// makes them, and no others may.
const PER_HOST: usize = 2;

/// A home linking `PAGES` slow pages; returns their paths.
fn slow_site() -> (TestServer, Vec<String>) {
    let s = TestServer::start();
    let paths: Vec<String> = (0..PAGES).map(|i| format!("p{i}")).collect();
    let links: Vec<&str> = paths.iter().map(String::as_str).collect();
    home(&s, &links);
    for p in &paths {
        s.route(&format!("/{p}"), Reply::Delay(SLOW, page(p, "slow", &[])));
    }
    (s, paths)
}

/// The slow site's crawl, started on `rt` with two requests at a time
/// to the site and more claimed ahead, waiting for their turn.
fn start(rt: &tokio::runtime::Runtime, db: &std::path::Path, s: &TestServer) -> CrawlHandle {
    let st = Arc::new(Store::open(db).unwrap());
    let mut rec = crawlscope::points::new_record(&crawlscope::url::parse_start(&s.base()).unwrap());
    rec.no_sitemaps = true;
    let (id, _) = crawlscope::points::add(&st, rec).unwrap();
    let cfg = CrawlConfig {
        concurrency: 8,
        per_host: PER_HOST,
        ..CrawlConfig::default()
    };
    let _entered = rt.enter();
    crawl::start(st, cfg, vec![id]).unwrap()
}

/// Page requests the server has seen.
fn pages_asked(s: &TestServer) -> usize {
    s.requests()
        .iter()
        .filter(|r| r.path.starts_with("/p"))
        .count()
}

/// Waits for the crawl's event that `told` picks and returns when it came:
/// the engine had acted on the command before it sent it, so this instant
/// is past the moment the pause (or the resume) took hold.
fn when_it_said(
    rt: &tokio::runtime::Runtime,
    h: &mut CrawlHandle,
    told: fn(&CrawlEvent) -> bool,
) -> Instant {
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(e) = h.events.recv().await {
                if told(&e) {
                    return Instant::now();
                }
            }
            panic!("the crawl ended before it said so");
        })
        .await
        .expect("the crawl never said so")
    })
}

#[test]
fn a_paused_crawl_sends_nothing_until_resumed_and_its_run_counts_running_time_only() {
    let (s, paths) = slow_site();
    let db = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let began = Instant::now();
    let mut h = start(&rt, db.path(), &s);
    let deadline = Instant::now() + Duration::from_secs(30);
    while pages_asked(&s) < 2 {
        assert!(
            Instant::now() < deadline,
            "the crawl never asked for a page"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // What the console's `p` sends.
    h.commands.send(CrawlCommand::Pause).unwrap();
    let paused = when_it_said(&rt, &mut h, |e| matches!(e, CrawlEvent::Paused));
    std::thread::sleep(PAUSED_FOR);
    let resume_sent = Instant::now();
    h.commands.send(CrawlCommand::Resume).unwrap();
    let resumed = when_it_said(&rt, &mut h, |e| matches!(e, CrawlEvent::Resumed));
    rt.block_on(async { tokio::time::timeout(Duration::from_secs(60), h.done).await })
        .expect("the crawl never ended after the resume")
        .unwrap()
        .unwrap();
    let ended = Instant::now();

    // Only what was on the wire when the pause took hold may arrive
    // after it, however late a loaded machine delivers it.
    let reqs = s.requests();
    let late: Vec<_> = reqs
        .iter()
        .filter(|r| r.arrived > paused && r.arrived < resume_sent)
        .map(|r| (r.path.clone(), r.arrived - paused))
        .collect();
    assert!(
        late.len() <= PER_HOST,
        "more requests arrived while paused than were on the wire: {late:?}"
    );
    for p in &paths {
        assert_eq!(
            state(db.path(), &s.url(p)).as_deref(),
            Some("done"),
            "{p} after the resume"
        );
    }

    let runs = json_of(db.path(), &["runs", "--json"]);
    let running = runs[0]["running_s"]
        .as_f64()
        .unwrap_or_else(|| panic!("runs --json has no running_s: {runs}"));
    // The crawler's own pause began before it said so and ended after the
    // resume was sent: it lasted at least this long, however slowly the
    // machine passed the commands on. No margin: the store's whole
    // milliseconds only round the running time down.
    let surely_paused = resume_sent.saturating_duration_since(paused).as_secs_f64();
    let wall = (ended - began).as_secs_f64();
    assert!(
        running <= wall - surely_paused,
        "running {running}s counts part of the {surely_paused}s pause (wall {wall}s)"
    );
    // The crawler ran on from the resume, which it took before it said
    // so, until after the last answer it read; the record may have lost
    // a few of those milliseconds to rounding.
    let last_answer = reqs.iter().filter_map(|r| r.answered).max().unwrap();
    let worked_after = last_answer.saturating_duration_since(resumed);
    assert!(
        running + MS_LOST >= worked_after.as_secs_f64(),
        "running {running}s is shorter than the {worked_after:?} the crawl worked after the resume"
    );
}

#[test]
fn queued_claimed_and_in_flight_add_up_with_what_was_fetched() {
    let (s, _) = slow_site();
    let db = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut h = start(&rt, db.path(), &s);
    let mut ticks = Vec::new();
    rt.block_on(async {
        while let Some(e) = h.events.recv().await {
            match e {
                CrawlEvent::Stats(st) => ticks.push(st),
                CrawlEvent::Finished(_) => break,
                _ => {}
            }
        }
    });
    // The home and its pages: every URL is one of the four at any tick
    // once the home's links are queued (before, only the home is known).
    let urls = PAGES as u64 + 1;
    let after_home: Vec<_> = ticks.iter().filter(|t| t.fetched >= 1).collect();
    assert!(after_home.len() >= 3, "too few ticks: {ticks:?}");
    for t in &after_home {
        assert_eq!(
            t.queued + t.claimed + t.in_flight + t.fetched,
            urls,
            "queued {} + claimed {} + in flight {} + fetched {} at a tick",
            t.queued,
            t.claimed,
            t.in_flight,
            t.fetched
        );
    }
    assert!(
        after_home.iter().any(|t| t.claimed > 0 && t.fetched < urls),
        "no tick showed the URLs claimed ahead: {ticks:?}"
    );
    assert!(after_home.iter().all(|t| t.in_flight <= 2));
}

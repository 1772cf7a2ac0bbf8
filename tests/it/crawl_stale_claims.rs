//! A crawler whose heartbeat has gone stale loses its claims; one whose
//! heartbeat is fresh keeps them. Crawler A claims every page of a slow
//! site and is frozen with SIGSTOP mid-fetch (its pid lives on, its
//! heartbeat stops); crawler B on the same store leaves A's URLs alone
//! while A's heartbeat is fresh, then takes them once it is older than the
//! stale limit (`STALE_HEARTBEAT_MS` in src/crawl, 30 s) and finishes the
//! crawl. Every moment is measured from A's last heartbeat as the store
//! holds it, never from when the test froze A: a loaded machine may delay
//! a beat, and a limit counted from the freeze would then be early.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::support::crawl::*;
use crate::support::{home, page, Gate, Reply, TestServer};
use crawlscope::store::prelude::*;

/// The stale limit.
const STALE: Duration = Duration::from_secs(30);
/// How long the test waits for what must come at once, or after the
/// stale limit: a guard against a hang, never a claim about speed.
const HANG: Duration = Duration::from_secs(120);
const PAGES: [&str; 4] = ["/s0", "/s1", "/s2", "/s3"];

/// A crawler killed when the test ends however it ends: a frozen one
/// would otherwise outlive it.
struct Crawler(Child);

impl Drop for Crawler {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
    // SAFETY: a signal to a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill({pid}, {sig})");
}

/// SIGSTOPs the crawler at a moment it holds no write transaction. Frozen
/// inside one it would keep LMDB's writer lock, and every other writer
/// would wait for it whatever its heartbeat says.
fn freeze_outside_a_write(child: &Child, db: &Path) {
    for _ in 0..20 {
        signal(child, libc::SIGSTOP);
        let (tx, rx) = std::sync::mpsc::channel();
        let path = db.to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(store(&path).update(|_| Ok(())).is_ok());
        });
        match rx.recv_timeout(Duration::from_secs(2)) {
            Ok(wrote) => {
                assert!(wrote, "an empty write to the store failed");
                return;
            }
            // Caught mid-write: let it finish, then try again.
            Err(_) => {
                signal(child, libc::SIGCONT);
                let _ = rx.recv();
            }
        }
    }
    panic!("the crawler was inside a write at every attempt to freeze it");
}

/// A's fetches of the pages: the first request of each path.
fn a_asked_all(s: &TestServer) -> bool {
    PAGES.iter().all(|p| s.hits(p) >= 1)
}

#[test]
fn a_frozen_crawler_s_claims_are_kept_while_fresh_and_taken_once_stale() {
    let s = TestServer::start();
    home(&s, &PAGES.map(|p| &p[1..]));
    // A's requests are never answered, so A cannot finish its claims
    // however long freezing it takes on a loaded machine (they were
    // answered after 5 s, which a slow freeze outlasted); B's are
    // answered at once.
    let never = Gate::default();
    for p in PAGES {
        let resp = page(p, "slow harbor page", &[]);
        s.route(
            p,
            Reply::Sequence(vec![
                Reply::Held(never.clone(), resp.clone()),
                Reply::Respond(resp),
            ]),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let url = s.base();

    let mut a = Crawler(crawl_child(&db, &[&url, "--concurrency", "8"]));
    let deadline = Instant::now() + HANG;
    while !a_asked_all(&s) {
        assert!(a.0.try_wait().unwrap().is_none(), "A ended before fetching");
        assert!(Instant::now() < deadline, "A never asked for every page");
        std::thread::sleep(Duration::from_millis(10));
    }
    freeze_outside_a_write(&a.0, &db);
    let stale_at = last_heartbeat(&db) + STALE;

    let b = crawl_child(&db, &[&url]);
    // Until A's heartbeat is stale, B waits on A's claims: it asks for none
    // of A's pages and does not finish.
    let poll = Duration::from_millis(250);
    let mut b = Crawler(b);
    while Instant::now() + poll < stale_at {
        assert!(
            b.0.try_wait().unwrap().is_none(),
            "B ended beside live claims"
        );
        for p in PAGES {
            assert_eq!(s.hits(p), 1, "B took {p} while A's claim was fresh");
        }
        std::thread::sleep(poll);
    }

    // Once stale, B takes A's URLs and finishes the crawl.
    let out = wait_within(b, HANG, || format!("hits {:?}", PAGES.map(|p| s.hits(p))));
    let summary = summary(&out);
    drop(a);
    assert_eq!(summary["fetched"], PAGES.len(), "{summary}");
    for p in PAGES {
        assert_eq!(s.hits(p), 2, "{p}: A's request, then B's");
        let taken = s
            .requests()
            .into_iter()
            .filter(|r| r.path == p)
            .map(|r| r.arrived)
            .max()
            .unwrap();
        assert!(
            taken >= stale_at,
            "{p} taken {:?} before A's heartbeat was stale",
            stale_at - taken
        );
        assert_eq!(state(&db, &s.url(p)).as_deref(), Some("done"));
    }
    assert_whole(&db);
}

/// When the one crawler registered in the store last beat, on this
/// process's clock (heartbeats are wall-clock milliseconds), rounded
/// down a millisecond so that the rounding never makes it late.
fn last_heartbeat(db: &Path) -> Instant {
    let store = store(db);
    let r = store.read().unwrap();
    let instances = r.instances().unwrap();
    let [(_, a)] = instances.as_slice() else {
        panic!("one crawler registered, found {instances:?}");
    };
    let now = Instant::now();
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let age = now_ms.saturating_sub(u128::try_from(a.heartbeat_ms).unwrap()) + 1;
    now - Duration::from_millis(u64::try_from(age).unwrap())
}

/// The crawler's output once it exits, which must be within `limit`.
fn wait_within(
    mut crawler: Crawler,
    limit: Duration,
    state: impl Fn() -> String,
) -> std::process::Output {
    let deadline = Instant::now() + limit;
    while crawler.0.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "the crawler did not finish within {limit:?}: {}",
            state()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = crawler.0.stdout.take().map(read_all).unwrap_or_default();
    let err = crawler.0.stderr.take().map(read_all).unwrap_or_default();
    let status = crawler.0.wait().unwrap();
    std::process::Output {
        status,
        stdout: out,
        stderr: err,
    }
}

fn read_all(mut r: impl std::io::Read) -> Vec<u8> {
    let mut v = Vec::new();
    r.read_to_end(&mut v).unwrap();
    v
}

//! The fault soak: crawl a demo site while killing the crawler with SIGKILL
//! at random moments (10 kills), restarting it each time, with a second
//! crawler on the same store for part of it. At the end `check` is clean,
//! every page is stored exactly once, and no page was fetched twice with a
//! 200 except those in flight at a kill.
//!
//! CI runs a reduced site; the full size is
//! `CRAWLSCOPE_SOAK_PAGES=20000 cargo test --release --test soak -- --nocapture`.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::crawl::*;
use crate::support::{Reply, Resp, TestServer};
use crawlscope::demo::DemoSite;
use crawlscope::store::prelude::*;

const KILLS: usize = 10;
const CONCURRENCY: usize = 8;

/// The demo site served by the recording test server, so every request is
/// counted per path.
fn serve(site: &DemoSite) -> TestServer {
    let s = TestServer::start();
    let mut paths: Vec<String> = (0..site.pages()).map(|n| site.path_of(n)).collect();
    paths.extend(site.file_paths());
    paths.push("/robots.txt".into());
    for p in paths {
        if let Some(r) = site.render(&p) {
            s.route(
                &p,
                Reply::Respond(Resp::bytes(r.content_type, r.body.to_vec())),
            );
        }
    }
    s
}

fn crawler(db: &std::path::Path, url: &str) -> Child {
    let mut c: Command = crate::support::crawlscope();
    c.arg("--db")
        .arg(db)
        .args([
            "crawl",
            "--json",
            url,
            "--concurrency",
            &CONCURRENCY.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c.spawn().expect("start a crawler")
}

fn done(db: &std::path::Path) -> u64 {
    store(db).read().unwrap().state_counts().unwrap().done
}

#[test]
fn crawl_survives_ten_sigkills_and_a_second_crawler() {
    let pages: u32 = std::env::var("CRAWLSCOPE_SOAK_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let site = DemoSite::new(pages);
    let server = serve(&site);
    let db = tempfile::tempdir().unwrap();
    let url = server.base();
    // A fixed seed keeps failures reproducible while kill moments vary.
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut second: Option<Child> = None;
    let deadline = Instant::now() + Duration::from_secs(300);
    for kill in 0..KILLS {
        let mut child = crawler(db.path(), &url);
        if kill == 3 {
            second = Some(crawler(db.path(), &url));
        }
        let target = done(db.path()) + 20 + next() % (u64::from(pages) / 40).max(1);
        while done(db.path()) < target && child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "no progress");
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(next() % 50));
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        if kill == 6 {
            if let Some(mut s) = second.take() {
                let _ = s.kill();
                s.wait().unwrap();
            }
        }
    }
    if let Some(mut s) = second.take() {
        let _ = s.kill();
        s.wait().unwrap();
    }
    // The last run goes to the end.
    crawl_ok(db.path(), &[&url, "--concurrency", "8"]);

    let out = crate::support::crawlscope()
        .arg("--db")
        .arg(db.path())
        .args(["check", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "check: {}",
        String::from_utf8_lossy(&out.stdout)
    );

    let expected = u64::from(pages) + site.file_paths().count() as u64;
    let st = store(db.path());
    let r = st.read().unwrap();
    assert_eq!(
        r.page_count().unwrap(),
        expected,
        "every page stored exactly once"
    );
    assert_eq!(r.frontier_len().unwrap(), 0);
    drop(r);
    drop(st);

    let mut twice = 0;
    for n in 0..pages {
        if server.hits(&site.path_of(n)) > 1 {
            twice += 1;
        }
    }
    // In flight at a kill: fetches under way plus results not yet committed
    // (a batch is committed at least every 100 ms).
    let bound = KILLS * (CONCURRENCY * 8 + 100);
    eprintln!("soak: {pages} pages, {KILLS} kills, {twice} pages fetched twice (bound {bound})");
    assert!(twice <= bound, "{twice} pages fetched twice");
}

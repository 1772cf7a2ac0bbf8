//! The bench-only part switches (`CRAWLSCOPE_BENCH_OFF`) through the real
//! binary: a crawl with one part off asks for exactly the URLs a crawl
//! with every part does, its store lacks that part and holds the others,
//! and a name that is no part stops the crawl before its first request.

use std::collections::HashMap;
use std::path::Path;

use crawlscope::crawl::BENCH_OFF;
use crawlscope::demo::DemoSite;

use crate::support::crawl::{assert_whole, crawl_command, serve_site, summary};
use crate::support::{json_of, on_store, stderr_of, TestServer};

/// Enough pages that the merge ending the crawl writes a segment large
/// enough for phrase pairs (512 pages).
const PAGES: u32 = 600;

/// The parts, in the order of [`Crawled::held`].
const PARTS: [&str; 4] = ["bodies", "pairs", "links", "history"];

/// What one crawl asked the server for, and which parts its store holds.
struct Crawled {
    /// Every path it sent a GET for, sorted, once each.
    asked: Vec<String>,
    held: [bool; 4],
}

fn crawl_with_off(site: &DemoSite, off: &str) -> Crawled {
    let server = serve_site(site);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let out = crawl_command(db, &[&server.base(), "--concurrency", "8"])
        .env(BENCH_OFF, off)
        .output()
        .expect("run crawlscope");
    summary(&out);
    let said = stderr_of(&out);
    assert_eq!(
        said.contains(&format!("bench: parts off: {off}\n")),
        !off.is_empty(),
        "{off:?}: {said}"
    );
    assert_whole(db);
    Crawled {
        asked: asked(&server),
        held: held(db, &server.url("/")),
    }
}

fn asked(server: &TestServer) -> Vec<String> {
    let mut paths: Vec<String> = (server.requests().into_iter())
        .filter(|r| r.method == "GET")
        .map(|r| r.path)
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Which parts the store holds, each as what it writes: the home page's
/// body, the phrase pairs, the home page's links both ways, the run's
/// entries.
fn held(db: &Path, home: &str) -> [bool; 4] {
    let stats = json_of(db, &["stats", "--json"]);
    let bytes: HashMap<&str, u64> = (stats["tables"].as_array().unwrap().iter())
        .map(|t| (t[0].as_str().unwrap(), t[1].as_u64().unwrap()))
        .collect();
    let page = json_of(db, &["page", home, "--json"]);
    let listed = |key: &str| page[key].as_array().is_some_and(|l| !l.is_empty());
    let body = on_store(db, &["body", home]);
    [
        body.status.success() && !body.stdout.is_empty(),
        bytes["pair_postings"] > 0,
        listed("children") && listed("parents") && bytes["links_in"] > 0,
        bytes["run_history"] > 0,
    ]
}

#[test]
fn each_part_switched_off_is_absent_alone_and_the_crawl_reaches_the_same_urls() {
    let site = DemoSite::new(PAGES);
    // Every part off by itself, and none: "" is the crawl the others are
    // held against.
    let offs = ["", "bodies", "pairs", "links", "history"];
    let crawled: Vec<Crawled> = std::thread::scope(|s| {
        let running: Vec<_> = (offs.iter())
            .map(|off| s.spawn(|| crawl_with_off(&site, off)))
            .collect();
        running.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let all = &crawled[0];
    assert!(all.asked.len() > PAGES as usize, "{}", all.asked.len());
    for (off, got) in offs.iter().zip(&crawled) {
        assert!(got.asked == all.asked, "{off:?}: asked for other URLs");
        let want = PARTS.map(|p| p != *off);
        assert_eq!(got.held, want, "{off:?} off: parts held {PARTS:?}");
    }

    let server = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let out = crawl_command(dir.path(), &[&server.base()])
        .env(BENCH_OFF, "bodies,index")
        .output()
        .expect("run crawlscope");
    let said = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("'index'"), "{said}");
    assert!(server.requests().is_empty(), "crawled despite the error");
}

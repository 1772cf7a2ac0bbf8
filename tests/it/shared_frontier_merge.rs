//! A sharded crawl end to end: three `crawl --frontier` processes share one
//! frontier on a real `redis-server` and crawl a 3,000-page site together,
//! one of them SIGKILLed mid-crawl; `merge` folds their three shards into
//! one store, which must answer as a one-process crawl of the same site
//! does: every URL's export line (status, facts, inlinks, depth), the
//! summary, the depths, every finding kind's rows and the top 10 of a
//! few searches, in order.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crawlscope::demo::DemoSite;
use serde_json::Value;

use crate::crawl_shared_frontier::{
    assert_only_held_fetched_twice, crawler, fetched_by, fetched_paths, held_paths, site_paths,
};
use crate::merge_shards::{canonical, merge, store_answers};
use crate::support::crawl::{assert_whole, crawl_ok, serve_site, wait_for_done};
use crate::support::on_store;
use crate::support::redis::RedisServer;

const PAGES: u32 = 3000;
const DELAY_MS: u64 = 2;

/// Every URL's `export --format jsonl` line without the fields of a
/// crawl's clock or a store's numbering, in URL order.
fn url_lines(db: &Path) -> Vec<Value> {
    let out = on_store(db, &["export", "--format", "jsonl"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| canonical(&serde_json::from_str(l).expect("a JSON line")))
        .collect();
    lines.sort_by_key(|l| l["url"].to_string());
    lines
}

/// Searches of the site's own words: a title's first word, a pair, a
/// body's word.
fn queries(site: &DemoSite) -> Vec<String> {
    let first = |n: u32| site.words_of(n).next().unwrap_or("page").to_string();
    let body = |n: u32| site.words_of(n).nth(5).unwrap_or("page").to_string();
    vec![
        first(17),
        body(1234),
        format!("{} {}", first(17), body(1234)),
        body(2999),
    ]
}

#[test]
fn three_crawlers_one_killed_merge_into_the_one_process_crawl() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let site = DemoSite::new(PAGES);
    let server = serve_site(&site);
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let delay = DELAY_MS.to_string();
    let flags = ["--delay-ms", &delay, "--lease-s", "2"];
    let mut killed = crawler(dirs[0].path(), &server, &redis, &flags);
    let others: Vec<_> = dirs[1..]
        .iter()
        .map(|d| crawler(d.path(), &server, &redis, &flags))
        .collect();
    wait_for_done(dirs[0].path(), &mut killed, 200);
    killed.kill().unwrap(); // SIGKILL
    killed.wait().unwrap();
    let held = held_paths(&redis, &server, killed.id());
    for (n, child) in others.into_iter().enumerate() {
        fetched_by(&format!("crawler {}", n + 1), child);
    }

    // Every page fetched, once but for what the dead crawler held.
    let shards: Vec<BTreeSet<String>> = dirs.iter().map(|d| fetched_paths(d.path())).collect();
    let all = site_paths(&site);
    assert!(
        shards[0].len() < all.len(),
        "the kill came after the crawl's end"
    );
    let union: BTreeSet<String> = shards.iter().flatten().cloned().collect();
    assert_eq!(union, all, "the site finished without the killed crawler");
    assert_only_held_fetched_twice(&server, &held);
    assert!(
        shards[1].is_disjoint(&shards[2]),
        "the live crawlers fetched the same pages"
    );

    // The delay held across the three: the pages' requests, by arrival,
    // span at least the delay times their count (three crawlers each
    // keeping it alone would take a third of that).
    let mut arrivals: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && all.contains(&r.path))
        .map(|r| r.arrived)
        .collect();
    arrivals.sort();
    let span = *arrivals.last().unwrap() - arrivals[0];
    let needed = Duration::from_millis(DELAY_MS * (arrivals.len() as u64 - 1));
    assert!(span >= needed, "{} requests in {span:?}", arrivals.len());

    // The oracle asks the same server, so that URLs are the same.
    let oracle = tempfile::tempdir().unwrap();
    crawl_ok(oracle.path(), &[&server.base()]);
    let merged = tempfile::tempdir().unwrap();
    let paths: Vec<&Path> = dirs.iter().map(|d| d.path()).collect();
    merge(&paths, merged.path());
    assert_whole(merged.path());
    let (got, want) = (url_lines(merged.path()), url_lines(oracle.path()));
    assert_eq!(got.len(), want.len(), "URLs in the merged store");
    if let Some((g, w)) = got.iter().zip(&want).find(|(g, w)| g != w) {
        panic!("the merged store's line\n{g:#}\nthe one-process crawl's\n{w:#}");
    }
    let queries = queries(&site);
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    let (got, want) = (
        store_answers(merged.path(), &queries),
        store_answers(oracle.path(), &queries),
    );
    for ((name, got), (_, want)) in got.iter().zip(&want) {
        assert_eq!(got, want, "{name}: the merged store answers otherwise");
    }
}

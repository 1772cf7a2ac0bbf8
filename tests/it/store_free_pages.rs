//! The free pages a crawl leaves in its store file: a crawl whose pages
//! arrive one transaction at a time (here a slow server and one request
//! at a time, as the last pages of any crawl trickle in) must not grow
//! the file for pages LMDB could have reused.

use std::time::Duration;

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, page, Reply, TestServer};

/// `n` words of a 3,000-word vocabulary, picked by a fixed sequence:
/// pages that share words, each changing entries across the words'
/// tables.
fn words(page: u64, n: usize) -> String {
    let mut x = page
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            format!("w{}q", (x >> 33) % 3000)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn pages_committed_one_by_one_leave_few_free_pages() {
    let s = TestServer::start();
    let leaves: Vec<String> = (0..24).map(|i| format!("/p{i}")).collect();
    let links: Vec<&str> = leaves.iter().map(String::as_str).collect();
    crate::support::home(&s, &links);
    for (i, path) in leaves.iter().enumerate() {
        // A large page among small ones: transactions of different sizes.
        let n = if i % 3 == 0 { 900 } else { 40 };
        // Slower than the writer's batch interval (100 ms).
        let slow = Reply::Delay(
            Duration::from_millis(130),
            page(path, &words(i as u64, n), &[]),
        );
        s.route(path, slow);
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base(), "--ignore-robots", "--concurrency", "1"]);
    let stats = json_of(&db, &["stats", "--json"]);
    let file = stats["store_bytes"].as_u64().unwrap();
    let tables: u64 = stats["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[1].as_u64().unwrap())
        .sum();
    let free_pages = (file - tables) / 4096;
    // Measured: 39 of 96 pages free with the writer's heartbeat between
    // two indexing transactions, 61 of 118 without it.
    assert!(
        free_pages <= 48,
        "{free_pages} pages of the {} in the file are free",
        file / 4096
    );
}

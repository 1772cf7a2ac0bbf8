//! `report near-duplicates` on a crawled loopback site: two pages whose
//! long texts differ in one word are the one pair, with a similarity in
//! the band one changed word gives; an exact copy stays in `duplicates`;
//! an unrelated page pairs with nothing; a stricter `--near-threshold`
//! drops the pair, a bad one is a usage error, and a page that stops being
//! HTML leaves the report (its signature goes with its new version).

use serde_json::Value;

use crate::support::crawl::*;
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};

/// `n` made-up words, distinct as stems (letters only: the analyzer keeps
/// them whole), starting at `from`.
fn words(from: usize, n: usize) -> Vec<String> {
    (from..from + n)
        .map(|mut i| {
            let mut w = String::from("z");
            for _ in 0..3 {
                w.push((b'a' + (i % 26) as u8) as char);
                i /= 26;
            }
            w.push_str("ox");
            w
        })
        .collect()
}

fn pairs(db: &std::path::Path, threshold: &str) -> Vec<Value> {
    let got = json_of(
        db,
        &[
            "report",
            "near-duplicates",
            "--json",
            "--near-threshold",
            threshold,
        ],
    );
    got.as_array().expect("a list of pairs").clone()
}

#[test]
fn near_copies_are_the_one_pair_and_exact_copies_stay_in_duplicates() {
    let text = words(0, 200);
    let mut changed = text.clone();
    changed[100] = "quetzalcoatl".into();
    let other = words(5000, 200).join(" ");
    let s = TestServer::start();
    let links = ["/near-a", "/near-b", "/same-1", "/same-2", "/other"];
    s.route("/", Reply::Respond(page("Home", "home", &links)));
    s.route(
        "/near-a",
        Reply::Respond(page("Near", &text.join(" "), &[])),
    );
    s.route(
        "/near-b",
        Reply::Respond(page("Near", &changed.join(" "), &[])),
    );
    let same = words(9000, 200).join(" ");
    s.route("/same-1", Reply::Respond(page("Same", &same, &[])));
    s.route("/same-2", Reply::Respond(page("Same", &same, &[])));
    s.route("/other", Reply::Respond(page("Other", &other, &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);

    let found = pairs(db.path(), "0.9");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["a"], s.url("/near-a").as_str());
    assert_eq!(found[0]["b"], s.url("/near-b").as_str());
    // 196 shingles each, 5 of them changed: a Jaccard of 191/201 = 0.95.
    let similarity = found[0]["similarity"].as_f64().unwrap();
    assert!((0.9..0.99).contains(&similarity), "{similarity}");
    // The default threshold is 0.90.
    assert_eq!(
        json_of(db.path(), &["report", "near-duplicates", "--json"]),
        Value::Array(found)
    );
    assert!(pairs(db.path(), "0.99").is_empty());
    let dups = json_of(db.path(), &["report", "duplicates", "--json"]);
    assert_eq!(dups.as_array().map(Vec::len), Some(1), "{dups}");
    let summary = json_of(db.path(), &["report", "--json"]);
    assert_eq!(summary["findings"]["near-duplicates"], 1, "{summary}");

    let bad = on_store(
        db.path(),
        &["report", "near-duplicates", "--near-threshold", "1.5"],
    );
    assert_eq!(bad.status.code(), Some(2));

    // A page that is now an image has no text to compare.
    s.route(
        "/near-b",
        Reply::Respond(Resp::bytes("image/png", vec![0x89, b'P', b'N', b'G'])),
    );
    crawl_ok(db.path(), &[&s.base()]);
    assert!(pairs(db.path(), "0.5").is_empty());
    assert_whole(db.path());
}

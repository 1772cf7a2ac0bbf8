//! The committed stores in `tests/fixtures/store-v17` and `store-v20`,
//! written by the builds whose layouts are the first supported one
//! (schema 17) and the last released one (20): this build must open each
//! (upgrading it to its own schema), find it whole, search it, name its
//! pages' words and read its pages back. A change of the store's format
//! must upgrade those stores, or this test fails (see
//! `tests/fixtures/README.md`).

use std::path::{Path, PathBuf};

use crate::support::on_store;

/// The site the store was crawled from, as it was served.
const SITE: &str = "http://127.0.0.1:8765/";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}/data.mdb"))
}

/// A copy of the committed store in a temp dir: opening a store writes to
/// it (its lock file, at least), and the committed file must stay as it is.
fn fixture_copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(name), dir.path().join("data.mdb")).unwrap();
    dir
}

fn stdout_of(db: &Path, args: &[&str]) -> Vec<u8> {
    let out = on_store(db, args);
    assert!(
        out.status.success(),
        "crawlscope {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn json_of(db: &Path, args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&stdout_of(db, args)).unwrap()
}

#[test]
fn the_committed_stores_open_check_search_and_read_their_pages_back() {
    // Schema 17 kept no run times; 20 did.
    for (name, times_kept) in [("store-v17", false), ("store-v20", true)] {
        one_committed_store(name, times_kept);
    }
}

fn one_committed_store(name: &str, times_kept: bool) {
    let committed = std::fs::read(fixture(name)).unwrap();
    let dir = fixture_copy(name);
    let db = dir.path();

    let check = String::from_utf8(stdout_of(db, &["check"])).unwrap();
    assert!(check.contains("store is whole"), "{check}");

    // Its one run (in 17, upgraded into a run record: its counts from the
    // URL states it left, no times).
    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert_eq!(runs[0]["ended"], "finished", "{runs}");
    assert_eq!(runs[0]["fetched"], 4, "{runs}");
    assert_eq!(runs[0]["failed"], 1, "{runs}");
    assert_eq!(
        runs[0]["started_at"].is_string(),
        times_kept,
        "{name}: {runs}"
    );

    // Four pages fetched, the link to a missing one failed.
    let stats = json_of(db, &["stats", "--json"]);
    assert_eq!(stats["pages"], 5, "{stats}");
    assert_eq!(stats["fetched"], 4, "{stats}");
    assert_eq!(stats["failed"], 1, "{stats}");

    // The page about it first, then the home page that names it once.
    let hits = json_of(db, &["search", "lighthouse", "--json"]);
    let urls: Vec<&str> = (hits.as_array().unwrap().iter())
        .map(|h| h["url"].as_str().unwrap())
        .collect();
    let lighthouse = format!("{SITE}lighthouse.html");
    assert_eq!(urls, [lighthouse.as_str(), SITE]);
    let phrase = json_of(db, &["search", "\"ferry timetable\"", "--json"]);
    assert_eq!(phrase[0]["url"], format!("{SITE}ferry.html"), "{phrase}");

    let page = json_of(db, &["page", &lighthouse, "--json"]);
    assert_eq!(page["title"], "The Lighthouse", "{page}");
    // Its words named from their ids, stems and all (each stem kept once
    // since 21: found through the record `words` names).
    assert_eq!(page["keywords"][0]["stem"], "lighthous", "{name}: {page}");
    assert_eq!(page["keywords"][0]["word"], "lighthouse", "{name}: {page}");
    let stem = json_of(db, &["word", "lighthouse", "--json"]);
    let by_id = json_of(db, &["word", "--id", &stem["id"].to_string(), "--json"]);
    assert_eq!(by_id["stem"], "lighthous", "{name}: {by_id}");
    assert_eq!(page["status"], 200, "{page}");
    assert_eq!(page["state"], "done", "{page}");

    // The body reads back as the file that was served.
    let body = stdout_of(db, &["body", &lighthouse]);
    assert_eq!(body, include_bytes!("../fixtures/site/lighthouse.html"));

    assert_eq!(std::fs::read(fixture(name)).unwrap(), committed);
}

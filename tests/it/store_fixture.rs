//! The committed store of format 1, `tests/fixtures/store-format-1`,
//! written by the 0.1.0 build: this build must open it, find it whole,
//! search it, name its pages' words and read its pages back. A change of
//! the store's format without an upgrade from format 1 fails here (see
//! docs/STORE.md, "Format version", and `tests/fixtures/README.md`).

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
fn the_store_of_format_1_opens_checks_searches_and_reads_its_pages_back() {
    let name = "store-format-1";
    let committed = std::fs::read(fixture(name)).unwrap();
    let dir = fixture_copy(name);
    let db = dir.path();

    let check = String::from_utf8(stdout_of(db, &["check"])).unwrap();
    assert!(check.contains("store is whole"), "{check}");

    // Its one run, with its times.
    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert_eq!(runs[0]["ended"], "finished", "{runs}");
    assert_eq!(runs[0]["fetched"], 4, "{runs}");
    assert_eq!(runs[0]["failed"], 1, "{runs}");
    assert!(runs[0]["started_at"].is_string(), "{runs}");

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
    // Its words named from their ids, stems and all.
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

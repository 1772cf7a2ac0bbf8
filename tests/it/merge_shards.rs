//! `merge SHARD... --into STORE` against its oracle: one process crawling
//! the whole site. A loopback site of two sections that link into each
//! other is crawled as a sharded crawl would leave it: shard A fetches
//! `/a/` and shard B `/b/` (the same crawl point in both, each excluding
//! the other's section, so a link into the other section is, in each
//! shard, a URL it did not fetch), both fetch the pages outside the
//! sections. Merged, `check` passes and the merged store answers as the
//! one-process crawl does: every finding kind's rows, the summary, the
//! depths, every page's status and facts, the top 10 of a few searches.
//! Then incrementally: shard A's first run is cut short and merged,
//! then resumed and merged again, which must count nothing twice. And
//! the shards' Parquet exports, read together by DuckDB through one glob,
//! count the merged store's pages by status and broken links.
//!
//! Not covered, as these shards come from two ordinary crawls and not
//! from a shared frontier: the shards here overlap on the pages outside
//! the sections (fetched by both; the later fetch wins), where a shared
//! frontier fetches each URL once; each shard records the other's
//! section as `skipped:excluded` (a shared frontier leaves such a URL
//! with no state); response times and fetch times differ between any two
//! crawls, so the tables of timings (`slow`, `hosts`) are not compared
//! with the oracle's (the merged requests are the shards' added up).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::export_formats::export;
use crate::report_findings::doc;
use crate::support::crawl::{assert_whole, crawl_ok};
use crate::support::{json_of, on_store, Reply, Resp, TestServer};
use crawlscope::report::Kind;

/// Pages per section.
const PAGES: usize = 4;

/// The site: `/` links both sections, a redirect and a missing page;
/// `/a/k` and `/b/k` link their next page, the other section's page of
/// the same depth and a missing page; a broken image, a noindex page,
/// duplicate titles and a page without a description give the reports
/// something to find.
fn site() -> TestServer {
    let s = TestServer::start();
    let home = doc(
        Some("Home"),
        Some("The home page"),
        &["Home"],
        "",
        &[
            ("/a/1", "alpha"),
            ("/b/1", "beta"),
            ("/old", "old"),
            ("/missing", "missing"),
        ],
    );
    s.route("/", Reply::Respond(home));
    s.route("/old", Reply::Respond(Resp::redirect(301, "/new")));
    let new = doc(Some("New"), Some("The new page"), &["New"], "", &[]);
    s.route("/new", Reply::Respond(new));
    for (section, word, other) in [("a", "alpha", "b"), ("b", "beta", "a")] {
        for k in 1..=PAGES {
            let title = match (section, k) {
                ("a", 3 | 4) => "Alpha twins".to_string(),
                _ => format!("{word} {k}"),
            };
            let description = (section, k) != ("b", 4);
            let head = match (section, k) {
                ("b", 2) => r#"<meta name="robots" content="noindex">"#,
                ("a", 1) => r#"<link rel="stylesheet" href="/style.css">"#,
                _ => "",
            };
            let next = format!("/{section}/{}", k + 1);
            let across = format!("/{other}/{k}");
            let mut links = vec![(across.as_str(), "across"), ("/gone", "gone")];
            if k < PAGES {
                links.push((next.as_str(), "next"));
            }
            let mut html = doc(
                Some(&title),
                description.then_some("A page of the site"),
                &[&title],
                head,
                &links,
            );
            // Each page its own word counts, so no two rank alike.
            let words = format!(
                "<p>{} {} {word}{k}</p><img src=\"/img/{section}{k}.png\" alt=\"\"></body>",
                format!("{word} ").repeat(k),
                "shared ".repeat(PAGES + k * 2 + usize::from(section == "b")),
            );
            html.body = String::from_utf8(html.body)
                .unwrap()
                .replace("</body>", &words)
                .into_bytes();
            s.route(&format!("/{section}/{k}"), Reply::Respond(html));
            s.route(
                &format!("/img/{section}{k}.png"),
                Reply::Respond(Resp::bytes("image/png", vec![0x89, b'P', b'N', b'G'])),
            );
        }
    }
    s.route(
        "/style.css",
        Reply::Respond(Resp::bytes("text/css", b"body{}".to_vec())),
    );
    s
}

/// The flags every crawl of the site's one point has.
fn point_flags(s: &TestServer) -> Vec<String> {
    vec![s.base(), "--search".into(), "word=shared".into()]
}

/// `point add` of the site's point excluding `section`, into `db`.
fn add_shard_point(db: &Path, s: &TestServer, excluded: &str) {
    let mut args: Vec<String> = vec!["point".into(), "add".into()];
    args.extend(point_flags(s));
    args.extend(["--exclude-regex".into(), format!("/{excluded}/")]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = on_store(db, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub(crate) fn merge(shards: &[&Path], into: &Path) -> String {
    let out = crate::support::crawlscope()
        .arg("merge")
        .args(shards)
        .arg("--into")
        .arg(into)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "merge: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A JSON value with its arrays' items in one order and the fields that
/// differ between any two crawls (times, run ids) left out: rows that tie
/// are listed in page id order, and page ids are each store's own.
pub(crate) fn canonical(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(canonical).collect();
            items.sort_by_key(|i| i.to_string());
            Value::Array(items)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !timing(k))
                .map(|(k, v)| (k.clone(), canonical(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A field of a crawl's clock or of a store's numbering.
fn timing(key: &str) -> bool {
    [
        "run",
        "runs",
        "rows_from_runs",
        "fetched_at",
        "fetch_time",
        "response_ms",
        "last_modified",
        "date",
        "checked_at",
        "id",
        "page_id",
    ]
    .contains(&key)
        || key.ends_with("_ms")
}

/// Everything the contract says a merged store answers as the
/// one-process crawl does, each answer named.
fn answers(db: &Path, urls: &[String]) -> Vec<(String, Value)> {
    let mut out = store_answers(db, &["alpha", "beta", "shared", "alpha shared", "twins"]);
    for url in urls {
        let v = json_of(db, &["page", url, "--json"]);
        out.push((format!("page {url}"), canonical(&v)));
    }
    out
}

/// The answers of the whole store: the summary, the depths, every finding
/// kind's rows and the top 10 of each of `queries`, each named.
pub(crate) fn store_answers(db: &Path, queries: &[&str]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut kinds: Vec<&str> = vec!["summary", "depth"];
    kinds.extend(Kind::FINDINGS.iter().map(|k| k.name()));
    for kind in kinds {
        let v = json_of(db, &["report", kind, "--json"]);
        out.push((format!("report {kind}"), canonical(&v)));
    }
    for q in queries {
        let hits = json_of(db, &["search", q, "--json", "--limit", "10"]);
        // In rank order: the order is the answer.
        let ranked: Vec<Value> = hits["hits"]
            .as_array()
            .or(hits.as_array())
            .expect("search hits")
            .iter()
            .map(|h| serde_json::json!([h["url"], h["score"]]))
            .collect();
        out.push((format!("search {q}"), Value::Array(ranked)));
    }
    out
}

fn site_urls(s: &TestServer) -> Vec<String> {
    let mut paths: Vec<String> = ["/", "/old", "/new", "/missing", "/gone"]
        .iter()
        .map(|p| p.to_string())
        .collect();
    for section in ["a", "b"] {
        for k in 1..=PAGES {
            paths.push(format!("/{section}/{k}"));
        }
    }
    paths.iter().map(|p| s.url(p)).collect()
}

fn assert_same(merged: &Path, oracle: &Path, urls: &[String]) {
    let (m, o) = (answers(merged, urls), answers(oracle, urls));
    for ((name, got), (_, want)) in m.iter().zip(&o) {
        assert_eq!(got, want, "{name}: the merged store answers otherwise");
    }
}

/// The merged run of the site's point: `runs --json`'s one run.
fn merged_runs(db: &Path) -> Vec<Value> {
    let v = json_of(db, &["runs", "--json"]);
    v.as_array().cloned().unwrap_or_default()
}

/// Two shard stores, each with the point excluding the other's section,
/// and the empty store they merge into.
fn shard_stores(s: &TestServer) -> (TempDir, TempDir, TempDir) {
    let (a, b, merged) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    add_shard_point(a.path(), s, "b");
    add_shard_point(b.path(), s, "a");
    (a, b, merged)
}

#[test]
fn merged_shards_answer_as_one_process_and_again_after_a_shard_resumed() {
    let s = site();
    let oracle = tempfile::tempdir().unwrap();
    let flags = point_flags(&s);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    crawl_ok(oracle.path(), &flags);

    let (a, b, merged) = shard_stores(&s);
    // A's run cut short, merged, then resumed and merged again.
    crawl_ok(a.path(), &["--max-pages", "3"]);
    crawl_ok(b.path(), &[]);
    merge(&[a.path(), b.path()], merged.path());
    assert_whole(merged.path());
    let early = merged_runs(merged.path());
    assert_eq!(early.len(), 1, "one run of one point: {early:#?}");
    assert_ne!(early[0]["ended"], "finished", "A's part was stopped");

    crawl_ok(a.path(), &[]);
    let said = merge(&[a.path()], merged.path());
    assert!(said.contains("merged "), "{said}");
    assert_whole(merged.path());
    let urls = site_urls(&s);
    assert_same(merged.path(), oracle.path(), &urls);

    // The run's counts are A's and B's, A's counted once.
    let shard_runs: Vec<Value> = [a.path(), b.path()]
        .iter()
        .flat_map(|p| merged_runs(p))
        .collect();
    let runs = merged_runs(merged.path());
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0]["ended"], "finished");
    let fetched = |r: &Value| r["fetched"].as_u64().expect("fetched count");
    assert_eq!(
        fetched(&runs[0]),
        shard_runs.iter().map(fetched).sum::<u64>(),
        "merged {runs:#?} of shards {shard_runs:#?}"
    );

    // And so are its requests to the site (these shards both asked for
    // the pages outside the sections).
    let requests = |db: &Path| {
        let hosts = json_of(db, &["report", "hosts", "--json"]);
        let rows = hosts.as_array().cloned().unwrap_or_default();
        rows.iter()
            .map(|h| h["requests"].as_u64().unwrap())
            .sum::<u64>()
    };
    let shard_requests = requests(a.path()) + requests(b.path());
    assert!(shard_requests > 2 * PAGES as u64);
    assert_eq!(requests(merged.path()), shard_requests);

    // Merging both again changes nothing.
    merge(&[b.path(), a.path()], merged.path());
    assert_whole(merged.path());
    assert_same(merged.path(), oracle.path(), &urls);
    assert_eq!(fetched(&merged_runs(merged.path())[0]), fetched(&runs[0]));
    assert_eq!(requests(merged.path()), shard_requests);
    let pages: BTreeSet<String> = urls.into_iter().collect();
    assert_eq!(pages.len(), 5 + 2 * PAGES);
}

/// Whether DuckDB's Python package can be used; false only when the user
/// opted out of the DuckDB test. A missing package fails the test: a
/// feature that cannot be tested is not passed.
fn duckdb() -> bool {
    let has = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if has {
        return true;
    }
    crate::support::tool_missing(
        "duckdb",
        "pip install duckdb (.ci/run does)",
        "the DuckDB test",
    );
    false
}

/// URLs by status class and broken URLs, as DuckDB counts them over every
/// Parquet file `glob` matches. A URL two shards fetched (these shards
/// overlap outside the sections) is one URL: counted by distinct URL.
const DUCKDB_COUNTS: &str = r#"
import duckdb, json, sys
row = duckdb.sql(f"""
  select count(distinct url) filter (where fetch_status between 200 and 299),
         count(distinct url) filter (where fetch_status between 300 and 399),
         count(distinct url) filter (where fetch_status between 400 and 499),
         count(distinct url) filter (where fetch_status between 500 and 599),
         count(distinct url) filter (where fetch_status is null),
         count(distinct url) filter (where fetch_status >= 400 or fetch_status is null)
  from read_parquet('{sys.argv[1]}')""").fetchall()[0]
names = ["2xx", "3xx", "4xx", "5xx", "failed", "broken"]
print(json.dumps(dict(zip(names, row))))
"#;

#[test]
fn duckdb_reads_the_shards_parquet_as_the_merged_summary_counts() {
    if !duckdb() {
        return;
    }
    let s = site();
    let (a, b, merged) = shard_stores(&s);
    crawl_ok(a.path(), &[]);
    crawl_ok(b.path(), &[]);
    merge(&[a.path(), b.path()], merged.path());
    let files = tempfile::tempdir().unwrap();
    for (name, shard) in [("a", a.path()), ("b", b.path())] {
        let out = files.path().join(format!("shard-{name}.parquet"));
        export(
            shard,
            &["--format", "parquet", "--out", out.to_str().unwrap()],
        );
    }
    let glob = files.path().join("*.parquet");
    let out = std::process::Command::new("python3")
        .args(["-c", DUCKDB_COUNTS, glob.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counted: Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary = json_of(merged.path(), &["report", "summary", "--json"]);
    for class in ["2xx", "3xx", "4xx", "5xx", "failed"] {
        assert_eq!(
            counted[class], summary["by_status"][class],
            "{class}: DuckDB {counted}, summary {summary}"
        );
    }
    assert_eq!(counted["broken"], summary["findings"]["broken"]);
    assert!(
        counted["2xx"].as_u64() > Some(2 * PAGES as u64),
        "{counted}"
    );
}

#[test]
fn merge_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("merged");
    let missing = dir.path().join("nothing-here");
    let out = crate::support::crawlscope()
        .arg("merge")
        .arg(&missing)
        .arg("--into")
        .arg(&into)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no store at"), "{err}");
    assert!(!into.exists(), "nothing made for a missing shard");

    // A store merged into itself.
    let s = TestServer::start();
    s.route("/", Reply::Respond(Resp::html("<title>one</title>")));
    let one = dir.path().join("one");
    crawl_ok(&one, &[&s.base()]);
    let out = crate::support::crawlscope()
        .arg("merge")
        .arg(&one)
        .arg("--into")
        .arg(&one)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is the store merged into"), "{err}");
}

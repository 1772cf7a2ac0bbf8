//! The command-line contract for bad input: usage errors exit 2 with clap's
//! whole message (its `error:` line first), runtime errors exit 1 with one
//! line naming what failed, never a panic.

use crate::support::crawl::crawl;
use crate::support::{crawlscope, on_store, stderr_of};

fn run(args: &[&str]) -> std::process::Output {
    crawlscope().args(args).output().unwrap()
}

fn assert_usage_error(out: &std::process::Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(first.starts_with("error:"), "stderr: {err}");
    assert!(first.contains(needle), "first line lacks {needle:?}: {err}");
    assert!(err.contains("For more information, try '--help'."), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn assert_one_error_line(out: &std::process::Output, code: i32, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.starts_with("error:"), "stderr: {err}");
    assert!(err.contains(needle), "stderr lacks {needle:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "more than one line: {err}"
    );
}

#[test]
fn invalid_urls_and_flags_are_usage_errors() {
    let db = tempfile::tempdir().unwrap();
    let db = db.path().to_str().unwrap();
    assert_usage_error(
        &run(&["--db", db, "crawl", "mailto:me@example.com"]),
        "http",
    );
    assert_usage_error(&run(&["--db", db, "crawl", "example.com"]), "http");
    assert_usage_error(
        &run(&["--db", db, "crawl", "http://h/", "--depth", "abc"]),
        "--depth",
    );
    assert_usage_error(
        &run(&["--db", db, "crawl", "http://h/", "--header", "nocolon"]),
        "header",
    );
    assert_usage_error(&run(&["--db", db, "frobnicate"]), "frobnicate");
}

#[test]
fn an_unwritable_store_path_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let db = file.join("store");
    let out = run(&["--db", db.to_str().unwrap(), "stats"]);
    assert_one_error_line(&out, 1, db.to_str().unwrap());
}

#[test]
fn stats_json_answers_on_a_new_store() {
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("store");
    let db = db.to_str().unwrap();
    assert!(run(&["--db", db, "point", "add", "http://127.0.0.1:9/"])
        .status
        .success());
    let out = run(&["--db", db, "stats", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "pages",
        "fetched",
        "failed",
        "queued",
        "words",
        "links",
        "store_bytes",
    ] {
        assert!(v.get(key).is_some(), "stats lacks {key}: {v}");
    }
    assert_eq!(v["pages"], 0);
}

#[test]
fn usage_errors_print_clap_whole_message() {
    let out = crawlscope().args(["serch", "harbor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.starts_with("error: unrecognized subcommand 'serch'"),
        "{err}"
    );
    assert!(err.contains("similar subcommand exists: 'search'"), "{err}");
    let out = crawlscope().args(["point", "add"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("required arguments were not provided"),
        "{err}"
    );
    assert!(err.contains("<URL>"), "{err}");
    assert!(err.contains("Usage: crawlscope point add"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn scope_flags_without_a_url_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(on_store(&db, &["point", "add", "http://127.0.0.1:9/"])
        .status
        .success());
    for flag in [
        &["--root", "http://127.0.0.1:9/a/"][..],
        &["--exclude", "http://127.0.0.1:9/b/"],
        &["--user", "ann", "--password", "pw"],
        &["--header", "X-A: 1"],
    ] {
        let out = crawl(&db, flag);
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {}", stderr_of(&out));
        assert!(
            stderr_of(&out).starts_with(&format!("error: {} needs a URL", flag[0])),
            "{}",
            stderr_of(&out)
        );
    }
}

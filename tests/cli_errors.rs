//! The command-line contract for bad input: usage errors exit 2 with one
//! `error:` line, runtime errors exit 1 naming what failed, never a panic.

mod support;

fn run(args: &[&str]) -> std::process::Output {
    support::crawlscope().args(args).output().unwrap()
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
    assert_one_error_line(
        &run(&["--db", db, "crawl", "mailto:me@example.com"]),
        2,
        "http",
    );
    assert_one_error_line(&run(&["--db", db, "crawl", "example.com"]), 2, "http");
    assert_one_error_line(
        &run(&["--db", db, "crawl", "http://h/", "--depth", "abc"]),
        2,
        "--depth",
    );
    assert_one_error_line(
        &run(&["--db", db, "crawl", "http://h/", "--header", "nocolon"]),
        2,
        "header",
    );
    assert_one_error_line(&run(&["--db", db, "frobnicate"]), 2, "frobnicate");
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
    let out = run(&["--db", db.path().to_str().unwrap(), "stats", "--json"]);
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

//! Crawl points on the command line: each change is confirmed in a
//! sentence, a deleted point stays restorable and is never crawled, and run
//! flags on a bare `crawl` limit that run, not the point.

use crate::support::crawl::{crawl, crawl_ok, serve_demo};
use crate::support::{on_store, stderr_of};

#[test]
fn run_flags_on_a_bare_crawl_limit_that_run() {
    let demo = serve_demo(300);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(on_store(&db, &["point", "add", &demo.1]).status.success());
    let s = crawl_ok(&db, &["--max-pages", "10"]);
    assert_eq!(s["fetched"], 10, "{s}");
    // The limit was for that run: the point keeps no limit.
    let list: serde_json::Value =
        serde_json::from_slice(&on_store(&db, &["point", "list", "--json"]).stdout).unwrap();
    assert_eq!(list[0]["max_pages"], serde_json::Value::Null);

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(on_store(&db, &["point", "add", &demo.1]).status.success());
    let s = crawl_ok(&db, &["--depth", "0"]);
    assert_eq!(s["fetched"], 1, "only the start page is at depth 0: {s}");
}

#[test]
fn point_changes_are_confirmed_in_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let said = |args: &[&str]| {
        let out = on_store(&db, args);
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(
        said(&["point", "add", "http://a.test/x", "--max-pages", "5"]),
        "crawl point 1 added:\n  1 on  http://a.test/x  root http://a.test/  depth any  max pages 5\n"
    );
    assert_eq!(
        said(&["point", "update", "1", "--depth", "2"]),
        "crawl point 1 updated:\n  1 on  http://a.test/x  root http://a.test/  depth 2  max pages 5  scope changed (re-scoped on the next crawl)\n"
    );
    assert!(said(&["point", "disable", "1"])
        .starts_with("crawl point 1 disabled (kept, not crawled until enabled):\n  1 off "));
    assert!(said(&["point", "enable", "1"]).starts_with("crawl point 1 enabled"));
    let json: serde_json::Value =
        serde_json::from_str(&said(&["point", "add", "http://b.test/", "--json"])).unwrap();
    assert_eq!(json["id"], 2);
    assert_eq!(
        said(&["point", "rm", "2"]),
        "crawl point 2 deleted, and its queued URLs with it (crawlscope point restore 2 brings it back)\n"
    );
}

#[test]
fn a_deleted_point_is_kept_restorable_and_never_crawled() {
    let s = crate::support::TestServer::start();
    crate::support::home(&s, &[]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let said = |args: &[&str]| on_store(&db, args);
    assert!(said(&["point", "add", &s.base()]).status.success());
    assert!(said(&["point", "rm", "1"]).status.success());
    let live: serde_json::Value =
        serde_json::from_slice(&said(&["point", "list", "--json"]).stdout).unwrap();
    assert_eq!(live, serde_json::json!([]));
    let gone: serde_json::Value =
        serde_json::from_slice(&said(&["point", "list", "--deleted", "--json"]).stdout).unwrap();
    assert_eq!(gone[0]["deleted"], true);
    assert!(gone[0]["created_at"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    assert!(gone[0]["updated_by"]
        .as_str()
        .is_some_and(|u| !u.is_empty()));
    // Never crawled: not by a bare crawl, not by asking for it.
    let out = crawl(&db, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(s.hits("/"), 0);
    assert!(said(&["point", "restore", "1"]).status.success());
    let out = said(&["point", "restore", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("is not deleted"),
        "{}",
        stderr_of(&out)
    );
    crawl_ok(&db, &[]);
    assert_eq!(s.hits("/"), 1, "restored, it crawls again");
    assert!(said(&["point", "rm", "1", "--purge"]).status.success());
    let all: serde_json::Value =
        serde_json::from_slice(&said(&["point", "list", "--deleted", "--json"]).stdout).unwrap();
    assert_eq!(all, serde_json::json!([]), "purged for good");
}

//! Documents, named groups of crawl points, on the command line: a point in
//! several documents takes the excludes of all of them; `crawl --doc`
//! crawls only that document's active points (the server's request log
//! says which URLs were asked for); a document is renamed, deleted softly,
//! restored and purged, and `doc list --json` has its contract's shape.

use crate::support::crawl::{crawl, crawl_ok};
use crate::support::{json_of, on_store, page, stderr_of, Reply, TestServer};

/// `crawlscope --db DB ARGS...`, which must succeed.
fn ok(db: &std::path::Path, args: &[&str]) -> String {
    let out = on_store(db, args);
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `crawlscope --db DB ARGS...`, which must fail with `code` and a first
/// stderr line holding `says`.
fn refused(db: &std::path::Path, args: &[&str], code: i32, says: &str) {
    let out = on_store(db, args);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(first.contains(says), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// The `docs` of every point, by id.
fn point_docs(db: &std::path::Path) -> Vec<serde_json::Value> {
    json_of(db, &["point", "list", "--json"])
        .as_array()
        .expect("points")
        .iter()
        .map(|p| p["docs"].clone())
        .collect()
}

#[test]
fn crawl_doc_crawls_its_active_points_with_every_documents_excludes() {
    let s = TestServer::start();
    // /a/ is in documents one and two, each excluding one of its pages;
    // /b/ is in one; /c/ is in one but disabled; /d/ is in none.
    s.route(
        "/a/",
        Reply::Respond(page("A", "a", &["/a/one-off", "/a/two-off", "/a/kept"])),
    );
    for (path, links) in [
        ("/a/one-off", vec![]),
        ("/a/two-off", vec![]),
        ("/a/kept", vec![]),
        ("/b/", vec!["/b/p"]),
        ("/b/p", vec![]),
        ("/c/", vec!["/c/p"]),
        ("/c/p", vec![]),
        ("/d/", vec!["/d/p"]),
        ("/d/p", vec![]),
    ] {
        s.route(path, Reply::Respond(page(path, "text", &links)));
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    ok(
        &db,
        &["doc", "add", "one", "--exclude", &s.url("/a/one-off")],
    );
    ok(
        &db,
        &["doc", "add", "two", "--exclude", &s.url("/a/two-off")],
    );
    for (path, docs) in [
        ("/a/", &["--doc", "one", "--doc", "two", "--doc", "one"][..]),
        ("/b/", &["--doc", "one"]),
        ("/c/", &["--doc", "one"]),
        ("/d/", &[]),
    ] {
        let url = s.url(path);
        let mut args = vec!["point", "add", url.as_str(), "--root", url.as_str()];
        args.extend_from_slice(docs);
        ok(&db, &args);
    }
    ok(&db, &["point", "disable", "3"]);
    // A document named twice is one.
    assert_eq!(
        point_docs(&db),
        [
            serde_json::json!(["one", "two"]),
            serde_json::json!(["one"]),
            serde_json::json!(["one"]),
            serde_json::json!([])
        ]
    );

    let sum = crawl_ok(&db, &["--doc", "one"]);
    let mut asked: Vec<String> = s
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p != "/robots.txt" && !p.contains("sitemap"))
        .collect();
    asked.sort();
    asked.dedup();
    assert_eq!(asked, ["/a/", "/a/kept", "/b/", "/b/p"], "{sum}");
    assert_eq!(sum["excluded"], 2, "{sum}");

    // `page` says which documents a URL belongs to.
    let docs_of = |path: &str| json_of(&db, &["page", &s.url(path), "--json"])["docs"].clone();
    assert_eq!(docs_of("/a/kept"), serde_json::json!(["one", "two"]));
    assert_eq!(docs_of("/b/p"), serde_json::json!(["one"]));
    assert_eq!(docs_of("/a/one-off"), serde_json::json!([]));

    // Unknown, badly named, and without an active point: one line each.
    refused(
        &db,
        &["crawl", "--doc", "nothing"],
        1,
        "no document \"nothing\"",
    );
    refused(&db, &["crawl", "--doc", "a,b"], 2, "error:");
    ok(&db, &["doc", "add", "empty"]);
    refused(
        &db,
        &["crawl", "--doc", "empty"],
        1,
        "no active crawl point",
    );
    refused(&db, &["crawl", &s.url("/d/"), "--doc", "one"], 2, "error:");
}

#[test]
fn documents_are_renamed_deleted_restored_and_purged() {
    let s = TestServer::start();
    s.route("/", Reply::Respond(page("Home", "home", &["/x/"])));
    s.route("/x/", Reply::Respond(page("X", "x", &[])));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let home = s.url("/");
    ok(&db, &["doc", "add", "guide", "--exclude", &s.url("/x/")]);
    ok(&db, &["doc", "add", "blog"]);
    ok(
        &db,
        &["point", "add", &home, "--doc", "guide", "--doc", "blog"],
    );

    let docs = json_of(&db, &["doc", "list", "--json"]);
    let guide = &docs[1];
    let mut keys: Vec<&str> = guide
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "created_at",
            "deleted",
            "excludes",
            "name",
            "points",
            "updated_at"
        ]
    );
    assert_eq!(guide["name"], "guide");
    assert_eq!(guide["points"], serde_json::json!([1]));
    assert_eq!(guide["deleted"], false);

    // Rename: the point follows; a taken name is refused.
    ok(&db, &["doc", "rename", "guide", "manual"]);
    assert_eq!(point_docs(&db), [serde_json::json!(["manual", "blog"])]);
    refused(
        &db,
        &["doc", "rename", "manual", "blog"],
        1,
        "exists already",
    );
    refused(&db, &["doc", "rename", "nothing", "x"], 1, "no document");

    // Soft delete: listed as deleted, its excludes stop applying (the
    // point is re-scoped), nothing joins it, `--doc` refuses it.
    crawl_ok(&db, &[]);
    assert!(s.hits("/x/") == 0, "excluded while manual applies");
    ok(&db, &["doc", "rm", "manual"]);
    let docs = json_of(&db, &["doc", "list", "--json"]);
    assert_eq!(docs[1]["name"], "manual");
    assert_eq!(docs[1]["deleted"], true);
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["docs"], serde_json::json!(["manual", "blog"]));
    assert_eq!(points[0]["rescope_pending"], true);
    refused(&db, &["crawl", "--doc", "manual"], 1, "is deleted");
    refused(&db, &["runs", "--doc", "manual"], 1, "is deleted");
    ok(
        &db,
        &["point", "add", &s.url("/x/"), "--root", &s.url("/x/")],
    );
    refused(
        &db,
        &["point", "update", "2", "--doc", "manual"],
        1,
        "is deleted",
    );
    crawl_ok(&db, &["--doc", "blog"]);
    assert!(s.hits("/x/") > 0, "no longer excluded");

    // Restore, then purge: the name leaves the point.
    ok(&db, &["doc", "restore", "manual"]);
    assert_eq!(
        json_of(&db, &["doc", "list", "--json"])[1]["deleted"],
        false
    );
    refused(&db, &["doc", "restore", "manual"], 1, "not deleted");
    ok(&db, &["doc", "rm", "manual", "--purge"]);
    let names: Vec<serde_json::Value> = json_of(&db, &["doc", "list", "--json"])
        .as_array()
        .expect("docs")
        .iter()
        .map(|d| d["name"].clone())
        .collect();
    assert_eq!(names, [serde_json::json!("blog")]);
    assert_eq!(point_docs(&db)[0], serde_json::json!(["blog"]));

    // `--no-doc` takes a point out of every document.
    refused(
        &db,
        &["point", "update", "1", "--no-doc", "--doc", "blog"],
        2,
        "error:",
    );
    ok(&db, &["point", "update", "1", "--no-doc"]);
    assert_eq!(point_docs(&db)[0], serde_json::json!([]));
    let out = crawl(&db, &[]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    ok(&db, &["check"]);
}

//! Scope: root prefix, excludes, depth limit, max pages, and out-of-scope
//! links recorded in the graph but never fetched.

use crate::support::crawl::*;
use crate::support::{page as site_page, Reply, TestServer};

/// / → /a, /b, /ext (other root), /docs/x (excluded in one test), depth chain /a → /a/1 → /a/1/2
fn site() -> TestServer {
    let s = TestServer::start();
    let other = "http://127.0.0.1:1/elsewhere";
    s.route(
        "/",
        Reply::Respond(site_page(
            "Home",
            "welcome home",
            &["a", "b", "docs/x", other],
        )),
    );
    s.route("/a", Reply::Respond(site_page("A", "alpha page", &["a/1"])));
    s.route(
        "/a/1",
        Reply::Respond(site_page("A1", "deeper page", &["/a/1/2"])),
    );
    s.route(
        "/a/1/2",
        Reply::Respond(site_page("A12", "deepest page", &[])),
    );
    s.route("/b", Reply::Respond(site_page("B", "bravo page", &["/"])));
    s.route("/docs/x", Reply::Respond(site_page("X", "docs page", &[])));
    s
}

#[test]
fn whole_site_is_crawled_and_offsite_links_recorded_not_fetched() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 6);
    assert_eq!(sum["out_of_scope"], 1);
    assert_eq!(sum["failed"], 0);
    let kids = children(db.path(), &s.base());
    assert_eq!(kids.len(), 4);
    assert!(kids.contains(&"http://127.0.0.1:1/elsewhere".to_string()));
    assert_eq!(
        state(db.path(), "http://127.0.0.1:1/elsewhere").as_deref(),
        Some("skipped:out_of_scope")
    );
    assert_eq!(s.hits("/"), 1, "a page linked back to is fetched once");
    assert_whole(db.path());
}

#[test]
fn depth_limit_fetches_depth_up_to_n() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base(), "--depth", "1"]);
    // depth 0: /, depth 1: /a /b /docs/x
    assert_eq!(sum["fetched"], 4);
    assert_eq!(s.hits("/a/1"), 0);
    assert_eq!(
        state(db.path(), &s.url("a/1")).as_deref(),
        Some("skipped:too_deep")
    );
}

#[test]
fn root_prefix_and_excludes_limit_the_crawl() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    let root = s.base();
    let sum = crawl_ok(
        db.path(),
        &[
            &root,
            "--exclude",
            &s.url("docs/"),
            "--exclude",
            &s.url("a/1/"),
        ],
    );
    assert_eq!(sum["excluded"], 2);
    assert_eq!(s.hits("/docs/x"), 0);
    assert_eq!(s.hits("/a/1/2"), 0);
    assert_eq!(
        state(db.path(), &s.url("docs/x")).as_deref(),
        Some("skipped:excluded")
    );

    let s = site();
    let db2 = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db2.path(), &[&s.url("a"), "--root", &s.url("a")]);
    // /a, /a/1, /a/1/2 are under the root; nothing else is.
    assert_eq!(sum["fetched"], 3);
    assert_eq!(s.hits("/b"), 0);
}

#[test]
fn max_pages_counts_successful_fetches_only() {
    let s = site();
    s.route("/b", Reply::Respond(crate::support::Resp::status(500)));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(
        db.path(),
        &[&s.base(), "--max-pages", "3", "--concurrency", "1"],
    );
    assert_eq!(sum["fetched"], 3);
    assert_eq!(sum["failed"], 1, "the 500 page failed and did not count");
    assert_whole(db.path());
}

#[test]
fn a_new_point_crawls_its_own_scope_under_pages_another_point_fetched() {
    let s = TestServer::start();
    crate::support::home(&s, &["docs/"]);
    s.route(
        "/docs/",
        Reply::Respond(site_page("Docs", "docs", &["a", "b"])),
    );
    s.route("/docs/a", Reply::Respond(site_page("A", "alpha", &[])));
    s.route("/docs/b", Reply::Respond(site_page("B", "beta", &[])));
    let db = tempfile::tempdir().unwrap();
    assert_eq!(crawl_ok(db.path(), &[&s.base()])["fetched"], 4);
    // A second point whose start page the first one already fetched.
    let docs = s.url("docs/");
    let sum = crawl_ok(db.path(), &[&docs, "--root", &docs]);
    assert_eq!(
        (s.hits("/docs/a"), s.hits("/docs/b")),
        (2, 2),
        "the new point walked its own scope: {sum}"
    );
    assert_eq!(s.hits("/"), 1, "and nothing outside it");
}

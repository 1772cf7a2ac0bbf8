//! Redirects are followed by the engine: each hop checked against scope,
//! loops and long chains stop with an error, the page is stored under its
//! final URL and the redirecting URL records where it points.

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

#[test]
fn in_scope_redirect_stores_the_target_and_records_the_hop() {
    let s = TestServer::start();
    crate::support::home(&s, &["old"]);
    s.route("/old", Reply::Respond(Resp::redirect(301, "/new")));
    s.route("/new", Reply::Respond(page("New", "moved here", &[])));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 2);
    assert_eq!(
        state(db.path(), &s.url("old")).as_deref(),
        Some("redirected")
    );
    assert!(stored_page(db.path(), &s.url("old")).is_none());
    let new = stored_page(db.path(), &s.url("new")).expect("target stored");
    assert_eq!(new.title.as_deref(), Some("New"));
    assert_eq!(new.depth, 1, "a redirect hop keeps the depth");
    assert_eq!(pages_with(db.path(), "move"), vec![s.url("new")]);
}

#[test]
fn each_redirect_keeps_its_status_code() {
    let s = TestServer::start();
    crate::support::home(&s, &["a", "b", "c", "d"]);
    for (path, code) in [("/a", 301), ("/b", 302), ("/c", 307), ("/d", 308)] {
        s.route(path, Reply::Respond(Resp::redirect(code, "/end")));
    }
    s.route("/end", Reply::Respond(page("End", "end", &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    for (path, code) in [("a", 301), ("b", 302), ("c", 307), ("d", 308)] {
        let out = crate::support::crawlscope()
            .arg("--db")
            .arg(db.path())
            .args(["page", "--json", &s.url(path)])
            .output()
            .unwrap();
        let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(p["redirect_status"], code, "{p}");
        assert_eq!(p["redirect_to"], s.url("end"));
    }
}

#[test]
fn out_of_scope_redirect_stops_there() {
    let s = TestServer::start();
    let other = TestServer::start();
    other.route("/landing", Reply::Respond(page("Other", "other", &[])));
    crate::support::home(&s, &["away"]);
    s.route(
        "/away",
        Reply::Respond(Resp::redirect(302, &other.url("landing"))),
    );
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 1);
    assert_eq!(other.hits("/landing"), 0);
    assert_eq!(
        state(db.path(), &other.url("landing")).as_deref(),
        Some("skipped:out_of_scope")
    );
    assert!(stored_page(db.path(), &other.url("landing")).is_none());
}

#[test]
fn loops_and_long_chains_end_with_an_error() {
    let s = TestServer::start();
    crate::support::home(&s, &["loop1", "chain0"]);
    s.route("/loop1", Reply::Respond(Resp::redirect(301, "/loop2")));
    s.route("/loop2", Reply::Respond(Resp::redirect(301, "/loop1")));
    for i in 0..12 {
        s.route(
            &format!("/chain{i}"),
            Reply::Respond(Resp::redirect(302, &format!("/chain{}", i + 1))),
        );
    }
    s.route("/chain12", Reply::Respond(page("End", "end", &[])));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 1);
    assert_eq!(s.hits("/loop1"), 1);
    assert_eq!(s.hits("/loop2"), 1);
    assert_eq!(state(db.path(), &s.url("loop2")).as_deref(), Some("failed"));
    assert_eq!(s.hits("/chain12"), 0, "the chain is cut after 10 hops");
    assert_eq!(
        state(db.path(), &s.url("chain10")).as_deref(),
        Some("failed")
    );
    assert_whole(db.path());
}

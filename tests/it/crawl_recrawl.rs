//! Re-crawl: known pages are revisited with conditional GETs; a 304 leaves
//! the page as it was, a changed page is re-indexed without its old words.

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

const LM: &str = "Tue, 02 Jan 2024 10:00:00 GMT";

#[test]
fn unchanged_pages_answer_304_and_changed_pages_are_reindexed() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Conditional {
            resp: page("Home", "stable words", &["news"]),
            last_modified: LM.into(),
            etag: "\"home-v1\"".into(),
        },
    );
    s.route(
        "/news",
        Reply::Respond(page("News", "yesterday zebra", &[])),
    );
    let db = tempfile::tempdir().unwrap();
    let first = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(first["fetched"], 2);
    assert_eq!(pages_with(db.path(), "zebra"), vec![s.url("news")]);
    let home = stored_page(db.path(), &s.base()).unwrap();
    assert_eq!(home.last_modified, 1_704_189_600, "Last-Modified is kept");

    // The news page changes; home does not.
    s.route(
        "/news",
        Reply::Respond(page("News", "today giraffe", &["fresh"])),
    );
    s.route("/fresh", Reply::Respond(page("Fresh", "brand new", &[])));
    let second = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(second["not_modified"], 1, "{second}");
    assert_eq!(
        second["fetched"], 2,
        "news re-fetched, fresh found: {second}"
    );
    let home_req = s
        .requests()
        .into_iter()
        .filter(|r| r.path == "/")
        .nth(1)
        .unwrap();
    assert_eq!(home_req.header("if-none-match"), Some("\"home-v1\""));
    assert_eq!(home_req.header("if-modified-since"), Some(LM));
    assert_eq!(
        pages_with(db.path(), "zebra"),
        Vec::<String>::new(),
        "old words are gone"
    );
    assert_eq!(pages_with(db.path(), "giraff"), vec![s.url("news")]);
    assert_eq!(
        pages_with(db.path(), "stabl"),
        vec![s.base()],
        "a 304 keeps the page"
    );
    assert_whole(db.path());
}

#[test]
fn crawl_without_url_resumes_every_active_point() {
    let s = TestServer::start();
    crate::support::home(&s, &[]);
    let db = tempfile::tempdir().unwrap();
    let out = crate::support::on_store(db.path(), &["point", "add", &s.base(), "--depth", "3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sum = crawl_ok(db.path(), &[]);
    assert_eq!(sum["fetched"], 1);
    // Nothing is active: a clear error, exit 1.
    let list = crate::support::crawlscope()
        .args(["--db"])
        .arg(db.path())
        .args(["point", "disable", "1"])
        .output()
        .unwrap();
    assert!(list.status.success());
    let out = crawl(db.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: nothing to crawl"));
    let _ = Resp::status(200);
}

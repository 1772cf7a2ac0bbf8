//! robots.txt: disallowed URLs are never requested, our agent's group is
//! the one that applies, --ignore-robots turns it off.

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

fn site() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/robots.txt",
        Reply::Respond(Resp::text(
            "User-agent: *\nDisallow: /\n\nUser-agent: crawlscope\nDisallow: /private/\n",
        )),
    );
    crate::support::home(&s, &["public", "private/secret"]);
    s.route("/public", Reply::Respond(page("Public", "open", &[])));
    s.route(
        "/private/secret",
        Reply::Respond(page("Secret", "hidden", &[])),
    );
    s
}

#[test]
fn disallowed_urls_are_never_requested() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 2);
    assert_eq!(sum["skipped_robots"], 1);
    assert_eq!(s.hits("/private/secret"), 0);
    assert_eq!(
        s.hits("/robots.txt"),
        1,
        "robots.txt is fetched once per origin"
    );
    assert_eq!(
        state(db.path(), &s.url("private/secret")).as_deref(),
        Some("skipped:robots")
    );
}

#[test]
fn user_agent_picks_the_group_and_ignore_robots_turns_it_off() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    // Another agent falls in the `*` group, which disallows everything.
    let sum = crawl_ok(db.path(), &[&s.base(), "--user-agent", "otherbot/1.0"]);
    assert_eq!(sum["fetched"], 0);
    assert_eq!(sum["skipped_robots"], 1);
    let ua = s
        .requests()
        .iter()
        .find(|r| r.path == "/robots.txt")
        .and_then(|r| r.header("user-agent").map(String::from));
    assert_eq!(ua.as_deref(), Some("otherbot/1.0"));

    let db2 = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db2.path(), &[&s.base(), "--ignore-robots"]);
    assert_eq!(sum["fetched"], 3);
    assert_eq!(s.hits("/private/secret"), 1);
}

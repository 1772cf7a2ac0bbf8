//! robots.txt: disallowed URLs are never requested, our agent's group is
//! the one that applies, --ignore-robots turns it off; a robots.txt that
//! says "slow down" is waited out, one that fails is asked again, and one
//! that cannot be had disallows the origin for that run only.

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

fn site() -> TestServer {
    let s = TestServer::start();
    crate::support::robots(
        &s,
        "User-agent: *\nDisallow: /\n\nUser-agent: crawlscope\nDisallow: /private/\n",
    );
    crate::support::home(&s, &["public", "private/secret"]);
    s.route("/public", Reply::Respond(page("Public", "open", &[])));
    s.route(
        "/private/secret",
        Reply::Respond(page("Secret", "hidden", &[])),
    );
    s
}

/// The site whose robots.txt answers `first`, one by one, then disallows
/// /private/.
fn robots_answering_first(first: Vec<Resp>) -> TestServer {
    let s = site();
    let mut replies: Vec<Reply> = first.into_iter().map(Reply::Respond).collect();
    replies.push(Reply::Respond(Resp::text(
        "User-agent: *\nDisallow: /private/\n",
    )));
    s.route("/robots.txt", Reply::Sequence(replies));
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

#[test]
fn a_robots_txt_that_says_slow_down_is_waited_out() {
    let s = robots_answering_first(vec![Resp::status(429).header("Retry-After", "1")]);
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    // A 429 is not "no rules": the rules that came after it held.
    assert_eq!(sum["skipped_robots"], 1, "{sum}");
    assert_eq!(s.hits("/private/secret"), 0);
    assert_eq!(sum["throttled"], 1, "{sum}");
    s.assert_asked_again_a_second_later("/robots.txt");
}

#[test]
fn a_robots_txt_that_fails_once_is_asked_again() {
    let s = robots_answering_first(vec![Resp::status(500)]);
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(s.hits("/robots.txt"), 2);
    assert_eq!(sum["fetched"], 2, "{sum}");
    assert_eq!(sum["skipped_robots"], 1, "{sum}");
}

#[test]
fn an_unreachable_robots_txt_fails_the_run_but_is_not_kept() {
    // Three answers: the first ask and its two retries.
    let s = robots_answering_first(vec![Resp::status(503); 3]);
    let db = tempfile::tempdir().unwrap();
    let out = crawl(db.path(), &[&s.base()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("robots.txt unreachable: 503 Service Unavailable"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.hits("/"), 0, "nothing is fetched without rules");
    assert_eq!(s.hits("/robots.txt"), 3);
    // The next run asks again instead of replaying the 503.
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(s.hits("/robots.txt"), 4);
    assert_eq!(sum["fetched"], 2, "{sum}");
    assert_eq!(sum["skipped_robots"], 1, "{sum}");
}

//! A link's own `user:password@` is credentials for that one URL when it
//! points to the page's own origin: the request carries them as basic
//! auth, and they are shown nowhere (not in the stored URL, the crawl's
//! output, `page`, `report` or `export`), and a later run that finds the
//! linking page unchanged or not modified (304) still sends them. Another origin's link does
//! not carry its userinfo anywhere.

use crate::support::crawl::*;
use crate::support::{on_store, page, Reply, TestServer};

const USER: &str = "linkuser";
const SECRET: &str = "pw-s3cr3t";

/// Routes `/private` behind basic auth; returns the link that gives it.
fn private_link(s: &TestServer) -> String {
    s.route(
        "/private",
        Reply::RequireBasicAuth {
            user: USER.into(),
            password: SECRET.into(),
            ok: Box::new(Reply::Respond(page("Private", "members", &[]))),
        },
    );
    let port = s.addr().port();
    format!("http://{USER}:{SECRET}@127.0.0.1:{port}/private")
}

#[test]
fn a_same_origin_link_s_userinfo_is_its_basic_auth_and_is_never_shown() {
    let s = TestServer::start();
    let other = TestServer::start();
    let private = private_link(&s);
    let elsewhere = format!("http://eve:{SECRET}@127.0.0.1:{}/x", other.addr().port());
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &[&private, &elsewhere])),
    );
    other.route("/x", Reply::Respond(page("X", "x", &[])));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    // Both servers in scope, so the other origin's link is fetched too.
    let out = crawl(&db, &[&s.base(), "--root", "http://127.0.0.1:"]);
    let mut shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let sum = summary(&out);
    assert_eq!(sum["fetched"], 3, "{sum}");
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);
    let asked = s.requests();
    let with_auth: Vec<&str> = asked
        .iter()
        .filter(|r| r.header("authorization").is_some())
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(with_auth, ["/private"], "only that link's request");
    for r in other.requests() {
        assert_eq!(r.header("authorization"), None, "sent to {}", r.path);
    }

    // A second run finds the home unchanged; the link still gives them.
    let again = crawl(&db, &[&s.base(), "--root", "http://127.0.0.1:"]);
    shown.push_str(&String::from_utf8_lossy(&again.stdout));
    shown.push_str(&String::from_utf8_lossy(&again.stderr));
    let sum = summary(&again);
    assert_eq!(sum["failed"], 0, "{sum}");
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);
    assert_eq!(s.hits("/private"), 2);

    let private_url = s.url("private");
    for args in [
        vec!["page", private_url.as_str()],
        vec!["page", private_url.as_str(), "--json"],
        vec!["page", &s.base(), "--json"],
        vec!["report"],
        vec!["report", "summary", "--json"],
        vec!["report", "broken"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "jsonl"],
    ] {
        let out = on_store(&db, &args);
        assert!(out.status.success(), "{args:?}");
        shown.push_str(&String::from_utf8_lossy(&out.stdout));
        shown.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    for secret in [SECRET, USER] {
        assert!(!shown.contains(secret), "{secret} shown in: {shown}");
    }
}

#[test]
fn a_re_crawl_whose_linking_page_answers_304_still_sends_them() {
    let s = TestServer::start();
    let private = private_link(&s);
    s.route(
        "/",
        Reply::Conditional {
            resp: page("Home", "home", &[&private]),
            last_modified: "Mon, 23 Nov 2026 20:00:00 GMT".into(),
            etag: "\"home-1\"".into(),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    let sum = crawl_ok(&db, &[&s.base()]);
    assert_eq!(sum["not_modified"], 1, "{sum}");
    assert_eq!(sum["failed"], 0, "{sum}");
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);
    assert_eq!(s.hits("/private"), 2);
}

//! Credentials: HTTP basic and extra headers go to the crawl point's origin
//! and never to another origin, not even through a redirect.

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

#[test]
fn basic_auth_and_headers_reach_only_the_point_origin() {
    let s = TestServer::start();
    let other = TestServer::start();
    other.route("/", Reply::Respond(page("Other", "other", &[])));
    s.route(
        "/",
        Reply::RequireBasicAuth {
            user: "ann".into(),
            password: "s3cret".into(),
            ok: Box::new(Reply::Respond(page("Members", "members only", &["away"]))),
        },
    );
    s.route("/away", Reply::Respond(Resp::redirect(302, &other.base())));
    let db = tempfile::tempdir().unwrap();
    // The other origin is in scope here, so the redirect is followed.
    let sum = crawl_ok(
        db.path(),
        &[
            &s.base(),
            "--root",
            "http://127.0.0.1:",
            "--user",
            "ann",
            "--password",
            "s3cret",
            "--header",
            "X-Token: t1",
        ],
    );
    assert_eq!(sum["fetched"], 2, "{sum}");
    let home = s.requests().into_iter().find(|r| r.path == "/").unwrap();
    assert_eq!(home.header("x-token"), Some("t1"));
    assert!(home.header("authorization").is_some());
    for r in other.requests() {
        assert_eq!(
            r.header("authorization"),
            None,
            "credentials leaked to {}",
            r.path
        );
        assert_eq!(r.header("x-token"), None, "header leaked to {}", r.path);
    }
    assert_eq!(pages_with(db.path(), "member"), vec![s.base()]);
}

#[test]
fn wrong_credentials_are_a_recorded_failure() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::RequireBasicAuth {
            user: "ann".into(),
            password: "right".into(),
            ok: Box::new(Reply::Respond(page("Members", "members", &[]))),
        },
    );
    let db = tempfile::tempdir().unwrap();
    let out = crawl(
        db.path(),
        &[&s.base(), "--user", "ann", "--password", "wrong"],
    );
    // Nothing could be fetched: a failure, with the reason.
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).ends_with(&format!(
        "error: nothing fetched: {}: 401 Unauthorized\n",
        s.base()
    )));
    let sum: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sum["failed"], 1);
    assert_eq!(stored_page(db.path(), &s.base()).unwrap().status, 401);
}

#[test]
fn robots_txt_and_sitemaps_behind_the_login_are_read_with_it() {
    let s = TestServer::start();
    let members = |resp| Reply::RequireBasicAuth {
        user: "ann".into(),
        password: "s3cret".into(),
        ok: Box::new(Reply::Respond(resp)),
    };
    s.route("/", members(page("Members", "members", &["private"])));
    s.route("/private", members(page("Private", "private", &[])));
    s.route("/listed", members(page("Listed", "listed", &[])));
    s.route(
        "/robots.txt",
        members(Resp::text("User-agent: *\nDisallow: /private\n")),
    );
    s.route(
        "/sitemap.xml",
        members(Resp::bytes(
            "application/xml",
            format!(
                r#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{}</loc></url></urlset>"#,
                s.url("listed")
            )
            .into_bytes(),
        )),
    );
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(
        db.path(),
        &[&s.base(), "--user", "ann", "--password", "s3cret"],
    );
    // Without the login robots.txt is a 401 (no rules: /private would be
    // fetched) and the sitemap a failure (/listed never found).
    assert_eq!(sum["skipped_robots"], 1, "{sum}");
    assert_eq!(s.hits("/private"), 0);
    assert_eq!(pages_with(db.path(), "list"), vec![s.url("listed")]);
    for r in s.requests() {
        assert!(
            r.header("authorization").is_some(),
            "{} was asked for without the login",
            r.path
        );
    }
}

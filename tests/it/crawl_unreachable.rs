//! A host that cannot be reached is a failure with its reason, never a
//! robots skip; a crawl that fetched nothing says why and exits 1; an origin
//! that goes on refusing connections stops being dispatched to.

use crate::support::crawl::{crawl, store};
use crate::support::{home, TestServer};
use crawlscope::store::prelude::*;
use serde_json::Value;

/// A loopback port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn page_json(db: &std::path::Path, url: &str) -> Value {
    crate::support::json_of(db, &["page", url, "--json"])
}

#[test]
fn a_dead_host_is_a_failure_with_its_reason_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let url = format!("http://127.0.0.1:{}/", closed_port());
    let out = crawl(&db, &[&url]);
    assert_eq!(out.status.code(), Some(1));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["failed"], 1, "{summary}");
    assert_eq!(summary["skipped_robots"], 0, "{summary}");
    let reason = "robots.txt unreachable: connection refused";
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().last(),
        Some(format!("error: nothing fetched: {url}: {reason}").as_str())
    );
    let p = page_json(&db, &url);
    assert_eq!(p["state"], "failed");
    assert_eq!(p["reason"], reason);

    let out = crawl(&db, &["--ignore-robots", &url]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(page_json(&db, &url)["reason"], "connection refused");
}

#[test]
fn an_unknown_host_names_the_dns_failure() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    // `.invalid` never resolves (RFC 2606), so no query leaves the machine
    // with an answer.
    let out = crawl(&db, &["--ignore-robots", "http://no-such-host.invalid/"]);
    assert_eq!(out.status.code(), Some(1));
    let reason = page_json(&db, "http://no-such-host.invalid/")["reason"].clone();
    assert!(
        reason.as_str().is_some_and(|r| r.starts_with("dns: ")),
        "{reason}"
    );
}

#[test]
fn error_statuses_and_skips_keep_their_reason() {
    let s = TestServer::start();
    crate::support::robots(&s, "User-agent: *\nDisallow: /private\n");
    home(&s, &["gone", "private", "http://elsewhere.test/"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let out = crawl(&db, &[&s.base()]);
    assert!(out.status.success());
    let gone = page_json(&db, &s.url("gone"));
    assert_eq!(gone["status"], 404);
    assert_eq!(gone["reason"], "Not Found");
    let private = page_json(&db, &s.url("private"));
    assert_eq!(private["state"], "skipped:robots");
    assert_eq!(private["reason"], "disallowed by robots.txt");
    let away = page_json(&db, "http://elsewhere.test/");
    assert_eq!(away["reason"], "outside the crawl point's root");
    assert_eq!(page_json(&db, &s.base())["reason"], Value::Null);
}

#[test]
fn an_origin_that_keeps_refusing_is_given_up_on_once() {
    let s = TestServer::start();
    let dead = format!("http://127.0.0.1:{}", closed_port());
    let links: Vec<String> = (0..1000).map(|i| format!("{dead}/p{i}")).collect();
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    home(&s, &refs);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    // One root over both origins: every port of 127.0.0.1.
    let out = crawl(
        &db,
        &["--ignore-robots", "--root", "http://127.0.0.1:", &s.base()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["fetched"], 1, "{summary}");
    assert_eq!(summary["failed"], 1000, "{summary}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let notices: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("its queued URLs are recorded as failed"))
        .collect();
    assert_eq!(
        notices,
        [format!(
            "{dead}: host unreachable: connection refused; its queued URLs are recorded as failed (the next run tries again)"
        )]
    );
    let st = store(&db);
    let r = st.read().unwrap();
    let given_up = links
        .iter()
        .filter(|u| {
            let id = r.page_id(&u.parse().unwrap()).unwrap().unwrap();
            r.url_state(id).unwrap().and_then(|s| s.reason()).as_deref()
                == Some("host unreachable: connection refused")
        })
        .count();
    // Only the fetches that were already under way when the breaker tripped
    // (at most the per-host limit, 8, plus the tripping ones) tried to connect.
    assert!(
        given_up >= 1000 - 16,
        "only {given_up} URLs were given up on"
    );
}

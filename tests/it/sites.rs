//! Sites and URLs through the real binary: `www.host` and `host` as one
//! site, `--resolve`, `--append-query`, a URL's parts and its user
//! information (credentials, never printed), and re-scoping a point whose
//! scope changed. Name-based hosts reach the loopback server via `--resolve`.

use std::path::Path;

use crate::support::crawl::{crawl, crawl_ok, state, summary};
use crate::support::{json_of, on_store, page, Reply, TestServer};

/// `--resolve` flags sending `hosts` on the server's port to it.
fn resolving(s: &TestServer, hosts: &[&str]) -> Vec<String> {
    let port = s.addr().port();
    hosts
        .iter()
        .flat_map(|h| ["--resolve".to_string(), format!("{h}:{port}:127.0.0.1")])
        .collect()
}

/// The Host headers the server saw, sorted and unique.
fn hosts_seen(s: &TestServer) -> Vec<String> {
    let mut hosts: Vec<String> = s
        .requests()
        .iter()
        .filter_map(|r| r.header("host").map(str::to_string))
        .collect();
    hosts.sort();
    hosts.dedup();
    hosts
}

/// A site linking to both forms of its host: `/` links to `www.` `/a` and
/// to `/b`; `/a` links to `www.` `/c`.
/// The two-form site, a store path and the `--resolve` flags that send
/// both names to it.
struct TwoForms {
    s: TestServer,
    port: u16,
    _dir: tempfile::TempDir,
    db: std::path::PathBuf,
    resolve: Vec<String>,
}

impl TwoForms {
    fn new() -> TwoForms {
        let s = two_form_site();
        let dir = tempfile::tempdir().unwrap();
        TwoForms {
            port: s.addr().port(),
            db: dir.path().join("store"),
            resolve: resolving(&s, &["site.test", "www.site.test"]),
            _dir: dir,
            s,
        }
    }
}

fn two_form_site() -> TestServer {
    let s = TestServer::start();
    let www = format!("http://www.site.test:{}", s.addr().port());
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &[&format!("{www}/a"), "/b"])),
    );
    s.route(
        "/a",
        Reply::Respond(page("A", "alpha", &[&format!("{www}/c")])),
    );
    s.route("/b", Reply::Respond(page("B", "beta", &[])));
    s.route("/c", Reply::Respond(page("C", "gamma", &[])));
    s
}

fn args<'a>(first: &'a [&'a str], rest: &'a [String]) -> Vec<&'a str> {
    first
        .iter()
        .copied()
        .chain(rest.iter().map(String::as_str))
        .collect()
}

#[test]
fn www_and_bare_host_are_one_site_and_the_first_seen_is_canonical() {
    let TwoForms {
        s,
        port,
        _dir,
        db,
        resolve,
    } = TwoForms::new();
    let start = format!("http://site.test:{port}/");
    let summary = crawl_ok(&db, &args(&[&start], &resolve));
    assert_eq!(summary["fetched"], 4, "{summary}");
    assert_eq!(summary["out_of_scope"], 0, "{summary}");
    for path in ["", "a", "b", "c"] {
        let url = format!("http://site.test:{port}/{path}");
        assert_eq!(state(&db, &url).as_deref(), Some("done"), "{url}");
        let www = format!("http://www.site.test:{port}/{path}");
        assert_eq!(state(&db, &www), None, "{www} has no record of its own");
    }
    assert_eq!(hosts_seen(&s), vec![format!("site.test:{port}")]);
    let home = json_of(&db, &["page", &start, "--json"]);
    assert_eq!(
        home["children"],
        serde_json::json!([
            format!("http://site.test:{port}/a"),
            format!("http://site.test:{port}/b")
        ])
    );
    // Asked for by its other form, the page answers under its stored one.
    let www_a = json_of(
        &db,
        &["page", &format!("http://www.site.test:{port}/a"), "--json"],
    );
    assert_eq!(www_a["url"], format!("http://site.test:{port}/a"));
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["distinct_www"], false);
}

#[test]
fn distinct_www_keeps_two_sites() {
    let TwoForms {
        s,
        port,
        _dir,
        db,
        resolve,
    } = TwoForms::new();
    let start = format!("http://site.test:{port}/");
    let summary = crawl_ok(&db, &args(&[&start, "--distinct-www"], &resolve));
    assert_eq!(summary["fetched"], 2, "{summary}");
    assert_eq!(summary["out_of_scope"], 1, "{summary}");
    let www_a = format!("http://www.site.test:{port}/a");
    assert_eq!(state(&db, &www_a).as_deref(), Some("skipped:out_of_scope"));
    assert_eq!(hosts_seen(&s), vec![format!("site.test:{port}")]);
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["distinct_www"], true);
    let resolves: Vec<String> = resolve
        .iter()
        .filter(|a| *a != "--resolve")
        .cloned()
        .collect();
    assert_eq!(points[0]["resolve"], serde_json::json!(resolves));
}

#[test]
fn a_www_start_url_on_a_bare_first_seen_site_is_crawled_as_the_bare_form() {
    let TwoForms {
        s,
        port,
        _dir,
        db,
        resolve,
    } = TwoForms::new();
    let bare = format!("http://site.test:{port}/b");
    crawl_ok(&db, &args(&[&bare], &resolve));
    // site.test is now the first seen; a point on www.site.test crawls it.
    let www = format!("http://www.site.test:{port}/");
    let summary = crawl_ok(&db, &args(&[&www], &resolve));
    // /b was fetched before, by the first point: same body, unchanged.
    assert_eq!(summary["fetched"], 3, "{summary}");
    assert_eq!(summary["unchanged"], 1, "{summary}");
    assert_eq!(hosts_seen(&s), vec![format!("site.test:{port}")]);
    assert_eq!(state(&db, &www), None);
}

#[test]
fn resolve_connects_a_name_to_the_given_address_and_is_kept_for_a_resume() {
    let s = TestServer::start();
    s.route("/", Reply::Respond(page("Home", "home", &["/a"])));
    s.route("/a", Reply::Respond(page("A", "alpha", &[])));
    let port = s.addr().port();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    // An unresolvable name (.invalid never resolves): only --resolve reaches it.
    let start = format!("http://crawl.invalid:{port}/");
    let out = crawl(&db, &[&start]);
    assert_eq!(out.status.code(), Some(1), "no --resolve: nothing fetched");
    let resolve = resolving(&s, &["crawl.invalid"]);
    let summary = crawl_ok(&db, &args(&[&start, "--max-pages", "1"], &resolve));
    assert_eq!(summary["fetched"], 1, "{summary}");
    // A bare resume knows the address from the point.
    let summary = crawl_ok(&db, &[]);
    assert_eq!(summary["fetched"], 1, "{summary}");
    assert_eq!(
        state(&db, &format!("http://crawl.invalid:{port}/a")).as_deref(),
        Some("done")
    );
}

#[test]
fn bad_resolve_and_append_query_values_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    for (flag, value, says) in [
        ("--resolve", "site.test", "HOST:PORT:ADDR"),
        ("--resolve", "site.test:80", "HOST:PORT:ADDR"),
        ("--resolve", "site.test:http:127.0.0.1", "is not a port"),
        ("--resolve", "site.test:0:127.0.0.1", "is not a port"),
        (
            "--resolve",
            "site.test:80:localhost",
            "is not an IP address",
        ),
        ("--resolve", "site.test:80:::1", "brackets"),
        ("--resolve", "bad host:80:127.0.0.1", "is not a host name"),
        ("--append-query", "token", "KEY=VALUE"),
        ("--append-query", "=v", "key before = is empty"),
    ] {
        for cmd in [
            vec!["crawl", "http://site.test/", flag, value],
            vec!["point", "add", "http://site.test/", flag, value],
        ] {
            let out = on_store(&db, &cmd);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
            assert!(err.starts_with("error:"), "{cmd:?}: {err}");
            assert!(err.contains(says), "{cmd:?} should say {says:?}: {err}");
        }
    }
    assert!(!db.exists(), "a usage error creates no store");
    let out = on_store(
        &db,
        &[
            "point",
            "add",
            "http://site.test/",
            "--resolve",
            "site.test:80:[::1]",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(
        points[0]["resolve"],
        serde_json::json!(["site.test:80:[::1]"])
    );
}

#[test]
fn append_query_reaches_every_request_and_never_the_store() {
    let s = TestServer::start();
    let q = "key=s3cret&v=2";
    s.route(
        &format!("/?{q}"),
        Reply::Respond(page("Home", "home", &["/a", "/b?x=1"])),
    );
    s.route(&format!("/a?{q}"), Reply::Respond(page("A", "alpha", &[])));
    s.route(
        &format!("/b?x=1&{q}"),
        Reply::Respond(page("B", "beta", &[])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let summary = crawl_ok(
        &db,
        &[
            &s.base(),
            "--append-query",
            "key=s3cret",
            "--append-query",
            "v=2",
        ],
    );
    assert_eq!(summary["fetched"], 3, "{summary}");
    // robots.txt and the sitemap are asked for with the query too.
    let asked: Vec<String> = s.requests().into_iter().map(|r| r.path).collect();
    assert!(asked.iter().all(|p| p.ends_with(q)), "{asked:?}");
    let robots = format!("/robots.txt?{q}");
    assert!(asked.contains(&robots), "{asked:?}");
    let pages = asked
        .iter()
        .filter(|p| **p != robots && !p.starts_with("/sitemap.xml"))
        .count();
    assert_eq!(pages, 3, "{asked:?}");
    for url in [s.base(), s.url("/a"), s.url("/b?x=1")] {
        assert_eq!(state(&db, &url).as_deref(), Some("done"), "{url}");
    }
    let shown = json_of(&db, &["page", &s.url("/b?x=1"), "--json"]);
    assert_eq!(shown["url"], s.url("/b?x=1"));
    assert_eq!(shown["parts"]["query"], "x=1");
    let base = s.base();
    for cmd in [
        vec!["page", base.as_str(), "--json"],
        vec!["export", "--format", "jsonl"],
        vec!["search", "alpha"],
    ] {
        let out = on_store(&db, &cmd);
        assert!(out.status.success());
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("s3cret"),
            "{cmd:?} shows the appended query"
        );
    }
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(
        points[0]["append_query"],
        serde_json::json!(["key=s3cret", "v=2"])
    );
}

#[test]
fn a_url_is_stored_in_parts() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &["/dir/p?q=1&r=2"])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    let p = json_of(&db, &["page", &s.url("/dir/p?q=1&r=2"), "--json"]);
    assert_eq!(
        p["parts"],
        serde_json::json!({
            "scheme": "http",
            "host": "127.0.0.1",
            "port": s.addr().port(),
            "path": "/dir/p",
            "query": "q=1&r=2",
            "username": null,
        })
    );
}

/// Every output of the binary on `db` for `args`, stdout and stderr.
fn all_output(db: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = on_store(db, args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn userinfo_is_credentials_for_the_site_and_its_password_is_never_shown() {
    let s = TestServer::start();
    let port = s.addr().port();
    let auth = |reply| Reply::RequireBasicAuth {
        user: "ann".into(),
        password: "s3cret".into(),
        ok: Box::new(Reply::Respond(reply)),
    };
    // A link with other credentials is the same URL as without them.
    let other = format!("http://bob:hunter2@127.0.0.1:{port}/a");
    s.route("/", auth(page("Home", "home", &[&other, "/a"])));
    s.route("/a", auth(page("A", "alpha", &[])));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let typed = format!("http://ann:s3cret@127.0.0.1:{port}/");
    let out = crawl(&db, &[&typed]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("s3cret"), "{text}");
    assert_eq!(summary(&out)["fetched"], 2, "{text}");
    assert!(s
        .requests()
        .iter()
        .filter(|r| r.path != "/robots.txt" && r.path != "/sitemap.xml")
        .all(|r| r.header("authorization") == Some("Basic YW5uOnMzY3JldA==")));

    let p = json_of(&db, &["page", &typed, "--json"]);
    assert_eq!(p["url"], s.base());
    assert_eq!(p["parts"]["username"], "ann");
    assert_eq!(p["children"], serde_json::json!([s.url("/a")]));
    let bare = json_of(&db, &["page", &s.base(), "--json"]);
    assert_eq!(
        bare["id"], p["id"],
        "with or without userinfo: one URL record"
    );
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["url"], s.base());
    assert_eq!(points[0]["user"], "ann");
    for cmd in [
        vec!["page", typed.as_str()],
        vec!["page", typed.as_str(), "--json"],
        vec!["search", "alpha", "--json"],
        vec!["export", "--format", "jsonl"],
        vec!["export"],
        vec!["point", "list"],
        vec!["point", "list", "--json"],
        vec!["crawl"],
    ] {
        let (_, text) = all_output(&db, &cmd);
        assert!(!text.contains("s3cret"), "{cmd:?}: {text}");
        assert!(!text.contains("hunter2"), "{cmd:?}: {text}");
    }
    // Refusals echo what was typed, masked.
    for cmd in [
        vec!["page", "ann:s3cret@127.0.0.1/x"],
        vec!["crawl", "http://ann:s3cret@exa mple.test/"],
        vec!["page", "http://ann:s3cret@127.0.0.1:1/never-seen"],
        vec![
            "crawl",
            "http://site.test/",
            "--root",
            "http://ann:s3cret@site.test/",
        ],
        vec![
            "point",
            "add",
            "http://site.test/",
            "--exclude",
            "http://ann:s3cret@site.test/x",
        ],
    ] {
        let (code, text) = all_output(&db, &cmd);
        assert_ne!(code, Some(0), "{cmd:?}: {text}");
        assert!(text.starts_with("error:"), "{cmd:?}: {text}");
        assert!(!text.contains("s3cret"), "{cmd:?}: {text}");
    }
    let (_, text) = all_output(&db, &["page", "ann:s3cret@127.0.0.1/x"]);
    assert!(text.contains("ann:***@"), "{text}");
}

#[test]
fn a_changed_scope_re_scopes_the_pending_queue() {
    let s = TestServer::start();
    s.route(
        "/a/",
        Reply::Respond(page("A", "alpha", &["/a/1", "/a/2", "/b/1"])),
    );
    for p in ["/a/1", "/a/2", "/b/1"] {
        s.route(p, Reply::Respond(page("P", "leaf", &[])));
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let start = s.url("/a/");
    let root_a = s.url("/a/");
    // One page: /a/1 and /a/2 stay queued, /b/1 is outside the root.
    let summary = crawl_ok(&db, &[&start, "--root", &root_a, "--max-pages", "1"]);
    assert_eq!(summary["fetched"], 1, "{summary}");
    assert_eq!(state(&db, &s.url("/a/2")).as_deref(), Some("queued"));
    assert_eq!(
        state(&db, &s.url("/b/1")).as_deref(),
        Some("skipped:out_of_scope")
    );

    let updated = json_of(
        &db,
        &[
            "point",
            "update",
            "1",
            "--root",
            &s.base(),
            "--exclude",
            &s.url("/a/2"),
            "--json",
        ],
    );
    assert_eq!(updated["rescope_pending"], true);
    let summary = crawl_ok(&db, &["--max-pages", "10"]);
    assert_eq!(summary["fetched"], 2, "{summary}");
    // The URL the re-scope took out of the queue is counted as the log
    // shows it: one exclusion.
    assert_eq!(summary["excluded"], 1, "{summary}");
    assert_eq!(state(&db, &s.url("/a/1")).as_deref(), Some("done"));
    assert_eq!(
        state(&db, &s.url("/a/2")).as_deref(),
        Some("skipped:excluded"),
        "an excluded URL leaves the queue"
    );
    assert_eq!(s.hits("/a/2"), 0);
    assert_eq!(
        state(&db, &s.url("/b/1")).as_deref(),
        Some("done"),
        "a URL now in scope is queued"
    );
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["rescope_pending"], false);
    crate::support::crawl::assert_whole(&db);
}

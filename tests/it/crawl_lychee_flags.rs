//! lychee's flags, in its meaning, on a small site of known answers:
//! `--remap` asks another URL and keeps the one found, `--max-retries`
//! asks a failing URL exactly 1 + N times (pages, resources and external
//! links alike), `--max-redirects` fails a longer chain without following
//! it, `--cookie-jar` is read, sent and written back, `--cache` skips
//! fresh results the reports still show; each is kept on the
//! point, and a bad value is a usage error.

use serde_json::Value;

use crate::support::crawl::*;
use crate::support::{json_of, Reply, Resp, TestServer};

fn hits(s: &TestServer, path: &str) -> usize {
    s.requests().iter().filter(|r| r.path == path).count()
}

fn broken_row<'a>(broken: &'a Value, url: &str) -> Option<&'a Value> {
    broken.as_array()?.iter().find(|r| r["url"] == url)
}

fn args<'a>(base: &'a str, flags: &'a [String]) -> Vec<&'a str> {
    std::iter::once(base)
        .chain(flags.iter().map(String::as_str))
        .collect()
}

#[test]
fn remap_asks_the_replacement_and_keeps_the_url_found() {
    // (remapped?, /old/img.png asked, /new/img.png asked, broken)
    for remap in [true, false] {
        let s = TestServer::start();
        s.route(
            "/",
            Reply::Respond(Resp::html(
                "<title>Home</title><h1>Home</h1><img src=/old/img.png alt=x><a href=/old/page>p</a>",
            )),
        );
        s.route(
            "/new/img.png",
            Reply::Respond(Resp::bytes("image/png", vec![1; 10])),
        );
        s.route(
            "/new/page",
            Reply::Respond(Resp::html("<title>P</title><h1>P</h1>")),
        );
        let db = tempfile::tempdir().unwrap();
        let base = s.base();
        let mut flags = Vec::new();
        if remap {
            flags.push("--remap".to_string());
            flags.push(format!("^{base}old/(.*)$ {base}new/$1"));
        }
        crawl_ok(db.path(), &args(&base, &flags));
        assert_eq!(hits(&s, "/old/img.png") == 0, remap, "remap {remap}");
        assert_eq!(hits(&s, "/new/img.png") > 0, remap, "remap {remap}");
        assert_eq!(hits(&s, "/old/page") == 0, remap, "remap {remap}");
        let broken = json_of(db.path(), &["report", "broken", "--json"]);
        for path in ["/old/img.png", "/old/page"] {
            assert_eq!(
                broken_row(&broken, &s.url(path)).is_none(),
                remap,
                "{path} remap {remap}: {broken}"
            );
        }
        // The store keeps the URL as found: the page's record is /old/page.
        if remap {
            assert_eq!(
                state(db.path(), &s.url("/old/page")).as_deref(),
                Some("done")
            );
            assert!(state(db.path(), &s.url("/new/page")).is_none());
            let resources = json_of(db.path(), &["report", "resources", "--json"]);
            let row = resources
                .as_array()
                .and_then(|rows| rows.iter().find(|r| r["url"] == s.url("/old/img.png")));
            assert_eq!(
                row.map(|r| r["status"].clone()),
                Some(200.into()),
                "{resources}"
            );
        }
    }
}

#[test]
fn max_retries_asks_a_failing_url_one_plus_n_times() {
    // (flags, times each failing URL is asked)
    let cases: &[(&[&str], usize)] = &[
        (&[], 3),
        (&["--max-retries", "0"], 1),
        (&["--max-retries", "3"], 4),
    ];
    for &(flags, times) in cases {
        let s = TestServer::start();
        let other = TestServer::start();
        s.route(
            "/",
            Reply::Respond(Resp::html(&format!(
                "<title>Home</title><h1>Home</h1><img src=/flaky.png alt=x>\
                 <a href=/flaky-page>p</a><a href={}>e</a>",
                other.url("/flaky-ext")
            ))),
        );
        for path in ["/flaky.png", "/flaky-page"] {
            s.route(path, Reply::Respond(Resp::status(500)));
        }
        other.route("/flaky-ext", Reply::Respond(Resp::status(500)));
        let db = tempfile::tempdir().unwrap();
        let base = s.base();
        let mut all: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
        all.push("--check-external".into());
        crawl_ok(db.path(), &args(&base, &all));
        assert_eq!(hits(&s, "/flaky.png"), times, "resource, {flags:?}");
        assert_eq!(hits(&s, "/flaky-page"), times, "page, {flags:?}");
        assert_eq!(hits(&other, "/flaky-ext"), times, "external, {flags:?}");
        let broken = json_of(db.path(), &["report", "broken", "--json"]);
        for url in [s.url("/flaky.png"), s.url("/flaky-page")] {
            assert!(broken_row(&broken, &url).is_some(), "{url}: {broken}");
        }
        let external = json_of(db.path(), &["report", "external", "--json"]);
        let url = other.url("/flaky-ext");
        assert!(broken_row(&external, &url).is_some(), "{url}: {external}");
        let points = json_of(db.path(), &["point", "list", "--json"]);
        assert_eq!(points[0]["max_retries"], (times - 1) as u64, "{points}");
    }
}

#[test]
fn max_redirects_fails_a_longer_chain_without_following_it() {
    // (flags, the chain's end asked, the failure)
    let cases: &[(&[&str], bool)] = &[
        (&[], true),
        (&["--max-redirects", "2"], false),
        (&["--max-redirects", "3"], true),
    ];
    for &(flags, followed) in cases {
        let s = TestServer::start();
        s.route(
            "/",
            Reply::Respond(Resp::html(
                "<title>Home</title><h1>Home</h1><a href=/r1>r</a>",
            )),
        );
        s.route("/r1", Reply::Respond(Resp::redirect(301, "/r2")));
        s.route("/r2", Reply::Respond(Resp::redirect(301, "/r3")));
        s.route("/r3", Reply::Respond(Resp::redirect(301, "/end")));
        s.route(
            "/end",
            Reply::Respond(Resp::html("<title>End</title><h1>End</h1>")),
        );
        let db = tempfile::tempdir().unwrap();
        let base = s.base();
        let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
        crawl_ok(db.path(), &args(&base, &flags));
        assert_eq!(hits(&s, "/end") > 0, followed, "{flags:?}");
        let broken = json_of(db.path(), &["report", "broken", "--json"]);
        let too_many = broken.as_array().is_some_and(|rows| {
            rows.iter().any(|r| {
                r["reason"]
                    .as_str()
                    .is_some_and(|why| why == "too many redirects (more than 2)")
            })
        });
        assert_eq!(too_many, !followed, "{flags:?}: {broken}");
    }
}

#[test]
fn the_flags_are_kept_on_the_point_and_bad_values_refused() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html("<title>H</title><h1>H</h1>")),
    );
    let db = tempfile::tempdir().unwrap();
    let base = s.base();
    crawl_ok(
        db.path(),
        &[
            &base,
            "--include",
            "/docs/",
            "--remap",
            "^a b",
            "--max-redirects",
            "4",
        ],
    );
    let points = json_of(db.path(), &["point", "list", "--json"]);
    assert_eq!(
        points[0]["include"],
        serde_json::json!(["/docs/"]),
        "{points}"
    );
    assert_eq!(points[0]["remap"], serde_json::json!(["^a b"]), "{points}");
    assert_eq!(points[0]["max_redirects"], 4, "{points}");
    assert_eq!(points[0]["max_retries"], 2, "{points}");
    for bad in [
        &["--remap", "only-a-pattern"][..],
        &["--remap", "(unclosed x"],
        &["--include", "(unclosed"],
        &["--max-retries", "many"],
        &["--max-redirects", "1000"],
    ] {
        let mut all = vec![base.as_str()];
        all.extend(bad);
        let out = crawl(db.path(), &all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(!err.contains("panicked"), "{bad:?}: {err}");
        assert!(err.contains(bad[0]), "{bad:?} names its flag: {err}");
    }
}

#[test]
fn cookie_jar_is_read_sent_and_written_back() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(
            Resp::html("<title>Home</title><h1>Home</h1><img src=/pic.png alt=x><a href=/a>a</a>")
                .header("set-cookie", "fresh=new1; Path=/; HttpOnly"),
        ),
    );
    s.route(
        "/a",
        Reply::Respond(Resp::html("<title>A</title><h1>A</h1>")),
    );
    s.route(
        "/pic.png",
        Reply::Respond(Resp::bytes("image/png", vec![1; 10])),
    );
    let db = tempfile::tempdir().unwrap();
    let jar = db.path().join("cookies.txt");
    std::fs::write(
        &jar,
        "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\told\tkept1\n\
         127.0.0.1\tFALSE\t/elsewhere/\tFALSE\t0\tpathed\tnot-here\n",
    )
    .unwrap();
    let base = s.base();
    let jar_arg = jar.display().to_string();
    crawl_ok(db.path(), &[&base, "--cookie-jar", &jar_arg]);
    // Sent with every request of the point, pages and resources alike;
    // the cookie set by / goes with the requests after it.
    let cookie = |path: &str| -> Vec<String> {
        s.requests()
            .iter()
            .filter(|r| r.path == path)
            .filter_map(|r| r.header("cookie").map(str::to_string))
            .collect()
    };
    assert_eq!(
        cookie("/"),
        vec!["old=kept1".to_string()],
        "{:?}",
        s.requests()
    );
    for path in ["/a", "/pic.png"] {
        let sent = cookie(path);
        assert!(
            sent.iter()
                .any(|c| c.contains("old=kept1") && c.contains("fresh=new1")),
            "{path}: {sent:?}"
        );
        assert!(
            !sent.iter().any(|c| c.contains("pathed")),
            "{path}: {sent:?}"
        );
    }
    let written = std::fs::read_to_string(&jar).unwrap();
    assert!(written.contains("\told\tkept1"), "{written}");
    assert!(
        written.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tfresh\tnew1"),
        "{written}"
    );
    // A jar that cannot be read is a clear error, no panic.
    let dir_as_jar = db.path().display().to_string();
    let out = crawl(db.path(), &[&base, "--cookie-jar", &dir_as_jar]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("--cookie-jar") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn cache_skips_fresh_results_and_reports_still_show_them() {
    // (flags of the second crawl, asked again in it)
    let cases: &[(&[&str], bool)] = &[
        (&[], true),
        (&["--cache"], false),
        (&["--cache", "--max-cache-age", "0s"], true),
    ];
    for &(flags, again) in cases {
        let s = TestServer::start();
        let other = TestServer::start();
        s.route(
            "/",
            Reply::Respond(Resp::html(&format!(
                "<title>Home</title><h1>Home</h1><img src=/gone.png alt=x><a href={}>e</a>",
                other.url("/gone-ext")
            ))),
        );
        let db = tempfile::tempdir().unwrap();
        let base = s.base();
        let mut first = vec!["--check-external".to_string()];
        first.extend(flags.iter().map(|f| f.to_string()));
        crawl_ok(db.path(), &args(&base, &first));
        assert_eq!(hits(&s, "/gone.png"), 1, "{flags:?}");
        assert_eq!(hits(&other, "/gone-ext"), 1, "{flags:?}");
        crawl_ok(db.path(), &[base.as_str()]);
        let times = if again { 2 } else { 1 };
        assert_eq!(hits(&s, "/gone.png"), times, "resource, {flags:?}");
        assert_eq!(hits(&other, "/gone-ext"), times, "external, {flags:?}");
        // Cached or not, the reports show the answer.
        let broken = json_of(db.path(), &["report", "broken", "--json"]);
        let img = broken_row(&broken, &s.url("/gone.png"));
        assert_eq!(
            img.map(|r| r["status"].clone()),
            Some(404.into()),
            "{broken}"
        );
        let external = json_of(db.path(), &["report", "external", "--json"]);
        let ext = broken_row(&external, &other.url("/gone-ext"));
        assert_eq!(
            ext.map(|r| r["status"].clone()),
            Some(404.into()),
            "{external}"
        );
    }
}

//! Overlapping crawl points, table-driven: each point's figures are the
//! ones it gets crawled alone on a fresh store, whether the points are
//! crawled together, one at a time in either order, or after the other
//! left its crawl half done; and one crawl fetches a URL at most once
//! however many points reach it.

use std::collections::BTreeMap;
use std::path::Path;

use clap::ValueEnum;
use serde_json::Value;

use crawlscope::report::Kind;

use crate::support::crawl::{assert_whole, crawl_ok};
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};

/// Home links to /a and /d/1.html; /a to /b and /d/2.html; /d/1.html to
/// /d/2.html, /d/3.html and /a (outside /d/); /d/2.html back to
/// /d/1.html and to /d/gone (404); /d/3.html to /d/4.html, three steps
/// below /d/1.html.
fn site(s: &TestServer) {
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &["a", "d/1.html"])),
    );
    s.route("/a", Reply::Respond(page("A", "alpha", &["b", "d/2.html"])));
    s.route("/b", Reply::Respond(page("B", "bravo", &[])));
    let d1 = page("D1", "delta one", &["2.html", "3.html", "/a"]);
    s.route("/d/1.html", Reply::Respond(d1));
    let d2 = page("D2", "delta two", &["1.html", "gone"]);
    s.route("/d/2.html", Reply::Respond(d2));
    s.route(
        "/d/3.html",
        Reply::Respond(page("D3", "delta three", &["4.html"])),
    );
    s.route("/d/4.html", Reply::Respond(page("D4", "delta four", &[])));
    s.route("/d/gone", Reply::Respond(Resp::status(404)));
}

/// Every URL of the site.
const PATHS: [&str; 8] = [
    "/",
    "/a",
    "/b",
    "/d/1.html",
    "/d/2.html",
    "/d/3.html",
    "/d/4.html",
    "/d/gone",
];

/// The two points: the whole site, and /d/ from /d/1.html (two levels deep).
fn point_args(s: &TestServer, point: u32) -> Vec<String> {
    match point {
        1 => vec![s.base()],
        _ => vec![
            s.url("/d/1.html"),
            "--root".into(),
            s.url("/d/"),
            "--depth".into(),
            "2".into(),
        ],
    }
}

fn add_point(db: &Path, s: &TestServer, point: u32) {
    let args = point_args(s, point);
    let mut cmd = vec!["point", "add"];
    cmd.extend(args.iter().map(String::as_str));
    json_of(db, &[&cmd[..], &["--json"]].concat());
}

/// `crawl` of point `point` alone (by its URL, which selects it).
fn crawl_point(db: &Path, s: &TestServer, point: u32) {
    let args = point_args(s, point);
    crawl_ok(db, &args.iter().map(String::as_str).collect::<Vec<_>>());
}

/// A bare crawl of point `point` alone, stopped by `--max-pages` (a
/// flag of this run only): the other point is disabled meanwhile.
fn stopped_early(db: &Path, point: u32, max_pages: &str) {
    let other = if point == 1 { "2" } else { "1" };
    let ok = |args: &[&str]| assert!(on_store(db, args).status.success(), "{args:?}");
    ok(&["point", "disable", other]);
    crawl_ok(db, &["--max-pages", max_pages]);
    ok(&["point", "enable", other]);
}

/// What a user reads of point `id`: every report of the point (but
/// `slow` and `hosts`, which measure requests, and `changes`, which
/// compares runs) and its last run's counts and findings; `page` of each
/// URL is compared apart ([`fetched`]).
/// URLs are written with `BASE` for the test server's address, which
/// differs from store to store.
fn figures(db: &Path, id: u32, s: &TestServer) -> Vec<(String, String)> {
    let p = id.to_string();
    let kinds = (Kind::value_variants().iter())
        .filter_map(|k| k.to_possible_value())
        .map(|v| v.get_name().to_string())
        .filter(|k| !["slow", "hosts", "changes"].contains(&k.as_str()));
    let mut out = Vec::new();
    for kind in kinds {
        let mut report = json_of(db, &["report", &kind, "--point", &p, "--json"]);
        // Which run and when: not a figure.
        if let Some(summary) = report.as_object_mut() {
            summary.remove("run");
            summary.remove("runs");
        }
        out.push((kind, report));
    }
    let runs = json_of(db, &["runs", "--point", &p, "--json"]);
    let last = runs.as_array().and_then(|r| r.last()).cloned();
    let last = last.unwrap_or(Value::Null);
    // A page asked again answers 304 or the same body: fetched, all the same.
    let reached: u64 = ["fetched", "not_modified", "unchanged"]
        .iter()
        .filter_map(|k| last[k].as_u64())
        .sum();
    out.push(("runs.reached".into(), reached.into()));
    for k in [
        "failed",
        "redirected",
        "skipped_by",
        "findings",
        "ended",
        "complete",
    ] {
        out.push((format!("runs.{k}"), last[k].clone()));
    }
    let base = s.base();
    let based = |v: Value| {
        unordered(v)
            .to_string()
            .replace(base.trim_end_matches('/'), "BASE")
    };
    out.into_iter().map(|(k, v)| (k, based(v))).collect()
}

/// `v` with every array sorted: rows of equal rank come in page id order,
/// and page ids are given in the order a crawl meets URLs.
fn unordered(v: Value) -> Value {
    match v {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.into_iter().map(unordered).collect();
            items.sort_by_key(|v| v.to_string());
            Value::Array(items)
        }
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, unordered(v))).collect())
        }
        v => v,
    }
}

/// Each point's figures crawled alone on a fresh store.
fn alone(point: u32) -> (Vec<(String, String)>, BTreeMap<&'static str, Value>) {
    let s = TestServer::start();
    site(&s);
    let dir = tempfile::tempdir().unwrap();
    add_point(dir.path(), &s, point);
    crawl_point(dir.path(), &s, point);
    // The only point of its store.
    (figures(dir.path(), 1, &s), fetched(dir.path(), &s))
}

/// What `page` knows of each URL of the site that has an answer: its
/// status, title and reason, the same whichever point fetched it.
fn fetched(db: &Path, s: &TestServer) -> BTreeMap<&'static str, Value> {
    let mut out = BTreeMap::new();
    for path in PATHS {
        let page = on_store(db, &["page", &s.url(path), "--json"]);
        if !page.status.success() {
            continue;
        }
        let page: Value = serde_json::from_slice(&page.stdout).unwrap();
        if !page["status"].is_null() {
            let known = ["status", "title", "reason"].map(|k| page[k].clone());
            out.insert(path, Value::from(known.to_vec()));
        }
    }
    out
}

#[test]
fn overlapping_points_each_get_their_figures_alone_in_any_order() {
    let oracle = [alone(1), alone(2)];
    // A bare crawl of a point whose runs fetched nothing would be the
    // failure the issue saw: the oracles themselves must have fetched.
    for (i, (figures, _)) in oracle.iter().enumerate() {
        let fetched = &figures.iter().find(|(k, _)| k == "runs.reached").unwrap().1;
        let fetched: u64 = fetched.parse().unwrap_or(0);
        assert!(fetched > 1, "point {} alone: {fetched}", i + 1);
    }
    type Case = (&'static str, fn(&Path, &TestServer));
    let cases: [Case; 5] = [
        ("together", |db, _| {
            crawl_ok(db, &[]);
        }),
        ("1 then 2", |db, s| {
            crawl_point(db, s, 1);
            crawl_point(db, s, 2);
        }),
        ("2 then 1", |db, s| {
            crawl_point(db, s, 2);
            crawl_point(db, s, 1);
        }),
        ("1 stopped early, then 2, then 1 resumed", |db, s| {
            stopped_early(db, 1, "2");
            crawl_point(db, s, 2);
            crawl_point(db, s, 1);
        }),
        ("2 stopped early, then both together", |db, _| {
            stopped_early(db, 2, "1");
            crawl_ok(db, &[]);
        }),
    ];
    for (case, crawl) in cases {
        let s = TestServer::start();
        site(&s);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path();
        add_point(db, &s, 1);
        add_point(db, &s, 2);
        crawl(db, &s);
        for point in [1u32, 2] {
            let now = figures(db, point, &s);
            let (want, want_pages) = &oracle[point as usize - 1];
            for ((kind, want), (_, got)) in want.iter().zip(&now) {
                assert_eq!(want, got, "{case}: point {point}: {kind}");
            }
            let pages = fetched(db, &s);
            for (path, want) in want_pages {
                assert_eq!(Some(want), pages.get(path), "{case}: page {path}");
            }
        }
        if case == "together" {
            // One crawl of both: every URL asked once.
            for r in s.requests() {
                let hits = s.hits(&r.path);
                assert_eq!(hits, 1, "{case}: {} asked {hits} times", r.path);
            }
        }
        assert_whole(db);
    }
}

//! A URL's facts are kept apart from a run's decisions: after a full
//! crawl, a run that only decides less (a `--depth 1` re-run, a second
//! point rooted deeper, a re-run stopped by `--max-pages 1` with the
//! URLs it found queued) leaves `stats` and every report of the first
//! point as they were.

use std::path::Path;

use clap::ValueEnum;
use serde_json::Value;

use crawlscope::report::Kind;

use crate::support::crawl::{assert_whole, crawl_ok};
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};

/// Home links to /a, /b, /missing and /sub/; /a to /c and /gone (both two
/// steps from home; /gone and /missing answer 404); /sub/ links back to
/// home and /a, and to /sub/x.
fn site(s: &TestServer) {
    let home = page("Home", "home", &["a", "b", "missing", "sub/"]);
    s.route("/", Reply::Respond(home));
    s.route("/a", Reply::Respond(page("A", "alpha", &["c", "gone"])));
    s.route("/b", Reply::Respond(page("B", "bravo", &[])));
    s.route("/c", Reply::Respond(page("C", "charlie", &[])));
    s.route("/gone", Reply::Respond(Resp::status(404)));
    s.route("/missing", Reply::Respond(Resp::status(404)));
    let sub = page("Sub", "sub", &["/", "/a", "x"]);
    s.route("/sub/", Reply::Respond(sub));
    s.route("/sub/x", Reply::Respond(page("X", "xray", &[])));
}

/// What a user reads of point 1: the store's counts and every report of
/// the point. Left out: `slow` and `hosts`, whose response times and
/// request counts a run that fetches again measures anew, and `changes`,
/// which compares runs.
fn figures(db: &Path) -> Vec<(String, Value)> {
    let stats = json_of(db, &["stats", "--json"]);
    let mut out: Vec<(String, Value)> = ["pages", "fetched", "failed", "skipped", "urls"]
        .iter()
        .map(|k| (format!("stats.{k}"), stats[k].clone()))
        .collect();
    // Every kind but those above.
    let kinds = (Kind::value_variants().iter())
        .filter_map(|k| k.to_possible_value())
        .map(|v| v.get_name().to_string())
        .filter(|k| !["slow", "hosts", "changes"].contains(&k.as_str()));
    for kind in kinds {
        let mut report = json_of(db, &["report", &kind, "--point", "1", "--json"]);
        // The summary names the run it is as of (the new one) and the
        // runs its rows come from (with the new one).
        if let Some(summary) = report.as_object_mut() {
            summary.remove("run");
            summary.remove("rows_from_runs");
        }
        out.push((kind, report));
    }
    out
}

#[test]
fn a_run_that_decides_less_changes_no_figure_of_the_first_point() {
    type Case = (&'static str, fn(&Path, &str));
    let cases: [Case; 3] = [
        ("a --depth 1 re-run", |db, _| {
            crawl_ok(db, &["--depth", "1"]);
        }),
        ("a second point rooted deeper", |db, base| {
            let sub = format!("{base}sub/");
            crawl_ok(db, &[&sub, "--root", &sub]);
        }),
        ("a --max-pages 1 re-run", |db, _| {
            crawl_ok(db, &["--max-pages", "1"]);
        }),
    ];
    for (case, run) in cases {
        let s = TestServer::start();
        site(&s);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path();
        crawl_ok(db, &[&s.base()]);
        let before = figures(db);
        let broken = &before.iter().find(|(k, _)| k == "broken").unwrap().1;
        assert_eq!(broken.as_array().map(Vec::len), Some(2), "{case}: {broken}");
        run(db, &s.base());
        for ((kind, was), (_, now)) in before.iter().zip(figures(db)) {
            assert_eq!(*was, now, "{case}: {kind} changed");
        }
        assert_whole(db);
    }
}

#[test]
fn a_resumed_run_judges_its_queued_urls_by_its_own_flags() {
    let s = TestServer::start();
    site(&s);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let ok = |args: &[&str]| assert!(on_store(db, args).status.success(), "{args:?}");
    ok(&["point", "add", &s.base()]);
    // Stopped after the home page: its four links are queued at depth 1.
    crawl_ok(db, &["--max-pages", "1"]);
    let queued = json_of(db, &["stats", "--json"])["queued"].clone();
    assert_eq!(queued, 4, "{queued}");
    // Resumed with --depth 0: the queued depth-1 URLs are this run's
    // too_deep, never requested.
    let summary = crawl_ok(db, &["--depth", "0"]);
    assert_eq!(summary["fetched"], 0, "{summary}");
    assert_eq!(summary["too_deep"], 4, "{summary}");
    for path in ["/a", "/b", "/missing", "/sub/"] {
        assert_eq!(s.hits(path), 0, "{path} was requested");
    }
    let runs = json_of(db, &["runs", "--json"]);
    let run = &runs[0];
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert_eq!(run["flags"]["depth"], 0, "{run}");
    assert_eq!(run["flags"]["depth_override"], true, "{run}");
    assert_eq!(run["skipped_by"]["too_deep"], 4, "{run}");
    assert_eq!(run["complete"], false, "{run}");
    assert_whole(db);
}

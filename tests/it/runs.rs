//! `runs`: every crawl of a point is a run with an id, how it ended, the
//! flags it had and its counts; every run's history is kept; a crawler
//! that died leaves its run reading `interrupted` until a crawl takes it
//! up again.

use std::time::Duration;

use serde_json::Value;

use crate::support::crawl::{assert_whole, crawl_child, crawl_ok, store, wait_for_done};
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};
use crawlscope::store::prelude::*;

/// Home links to /a and /b; /a to /c, two steps from home.
fn site(s: &TestServer) {
    s.route("/", Reply::Respond(page("Home", "home", &["a", "b"])));
    s.route("/a", Reply::Respond(page("A", "alpha", &["c"])));
    s.route("/b", Reply::Respond(page("B", "bravo", &[])));
    s.route("/c", Reply::Respond(page("C", "charlie", &[])));
}

fn field<'v>(runs: &'v Value, name: &str) -> Vec<&'v Value> {
    runs.as_array().unwrap().iter().map(|r| &r[name]).collect()
}

#[test]
fn each_crawl_is_a_run_listed_newest_first_with_its_end_flags_and_counts() {
    let s = TestServer::start();
    site(&s);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base()]);
    // Without a URL, --depth and --max-pages limit this run alone.
    crawl_ok(db, &["--depth", "1"]);
    crawl_ok(db, &["--max-pages", "1", "--concurrency", "1"]);

    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(field(&runs, "id"), [3, 2, 1], "{runs}");
    assert_eq!(field(&runs, "point"), [1, 1, 1], "{runs}");
    assert_eq!(
        field(&runs, "ended"),
        ["stopped", "finished", "finished"],
        "{runs}"
    );
    assert_eq!(field(&runs, "complete"), [false, false, true], "{runs}");
    let [third, second, first] = &runs.as_array().unwrap()[..] else {
        panic!("{runs}")
    };
    assert_eq!(first["fetched"], 4, "{first}");
    assert_eq!(first["skipped"], 0, "{first}");
    assert_eq!(first["flags"]["depth"], Value::Null, "{first}");
    // The --depth 1 run saw home, /a and /b again, and left /c too deep.
    assert_eq!(second["flags"]["depth"], 1, "{second}");
    assert_eq!(second["flags"]["depth_override"], true, "{second}");
    let seen = ["fetched", "not_modified", "unchanged"]
        .map(|k| second[k].as_u64().unwrap())
        .iter()
        .sum::<u64>();
    assert_eq!(seen, 3, "{second}");
    assert_eq!(second["skipped_by"]["too_deep"], 1, "{second}");
    assert_eq!(third["flags"]["max_pages"], 1, "{third}");
    assert_eq!(third["flags"]["max_pages_override"], true, "{third}");
    for run in runs.as_array().unwrap() {
        assert!(run["started_at"].is_string(), "{run}");
        assert!(run["ended_at"].is_string(), "{run}");
    }

    let last = json_of(db, &["runs", "--point", "1", "--limit", "1", "--json"]);
    assert_eq!(field(&last, "id"), [3], "{last}");
    assert_eq!(
        json_of(db, &["runs", "--point", "2", "--json"]),
        Value::Array(vec![])
    );
    let text = String::from_utf8(on_store(db, &["runs"]).stdout).unwrap();
    assert!(text.contains("depth 1 (this run)"), "{text}");

    // Every run's history is kept, not only the last two.
    assert_eq!(store(db).read().unwrap().runs_of(1).unwrap(), [1, 2, 3]);
    assert_whole(db);
}

#[test]
fn a_killed_crawler_leaves_its_run_interrupted_until_a_crawl_takes_it_up() {
    let s = TestServer::start();
    s.route("/", Reply::Respond(page("Home", "home", &["slow"])));
    let slow = || Reply::Delay(Duration::from_secs(30), page("Slow", "slow", &[]));
    s.route("/slow", slow());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let mut child = crawl_child(db, &[&s.base()]);
    wait_for_done(db, &mut child, 1);
    child.kill().unwrap(); // SIGKILL: the run's record still says running
    child.wait().unwrap();
    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(field(&runs, "ended"), ["interrupted"], "{runs}");
    assert_eq!(runs[0]["ended_at"], Value::Null, "{runs}");

    // The next crawl takes the dead crawler's claim back and ends the run.
    s.route("/slow", Reply::Respond(page("Slow", "slow", &[])));
    crawl_ok(db, &[]);
    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(field(&runs, "id"), [1], "{runs}");
    assert_eq!(field(&runs, "ended"), ["finished"], "{runs}");
    assert_eq!(runs[0]["fetched"], 2, "{runs}");
}

#[test]
fn changes_compare_any_two_runs_named_by_id() {
    let s = TestServer::start();
    site(&s);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base()]);
    s.route("/b", Reply::Respond(page("B again", "bravo", &[])));
    crawl_ok(db, &[&s.base()]);
    s.route("/b", Reply::Respond(page("B", "bravo", &[])));
    crawl_ok(db, &[&s.base()]);
    let changes = |args: &[&str]| {
        let mut all = vec!["report", "changes", "--json"];
        all.extend_from_slice(args);
        json_of(db, &all)
    };
    let titles = |c: &Value| c["title_changed"].as_array().unwrap().len();
    // The last two runs by default: B's title went back.
    let last = changes(&[]);
    assert_eq!((&last["from_run"], &last["to_run"]), (&2.into(), &3.into()));
    assert_eq!(titles(&last), 1, "{last}");
    // The first and the last: the same title again.
    let ends = changes(&["--from", "1", "--to", "3"]);
    assert_eq!((&ends["from_run"], &ends["to_run"]), (&1.into(), &3.into()));
    assert_eq!(titles(&ends), 0, "{ends}");
    // --to alone: compared with the run before it.
    let first = changes(&["--to", "2"]);
    assert_eq!(
        (&first["from_run"], &first["to_run"]),
        (&1.into(), &2.into())
    );
    assert_eq!(titles(&first), 1, "{first}");

    let out = on_store(db, &["report", "changes", "--from", "9"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: no run 9 (crawlscope runs)\n"
    );
    let other = TestServer::start();
    site(&other);
    crawl_ok(db, &[&other.base()]);
    let out = on_store(db, &["report", "changes", "--point", "2", "--from", "1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: run 1 is not a run of crawl point 2\n"
    );
    // Point 2's one run has the store-wide id 4, the one `runs` lists.
    let theirs = changes(&["--point", "2"]);
    assert_eq!(theirs["to_run"], 4, "{theirs}");
}

#[test]
fn reports_answer_as_of_the_latest_run_unless_told_another_or_all() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &["products/widget.html"])),
    );
    let widget = page("Widget", "widget", &["/missing"]);
    s.route("/products/widget.html", Reply::Respond(widget));
    s.route(
        "/missing",
        Reply::Respond(crate::support::Resp::status(404)),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base()]);
    let missing = s.url("missing");
    let broken = |args: &[&str]| {
        let mut all = vec!["report", "broken", "--json"];
        all.extend_from_slice(args);
        let rows = json_of(db, &all);
        let urls: Vec<String> = (rows.as_array().unwrap().iter())
            .map(|r| r["url"].as_str().unwrap().to_string())
            .collect();
        urls
    };
    assert_eq!(broken(&[]), [missing.as_str()]);

    // The site drops its link to the widget page: the next run no longer
    // reaches it, nor the broken link found there.
    s.route("/", Reply::Respond(page("Home", "home", &[])));
    crawl_ok(db, &[&s.base()]);
    assert_eq!(broken(&[]), Vec::<String>::new());
    assert_eq!(broken(&["--point", "1"]), Vec::<String>::new());
    assert_eq!(broken(&["--run", "1"]), [missing.as_str()]);
    assert_eq!(broken(&["--all-runs"]), [missing.as_str()]);

    let summary = json_of(db, &["report", "summary", "--json"]);
    assert_eq!(summary["run"]["id"], 2, "{summary}");
    assert_eq!(summary["run"]["point"], 1, "{summary}");
    assert_eq!(summary["run"]["ended"], "finished", "{summary}");
    assert_eq!(summary["findings"]["broken"], 0, "{summary}");
    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(field(&runs, "id"), [2, 1], "{runs}");
    let broken_by_run: Vec<&Value> = field(&runs, "findings")
        .iter()
        .map(|f| &f["broken"])
        .collect();
    assert_eq!(broken_by_run, [0, 1], "{runs}");
    let all = json_of(db, &["report", "summary", "--json", "--all-runs"]);
    assert_eq!(all["all_runs"], true, "{all}");
    assert_eq!(all["findings"]["broken"], 1, "{all}");

    let text = |args: &[&str]| String::from_utf8(on_store(db, args).stdout).unwrap();
    let latest = text(&["report", "broken"]);
    assert!(latest.starts_with("as of point 1, run 2 ("), "{latest}");
    assert!(
        latest.lines().next().unwrap().ends_with(", finished)"),
        "{latest}"
    );
    let old = text(&["report", "broken", "--run", "1"]);
    assert!(old.starts_with("as of point 1, run 1 ("), "{old}");
    assert!(old.contains(&missing), "{old}");
    let every = text(&["report", "broken", "--all-runs"]);
    assert!(every.starts_with("as of all runs\n"), "{every}");

    let out = on_store(db, &["report", "broken", "--run", "7"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: no run 7 (crawlscope runs)\n"
    );
    // A second point: the summary names each point's latest run.
    let other = TestServer::start();
    site(&other);
    crawl_ok(db, &[&other.base()]);
    let both = json_of(db, &["report", "summary", "--json"]);
    let ids: Vec<&Value> = both["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [2, 3], "{both}");
}

/// The page requests `s` has answered so far (robots.txt and sitemaps
/// are not a run's page requests).
fn page_requests(s: &TestServer) -> u64 {
    let pages = ["/", "/a", "/b", "/c"];
    (s.requests().iter())
        .filter(|r| pages.contains(&r.path.as_str()))
        .count() as u64
}

#[test]
fn each_runs_figures_are_its_own_and_a_partial_run_says_its_rows_come_from_older_runs() {
    let s = TestServer::start();
    site(&s);
    // A resource has a URL but no state: no run's URL to count.
    let home = r#"<html><head><title>Home</title></head><body>
        <a href="a">a</a> <a href="b">b</a> <img src="logo.png" alt="logo"></body></html>"#;
    s.route("/", Reply::Respond(Resp::html(home)));
    s.route(
        "/logo.png",
        Reply::Respond(Resp::bytes("image/png", vec![0; 8])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base()]);
    let first = page_requests(&s);
    // A partial run: home, /a and /b asked again, /c too deep.
    crawl_ok(db, &["--depth", "1"]);
    let second = page_requests(&s) - first;
    assert_eq!((first, second), (4, 3));

    let requests = |args: &[&str]| {
        let mut all = vec!["report", "hosts", "--json"];
        all.extend_from_slice(args);
        let rows = json_of(db, &all);
        assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
        rows[0]["requests"].as_u64().unwrap()
    };
    assert_eq!(requests(&["--run", "1"]), first);
    assert_eq!(requests(&["--run", "2"]), second);
    assert_eq!(requests(&["--all-runs"]), first + second);
    // The default view is run 1 refreshed by run 2: both runs' requests.
    assert_eq!(requests(&[]), first + second);
    assert_eq!(requests(&["--point", "1"]), first + second);

    // Run 2 is named, but most rows are run 1's: the reports say so.
    let summary = json_of(db, &["report", "summary", "--json"]);
    assert_eq!(summary["run"]["id"], 2, "{summary}");
    assert_eq!(summary["rows_from_runs"], serde_json::json!([1, 2]));
    let text = String::from_utf8(on_store(db, &["report", "broken"]).stdout).unwrap();
    let head = text.lines().next().unwrap();
    assert!(head.starts_with("as of point 1, run 2 ("), "{text}");
    assert!(head.ends_with("; rows from runs 1, 2"), "{text}");
    let out = on_store(db, &["report", "titles", "--json"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("note: rows from runs 1, 2\n"),
        "{out:?}"
    );
    // One run named alone: its rows are its own.
    let one = json_of(db, &["report", "summary", "--json", "--run", "1"]);
    assert_eq!(one.get("rows_from_runs"), None, "{one}");

    // On a store of one point, the point's report is the store's.
    let mut pointed = json_of(db, &["report", "summary", "--json", "--point", "1"]);
    assert_eq!(pointed["urls"], 4, "{pointed}");
    pointed.as_object_mut().unwrap().remove("run");
    let mut whole = summary.clone();
    whole.as_object_mut().unwrap().remove("run");
    assert_eq!(whole, pointed);
}

#[test]
fn changes_take_the_ids_runs_lists_and_compare_the_last_two_complete_runs() {
    let (a, b) = (TestServer::start(), TestServer::start());
    site(&a);
    site(&b);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&a.base()]);
    crawl_ok(db, &[&b.base()]);
    a.route("/b", Reply::Respond(page("B again", "bravo", &[])));
    crawl_ok(db, &[&a.base()]);
    // Partial runs of both points: point 1's is not compared by default.
    crawl_ok(db, &["--depth", "1"]);

    let runs = json_of(db, &["runs", "--point", "1", "--json"]);
    let ids: Vec<u64> = field(&runs, "id")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let [partial, second, first] = ids[..] else {
        panic!("{runs}")
    };
    assert_eq!((second, first), (3, 1), "store-wide ids: {runs}");
    assert!(partial > 3, "{runs}");

    let changes = |args: &[&str]| {
        let mut all = vec!["report", "changes", "--point", "1", "--json"];
        all.extend_from_slice(args);
        json_of(db, &all)
    };
    let pair = |c: &Value| (c["from_run"].as_u64(), c["to_run"].as_u64());
    let last = changes(&[]);
    assert_eq!(pair(&last), (Some(1), Some(3)), "{last}");
    assert_eq!(last["gone"], serde_json::json!([]), "{last}");
    assert_eq!(last["title_changed"].as_array().unwrap().len(), 1, "{last}");
    let named = changes(&["--from", "1", "--to", "3"]);
    assert_eq!(pair(&named), (Some(1), Some(3)), "{named}");
    assert_eq!(pair(&changes(&["--to", "3"])), (Some(1), Some(3)));
    // A partial run named is compared, and said to be partial.
    let to_partial = changes(&["--to", &partial.to_string()]);
    assert_eq!(pair(&to_partial), (Some(3), Some(partial)), "{to_partial}");
    assert!(
        to_partial["note"]
            .as_str()
            .unwrap()
            .contains("not complete"),
        "{to_partial}"
    );
    // --from alone: compared with a later run, the latest when no later
    // run is complete; none after it, nothing to compare.
    assert_eq!(pair(&changes(&["--from", "3"])), (Some(3), Some(partial)));
    let none_after = changes(&["--from", &partial.to_string()]);
    assert_eq!(pair(&none_after), (None, None), "{none_after}");
    assert_eq!(
        none_after["note"],
        format!("nothing to compare: crawl point 1 has no run after run {partial}")
    );
    let text =
        String::from_utf8(on_store(db, &["report", "changes", "--from", "1", "--to", "3"]).stdout)
            .unwrap();
    assert!(text.starts_with("run 1 → run 3: "), "{text}");
    let out = on_store(db, &["report", "changes", "--to", "2", "--point", "1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: run 2 is not a run of crawl point 1\n"
    );
}

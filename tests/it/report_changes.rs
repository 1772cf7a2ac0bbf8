//! `report changes` compares a crawl point's last two runs: one run says
//! there is nothing to compare; two runs where the server changed a
//! status, a title and a body, added a page and dropped one list exactly
//! those; every run is kept.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::crawl::{assert_whole, crawl_ok, store};
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};
use crawlscope::store::prelude::*;

fn changes(db: &Path) -> Value {
    json_of(db, &["report", "changes", "--json"])
}

fn first_site(s: &TestServer) {
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &["a", "b", "c", "e"])),
    );
    s.route("/a", Reply::Respond(page("A", "alpha", &[])));
    s.route("/b", Reply::Respond(page("B", "bravo", &[])));
    s.route("/c", Reply::Respond(page("C", "charlie", &[])));
    s.route("/e", Reply::Respond(page("E", "echo", &[])));
    s.route("/same", Reply::Respond(page("Same", "same", &[])));
}

#[test]
fn one_run_has_nothing_to_compare() {
    let s = TestServer::start();
    first_site(&s);
    let dir = tempfile::tempdir().unwrap();
    crawl_ok(dir.path(), &[&s.base()]);
    assert_eq!(
        changes(dir.path()),
        json!({
            "from_run": null, "to_run": 1, "new": [], "gone": [],
            "status_changed": [], "title_changed": [], "content_changed": [],
            "note": "nothing to compare: crawl point 1 has one run (run 1); crawl it again"
        })
    );
    let out = on_store(dir.path(), &["report", "changes"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "nothing to compare: crawl point 1 has one run (run 1); crawl it again\n"
    );
}

#[test]
fn two_runs_list_new_gone_status_title_and_content_changes() {
    let s = TestServer::start();
    first_site(&s);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base()]);

    // The second run: /a gets a new title, /b a new body, /c fails, /d
    // appears and /e is no longer linked. Home's body changes with its
    // links; /same does not change at all.
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &["a", "b", "c", "d", "same"])),
    );
    s.route("/a", Reply::Respond(page("A again", "alpha", &[])));
    s.route("/b", Reply::Respond(page("B", "bravo changed", &[])));
    s.route("/c", Reply::Respond(Resp::status(404)));
    s.route("/d", Reply::Respond(page("D", "delta", &[])));
    crawl_ok(db, &[&s.base()]);

    let u = |p: &str| s.url(p);
    assert_eq!(
        changes(db),
        json!({
            "from_run": 1, "to_run": 2,
            "new": [u("d"), u("same")],
            "gone": [u("e")],
            "status_changed": [{"url": u("c"), "from": 200, "to": 404}],
            "title_changed": [{"url": u("a"), "from": "A", "to": "A again"}],
            "content_changed": [u(""), u("a"), u("b")],
        })
    );
    let out = on_store(db, &["report", "changes", "--csv"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "change,url,from,to".to_string(),
            format!("new,{},,", u("d")),
            format!("new,{},,", u("same")),
            format!("gone,{},,", u("e")),
            format!("status,{},200,404", u("c")),
            format!("title,{},A,A again", u("a")),
            format!("content,{},,", u("")),
            format!("content,{},,", u("a")),
            format!("content,{},,", u("b")),
        ]
    );

    // A third run with nothing changed: compared with the second; the
    // first is kept.
    crawl_ok(db, &[&s.base()]);
    assert_eq!(
        changes(db),
        json!({
            "from_run": 2, "to_run": 3, "new": [], "gone": [],
            "status_changed": [], "title_changed": [], "content_changed": [],
        })
    );
    let out = on_store(db, &["report", "changes"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "run 2 → run 3: 0 new, 0 gone, 0 status, 0 title, 0 content changes\nno changes\n"
    );
    {
        let st = store(db);
        let r = st.read().unwrap();
        assert_eq!(r.runs_of(1).unwrap(), [1, 2, 3]);
        assert_eq!(r.run_entries(1, 3).unwrap().len(), 6);
    }
    assert_whole(db);
}

#[test]
fn several_points_need_one_named() {
    let (a, b) = (TestServer::start(), TestServer::start());
    first_site(&a);
    first_site(&b);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&a.base()]);
    crawl_ok(db, &[&b.base()]);
    let out = on_store(db, &["report", "changes"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: several crawl points have runs to compare (1, 2): give --point ID\n"
    );
    let c = json_of(db, &["report", "changes", "--json", "--point", "2"]);
    assert_eq!(c["to_run"], 2, "point 2's run, by its id: {c}");
}

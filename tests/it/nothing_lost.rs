//! What the store knows reaches every face: a redirect's code, target and
//! depth in the CSV export; a body cut at `--max-body-bytes` marked
//! truncated (with the bytes kept and the size announced) in `page` and
//! the CSV; the pages linking to the first hop of a redirect chain that
//! ends broken; an external link's check in `page`; and `report external`
//! telling "nothing to check" from "not checked".

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::support::crawl::crawl_ok;
use crate::support::{home, json_of, on_store, page, Reply, Resp, TestServer};

/// `export --format csv`, each row by its URL.
fn csv_rows(db: &Path) -> HashMap<String, HashMap<String, String>> {
    let out = on_store(db, &["export", "--format", "csv"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rd = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    rd.records()
        .map(|r| {
            let row: HashMap<String, String> = header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect();
            (row["url"].clone(), row)
        })
        .collect()
}

fn stdout(db: &Path, args: &[&str]) -> String {
    let out = on_store(db, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn csv_rows_of_redirects_carry_their_code_target_and_depth() {
    let s = TestServer::start();
    s.route("/go", Reply::Respond(Resp::redirect(301, "/")));
    home(&s, &["/old"]);
    s.route("/old", Reply::Respond(Resp::redirect(301, "/mid")));
    s.route("/mid", Reply::Respond(Resp::redirect(302, "/new")));
    s.route("/new", Reply::Respond(page("New", "new", &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.url("/go"), "--ignore-robots"]);
    let rows = csv_rows(db.path());
    let cells = |path: &str| {
        let row = &rows[&s.url(path)];
        (
            row["state"].as_str(),
            row["redirect_status"].as_str(),
            row["redirect_to"].clone(),
            row["depth"].as_str(),
        )
    };
    assert_eq!(cells("/go"), ("redirected", "301", s.url("/"), "0"));
    assert_eq!(cells("/old"), ("redirected", "301", s.url("/mid"), "1"));
    assert_eq!(cells("/mid"), ("redirected", "302", s.url("/new"), "1"));
    assert_eq!(cells("/new"), ("done", "", String::new(), "1"));
}

#[test]
fn a_cut_body_is_marked_truncated_with_the_bytes_kept() {
    let s = TestServer::start();
    home(&s, &["/big"]);
    s.route(
        "/big",
        Reply::Respond(Resp::text(&"lorem ipsum ".repeat(500))),
    );
    let db = tempfile::tempdir().unwrap();
    crawl_ok(
        db.path(),
        &[&s.base(), "--ignore-robots", "--max-body-bytes", "1000"],
    );
    let big = s.url("/big");
    let p = json_of(db.path(), &["page", &big, "--json"]);
    assert_eq!(
        (&p["truncated"], &p["size"], &p["full_size"]),
        (&json!(true), &json!(1000), &json!(6000)),
        "{p}"
    );
    let home = json_of(db.path(), &["page", &s.base(), "--json"]);
    assert_eq!(home["truncated"], json!(false), "{home}");
    assert_eq!(home["full_size"], Value::Null, "{home}");

    let text = stdout(db.path(), &["page", &big]);
    assert!(
        text.contains("size           1000 bytes (cut at --max-body-bytes; 6000 announced)"),
        "{text}"
    );

    let rows = csv_rows(db.path());
    assert_eq!(
        (
            rows[&big]["truncated"].as_str(),
            rows[&big]["size"].as_str()
        ),
        ("true", "1000")
    );
    assert_eq!(rows[&s.base()]["truncated"], "false");
}

#[test]
fn broken_lists_the_pages_linking_to_the_first_hop_of_a_redirect() {
    let s = TestServer::start();
    home(&s, &["/moved", "/gone"]);
    s.route("/moved", Reply::Respond(Resp::redirect(301, "/gone")));
    s.route("/gone", Reply::Respond(Resp::status(404)));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base(), "--ignore-robots"]);
    let broken = json_of(db.path(), &["report", "broken", "--json"]);
    assert_eq!(
        broken,
        json!([{
            "url": s.url("/gone"), "status": 404, "reason": "Not Found",
            "sources": [
                {"url": s.base(), "anchor": "link 2"},
                {
                    "url": s.base(), "anchor": "link 1",
                    "via": [{"url": s.url("/moved"), "status": 301}]
                },
            ],
            "source_count": 2
        }])
    );
    let text = stdout(db.path(), &["report", "broken"]);
    assert!(
        text.contains(&format!(
            "found on {} as \"link 1\" via 301 {}",
            s.base(),
            s.url("/moved")
        )),
        "{text}"
    );
}

#[test]
fn page_shows_what_the_external_check_found() {
    let s = TestServer::start();
    let other = TestServer::start();
    other.route("/gone", Reply::Respond(Resp::status(404)));
    let gone = other.url("/gone");
    home(&s, &[&gone]);
    let db = tempfile::tempdir().unwrap();
    crawl_ok(
        db.path(),
        &[&s.base(), "--ignore-robots", "--check-external"],
    );
    let p = json_of(db.path(), &["page", &gone, "--json"]);
    assert_eq!(p["state"], "skipped:out_of_scope", "{p}");
    assert_eq!(p["external_check"]["status"], 404, "{p}");
    assert_eq!(p["external_check"]["reason"], "Not Found", "{p}");
    let home = json_of(db.path(), &["page", &s.base(), "--json"]);
    assert_eq!(home["external_check"], Value::Null, "{home}");
    let text = stdout(db.path(), &["page", &gone]);
    assert!(text.contains("external check 404 Not Found"), "{text}");
}

#[test]
fn report_external_tells_nothing_found_from_not_checked() {
    let s = TestServer::start();
    home(&s, &["/a"]);
    s.route("/a", Reply::Respond(page("A", "a", &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base(), "--ignore-robots"]);
    let not_checked = stdout(db.path(), &["report", "external"]);
    assert!(not_checked.contains("--check-external"), "{not_checked}");

    crawl_ok(
        db.path(),
        &[&s.base(), "--ignore-robots", "--check-external"],
    );
    let none = stdout(db.path(), &["report", "external"]);
    assert!(none.contains("no external link found"), "{none}");
    assert!(!none.contains("crawl with --check-external"), "{none}");
    let out = on_store(db.path(), &["report", "external", "--json"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no external link found"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

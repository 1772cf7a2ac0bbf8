//! What the store knows reaches every face: a redirect's code, target and
//! depth in the CSV export; a body cut at `--max-body-bytes` marked
//! truncated (with the bytes kept and the size announced) in `page` and
//! the CSV; the pages linking to the first hop of a redirect chain that
//! ends broken; an external link's check in `page`; and `report external`
//! telling "nothing to check" from "not checked".

use std::collections::HashMap;
use std::path::Path;

use crate::support::crawl::crawl_ok;
use crate::support::{home, on_store, page, Reply, Resp, TestServer};

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

//! Statuses everywhere: on the site of `links_occurrences`, the URL CSV
//! gives resources and external URLs their status, reason, state and
//! inlinks, and `report broken --csv` has the JSON's columns, a broken
//! image's alt as its anchor.

use crate::links_occurrences::{crawled, csv_rows, site, stdout};

#[test]
fn resources_and_external_urls_carry_their_status_and_inlinks() {
    let (s, other) = site();
    let db = crawled(&s);
    let rows = csv_rows(&stdout(db.path(), &["export", "--format", "csv"]));
    let row = |url: &str| {
        rows.iter()
            .find(|r| r["url"] == url)
            .map(|r| {
                [&r["state"], &r["status"], &r["reason"], &r["inlinks"]].map(|c| c.to_string())
            })
            .unwrap_or_else(|| panic!("{url} not in the CSV: {rows:#?}"))
    };
    for (url, want) in [
        (s.url("/noalt.png"), ["checked", "200", "", "1"]),
        (s.url("/broken.png"), ["broken", "404", "Not Found", "1"]),
        (
            s.url("/private/x.png"),
            ["not checked: robots", "", "", "1"],
        ),
        (
            other.url("/gone"),
            ["skipped:out_of_scope", "404", "Not Found", "1"],
        ),
        (s.url("/a"), ["done", "200", "", "1"]),
    ] {
        assert_eq!(row(&url), want.map(String::from), "{url}");
    }
}

#[test]
fn broken_csv_has_every_json_column() {
    let (s, _other) = site();
    let db = crawled(&s);
    let rows = csv_rows(&stdout(db.path(), &["report", "broken", "--csv"]));
    let row = |path: &str| {
        rows.iter()
            .find(|r| r["url"] == s.url(path))
            .map(|r| {
                [&r["element"], &r["anchors"], &r["source_count"], &r["via"]].map(|c| c.to_string())
            })
            .unwrap_or_else(|| panic!("{path} not broken: {rows:?}"))
    };
    assert_eq!(row("/broken.png"), ["img", "Broken img", "1", ""]);
    assert_eq!(row("/missing"), ["", "gone", "1", ""]);
}

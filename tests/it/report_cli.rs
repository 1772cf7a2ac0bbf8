//! `report` at its edges: every kind answers on an empty store, a missing
//! store is an error that creates nothing, an unknown kind is a usage
//! error listing the kinds.

use serde_json::json;

use crate::support::{json_of, on_store};

/// Whole answers, then finding kinds, then tables (`report/kinds.rs`).
const KINDS: &[&str] = &[
    "summary",
    "depth",
    "changes",
    "broken",
    "redirects",
    "titles",
    "descriptions",
    "headings",
    "duplicates",
    "directives",
    "canonicals",
    "external",
    "near-duplicates",
    "fragments",
    "indexability",
    "sitemaps",
    "resources",
    "images",
    "search",
    "hreflang",
    "structured-data",
    "pagination",
    "security",
    "http-links",
    "slow",
    "large",
    "mimetypes",
    "hosts",
    "links",
    "javascript",
    "extract",
];

#[test]
fn every_kind_answers_on_an_empty_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawlscope::store::Store::open(db).unwrap();
    for &kind in KINDS {
        let v = json_of(db, &["report", kind, "--json"]);
        match kind {
            "summary" => assert_eq!(
                v,
                json!({
                    "pages": 0, "urls": 0,
                    "by_status": {"2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, "failed": 0},
                    "skipped": {}, "by_depth": {}, "no_link_depth": 0, "by_mime": {},
                    "findings": {
                        "broken": 0, "canonicals": 0, "descriptions": 0, "directives": 0,
                        "duplicates": 0, "external": 0, "headings": 0, "redirects": 0,
                        "titles": 0, "near-duplicates": 0, "fragments": 0, "indexability": 0, "sitemaps": 0, "resources": 0, "images": 0,
                        "search": 0, "hreflang": 0, "structured-data": 0, "pagination": 0, "security": 0,
                        "http-links": 0
                    },
                    "external_checked": false
                })
            ),
            "depth" => assert_eq!(
                v,
                json!({"by_depth": {}, "no_link_depth": 0, "deepest": []})
            ),
            "changes" => assert_eq!(
                v,
                json!({
                    "from_run": null, "to_run": null, "new": [], "gone": [],
                    "status_changed": [], "title_changed": [], "content_changed": [],
                    "note": "nothing to compare: no crawl point has run yet"
                })
            ),
            _ => assert_eq!(v, json!([]), "{kind}"),
        }
        for extra in [&[][..], &["--csv"][..]] {
            let mut args = vec!["report", kind];
            args.extend_from_slice(extra);
            let out = on_store(db, &args);
            assert!(out.status.success(), "{args:?}");
            assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
        }
    }
    let out = on_store(db, &["report", "broken"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "no broken URLs\n");
    let out = on_store(db, &["report", "external", "--json"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no external link has been checked"),
        "external says why its list is empty"
    );
}

#[test]
fn a_missing_store_is_an_error_and_is_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nothing-here");
    let out = on_store(&db, &["report", "broken"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: no store at {}\n", db.display())
    );
    assert!(!db.exists());
}

#[test]
fn an_unknown_kind_is_a_usage_error_listing_the_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let out = on_store(dir.path(), &["report", "brokne"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: invalid value 'brokne'"), "{err}");
    assert!(
        err.contains(&format!("[possible values: {}]", KINDS.join(", "))),
        "{err}"
    );
    let out = on_store(dir.path(), &["report", "broken", "--json", "--csv"]);
    assert_eq!(out.status.code(), Some(2));
}

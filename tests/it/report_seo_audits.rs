//! The markup audits on one loopback site of known answers, through the
//! real binary: `report hreflang`, `pagination`, `structured-data`,
//! `security` and the canonical targets of `report canonicals`. Each
//! seeded fault has a clean twin; each report's rows are compared whole,
//! so a fault not found and a clean page flagged both fail. Canonical,
//! hreflang and pagination targets no link reaches (`/gone-*`) are
//! requested like resources, never fetched as pages.
//!
//! The security headers are judged on https pages only, which this
//! plain-http site has none of: their rules (and `mixed_content`, an http
//! resource on an https page) are unit-tested on the pure function in
//! `report::security`; here no http page gets a header finding.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, on_store, Reply, Resp, TestServer};

/// A page with `head` in its head and `body` in its body.
fn html(head: &str, body: &str) -> Reply {
    Reply::Respond(Resp::html(&format!(
        "<!DOCTYPE html><html><head><title>t</title>{head}</head><body>{body}</body></html>"
    )))
}

/// `<link rel=alternate>` for each (code, path).
fn alternates(alts: &[(&str, &str)]) -> String {
    alts.iter()
        .map(|(code, path)| format!("<link rel=\"alternate\" hreflang=\"{code}\" href=\"{path}\">"))
        .collect()
}

/// Every page the home page links to, with its head and body.
const PAGES: &[(&str, &str, &str)] = &[
    ("/a", "<meta property=\"og:title\" content=\"A\">", ""),
    ("/noindex-it", "<meta name=\"robots\" content=\"noindex\">", ""),
    // canonicals: to a 404 no link reaches; its twin to a page.
    ("/c-404", "<link rel=\"canonical\" href=\"/gone-canonical\">", ""),
    ("/c-ok", "<link rel=\"canonical\" href=\"/a\">", ""),
    // pagination: a clean series of three, <link> and <a> both.
    ("/p1", "<link rel=\"next\" href=\"/p2\">", ""),
    ("/p2", "<link rel=\"prev\" href=\"/p1\"><link rel=\"next\" href=\"/p3\">", ""),
    ("/p3", "", "<a rel=\"prev\" href=\"/p2\">back</a>"),
    ("/q1", "<link rel=\"next\" href=\"/gone-next\">", ""),
    ("/r1", "<link rel=\"next\" href=\"/noindex-it\">", ""),
    ("/s1", "<link rel=\"next\" href=\"/s2\">", ""),
    ("/s2", "<link rel=\"prev\" href=\"/a\">", ""),
    // structured data: a script that does not parse beside one that does;
    // its twin with @graph, microdata and RDFa.
    (
        "/sd-bad",
        "<script type=\"application/ld+json\">{\"@type\": \"Product\",</script>\
         <script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"Organization\"}</script>",
        "",
    ),
    (
        "/sd-ok",
        "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\
         \"@graph\":[{\"@type\":\"WebSite\"},{\"@type\":\"Person\"}]}</script>",
        "<div itemscope itemtype=\"https://schema.org/Product\"></div>\
         <div vocab=\"https://schema.org/\" typeof=\"Event\"></div>",
    ),
    // security: a new tab to another origin without noopener; its twin
    // with it, and a new tab on the own origin.
    (
        "/blank-bad",
        "",
        "<a href=\"http://example.com/\" target=\"_blank\">out</a>",
    ),
    (
        "/blank-ok",
        "",
        "<a href=\"http://example.com/\" target=\"_blank\" rel=\"noopener\">out</a>\
         <a href=\"/a\" target=\"_blank\">in</a>",
    ),
];

/// The hreflang pages: (path, alternates), every fault and clean twins.
const HREFLANG: &[(&str, &[(&str, &str)])] = &[
    // clean: each names the other, itself and an x-default.
    ("/en", &[("en", "/en"), ("fr", "/fr"), ("x-default", "/en")]),
    ("/fr", &[("en", "/en"), ("fr", "/fr"), ("x-default", "/en")]),
    // /h-de does not name /h-noreturn back (and is clean itself).
    (
        "/h-noreturn",
        &[
            ("en", "/h-noreturn"),
            ("de", "/h-de"),
            ("x-default", "/h-noreturn"),
        ],
    ),
    ("/h-de", &[("de", "/h-de"), ("x-default", "/h-de")]),
    (
        "/h-badcode",
        &[("en_GB", "/h-badcode"), ("x-default", "/h-badcode")],
    ),
    // names /h-es, which names it back, but not itself.
    ("/h-noself", &[("es", "/h-es"), ("x-default", "/h-es")]),
    (
        "/h-es",
        &[("es", "/h-es"), ("en", "/h-noself"), ("x-default", "/h-es")],
    ),
    ("/h-nox", &[("en", "/h-nox")]),
    (
        "/h-404",
        &[
            ("en", "/h-404"),
            ("de", "/gone-hreflang"),
            ("x-default", "/h-404"),
        ],
    ),
    (
        "/h-noindex",
        &[
            ("en", "/h-noindex"),
            ("it", "/noindex-it"),
            ("x-default", "/h-noindex"),
        ],
    ),
];

fn site() -> TestServer {
    let s = TestServer::start();
    let mut links = String::new();
    for (path, head, body) in PAGES {
        s.route(path, html(head, body));
        links.push_str(&format!("<a href=\"{path}\">{path}</a>"));
    }
    for (path, alts) in HREFLANG {
        s.route(path, html(&alternates(alts), ""));
        links.push_str(&format!("<a href=\"{path}\">{path}</a>"));
    }
    s.route("/", html("", &links));
    s
}

fn report(db: &Path, kind: &str) -> Value {
    json_of(db, &["report", kind, "--json"])
}

/// A report's rows as a set of their fields' values, URLs made paths.
fn rows(s: &TestServer, v: &Value, fields: &[&str]) -> BTreeSet<Vec<String>> {
    let base = s.base();
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|row| {
            fields
                .iter()
                .map(|f| match &row[f] {
                    Value::String(t) => t
                        .strip_prefix(base.trim_end_matches('/'))
                        .unwrap_or(t)
                        .to_string(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

fn set(rows: &[&[&str]]) -> BTreeSet<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

#[test]
fn each_seeded_fault_is_found_and_its_clean_twin_is_not() {
    let s = site();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base(), "--no-sitemaps"]);

    let hreflang = rows(
        &s,
        &report(db, "hreflang"),
        &["url", "issue", "hreflang", "target"],
    );
    assert_eq!(
        hreflang,
        set(&[
            &["/h-noreturn", "no_return_link", "de", "/h-de"],
            &["/h-badcode", "invalid_code", "en_GB", "/h-badcode"],
            &["/h-noself", "no_self_reference", "", ""],
            &["/h-nox", "no_x_default", "", ""],
            &["/h-404", "target_not_200", "de", "/gone-hreflang"],
            &["/h-noindex", "target_not_indexable", "it", "/noindex-it"],
        ])
    );

    let pagination = rows(
        &s,
        &report(db, "pagination"),
        &["url", "issue", "rel", "target"],
    );
    assert_eq!(
        pagination,
        set(&[
            &["/q1", "target_not_200", "next", "/gone-next"],
            &["/r1", "target_not_indexable", "next", "/noindex-it"],
            &["/s1", "sequence_broken", "next", "/s2"],
            &["/s2", "sequence_broken", "prev", "/a"],
        ])
    );

    let sd = report(db, "structured-data");
    assert_eq!(
        rows(&s, &sd, &["url", "issue", "types"]),
        set(&[&["/sd-bad", "jsonld_parse_error", "[\"Organization\"]"]])
    );
    let error = sd[0]["error"].as_str().unwrap();
    assert!(error.contains("EOF") && error.len() < 200, "{error}");
    let page = |path: &str| json_of(db, &["page", &s.url(path), "--json"]);
    assert_eq!(
        page("/sd-ok")["structured_data"],
        json!({"jsonld": ["WebSite", "Person"], "microdata": ["https://schema.org/Product"], "rdfa": true})
    );
    // An Open Graph <meta property> is no RDFa markup of the page.
    assert_eq!(
        page("/a")["structured_data"],
        json!({"jsonld": [], "microdata": [], "rdfa": false})
    );

    // Plain http: no header finding, only the unsafe new tab.
    let security = rows(&s, &report(db, "security"), &["url", "issue"]);
    assert_eq!(security, set(&[&["/blank-bad", "unsafe_blank_target"]]));

    let canonicals = rows(
        &s,
        &report(db, "canonicals"),
        &["url", "canonical", "issue"],
    );
    assert_eq!(
        canonicals,
        set(&[
            &["/c-404", "/gone-canonical", "to_error"],
            &["/c-ok", "/a", "non_self"],
        ])
    );

    // The targets no link reaches were asked once each, as resources are
    // (HEAD), and are no pages of the crawl; targets that are pages were
    // fetched once, as pages.
    for gone in ["/gone-canonical", "/gone-hreflang", "/gone-next"] {
        let asked: Vec<String> = s
            .requests()
            .into_iter()
            .filter(|r| r.path == gone)
            .map(|r| r.method)
            .collect();
        assert_eq!(asked, ["HEAD"], "{gone}");
        // `page` shows what the check answered; no fetch made it a page.
        let p = page(gone);
        assert_eq!(
            (&p["status"], &p["fetched_at"]),
            (&Value::from(404), &Value::Null),
            "{gone}"
        );
    }
    for fetched in ["/a", "/noindex-it", "/h-de", "/s2"] {
        assert_eq!(
            s.requests().iter().filter(|r| r.path == fetched).count(),
            1,
            "{fetched}"
        );
    }

    // The summary counts each kind as its report lists it.
    let summary = report(db, "summary");
    for (kind, n) in [
        ("hreflang", 6),
        ("pagination", 4),
        ("structured-data", 1),
        ("security", 1),
    ] {
        assert_eq!(summary["findings"][kind], n, "{kind}: {summary}");
    }
    // JUnit: one failing case per row.
    let junit = on_store(db, &["report", "pagination", "--junit"]);
    let junit = String::from_utf8_lossy(&junit.stdout);
    assert!(
        junit.contains("name=\"crawlscope report pagination\""),
        "{junit}"
    );
    assert_eq!(junit.matches("<failure ").count(), 4, "{junit}");
    // And the CSV has the JSON's columns.
    let csv = on_store(db, &["report", "hreflang", "--csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert_eq!(csv.lines().next(), Some("url,issue,hreflang,target"));
    assert_eq!(csv.lines().count(), 7, "{csv}");
}

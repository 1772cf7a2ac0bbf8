//! Every link occurrence kept: a small site whose home page links to the
//! same pages several times, from its header, nav, content, aside and
//! footer, with fragments, an image link, a link to itself and each kept
//! `rel` token; each row of the tables below is one seeded case, and what must NOT be there is
//! asserted beside it (the folded anchor of another link, a picture's
//! `<source>` as an image missing alt, a self-link among the inlinks).

use serde_json::Value;

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, on_store, Reply, Resp, TestServer};

pub(crate) const HOME: &str = r#"<!DOCTYPE html><html><head><title>Home</title></head><body>
<header><a href="/a" rel="nofollow">A head</a></header>
<nav><a href="/a" rel="ugc">A nav</a> <a href="/b#sec" rel="sponsored">B sec</a></nav>
<div role="contentinfo"><a href="/" rel="noopener">Home</a></div>
<main><p><a href="/b#nope" rel="noreferrer">B missing</a>
<a href="/a" rel="external"><img src="/logo.png" alt="Logo alt"></a>
<picture><source srcset="/pic.webp"><img src="/pic.png" alt="Pic"></picture>
<img src="/noalt.png">
<img src="/private/x.png" alt="blocked">
<img src="/broken.png" alt="Broken img">
<a href="/missing" rel="External  NOOPENER author">gone</a>
<a href="EXTgone">external gone</a></p></main>
<aside><a href="/b" rel="sponsored ugc">B aside</a></aside>
<footer><a href="/a">A foot</a></footer>
</body></html>"#;

/// The site, and the other origin its external link points to.
pub(crate) fn site() -> (TestServer, TestServer) {
    let s = TestServer::start();
    let other = TestServer::start();
    other.route("/gone", Reply::Respond(Resp::status(404)));
    let home = HOME.replace("EXT", &other.base());
    s.route("/", Reply::Respond(Resp::html(&home)));
    s.route(
        "/a",
        Reply::Respond(Resp::html(
            r#"<html><title>A</title><body><a href="/">home</a> <a href="/a#top">top</a></body></html>"#,
        )),
    );
    s.route(
        "/b",
        Reply::Respond(Resp::html(
            r#"<html><title>B</title><body><h2 id="sec">Sec</h2><a href="/">home</a></body></html>"#,
        )),
    );
    for img in ["/logo.png", "/pic.webp", "/pic.png", "/noalt.png"] {
        s.route(img, Reply::Respond(Resp::bytes("image/png", vec![1; 10])));
    }
    crate::support::robots(&s, "User-agent: *\nDisallow: /private/\n");
    (s, other)
}

/// A crawl of the site with fragments and external links checked.
pub(crate) fn crawled(s: &TestServer) -> tempfile::TempDir {
    let db = tempfile::tempdir().unwrap();
    crawl_ok(
        db.path(),
        &[&s.base(), "--check-fragments", "--check-external"],
    );
    db
}

/// A CSV's rows as header-keyed maps.
pub(crate) fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let head = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            head.iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

pub(crate) fn stdout(db: &std::path::Path, args: &[&str]) -> String {
    let out = on_store(db, args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_occurrence_is_exported_in_page_order_with_position() {
    let (s, _other) = site();
    let db = crawled(&s);
    let rows = csv_rows(&stdout(db.path(), &["export", "--format", "links"]));
    let home: Vec<_> = rows
        .iter()
        .filter(|r| r["source"] == s.url("/") && r["element"] == "a")
        .map(|r| {
            let path = r["target"].trim_start_matches(s.url("/").trim_end_matches('/'));
            [
                path.to_string(),
                r["anchor"].clone(),
                r["position"].clone(),
                r["fragment"].clone(),
                r["occurrence"].clone(),
                r["target_state"].clone(),
                r["rel"].clone(),
                r["nofollow"].clone(),
            ]
        })
        .collect();
    // The rel column keeps the tokens that matter, in a fixed order,
    // whatever the case or order written; others (`author`) are dropped.
    let want = [
        [
            "/a", "A head", "header", "", "1", "checked", "nofollow", "true",
        ],
        ["/a", "A nav", "nav", "", "2", "checked", "ugc", "false"],
        [
            "/b",
            "B sec",
            "nav",
            "sec",
            "1",
            "checked",
            "sponsored",
            "false",
        ],
        [
            "/", "Home", "footer", "", "1", "checked", "noopener", "false",
        ],
        [
            "/b",
            "B missing",
            "content",
            "nope",
            "2",
            "checked",
            "noreferrer",
            "false",
        ],
        [
            "/a", "Logo alt", "content", "", "3", "checked", "external", "false",
        ],
        [
            "/missing",
            "gone",
            "content",
            "",
            "1",
            "broken",
            "noopener external",
            "false",
        ],
        [
            "",
            "external gone",
            "content",
            "",
            "1",
            "broken",
            "",
            "false",
        ],
        [
            "/b",
            "B aside",
            "aside",
            "",
            "3",
            "checked",
            "ugc sponsored",
            "false",
        ],
        ["/a", "A foot", "footer", "", "4", "checked", "", "false"],
    ];
    assert_eq!(home.len(), want.len(), "{home:#?}");
    for (got, want) in home.iter().zip(want) {
        if want[0].is_empty() {
            assert!(got[0].ends_with("/gone"), "{got:?}");
        } else {
            assert_eq!(got[0], want[0], "{got:?}");
        }
        assert_eq!(got[1..], want[1..], "{got:?}");
    }
    // Resources: a robots-blocked image is not checked, a missing one is
    // broken, a picture's source is a `source`.
    let resource = |path: &str| {
        rows.iter()
            .find(|r| r["source"] == s.url("/") && r["target"] == s.url(path))
            .map(|r| (r["element"].clone(), r["target_state"].clone()))
            .unwrap_or_else(|| panic!("{path} not exported"))
    };
    for (path, element, state) in [
        ("/logo.png", "img", "checked"),
        ("/pic.webp", "source", "checked"),
        ("/private/x.png", "img", "not checked: robots"),
        ("/broken.png", "img", "broken"),
    ] {
        assert_eq!(resource(path), (element.into(), state.into()), "{path}");
    }
}

#[test]
fn page_json_keeps_children_per_target_and_lists_every_link() {
    let (s, _other) = site();
    let db = crawled(&s);
    let p = json_of(db.path(), &["page", &s.url("/"), "--json"]);
    let children: Vec<&str> = p["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(children.len(), 5, "one per target: {p}");
    assert_eq!(p["links"].as_array().unwrap().len(), 10, "{p}");
    let second = &p["links"][1];
    assert_eq!(
        (
            &second["anchor"],
            &second["position"],
            &second["occurrence"]
        ),
        (&Value::from("A nav"), &Value::from("nav"), &Value::from(2)),
        "{p}"
    );
    // Each occurrence's own rel tokens, and nofollow only where written.
    let rels: Vec<(&Value, &Value)> = p["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (&l["rel"], &l["nofollow"]))
        .collect();
    assert_eq!(
        rels[..3],
        [
            (&Value::from("nofollow"), &Value::from(true)),
            (&Value::from("ugc"), &Value::from(false)),
            (&Value::from("sponsored"), &Value::from(false)),
        ],
        "{p}"
    );
    // Inlinks: other pages; the home page's own link to itself apart.
    for (path, inlinks, self_links) in [("/", 2, 1), ("/a", 1, 1), ("/b", 1, 0)] {
        let p = json_of(db.path(), &["page", &s.url(path), "--json"]);
        assert_eq!(
            (&p["inlinks"], &p["parent_count"], &p["self_links"]),
            (
                &Value::from(inlinks),
                &Value::from(inlinks),
                &Value::from(self_links)
            ),
            "{path}: {p}"
        );
    }
    let report = json_of(db.path(), &["report", "links", "--json"]);
    let csv = csv_rows(&stdout(db.path(), &["export", "--format", "csv"]));
    for (path, inlinks, self_links) in [("/", 2, 1), ("/a", 1, 1), ("/b", 1, 0)] {
        let row = report
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["url"] == s.url(path))
            .unwrap();
        assert_eq!(row["inlinks"], inlinks, "{path}: {row}");
        assert_eq!(row["self_links"], self_links, "{path}: {row}");
        let row = csv.iter().find(|r| r["url"] == s.url(path)).unwrap();
        assert_eq!(row["inlinks"], inlinks.to_string(), "{path}: {row:?}");
        assert_eq!(row["self_links"], self_links.to_string(), "{path}");
    }
}

#[test]
fn a_missing_fragment_shows_its_own_links_anchor() {
    let (s, _other) = site();
    let db = crawled(&s);
    let rows = json_of(db.path(), &["report", "fragments", "--json"]);
    let rows = rows.as_array().unwrap();
    assert_eq!(
        rows.len(),
        1,
        "only #nope is missing (#sec exists): {rows:?}"
    );
    assert_eq!(rows[0]["fragment"], "nope");
    assert_eq!(rows[0]["sources"][0]["anchor"], "B missing", "{rows:?}");
}

#[test]
fn a_picture_source_is_not_an_image_missing_alt() {
    let (s, _other) = site();
    let db = crawled(&s);
    let rows = json_of(db.path(), &["report", "images", "--json"]);
    let missing: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["issue"] == "missing_alt")
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(missing, [s.url("/noalt.png")], "{rows}");
}

//! Depth is link depth: the fewest followed links from the start URL, a
//! redirect hop keeping its depth, whatever a sitemap listed first. The
//! site's answers were written down before the crawl; a sitemap lists a
//! deep page (which the frontier then meets at the sitemap's depth) and a
//! page no link reaches (no depth, found in the sitemap). The crawl
//! without sitemaps is the oracle for every linked page.

use serde_json::{json, Value};

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};

/// / → /a, /b, /nf (nofollow); /a → /c → /d; /b → /r, which redirects
/// to /e → /f. The sitemap lists /d, /f and /orphan, which no link
/// reaches.
fn site() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(
            r#"<html><head><title>Home</title></head><body>
<a href="/a">a</a> <a href="/b">b</a> <a href="/nf" rel="nofollow">nf</a>
</body></html>"#,
        )),
    );
    s.route("/a", Reply::Respond(page("A", "a", &["/c"])));
    s.route("/b", Reply::Respond(page("B", "b", &["/r"])));
    s.route("/c", Reply::Respond(page("C", "c", &["/d"])));
    s.route("/d", Reply::Respond(page("D", "d", &[])));
    s.route("/r", Reply::Respond(Resp::redirect(301, "/e")));
    s.route("/e", Reply::Respond(page("E", "e", &["/f"])));
    s.route("/f", Reply::Respond(page("F", "f", &[])));
    s.route("/nf", Reply::Respond(page("NF", "nf", &[])));
    s.route("/orphan", Reply::Respond(page("Orphan", "orphan", &[])));
    let listed = ["/d", "/f", "/orphan"].map(|p| format!("<url><loc>{}</loc></url>", s.url(p)));
    s.route(
        "/sitemap.xml",
        Reply::Respond(Resp::bytes(
            "application/xml",
            format!(
                r#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</urlset>"#,
                listed.concat()
            )
            .into_bytes(),
        )),
    );
    s
}

/// (path, link depth, found_in) with sitemaps read; `/nf` is held back
/// as nofollow and never fetched.
const ANSWERS: [(&str, Option<u32>, &[&str]); 9] = [
    ("/", Some(0), &["start"]),
    ("/a", Some(1), &["link"]),
    ("/b", Some(1), &["link"]),
    ("/c", Some(2), &["link"]),
    ("/d", Some(3), &["link", "sitemap"]),
    ("/r", Some(2), &["link"]),
    ("/e", Some(2), &["redirect"]),
    ("/f", Some(3), &["link", "sitemap"]),
    ("/orphan", None, &["sitemap"]),
];

fn page_of(db: &std::path::Path, s: &TestServer, path: &str) -> Value {
    json_of(db, &["page", &s.url(path), "--json"])
}

#[test]
fn depth_is_link_depth_whatever_a_sitemap_listed() {
    let s = site();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    assert_eq!(s.hits("/orphan"), 1, "the sitemap's page is crawled");
    assert_eq!(s.hits("/nf"), 0);
    for (path, depth, found_in) in ANSWERS {
        let p = page_of(&db, &s, path);
        assert_eq!(p["depth"], json!(depth), "{path}: {p}");
        assert_eq!(p["found_in"], json!(found_in), "{path}");
    }
    // Fetched pages only (the redirect is not a page): 0:1, 1:2, 2:2, 3:2.
    let by_depth = json!({"0": 1, "1": 2, "2": 2, "3": 2});
    let summary = json_of(&db, &["report", "summary", "--json"]);
    assert_eq!(summary["by_depth"], by_depth, "{summary}");
    assert_eq!(summary["no_link_depth"], 1);
    let depth = json_of(&db, &["report", "depth", "--json", "--limit", "2"]);
    assert_eq!(depth["by_depth"], by_depth);
    assert_eq!(depth["no_link_depth"], 1);
    let deepest: Vec<&str> = (depth["deepest"].as_array().unwrap().iter())
        .map(|d| d["url"].as_str().unwrap())
        .collect();
    assert_eq!(deepest, [s.url("/d"), s.url("/f")]);
    // The URL table says the same, redirects included.
    let out = on_store(&db, &["export", "--format", "csv"]);
    assert!(out.status.success());
    let mut rows = csv::Reader::from_reader(&out.stdout[..]);
    let headers = rows.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (url, depth) = (col("url"), col("depth"));
    for row in rows.records() {
        let row = row.unwrap();
        let path = row[url].trim_start_matches(s.base().trim_end_matches('/'));
        if let Some((_, want, _)) = ANSWERS.iter().find(|(p, _, _)| *p == path) {
            let want = want.map(|d| d.to_string()).unwrap_or_default();
            assert_eq!(row[depth], want, "csv {path}");
        }
    }
}

/// Without sitemaps the frontier meets every page at its link depth: the
/// oracle for the linked pages of the crawl with sitemaps.
#[test]
fn link_depth_with_sitemaps_is_the_crawl_depth_without() {
    let s = site();
    let dir = tempfile::tempdir().unwrap();
    let (with, without) = (dir.path().join("with"), dir.path().join("without"));
    crawl_ok(&with, &[&s.base()]);
    crawl_ok(&without, &[&s.base(), "--no-sitemaps"]);
    for (path, _, _) in ANSWERS.iter().filter(|(_, d, _)| d.is_some()) {
        let oracle = page_of(&without, &s, path);
        assert_eq!(page_of(&with, &s, path)["depth"], oracle["depth"], "{path}");
    }
    assert!(!on_store(&without, &["page", &s.url("/orphan"), "--json"])
        .status
        .success());
}

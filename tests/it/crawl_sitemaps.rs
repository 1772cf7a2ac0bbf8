//! Sitemaps lead to pages no link does: a `Sitemap:` line of robots.txt
//! naming a sitemap index, which names a gzip'd sitemap, which lists a page
//! nothing links to. Scope and excludes still apply; the page records
//! which sitemap listed it; `--no-sitemaps` reads none.

use std::io::Write as _;

use crate::support::crawl::*;
use crate::support::{home, page, Reply, Resp, TestServer};
use crawlscope::store::prelude::*;
use crawlscope::url::Url;

fn gzip(data: &str) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data.as_bytes()).unwrap();
    enc.finish().unwrap()
}

/// Home links only to /linked; the sitemaps list /hidden, /private/x
/// (excluded below) and an out-of-scope URL.
fn site() -> TestServer {
    let s = TestServer::start();
    home(&s, &["linked"]);
    s.route("/linked", Reply::Respond(page("Linked", "linked", &[])));
    s.route("/hidden", Reply::Respond(page("Hidden", "hidden", &[])));
    s.route("/private/x", Reply::Respond(page("Private", "x", &[])));
    crate::support::robots(
        &s,
        &format!(
            "User-agent: *\nAllow: /\nSitemap: {}\n",
            s.url("maps/index.xml")
        ),
    );
    s.route(
        "/maps/index.xml",
        Reply::Respond(Resp::bytes(
            "application/xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>{}</loc></sitemap>
</sitemapindex>"#,
                s.url("maps/pages.xml.gz")
            )
            .into_bytes(),
        )),
    );
    s.route(
        "/maps/pages.xml.gz",
        Reply::Respond(Resp::bytes(
            "application/gzip",
            gzip(&format!(
                r#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>{}</loc><lastmod>2024-05-01</lastmod></url>
  <url><loc>{}</loc></url>
  <url><loc>http://elsewhere.test/page</loc></url>
  <url><loc>{}</loc></url>
</urlset>"#,
                s.url("hidden"),
                s.url("private/x"),
                s.url("linked")
            )),
        )),
    );
    s
}

#[test]
fn a_page_only_a_gzipped_sitemap_behind_an_index_lists_is_crawled() {
    let s = site();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let exclude = s.url("private/");
    let out = crawl(&db, &[&s.base(), "--exclude", &exclude]);
    let sum = summary(&out);
    assert_eq!(sum["fetched"], 3, "{sum}");
    assert_eq!(s.hits("/hidden"), 1);
    assert_eq!(s.hits("/private/x"), 0, "excludes apply");
    assert_eq!(s.hits("/linked"), 1, "listed and linked: fetched once");
    assert_eq!(state(&db, &s.url("hidden")).as_deref(), Some("done"));
    assert_eq!(
        state(&db, &s.url("private/x")).as_deref(),
        Some("skipped:excluded")
    );
    assert_eq!(
        state(&db, "http://elsewhere.test/page").as_deref(),
        Some("skipped:out_of_scope")
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("sitemap {}: 4 URLs", s.url("maps/pages.xml.gz"))),
        "{stderr}"
    );
    // No parent: the page says where it came from.
    let p = crate::support::json_of(&db, &["page", &s.url("hidden"), "--json"]);
    assert_eq!(p["parents"], serde_json::json!([]));
    assert_eq!(p["from_sitemap"], s.url("maps/pages.xml.gz"));
    // No link reaches it: no link depth.
    assert_eq!(p["depth"], serde_json::Value::Null);
    assert_eq!(p["found_in"], serde_json::json!(["sitemap"]));
    let st = store(&db);
    let r = st.read().unwrap();
    let home_id = r.page_id(&Url::parse(&s.base()).unwrap()).unwrap().unwrap();
    assert_eq!(r.listed_by_sitemap(home_id).unwrap(), None);
    drop(r);
    assert_whole(&db);
}

#[test]
fn no_sitemaps_reads_none_and_is_kept_on_the_point() {
    let s = site();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let sum = crawl_ok(&db, &[&s.base(), "--no-sitemaps"]);
    assert_eq!(sum["fetched"], 2, "{sum}");
    // A bare `crawl` runs the stored point, which keeps the choice.
    crawl_ok(&db, &[]);
    for path in [
        "/hidden",
        "/maps/index.xml",
        "/maps/pages.xml.gz",
        "/sitemap.xml",
    ] {
        assert_eq!(s.hits(path), 0, "{path} was requested");
    }
    let points = crate::support::json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["sitemaps"], false, "{points}");
}

/// Where `path` came in the order of requests for pages.
fn position(s: &TestServer, path: &str, since: usize) -> usize {
    s.requests()[since..]
        .iter()
        .filter(|r| r.path != "/robots.txt" && r.path != "/sitemap.xml")
        .position(|r| r.path == path)
        .unwrap_or_else(|| panic!("{path} was not requested"))
}

#[test]
fn a_lastmod_newer_than_the_stored_page_puts_it_early_in_a_recrawl() {
    let s = TestServer::start();
    let wide: Vec<String> = (0..30).map(|i| format!("p{i}")).collect();
    let refs: Vec<&str> = wide.iter().map(String::as_str).collect();
    home(&s, &refs);
    for p in &wide {
        s.route(&format!("/{p}"), Reply::Respond(page(p, "wide", &[])));
    }
    s.route("/deep", Reply::Respond(page("Deep", "deep", &[])));
    let sitemap = |lastmod: &str| {
        Reply::Respond(Resp::bytes(
            "application/xml",
            format!(
                "<urlset><url><loc>{}</loc>{lastmod}</url></urlset>",
                s.url("deep")
            )
            .into_bytes(),
        ))
    };
    // The guessed /sitemap.xml: no robots.txt names it.
    s.route("/sitemap.xml", sitemap(""));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let args = [&s.base() as &str, "--concurrency", "1", "--per-host", "1"];
    assert_eq!(crawl_ok(&db, &args)["fetched"], 32);
    // Now the sitemap says /deep changed after it was fetched: the re-crawl
    // takes it before the depth-1 pages still queued (with one request at
    // a time and claims of eight, the first batch of them is taken before
    // the sitemap is read).
    let since = s.requests().len();
    s.route("/sitemap.xml", sitemap("<lastmod>2099-01-01</lastmod>"));
    // Same bodies: every page is fetched again and found unchanged.
    assert_eq!(crawl_ok(&db, &args)["unchanged"], 32);
    let (deep, last) = (position(&s, "/deep", since), position(&s, "/p29", since));
    assert!(
        deep < 15 && deep < last,
        "/deep came {deep}th of the re-crawl, /p29 {last}th"
    );
}

/// Home links nowhere; /sitemap.xml answers `first`, then lists /deep.
fn sitemap_answering_first(first: Resp) -> TestServer {
    let s = TestServer::start();
    home(&s, &[]);
    s.route("/deep", Reply::Respond(page("Deep", "deep", &[])));
    s.route(
        "/sitemap.xml",
        Reply::Sequence(vec![
            Reply::Respond(first),
            Reply::Respond(Resp::bytes(
                "application/xml",
                format!("<urlset><url><loc>{}</loc></url></urlset>", s.url("deep")).into_bytes(),
            )),
        ]),
    );
    s
}

#[test]
fn a_sitemap_that_fails_once_is_asked_again() {
    let s = sitemap_answering_first(Resp::status(502));
    let dir = tempfile::tempdir().unwrap();
    let sum = crawl_ok(&dir.path().join("store"), &[&s.base()]);
    assert_eq!(s.hits("/sitemap.xml"), 2);
    assert_eq!(s.hits("/deep"), 1, "the sitemap's page was not found");
    assert_eq!(sum["fetched"], 2, "{sum}");
}

#[test]
fn a_sitemap_that_says_slow_down_is_waited_out() {
    let s = sitemap_answering_first(Resp::status(429).header("Retry-After", "1"));
    let dir = tempfile::tempdir().unwrap();
    let sum = crawl_ok(&dir.path().join("store"), &[&s.base()]);
    assert_eq!(s.hits("/deep"), 1, "the sitemap's page was not found");
    assert_eq!(sum["throttled"], 1, "{sum}");
    s.assert_asked_again_a_second_later("/sitemap.xml");
}

//! `report KIND` on a crawled loopback site built to hold known findings:
//! a 404 and a refused port linked from two pages, a redirect chain and a
//! loop, missing, duplicate and too-long titles and descriptions, missing
//! and multiple H1s, noindex by meta tag and by header, canonicals to
//! another page and to an error page, and two identical bodies. Every
//! report must list exactly those.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, on_store, Reply, Resp, TestServer};

pub const LONG_TITLE: &str =
    "A title, with \"quotes\", that goes on well past sixty characters of text";

/// A loopback port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// One HTML page: title and description when given, its h1s, anything
/// for the head, and links as (href, anchor text).
pub fn doc(
    title: Option<&str>,
    description: Option<&str>,
    h1: &[&str],
    head: &str,
    links: &[(&str, &str)],
) -> Resp {
    let mut html = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">");
    if let Some(t) = title {
        html.push_str(&format!("<title>{}</title>", t.replace('"', "&quot;")));
    }
    if let Some(d) = description {
        html.push_str(&format!("<meta name=\"description\" content=\"{d}\">"));
    }
    html.push_str(head);
    html.push_str("</head>\n<body>\n");
    for h in h1 {
        html.push_str(&format!("<h1>{h}</h1>\n"));
    }
    html.push_str(&format!("<p>{}</p>\n", title.unwrap_or("untitled")));
    for (href, text) in links {
        html.push_str(&format!("<a href=\"{href}\">{text}</a>\n"));
    }
    html.push_str("</body></html>\n");
    Resp::html(&html)
}

/// A plain page: its own title, description and one h1.
fn plain(name: &str, links: &[(&str, &str)]) -> Reply {
    Reply::Respond(doc(
        Some(name),
        Some(&format!("The {name} page")),
        &[name],
        "",
        links,
    ))
}

/// The site, and the refused URL it links to.
pub struct Site {
    pub s: TestServer,
    pub refused: String,
}

impl Site {
    pub fn url(&self, path: &str) -> String {
        self.s.url(path)
    }
}

pub fn site() -> Site {
    let s = TestServer::start();
    let refused = format!("http://127.0.0.1:{}/gone", closed_port());
    let home_links = [
        ("/about", "About us"),
        ("/missing", "Dead link"),
        (refused.as_str(), "Refused link"),
        ("/r1", "Chain"),
        ("/loop-a", "Loop"),
        ("/dup1", "Copy one"),
        ("/dup2", "Copy two"),
        ("/notitle", "No title"),
        ("/long", "Long"),
        ("/noindex-meta", "Hidden"),
        ("/noindex-header", "Hidden too"),
        ("/canon-other", "Canonical elsewhere"),
        ("/canon-error", "Canonical broken"),
        ("/multi-h1", "Two headings"),
        ("/noh1", "No heading"),
    ];
    s.route("/", plain("Home", &home_links));
    s.route(
        "/about",
        Reply::Respond(doc(
            Some("About"),
            Some("The about page"),
            &["About"],
            "<link rel=\"canonical\" href=\"/about\">",
            &[("/missing", "Dead link again")],
        )),
    );
    s.route("/r1", Reply::Respond(Resp::redirect(301, "/r2")));
    s.route("/r2", Reply::Respond(Resp::redirect(308, "/final")));
    s.route("/final", plain("Final", &[]));
    s.route("/loop-a", Reply::Respond(Resp::redirect(301, "/loop-b")));
    s.route("/loop-b", Reply::Respond(Resp::redirect(301, "/loop-a")));
    let twin = doc(
        Some("Same title"),
        Some("Same description"),
        &["Twin"],
        "",
        &[],
    );
    s.route("/dup1", Reply::Respond(twin.clone()));
    s.route("/dup2", Reply::Respond(twin));
    s.route(
        "/notitle",
        Reply::Respond(doc(None, None, &["No title"], "", &[])),
    );
    let long_description = "d".repeat(170);
    s.route(
        "/long",
        Reply::Respond(doc(
            Some(LONG_TITLE),
            Some(&long_description),
            &["Long"],
            "",
            &[],
        )),
    );
    s.route(
        "/noindex-meta",
        Reply::Respond(doc(
            Some("Noindex meta"),
            Some("Hidden by a meta tag"),
            &["Hidden"],
            "<meta name=\"robots\" content=\"noindex\">",
            &[],
        )),
    );
    s.route(
        "/noindex-header",
        Reply::Respond(
            doc(
                Some("Noindex header"),
                Some("Hidden by a header"),
                &["Hidden too"],
                "",
                &[],
            )
            .header("X-Robots-Tag", "noindex, nofollow"),
        ),
    );
    s.route(
        "/canon-other",
        Reply::Respond(doc(
            Some("Canonical other"),
            Some("Points at about"),
            &["Elsewhere"],
            "<link rel=\"canonical\" href=\"/about\">",
            &[],
        )),
    );
    s.route(
        "/canon-error",
        Reply::Respond(doc(
            Some("Canonical error"),
            Some("Points at a 404"),
            &["Broken"],
            "<link rel=\"canonical\" href=\"/missing\">",
            &[],
        )),
    );
    s.route(
        "/multi-h1",
        Reply::Respond(doc(
            Some("Multi"),
            Some("Two headings here"),
            &["One", "Two"],
            "",
            &[],
        )),
    );
    s.route(
        "/noh1",
        Reply::Respond(doc(Some("No h1"), Some("No heading here"), &[], "", &[])),
    );
    Site { s, refused }
}

/// The site crawled into `db`: one point whose root takes in every
/// loopback port, so the refused URL is fetched (and fails).
pub fn crawled(db: &Path) -> Site {
    let site = site();
    crawl_ok(
        db,
        &[
            &site.s.base(),
            "--root",
            "http://127.0.0.1:",
            "--ignore-robots",
        ],
    );
    site
}

fn report(db: &Path, kind: &str) -> Value {
    json_of(db, &["report", kind, "--json"])
}

/// `(url, issue)` of each row, in report order.
fn issues(rows: &Value, key: &str) -> Vec<(String, String)> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["url"].as_str().unwrap().to_string(),
                r[key].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn broken_lists_every_failed_url_with_the_pages_linking_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let u = |p: &str| site.url(p);
    let broken = report(dir.path(), "broken");
    assert_eq!(
        broken,
        json!([
            {
                "url": u("missing"), "status": 404, "reason": "Not Found",
                "sources": [
                    {"url": u(""), "anchor": "Dead link"},
                    {"url": u("about"), "anchor": "Dead link again"},
                ],
                "source_count": 2
            },
            {
                "url": site.refused, "status": null, "reason": "connection refused",
                "sources": [{"url": u(""), "anchor": "Refused link"}],
                "source_count": 1
            },
            {
                "url": u("loop-b"), "status": null,
                "reason": format!("redirect loop (301 to {})", u("loop-a")),
                // Reached through loop-a: the page linking there.
                "sources": [{
                    "url": u(""), "anchor": "Loop",
                    "via": [{"url": u("loop-a"), "status": 301}]
                }],
                "source_count": 1
            },
        ])
    );
}

#[test]
fn redirects_list_each_chain_with_where_it_ends_and_loops_first() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let u = |p: &str| site.url(p);
    assert_eq!(
        report(dir.path(), "redirects"),
        json!([
            {
                "url": u("loop-a"), "chain": [{"url": u("loop-a"), "status": 301}],
                "final": u("loop-b"), "final_status": null, "loop": true
            },
            {
                "url": u("r1"),
                "chain": [{"url": u("r1"), "status": 301}, {"url": u("r2"), "status": 308}],
                "final": u("final"), "final_status": 200, "loop": false
            },
        ])
    );
}

#[test]
fn titles_and_descriptions_missing_duplicate_and_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let u = |p: &str| site.url(p);
    // These issues come first; the short, wide and same-as-h1 ones after
    // them are `report_audit`'s.
    let titles = report(dir.path(), "titles");
    assert_eq!(
        titles.as_array().unwrap()[..4],
        json!([
            {"url": u("notitle"), "issue": "missing", "value": null, "others": [],
             "chars": null, "px": null},
            {"url": u("dup1"), "issue": "duplicate", "value": "Same title", "others": [u("dup2")],
             "chars": 10, "px": 89},
            {"url": u("dup2"), "issue": "duplicate", "value": "Same title", "others": [u("dup1")],
             "chars": 10, "px": 89},
            {"url": u("long"), "issue": "too_long", "value": LONG_TITLE, "others": [],
             "chars": 71, "px": 586},
        ])
        .as_array()
        .unwrap()[..]
    );
    let descriptions = report(dir.path(), "descriptions");
    assert_eq!(
        issues(&descriptions, "issue")[..4],
        [
            (u("notitle"), "missing".to_string()),
            (u("dup1"), "duplicate".to_string()),
            (u("dup2"), "duplicate".to_string()),
            (u("long"), "too_long".to_string()),
        ]
    );
    assert_eq!(descriptions[1]["value"], "Same description");
    assert_eq!(descriptions[3]["value"], "d".repeat(170));
}

#[test]
fn headings_duplicates_directives_and_canonicals() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let db = dir.path();
    let u = |p: &str| site.url(p);
    // The h1 issues come first; missing h2s and duplicate h1s are
    // `report_audit`'s.
    assert_eq!(
        report(db, "headings").as_array().unwrap()[..2],
        json!([
            {"url": u("noh1"), "issue": "missing_h1", "h1": [], "others": []},
            {"url": u("multi-h1"), "issue": "multiple_h1", "h1": ["One", "Two"], "others": []},
        ])
        .as_array()
        .unwrap()[..]
    );
    let dups = report(db, "duplicates");
    assert_eq!(dups.as_array().unwrap().len(), 1, "{dups}");
    assert_eq!(dups[0]["urls"], json!([u("dup1"), u("dup2")]));
    assert_eq!(dups[0]["content_hash"].as_str().unwrap().len(), 16);
    assert_eq!(
        report(db, "directives"),
        json!([
            {"url": u("noindex-meta"), "noindex": true, "nofollow": false, "source": "meta"},
            {"url": u("noindex-header"), "noindex": true, "nofollow": true, "source": "header"},
        ])
    );
    assert_eq!(
        report(db, "canonicals"),
        json!([
            {"url": u("canon-error"), "canonical": u("missing"), "issue": "to_error"},
            {"url": u("canon-other"), "canonical": u("about"), "issue": "non_self"},
        ])
    );
}

#[test]
fn summary_counts_statuses_and_every_kind_of_finding() {
    let dir = tempfile::tempdir().unwrap();
    crawled(dir.path());
    let s = report(dir.path(), "summary");
    assert_eq!(
        s["by_status"],
        json!({"2xx": 13, "3xx": 3, "4xx": 1, "5xx": 0, "failed": 2})
    );
    assert_eq!(
        s["findings"],
        json!({
            "broken": 3, "canonicals": 2, "descriptions": 16, "directives": 2,
            "duplicates": 1, "external": 0, "headings": 17, "redirects": 2, "titles": 19,
            "near-duplicates": 0, "fragments": 0, "resources": 0, "images": 0,
            // The 404, the refused URL, the loop, the chain and the four
            // directive and canonical pages; the site has no sitemap.
            "indexability": 10, "sitemaps": 0, "search": 0,
            "hreflang": 0, "structured-data": 0, "pagination": 0, "security": 0,
            "http-links": 0
        })
    );
    // Every fetched page has a record: 13 pages and the 404.
    assert_eq!(s["pages"], 14);
    assert_eq!(s["by_depth"], json!({"0": 1, "1": 13}));
    assert_eq!(s["by_mime"], json!({"text/html": 13, "text/plain": 1}));
    // The bare command is the summary, for people.
    let out = on_store(dir.path(), &["report"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("findings.broken"), "{text}");
}

#[test]
fn slow_large_depth_and_mimetypes_rank_the_pages() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let db = dir.path();
    let large = report(db, "large");
    let sizes: Vec<u64> = large
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes.len(), 14);
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    // Home links to fifteen pages: the largest by far.
    assert_eq!(large[0]["url"], site.url(""));
    let slow = report(db, "slow");
    let ms: Vec<u64> = slow
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["response_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(ms.len(), 14);
    assert!(ms.windows(2).all(|w| w[0] >= w[1]), "{ms:?}");
    let depth = json_of(db, &["report", "depth", "--json", "--limit", "1"]);
    assert_eq!(depth["by_depth"], json!({"0": 1, "1": 13}));
    assert_eq!(depth["deepest"].as_array().unwrap().len(), 1);
    assert_eq!(depth["deepest"][0]["depth"], 1);
    assert_eq!(
        report(db, "mimetypes"),
        json!([
            {"mime": "text/html", "params": {"charset": "utf-8"}, "pages": 13},
            {"mime": "text/plain", "params": {"charset": "utf-8"}, "pages": 1},
        ])
    );
}

#[test]
fn csv_has_a_header_and_quotes_what_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let out = on_store(dir.path(), &["report", "titles", "--csv"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..5],
        [
            "url,issue,value,others,chars,px".to_string(),
            format!("{},missing,,,,", site.url("notitle")),
            format!(
                "{},duplicate,Same title,{},10,89",
                site.url("dup1"),
                site.url("dup2")
            ),
            format!(
                "{},duplicate,Same title,{},10,89",
                site.url("dup2"),
                site.url("dup1")
            ),
            format!(
                "{},too_long,\"A title, with \"\"quotes\"\", that goes on well past sixty characters of text\",,71,586",
                site.url("long")
            ),
        ]
    );
    // Lists of texts: sources joined with a space, anchors with " | ".
    let out = on_store(dir.path(), &["report", "broken", "--csv", "--limit", "1"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "url,status,reason,sources,anchors,source_count,element,via".to_string(),
            format!(
                "{},404,Not Found,{} {},Dead link | Dead link again,2,,",
                site.url("missing"),
                site.url(""),
                site.url("about")
            ),
        ]
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "note: 1 of 3 rows (--limit 1)"
    );
}

/// A text report after its first line, which names the run it is as of.
fn after_run_line(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    let (first, rest) = text.split_once('\n').unwrap_or_default();
    assert!(first.starts_with("as of point 1, run 1 ("), "{text}");
    rest.to_string()
}

#[test]
fn limit_zero_counts_and_text_says_how_many_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    crawled(dir.path());
    let db = dir.path();
    let out = on_store(db, &["report", "broken", "--limit", "0"]);
    assert!(out.status.success());
    assert_eq!(
        after_run_line(&out.stdout),
        "3 broken URLs (none listed: --limit 0)\n"
    );
    assert_eq!(
        json_of(db, &["report", "titles", "--json", "--limit", "0"]),
        json!([])
    );
    let out = on_store(db, &["report", "titles", "--limit", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("2 of 19 title issues shown (--limit N for more)\n"),
        "{text}"
    );
    let out = on_store(db, &["report", "broken"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("found on"), "{text}");
    assert!(text.contains("\"Dead link again\""), "{text}");
}

#[test]
fn point_restricts_a_report_to_its_urls() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let site = crawled(db);
    let other = TestServer::start();
    other.route("/", plain("Other home", &[("/lost", "Lost")]));
    crawl_ok(db, &[&other.base(), "--ignore-robots"]);
    let urls = |v: Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["url"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        urls(json_of(db, &["report", "broken", "--json", "--point", "2"])),
        [other.url("lost")]
    );
    assert_eq!(
        urls(json_of(db, &["report", "broken", "--json", "--point", "1"])),
        [
            site.url("missing"),
            site.refused.clone(),
            site.url("loop-b")
        ]
    );
    assert_eq!(
        json_of(db, &["report", "--json", "--point", "2"])["pages"],
        2
    );
    let out = on_store(db, &["report", "broken", "--point", "9"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: no crawl point 9 (crawlscope point list)\n"
    );
}

#[test]
fn hosts_give_each_origins_requests_and_response_times() {
    let dir = tempfile::tempdir().unwrap();
    let site = crawled(dir.path());
    let hosts = report(dir.path(), "hosts");
    let origin = site.s.base().trim_end_matches('/').to_string();
    let refused = site.refused.trim_end_matches("/gone").to_string();
    let row = |o: &str| {
        hosts
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["origin"] == o)
            .cloned()
            .unwrap_or_else(|| panic!("no row for {o}: {hosts}"))
    };
    let site_row = row(&origin);
    // Eighteen pages asked for, the 404 the one failure; the redirects
    // are answers.
    assert_eq!(
        (
            &site_row["requests"],
            &site_row["ok"],
            &site_row["failed"],
            &site_row["throttled"]
        ),
        (&json!(18), &json!(17), &json!(1), &json!(0)),
        "{hosts}"
    );
    assert!(site_row["p50_ms"].as_u64().is_some(), "{hosts}");
    let dead = row(&refused);
    assert_eq!(dead["ok"], 0, "{hosts}");
    assert_eq!(dead["failed"], dead["requests"], "{hosts}");
    assert_eq!(dead["p50_ms"], Value::Null, "nothing answered: {hosts}");
    assert_eq!(hosts[0]["origin"], origin, "busiest first");
}

#[test]
fn external_lists_the_broken_out_of_scope_links_checked() {
    let s = TestServer::start();
    let other = TestServer::start();
    other.route("/fine", plain("Fine", &[]));
    let refused = format!("http://127.0.0.1:{}/down", closed_port());
    let (gone, fine) = (other.url("gone"), other.url("fine"));
    s.route(
        "/",
        plain(
            "Home",
            &[
                ("/a", "A"),
                (&gone, "Gone away"),
                (&fine, "Works"),
                (&refused, "Down"),
            ],
        ),
    );
    s.route("/a", plain("A", &[(&gone, "Gone again")]));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    // Before any check the list is empty, and says why; so does the
    // summary, where 0 would read as "every external link works".
    crawl_ok(db, &[&s.base(), "--ignore-robots"]);
    let out = on_store(db, &["report", "external"]);
    assert_eq!(
        after_run_line(&out.stdout),
        "no external link has been checked: crawl with --check-external to check them\n"
    );
    let text = String::from_utf8(on_store(db, &["report"]).stdout).unwrap();
    assert!(
        text.lines().any(|l| l
            .split_whitespace()
            .eq(["findings.external", "not", "checked"])),
        "{text}"
    );
    assert_eq!(report(db, "summary")["external_checked"], false);
    crawl_ok(db, &[&s.base(), "--ignore-robots", "--check-external"]);
    assert_eq!(report(db, "summary").get("external_checked"), None);
    assert_eq!(
        report(db, "external"),
        json!([
            {
                "url": gone, "status": 404, "reason": "Not Found",
                "sources": [
                    {"url": s.base(), "anchor": "Gone away"},
                    {"url": s.url("a"), "anchor": "Gone again"},
                ],
                "source_count": 2
            },
            {
                "url": refused, "status": null, "reason": "connection refused",
                "sources": [{"url": s.base(), "anchor": "Down"}],
                "source_count": 1
            },
        ])
    );
    assert_eq!(report(db, "summary")["findings"]["external"], 2);
}

#[test]
fn external_links_a_dead_target_to_the_pages_whose_link_redirects_there() {
    let s = TestServer::start();
    let other = TestServer::start();
    let dead = other.url("dead");
    s.route("/", plain("Home", &[("/out", "Out")]));
    s.route("/out", Reply::Respond(Resp::redirect(301, &dead)));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    crawl_ok(db, &[&s.base(), "--ignore-robots", "--check-external"]);
    assert_eq!(
        report(db, "external"),
        json!([{
            "url": dead, "status": 404, "reason": "Not Found",
            "sources": [{
                "url": s.base(), "anchor": "Out",
                "via": [{"url": s.url("out"), "status": 301}]
            }],
            "source_count": 1
        }])
    );
}

#[test]
fn links_rank_the_pages_that_answered_not_the_404() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let site = crawled(db);
    let links = report(db, "links");
    let urls: Vec<&str> = (links.as_array().unwrap().iter())
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert!(!urls.is_empty(), "{links}");
    assert!(!urls.contains(&site.url("missing").as_str()), "{links}");
}

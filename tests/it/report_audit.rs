//! The audit columns on one loopback site of known answers, crawled with
//! robots.txt and /sitemap.xml read: indexability (noindex, canonicalised,
//! a 404, a robots-blocked URL, a redirect), titles and descriptions too
//! short, too wide and equal to the h1, a page without `<h2>`, two pages
//! sharing an h1, a sitemap listing an orphan and the 404 and missing an
//! indexable page, and a link graph whose PageRank order is known: home
//! linked from every page, /a from home and /b, /b from home and (with
//! nofollow, passing nothing) from /noh2. Each report's rows, `page`'s
//! fields and both CSV exports are checked exactly.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, on_store, Reply, Resp, TestServer};

/// One page: its title, description, h1, whether it has an h2, anything
/// for the head, and links as (href, rel).
struct Page<'a> {
    title: &'a str,
    description: String,
    h1: &'a str,
    h2: bool,
    head: &'a str,
    links: Vec<(&'a str, &'a str)>,
}

impl<'a> Page<'a> {
    /// A page with nothing to find: a title of 30-60 characters, a
    /// description of 70-160, an h1 of its own, an h2, a link home.
    fn clean(title: &'a str, h1: &'a str) -> Page<'a> {
        Page {
            title,
            description: format!("{title}: written out at length, enough words for a description."),
            h1,
            h2: true,
            head: "",
            links: vec![("/", "")],
        }
    }

    fn reply(&self) -> Reply {
        let mut html = format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{}</title>\
             <meta name=\"description\" content=\"{}\">{}</head><body><h1>{}</h1>",
            self.title, self.description, self.head, self.h1
        );
        if self.h2 {
            html.push_str("<h2>Section</h2>");
        }
        for (href, rel) in &self.links {
            html.push_str(&format!("<a href=\"{href}\" rel=\"{rel}\">to {href}</a>"));
        }
        html.push_str("</body></html>");
        Reply::Respond(Resp::html(&html))
    }
}

const WIDE_TITLE: &str = "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW";
const SAME: &str = "The title that the heading repeats";

fn site() -> TestServer {
    let s = TestServer::start();
    let linked = [
        "/a", "/b", "/noindex", "/canon", "/missing", "/private", "/old", "/short", "/wide",
        "/same", "/noh2", "/twin1", "/twin2",
    ];
    let mut home = Page::clean("The home page of the audit fixture", "Welcome");
    home.links = linked.iter().map(|l| (*l, "")).collect();
    s.route("/", home.reply());
    s.route(
        "/a",
        Page::clean("Page A of the audit fixture site", "A").reply(),
    );
    let mut b = Page::clean("Page B of the audit fixture site", "B");
    b.links.push(("/a", ""));
    s.route("/b", b.reply());
    let mut noindex = Page::clean("A page that asks not to be indexed", "Hidden");
    noindex.head = "<meta name=\"robots\" content=\"noindex\">";
    s.route("/noindex", noindex.reply());
    let mut canon = Page::clean("A page whose canonical is page A", "Canon");
    canon.head = "<link rel=\"canonical\" href=\"/a\">";
    s.route("/canon", canon.reply());
    s.route("/old", Reply::Respond(Resp::redirect(301, "/a")));
    s.route(
        "/private",
        Page::clean("Never fetched: robots.txt says", "P").reply(),
    );
    let mut short = Page::clean("Short", "Short one");
    short.description = "Short.".into();
    s.route("/short", short.reply());
    let mut wide = Page::clean(WIDE_TITLE, "Wide one");
    wide.description = "W".repeat(80);
    s.route("/wide", wide.reply());
    s.route("/same", Page::clean(SAME, SAME).reply());
    let mut noh2 = Page::clean("A page with no second-level heading", "No h2");
    noh2.h2 = false;
    noh2.links.push(("/b", "nofollow"));
    s.route("/noh2", noh2.reply());
    s.route(
        "/twin1",
        Page::clean("The first twin of the fixture site", "Twin").reply(),
    );
    s.route(
        "/twin2",
        Page::clean("The second twin of the fixture site", "Twin").reply(),
    );
    s.route(
        "/orphan",
        Page::clean("Only the sitemap leads to this one", "Orphan").reply(),
    );
    crate::support::robots(&s, "User-agent: *\nDisallow: /private\n");
    s.route("/sitemap.xml", sitemap_xml(&s, &LISTED));
    s
}

/// What /sitemap.xml lists: every page but /b, /canon and the redirect,
/// and the orphan and the 404; /noindex last.
const LISTED: [&str; 11] = [
    "", "a", "short", "wide", "same", "noh2", "twin1", "twin2", "orphan", "missing", "noindex",
];

fn sitemap_xml(s: &TestServer, paths: &[&str]) -> Reply {
    let urls: String = paths
        .iter()
        .map(|p| format!("<url><loc>{}</loc></url>", s.url(p)))
        .collect();
    Reply::Respond(Resp::bytes(
        "application/xml",
        format!("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{urls}</urlset>")
            .into_bytes(),
    ))
}

fn report(db: &Path, kind: &str) -> Value {
    json_of(db, &["report", kind, "--json"])
}

/// Rows of a report keeping only `keys`.
fn only(rows: &Value, keys: &[&str]) -> Value {
    let rows = rows.as_array().unwrap().iter().map(|r| {
        let kept: serde_json::Map<String, Value> = keys
            .iter()
            .map(|k| (k.to_string(), r[*k].clone()))
            .collect();
        Value::Object(kept)
    });
    Value::Array(rows.collect())
}

#[test]
fn the_audit_reports_answer_the_fixture_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let s = site();
    crawl_ok(db, &[&s.base()]);
    let u = |p: &str| s.url(p);
    let sitemap = u("sitemap.xml");
    // (kind, the fields compared, the rows expected)
    let table: Vec<(&str, &[&str], Value)> = vec![
        (
            "indexability",
            &["url", "indexability"],
            json!([
                {"url": u("private"), "indexability": "blocked_by_robots"},
                {"url": u("old"), "indexability": "redirected"},
                {"url": u("missing"), "indexability": "non_200"},
                {"url": u("noindex"), "indexability": "noindex"},
                {"url": u("canon"), "indexability": "canonicalised"},
            ]),
        ),
        (
            "titles",
            &["url", "issue", "value", "chars", "px"],
            json!([
                {"url": u("short"), "issue": "too_short", "value": "Short", "chars": 5, "px": 48},
                {"url": u("wide"), "issue": "too_wide", "value": WIDE_TITLE, "chars": 30, "px": 566},
                {"url": u("same"), "issue": "same_as_h1", "value": SAME, "chars": 34, "px": 292},
            ]),
        ),
        (
            "descriptions",
            &["url", "issue", "chars", "px"],
            json!([
                {"url": u("short"), "issue": "too_short", "chars": 6, "px": 37},
                {"url": u("wide"), "issue": "too_wide", "chars": 80, "px": 1057},
            ]),
        ),
        (
            "headings",
            &["url", "issue", "h1", "others"],
            json!([
                {"url": u("noh2"), "issue": "missing_h2", "h1": ["No h2"], "others": []},
                {"url": u("twin1"), "issue": "duplicate_h1", "h1": ["Twin"], "others": [u("twin2")]},
                {"url": u("twin2"), "issue": "duplicate_h1", "h1": ["Twin"], "others": [u("twin1")]},
            ]),
        ),
        (
            "sitemaps",
            &["url", "issue", "sitemap"],
            json!([
                {"url": u("orphan"), "issue": "orphan", "sitemap": sitemap},
                {"url": u("noindex"), "issue": "non_indexable", "sitemap": sitemap},
                {"url": u("missing"), "issue": "non_200", "sitemap": sitemap},
                {"url": u("b"), "issue": "not_in_sitemap", "sitemap": null},
            ]),
        ),
    ];
    for (kind, keys, want) in table {
        assert_eq!(only(&report(db, kind), keys), want, "report {kind}");
    }

    // Link score: home first (every page links to it), then /a (linked
    // from home and /b); /b's nofollow inlink passes nothing, so it scores
    // as the pages only home links to; the orphan, linked by none, is 0.
    let links = report(db, "links");
    let rows = links.as_array().unwrap();
    let score = |p: &str| {
        let row = rows.iter().find(|r| r["url"] == u(p)).unwrap();
        row["link_score"].as_f64().unwrap()
    };
    assert_eq!(
        only(&links, &["url", "inlinks", "unique_inlinks", "outlinks"])
            .as_array()
            .unwrap()[..3],
        json!([
            {"url": u(""), "inlinks": 11, "unique_inlinks": 11, "outlinks": 13},
            {"url": u("a"), "inlinks": 2, "unique_inlinks": 2, "outlinks": 1},
            {"url": u("b"), "inlinks": 2, "unique_inlinks": 2, "outlinks": 2},
        ])
        .as_array()
        .unwrap()[..]
    );
    assert_eq!(score(""), 100.0);
    assert!(score("a") > score("b"), "{links}");
    assert_eq!(score("b"), score("short"), "nofollow passes no score");
    assert_eq!(score("orphan"), 0.0);
    assert!(rows
        .windows(2)
        .all(|w| w[0]["link_score"].as_f64() >= w[1]["link_score"].as_f64()));

    // The summary counts the new kinds.
    let findings = &report(db, "summary")["findings"];
    assert_eq!(
        (&findings["indexability"], &findings["sitemaps"]),
        (&json!(5), &json!(4))
    );

    // page: indexability, link score and widths.
    let page = json_of(db, &["page", &u("canon"), "--json"]);
    assert_eq!(page["indexability"], "canonicalised");
    assert_eq!(page["title_px"], 306);
    assert_eq!(page["link_score"].as_f64(), Some(score("canon")));
    assert_eq!(
        json_of(db, &["page", &u("old"), "--json"])["indexability"],
        "redirected"
    );

    // CSV: the two columns at the end.
    let csv = on_store(db, &["export", "--format", "csv"]);
    let text = String::from_utf8(csv.stdout).unwrap();
    let head = text.lines().next().unwrap();
    assert!(
        head.ends_with(",truncated,indexability,link_score,self_links"),
        "{head}"
    );
    let row = |p: &str| {
        let url = u(p);
        text.lines()
            .find(|l| l.starts_with(&format!("{url},")))
            .unwrap()
            .to_string()
    };
    assert!(
        row("noindex").ends_with(&format!(",noindex,{},0", score("noindex"))),
        "{text}"
    );
    assert!(row("private").ends_with(",blocked_by_robots,,0"), "{text}");
    assert!(row("").ends_with(",indexable,100,0"), "{text}");

    // Every link, with its target's status and state.
    let out = on_store(db, &["export", "--format", "links"]);
    assert!(out.status.success());
    let links = String::from_utf8(out.stdout).unwrap();
    let mut lines = links.lines();
    assert_eq!(
        lines.next(),
        Some("source,target,anchor,rel,element,nofollow,target_status,target_state,position,fragment,occurrence")
    );
    let rows: Vec<&str> = lines.collect();
    // Home's 13, a link home from each of the 11 other pages, b → a and
    // noh2 → b.
    assert_eq!(rows.len(), 13 + 11 + 2, "{links}");
    for want in [
        format!(
            "{},{},to /missing,,a,false,404,broken,content,,1",
            u(""),
            u("missing")
        ),
        format!(
            "{},{},to /old,,a,false,301,redirected,content,,1",
            u(""),
            u("old")
        ),
        format!(
            "{},{},to /private,,a,false,,not checked: robots,content,,1",
            u(""),
            u("private")
        ),
        format!(
            "{},{},to /b,nofollow,a,true,200,checked,content,,1",
            u("noh2"),
            u("b")
        ),
    ] {
        assert!(rows.contains(&want.as_str()), "{want} not in\n{links}");
    }

    // The sitemap no longer lists /noindex: the next run's audit says
    // nothing of it (what an earlier run's sitemap listed is not held).
    s.route("/sitemap.xml", sitemap_xml(&s, &LISTED[..LISTED.len() - 1]));
    crawl_ok(db, &[&s.base()]);
    assert_eq!(
        only(&report(db, "sitemaps"), &["url", "issue"]),
        json!([
            {"url": u("orphan"), "issue": "orphan"},
            {"url": u("missing"), "issue": "non_200"},
            {"url": u("b"), "issue": "not_in_sitemap"},
        ])
    );

    // A run that reads no sitemaps has nothing to hold the pages to.
    crawl_ok(db, &[&s.base(), "--no-sitemaps"]);
    let runs = json_of(db, &["runs", "--json"]);
    assert_eq!(runs[0]["flags"]["no_sitemaps"], true, "{runs}");
    assert_eq!(report(db, "sitemaps"), json!([]));
    assert_eq!(report(db, "summary")["findings"]["sitemaps"], 0);
}

/// A sitemap URL that links reach only through a redirect chain is linked,
/// not an orphan; one that nothing reaches is.
#[test]
fn orphans_are_what_no_link_reaches_redirects_followed() {
    let s = TestServer::start();
    let mut home = Page::clean("The home page of the redirect fixture", "Welcome");
    home.links = vec![("/moved", "")];
    s.route("/", home.reply());
    s.route("/moved", Reply::Respond(Resp::redirect(301, "/hop")));
    s.route("/hop", Reply::Respond(Resp::redirect(302, "/landing")));
    for (path, title) in [
        ("/landing", "The landing page behind two redirects"),
        ("/lonely", "A page that only the sitemap names"),
    ] {
        s.route(path, Page::clean(title, "Here").reply());
    }
    s.route("/sitemap.xml", sitemap_xml(&s, &["", "landing", "lonely"]));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let orphans: Vec<Value> = (report(db.path(), "sitemaps").as_array().unwrap().iter())
        .filter(|r| r["issue"] == "orphan")
        .map(|r| r["url"].clone())
        .collect();
    assert_eq!(orphans, [json!(s.url("/lonely"))]);
}

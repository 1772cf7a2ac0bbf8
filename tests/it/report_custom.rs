//! A point's own rules and the sitemap it can write, through the real
//! binary on a loopback site of known answers: `--extract` keeps each
//! page's values (`report extract`, `page --json`, the CSV), `--search`
//! lists the pages with (or, with `!`, without) a text (`report search`,
//! a finding kind), and `export --format sitemap` lists the indexable
//! pages and no other.

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, on_store, stderr_of, Reply, Resp, TestServer};

/// Pages whose prices, SKUs, analytics tag, draft text and indexability
/// are known.
fn site() -> TestServer {
    let s = TestServer::start();
    let html = |title: &str, body: &str| {
        Reply::Respond(Resp::html(&format!("<title>{title}</title>{body}")))
    };
    s.route(
        "/",
        html(
            "Home",
            "<script>gtag('x')</script><a href=/p1>1</a><a href=/p2>2</a><a href=/draft>d</a>\
             <a href=/hidden>h</a><a href=/copy>c</a><a href=/gone>g</a><img src=/i.png alt=i>",
        ),
    );
    s.route(
        "/p1",
        html(
            "One",
            "<script>gtag('x')</script><span class=price>9.99 EUR</span> SKU-101",
        ),
    );
    s.route(
        "/p2",
        html(
            "Two",
            "<span class=price>5</span><span class=price>6</span> SKU-7",
        ),
    );
    s.route(
        "/draft",
        html(
            "Draft",
            "<script>gtag('x')</script><p>Lorem ipsum dolor</p>",
        ),
    );
    s.route(
        "/hidden",
        html(
            "Hidden",
            "<meta name=robots content=noindex><script>gtag('x')</script>",
        ),
    );
    s.route(
        "/copy",
        html(
            "Copy",
            "<link rel=canonical href=/p1><script>gtag('x')</script>",
        ),
    );
    s.route("/gone", Reply::Respond(Resp::status(404)));
    s.route(
        "/i.png",
        Reply::Respond(Resp::bytes("image/png", vec![0; 4])),
    );
    s
}

#[test]
fn rules_find_what_each_page_holds_and_nothing_else() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    crawl_ok(
        db.path(),
        &[
            &s.base(),
            "--extract",
            "price=css:span.price",
            "--extract",
            "sku=regex:SKU-(\\d+)",
            "--search",
            "lorem=Lorem ipsum",
            "--search",
            "ga=!gtag(",
        ],
    );
    // kind, rule, path, what the row holds (None: no row).
    let cases: &[(&str, &str, &str, Option<&str>)] = &[
        ("extract", "price", "/p1", Some("[\"9.99 EUR\"]")),
        ("extract", "price", "/p2", Some("[\"5\",\"6\"]")),
        ("extract", "price", "/", None),
        ("extract", "sku", "/p1", Some("[\"101\"]")),
        ("extract", "sku", "/p2", Some("[\"7\"]")),
        ("extract", "sku", "/draft", None),
        ("search", "lorem", "/draft", Some("1")),
        ("search", "lorem", "/p1", None),
        ("search", "ga", "/p2", Some("0")),
        ("search", "ga", "/p1", None),
        ("search", "ga", "/", None),
    ];
    for (kind, rule, path, want) in cases {
        let rows = json_of(db.path(), &["report", kind, "--name", rule, "--json"]);
        let rows = rows.as_array().unwrap();
        assert!(
            rows.iter().all(|r| r["name"] == *rule),
            "{kind} {rule}: {rows:?}"
        );
        let row = rows.iter().find(|r| r["url"] == s.url(path));
        let got = row.map(|r| match *kind {
            "extract" => r["values"].to_string(),
            _ => r["count"].to_string(),
        });
        assert_eq!(got.as_deref(), *want, "{kind} {rule} {path}: {rows:?}");
    }
    let summary = json_of(db.path(), &["report", "--json"]);
    assert_eq!(
        summary["findings"]["search"], 2,
        "lorem on /draft, no tag on /p2"
    );

    let page = json_of(db.path(), &["page", &s.url("/p2"), "--json"]);
    assert_eq!(page["extract"]["price"], serde_json::json!(["5", "6"]));
    let csv = on_store(db.path(), &["export", "--format", "csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(header.ends_with(",extract:price,extract:sku"), "{header}");
    let p2 = lines.find(|l| l.starts_with(&s.url("/p2"))).unwrap();
    assert!(p2.ends_with(",5 | 6,7"), "{p2}");

    let out = on_store(db.path(), &["report", "search", "--name", "nope"]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("\"nope\"") && err.contains("ga, lorem"),
        "{err}"
    );
}

#[test]
fn bad_rules_are_usage_errors() {
    let db = tempfile::tempdir().unwrap();
    for (flag, rule) in [
        ("--extract", "price"),
        ("--extract", "p=css:[["),
        ("--extract", "p=xpath://a"),
        ("--search", "x="),
        ("--search", "x=regex:("),
    ] {
        let out = on_store(db.path(), &["crawl", "http://127.0.0.1:9/", flag, rule]);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{rule}: {err}");
        assert!(err.contains(flag), "{rule}: {err}");
    }
}

#[test]
fn the_sitemap_lists_the_indexable_pages() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let out = on_store(db.path(), &["export", "--format", "sitemap"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let xml = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        xml.contains("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"),
        "{xml}"
    );
    let locs: Vec<&str> = (xml.split("<loc>").skip(1))
        .filter_map(|l| l.split("</loc>").next())
        .collect();
    let want: Vec<String> = ["/", "/p1", "/p2", "/draft"]
        .iter()
        .map(|p| s.url(p))
        .collect();
    assert_eq!(
        locs, want,
        "not /hidden (noindex), /copy (canonical elsewhere), /gone, the image"
    );
    assert_eq!(xml.matches("<lastmod>").count(), 4, "{xml}");
}

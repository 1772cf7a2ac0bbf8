//! Resource links: on a site with broken and working images, scripts,
//! stylesheets, frames and CSS `url()`s, each resource is checked once per
//! run (own origin by default, other origins only with
//! `--check-external`, none with `--no-resources`), never counted as a
//! page, and answers in `report broken` (with its element and source
//! page), `report resources`, `report images` and `page --json`.

use serde_json::Value;

use crate::support::crawl::*;
use crate::support::{json_of, page, Reply, Resp, TestServer};

const BIG: usize = 200 * 1024;

/// The fixture: its own server and another origin's.
struct Site {
    s: TestServer,
    other: TestServer,
}

fn site() -> Site {
    let s = TestServer::start();
    let other = TestServer::start();
    other.route(
        "/ext.png",
        Reply::Respond(Resp::bytes("image/png", vec![1; 10])),
    );
    let long_alt = "word ".repeat(30);
    let home = format!(
        r#"<!DOCTYPE html><html><head><title>Home</title>
<link rel="stylesheet" href="/ok.css"><link rel="stylesheet" href="/gone.css">
<link rel="shortcut icon" href="/favicon.ico">
<script src="/ok.js"></script><script src="/gone.js"></script>
</head><body><h1>Home</h1>
<img src="/big.png" alt="A big picture">
<img src="/gone.png">
<img src="/long.png" alt="{long_alt}">
<img src="/decorative.png" alt="">
<img src="/private/p.png" alt="not ours to ask">
<img src="{ext}" alt="external">
<iframe src="/frame.html"></iframe><iframe src="/gone-frame.html"></iframe>
<a href="/a">a</a>
</body></html>"#,
        ext = other.url("/ext.png"),
    );
    s.route("/", Reply::Respond(Resp::html(&home)));
    s.route(
        "/a",
        Reply::Respond(Resp::html(
            "<title>A</title><h1>A</h1><img src=/big.png><img src=/decorative.png alt=''>",
        )),
    );
    s.route("/frame.html", Reply::Respond(page("Frame", "framed", &[])));
    s.route(
        "/ok.css",
        Reply::Respond(Resp::bytes(
            "text/css",
            b"body{background:url(bg.png)} .x{background:url('/gone-bg.png')} \
              .y{background:url(data:image/png;base64,AAAA)}"
                .to_vec(),
        )),
    );
    s.route(
        "/ok.js",
        Reply::Respond(Resp::bytes("text/javascript", b"x()".to_vec())),
    );
    for path in ["/favicon.ico", "/bg.png", "/long.png", "/decorative.png"] {
        s.route(path, Reply::Respond(Resp::bytes("image/png", vec![1; 10])));
    }
    s.route(
        "/big.png",
        Reply::Respond(Resp::bytes("image/png", vec![7; BIG])),
    );
    crate::support::robots(&s, "User-agent: *\nDisallow: /private/\n");
    // /gone.css, /gone.js, /gone.png, /gone-frame.html and /gone-bg.png
    // are not routed: 404.
    Site { s, other }
}

/// The paths of `s` asked for with any method.
fn asked(s: &TestServer) -> Vec<String> {
    s.requests().into_iter().map(|r| r.path).collect()
}

fn rows<'a>(v: &'a Value, url: &str) -> Vec<&'a Value> {
    v.as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["url"] == url)
        .collect()
}

fn source_urls(row: &Value) -> Vec<&str> {
    row["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["url"].as_str())
        .collect()
}

#[test]
fn resources_are_checked_once_reported_and_never_pages() {
    // (flags, resources checked, broken, the other origin checked)
    let runs: &[(&[&str], u64, u64, bool)] = &[
        (&[], 13, 5, false),
        (&["--check-external"], 14, 5, true),
        (&["--no-resources"], 0, 0, false),
    ];
    for &(flags, checked, broken, external) in runs {
        let Site { s, other } = site();
        let db = tempfile::tempdir().unwrap();
        let mut args = vec![s.base()];
        args.extend(flags.iter().map(|f| f.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let summary = crawl_ok(db.path(), &args);
        assert_eq!(
            summary["resources_checked"], checked,
            "{flags:?}: {summary}"
        );
        assert_eq!(summary["resources_broken"], broken, "{flags:?}: {summary}");
        assert_eq!(
            asked(&other).contains(&"/ext.png".to_string()),
            external,
            "{flags:?}: the other origin's image checked only with --check-external"
        );
        // Never a page: no state, no record, not in the page count.
        for path in ["/ok.js", "/gone.js", "/big.png", "/ok.css", "/bg.png"] {
            assert_eq!(state(db.path(), &s.url(path)), None, "{flags:?} {path}");
            assert!(stored_page(db.path(), &s.url(path)).is_none());
        }
        let sum = json_of(db.path(), &["report", "summary", "--json"]);
        // /, /a, /frame.html, /gone-frame.html (a 404 page, a link too).
        assert_eq!(sum["pages"], 4, "{flags:?}: {sum}");
        assert_eq!(sum["findings"]["resources"], broken, "{flags:?}: {sum}");
        let off = flags == ["--no-resources"];
        let points = json_of(db.path(), &["point", "list", "--json"]);
        assert_eq!(points[0]["resources"], !off, "{flags:?}: {points}");
        let runs = json_of(db.path(), &["runs", "--json"]);
        assert_eq!(runs[0]["resources_checked"], checked, "{flags:?}: {runs}");
        assert_eq!(runs[0]["flags"]["no_resources"], off, "{flags:?}: {runs}");
        if off {
            let js = asked(&s).into_iter().filter(|p| p.ends_with(".js")).count();
            assert_eq!(js, 0, "--no-resources asks for no resource");
            continue;
        }
        // Checked once each in the run, with HEAD (stylesheets with GET).
        let mut methods: Vec<(String, String)> = s
            .requests()
            .into_iter()
            .filter(|r| r.path.ends_with(".png") || r.path.ends_with(".css"))
            .map(|r| (r.method, r.path))
            .collect();
        methods.sort();
        methods.dedup();
        assert!(methods.contains(&("HEAD".into(), "/big.png".into())));
        assert!(methods.contains(&("GET".into(), "/ok.css".into())));
        assert_eq!(
            s.requests().iter().filter(|r| r.path == "/big.png").count(),
            1
        );

        let home = s.url("/");
        let broken_rows = json_of(db.path(), &["report", "broken", "--json"]);
        for (path, element, source) in [
            ("/gone.css", "stylesheet", home.clone()),
            ("/gone.js", "script", home.clone()),
            ("/gone.png", "img", home.clone()),
            ("/gone-frame.html", "iframe", home.clone()),
            ("/gone-bg.png", "css-url", s.url("/ok.css")),
        ] {
            let found = rows(&broken_rows, &s.url(path));
            assert_eq!(
                found.len(),
                1,
                "{path} once in report broken: {broken_rows}"
            );
            assert_eq!(found[0]["element"], element, "{path}: {}", found[0]);
            assert_eq!(found[0]["status"], 404, "{path}");
            assert!(
                source_urls(found[0]).contains(&source.as_str()),
                "{path}: {}",
                found[0]
            );
        }

        let resources = json_of(db.path(), &["report", "resources", "--json"]);
        let list = resources.as_array().unwrap();
        assert!(
            list[..5].iter().all(|r| r["reason"].is_string()),
            "broken first: {resources}"
        );
        assert_eq!(
            list[5]["url"],
            s.url("/big.png"),
            "then the largest: {resources}"
        );
        let big = rows(&resources, &s.url("/big.png"));
        assert_eq!(big[0]["element"], "img");
        assert_eq!(big[0]["status"], 200);
        assert_eq!(big[0]["size"], BIG);
        assert_eq!(big[0]["mime"], "image/png");
        assert_eq!(source_urls(big[0]), [home.as_str(), &s.url("/a")]);
        let js = rows(&resources, &s.url("/ok.js"));
        assert_eq!(
            (js[0]["element"].as_str(), js[0]["size"].as_u64()),
            (Some("script"), Some(3))
        );
        // robots.txt keeps it from being asked: listed, not checked.
        assert!(!asked(&s).iter().any(|p| p.starts_with("/private/")));
        let private = rows(&resources, &s.url("/private/p.png"));
        assert_eq!(
            (&private[0]["status"], &private[0]["reason"]),
            (&Value::Null, &Value::Null)
        );
        let ext = rows(&resources, &other.url("/ext.png"));
        assert_eq!(
            ext[0]["status"].as_u64(),
            external.then_some(200),
            "{}",
            ext[0]
        );

        let images = json_of(db.path(), &["report", "images", "--json"]);
        let mut issues: Vec<(String, String, String)> = images
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
                (s("issue"), s("url"), s("page"))
            })
            .collect();
        issues.sort();
        let want = |issue: &str, img: &str, page: &str| (issue.into(), s.url(img), s.url(page));
        assert_eq!(
            issues,
            [
                want("large", "/big.png", "/"),
                want("long_alt", "/long.png", "/"),
                want("missing_alt", "/big.png", "/a"),
                want("missing_alt", "/gone.png", "/"),
            ],
            "{images}"
        );

        let page = json_of(db.path(), &["page", &home, "--json"]);
        let res = page["resources"].as_array().expect("resources");
        let of = |u: String| {
            res.iter()
                .find(|r| r["url"] == u)
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(of(s.url("/gone.js"))["element"], "script");
        assert_eq!(of(s.url("/gone.js"))["status"], 404);
        assert_eq!(of(s.url("/ok.css"))["status"], 200);

        // The links export has a row per resource, with its element.
        let out = crate::support::on_store(db.path(), &["export", "--format", "links"]);
        let links = String::from_utf8(out.stdout).unwrap();
        let answer = if checked > 0 {
            "404,broken"
        } else {
            ",not checked"
        };
        let script = format!("{home},{},,,script,false,{answer},,,1", s.url("/gone.js"));
        assert!(
            links.lines().any(|l| l == script),
            "{flags:?}: {script} not in\n{links}"
        );
        assert_whole(db.path());
    }
}

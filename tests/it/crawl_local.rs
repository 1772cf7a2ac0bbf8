//! Local input: a directory of HTML files with seeded faults crawled from
//! disk and, from the same files, over HTTP by the test server acting as
//! a static server: every report the same once URLs are paths; and
//! Markdown files checked as lychee checks them (relative files, GitHub
//! heading slugs as fragments, http links as external checks).

use std::path::Path;

use serde_json::Value;

use crate::support::crawl::crawl_ok;
use crate::support::{json_of, Reply, Resp, TestServer};

/// The site: (path, content). Its seeded faults: a broken link, a missing
/// directory, a missing image, a missing CSS `url()`, a missing fragment,
/// a missing title, a duplicate title, a redirect (a directory without
/// its `/`); each with a clean twin.
const SITE: &[(&str, &str)] = &[
    (
        "index.html",
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>Home</title>
<meta name="description" content="The home page"><link rel="stylesheet" href="style.css"></head>
<body><h1>Home</h1>
<a href="about.html">About</a> <a href="about.html#team">Team</a> <a href="about.html#gone">Gone</a>
<a href="blog/">Blog</a> <a href="docs">Docs</a> <a href="missing.html">Missing</a>
<a href="nothere/">Nothere</a> <img src="logo.png" alt="Logo"> <img src="absent.png" alt="Absent">
</body></html>"#,
    ),
    (
        "about.html",
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="description" content="About us"></head>
<body><h1>About</h1><h2 id="team">Team</h2><a href="index.html">Home</a></body></html>"#,
    ),
    (
        "blog/index.html",
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>Blog</title>
<meta name="description" content="The blog"></head>
<body><h1>Blog</h1><a href="post.html">Post</a> <a href="../index.html">Home</a></body></html>"#,
    ),
    (
        "blog/post.html",
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>Blog</title>
<meta name="description" content="A post"></head>
<body><h1>Post</h1><a href="../about.html#team">Team</a></body></html>"#,
    ),
    (
        "docs/index.html",
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>Docs</title>
<meta name="description" content="The docs"></head>
<body><h1>Docs</h1><a href="../blog/post.html">Post</a></body></html>"#,
    ),
    (
        "style.css",
        "body{background:url(bg.png)} .x{background:url(bg-missing.png)}",
    ),
    ("logo.png", "\u{89}PNG logo"),
    ("bg.png", "\u{89}PNG bg"),
];

/// The site's files under `dir`.
fn write_site(dir: &Path, files: &[(&str, &str)]) {
    for (path, body) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
}

/// The test server as a static server of `files`: each file at its path
/// with its type, a directory's `index.html` at `dir/` and a 301 from
/// `dir`; anything else is its 404.
fn serve(files: &[(&str, &str)]) -> TestServer {
    let s = TestServer::start();
    for (path, body) in files {
        let mime = match path.rsplit('.').next() {
            Some("html") => "text/html",
            Some("css") => "text/css",
            Some("png") => "image/png",
            other => panic!("no type for {other:?}"),
        };
        let reply = Reply::Respond(Resp::bytes(mime, body.as_bytes().to_vec()));
        s.route(&format!("/{path}"), reply.clone());
        if let Some(dir) = path.strip_suffix("index.html") {
            s.route(&format!("/{dir}"), reply);
            if let Some(bare) = dir.strip_suffix('/') {
                s.route(
                    &format!("/{bare}"),
                    Reply::Respond(Resp::redirect(301, &format!("/{dir}"))),
                );
            }
        }
    }
    s
}

/// A report as JSON with the site's prefix made `/`, a static server's
/// 404 phrase made the local one, times and 404 sizes (which differ by
/// nature) left out, and lists sorted (ties come in fetch order).
fn report(db: &Path, kind: &str, prefix: &str) -> Value {
    let mut v = json_of(db, &["report", kind, "--json"]);
    normalise(&mut v, prefix);
    v
}

fn normalise(v: &mut Value, prefix: &str) {
    match v {
        Value::String(s) => {
            *s = s
                .replace(prefix, "/")
                .replace("Not Found", "file not found");
        }
        Value::Array(items) => {
            items.iter_mut().for_each(|i| normalise(i, prefix));
            // Ties are listed in page id order, which is fetch order.
            items.sort_by_key(|i| i.to_string());
        }
        Value::Object(map) => {
            map.retain(|k, _| !["_ms", "_s", "_at"].iter().any(|end| k.ends_with(end)));
            // An error page's body is each server's own.
            if map.get("status") == Some(&Value::from(404)) {
                map.remove("size");
            }
            map.values_mut().for_each(|i| normalise(i, prefix));
        }
        _ => {}
    }
}

/// The reports compared: every one whose rows a site's files decide.
const KINDS: &[&str] = &[
    "summary",
    "broken",
    "redirects",
    "titles",
    "descriptions",
    "headings",
    "duplicates",
    "directives",
    "canonicals",
    "depth",
    "mimetypes",
    "fragments",
    "indexability",
    "links",
    "resources",
    "images",
    "near-duplicates",
];

#[test]
fn a_directory_on_disk_reports_as_the_same_files_served() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("public");
    write_site(&site, SITE);
    let (disk_db, http_db) = (tmp.path().join("disk"), tmp.path().join("http"));
    let on_disk = format!("{}/", site.display());
    let summary = crawl_ok(&disk_db, &[&on_disk, "--check-fragments"]);
    assert_eq!(summary["fetched"], 6, "{summary}");
    assert_eq!(summary["skipped_robots"], 0);
    let server = serve(SITE);
    crawl_ok(
        &http_db,
        &[&server.url("/"), "--check-fragments", "--no-sitemaps"],
    );
    let file_prefix = crawlscope::url::Url::from_directory_path(&site)
        .unwrap()
        .to_string();
    for kind in KINDS {
        assert_eq!(
            report(&disk_db, kind, &file_prefix),
            report(&http_db, kind, &server.url("/")),
            "report {kind}: disk (left) and HTTP (right) differ"
        );
    }
    assert_eq!(
        export_csv(&disk_db, &file_prefix),
        export_csv(&http_db, &server.url("/")),
        "export --format csv: disk (left) and HTTP (right) differ"
    );
    // The point is the directory's URL; `page` reads a file's record.
    let points = json_of(&disk_db, &["point", "list", "--json"]);
    assert_eq!(points[0]["url"], file_prefix.as_str());
    assert_eq!(points[0]["root"], file_prefix.as_str());
    let about = format!("{file_prefix}about.html");
    let page = json_of(&disk_db, &["page", &about, "--json"]);
    assert_eq!(page["status"], 200, "{page}");
}

/// `export --format csv` as objects, normalised as reports are; a
/// file's modification time is its `Last-Modified`, which the test server
/// does not send.
fn export_csv(db: &Path, prefix: &str) -> Value {
    let out = crate::support::on_store(db, &["export", "--format", "csv"]);
    assert!(out.status.success(), "{}", crate::support::stderr_of(&out));
    let mut rd = csv::Reader::from_reader(out.stdout.as_slice());
    let header = rd.headers().unwrap().clone();
    let mut rows: Value = rd
        .records()
        .map(|r| {
            let r = r.unwrap();
            let mut row = serde_json::Map::new();
            for (k, v) in header.iter().zip(r.iter()) {
                let v = v
                    .parse::<u64>()
                    .map_or_else(|_| Value::from(v), Value::from);
                row.insert(k.to_string(), v);
            }
            row.remove("last_modified");
            Value::Object(row)
        })
        .collect();
    normalise(&mut rows, prefix);
    rows
}

/// (report, URL path, found): each seeded fault and its clean twin.
const DISK_FINDINGS: &[(&str, &str, bool)] = &[
    ("broken", "/missing.html", true),
    ("broken", "/about.html", false),
    ("broken", "/nothere/", true),
    ("broken", "/blog/", false),
    ("broken", "/absent.png", true),
    ("broken", "/logo.png", false),
    ("broken", "/bg-missing.png", true),
    ("broken", "/bg.png", false),
    ("fragments", "/about.html#gone", true),
    ("fragments", "/about.html#team", false),
    ("titles", "/about.html missing", true),
    ("titles", "/docs/ missing", false),
    ("titles", "/blog/post.html duplicate", true),
    ("titles", "/docs/ duplicate", false),
    ("redirects", "/docs", true),
    ("redirects", "/blog/", false),
];

#[test]
fn a_directorys_seeded_faults_are_found_and_its_clean_twins_not() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("public");
    write_site(&site, SITE);
    let db = tmp.path().join("db");
    crawl_ok(&db, &[&format!("{}/", site.display()), "--check-fragments"]);
    let prefix = crawlscope::url::Url::from_directory_path(&site)
        .unwrap()
        .to_string();
    for &(kind, path, found) in DISK_FINDINGS {
        let rows = row_urls(&report(&db, kind, &prefix));
        assert_eq!(
            rows.contains(&path.to_string()),
            found,
            "{kind} {path}: {rows:?}"
        );
    }
}

/// Each row's own URL, with `#fragment` and ` issue` when the row has them.
fn row_urls(rows: &Value) -> Vec<String> {
    rows.as_array()
        .expect("a list report")
        .iter()
        .map(|r| {
            let mut key = r["url"].as_str().unwrap_or_default().to_string();
            if let Some(f) = r["fragment"].as_str() {
                key = format!("{key}#{f}");
            }
            if let Some(issue) = r["issue"].as_str() {
                key = format!("{key} {issue}");
            }
            key
        })
        .collect()
}

#[test]
fn root_and_excludes_take_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("public");
    write_site(&site, SITE);
    let db = tmp.path().join("db");
    let summary = crawl_ok(
        &db,
        &[
            &format!("{}/", site.display()),
            "--exclude",
            "blog",
            "--exclude",
            "missing.html",
        ],
    );
    // blog/, missing.html, and blog/post.html that docs/ links to.
    assert_eq!(summary["excluded"], 3, "{summary}");
    let prefix = crawlscope::url::Url::from_directory_path(&site)
        .unwrap()
        .to_string();
    let broken = row_urls(&report(&db, "broken", &prefix));
    assert!(!broken.contains(&"/missing.html".to_string()), "{broken:?}");
    assert!(broken.contains(&"/nothere/".to_string()), "{broken:?}");
    let points = json_of(&db, &["point", "list", "--json"]);
    assert_eq!(points[0]["excludes"][0], format!("{prefix}blog/"));
    assert_eq!(points[0]["excludes"][1], format!("{prefix}missing.html"));
}

/// A README and docs/ as a repository holds them, `http` links to the
/// test server.
fn markdown(server: &TestServer) -> Vec<(&'static str, String)> {
    vec![
        (
            "README.md",
            format!(
                "# Project\n\n\
                 See [the guide](docs/guide.md), [usage](docs/guide.md#usage),\n\
                 [bad frag](docs/guide.md#nope), [missing](docs/missing.md),\n\
                 [news](#whats-new-v20), [bad local](#nowhere), [second setup](#setup-1),\n\
                 [raw](#raw-spot), ![logo](img/logo.png), ![gone](img/gone.png),\n\
                 [ok]({ok}), [bad]({bad}).\n\n\
                 ## What's new? (v2.0)\n\n## Setup\n\n## Setup\n\n<a name=\"raw-spot\"></a>\n",
                ok = server.url("/ok"),
                bad = server.url("/bad"),
            ),
        ),
        (
            "docs/guide.md",
            "# Guide\n\n## Usage\n\n[back](../README.md#project) \
             [third setup](../README.md#setup-2) [sibling](other.md)\n"
                .to_string(),
        ),
        (
            "docs/other.md",
            "# Other\n\n[up](../README.md)\n".to_string(),
        ),
        ("img/logo.png", "\u{89}PNG".to_string()),
    ]
}

/// (report, URL path, found).
const MARKDOWN_FINDINGS: &[(&str, &str, bool)] = &[
    ("broken", "/docs/missing.md", true),
    ("broken", "/docs/guide.md", false),
    ("broken", "/img/gone.png", true),
    ("broken", "/img/logo.png", false),
    ("fragments", "/docs/guide.md#nope", true),
    ("fragments", "/docs/guide.md#usage", false),
    ("fragments", "/README.md#nowhere", true),
    ("fragments", "/README.md#whats-new-v20", false),
    ("fragments", "/README.md#setup-2", true),
    ("fragments", "/README.md#setup-1", false),
    ("fragments", "/README.md#raw-spot", false),
    ("fragments", "/README.md#project", false),
    ("external", "/bad", true),
    ("external", "/ok", false),
];

#[test]
fn markdown_links_fragments_and_externals_are_checked() {
    let server = TestServer::start();
    server.route("/ok", Reply::Respond(Resp::html("ok")));
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let files = markdown(&server);
    let files: Vec<(&str, &str)> = files.iter().map(|(p, b)| (*p, b.as_str())).collect();
    write_site(&repo, &files);
    let db = tmp.path().join("db");
    let out = crate::support::crawl::crawl_command(&db, &["README.md", "docs/"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let summary = crate::support::crawl::summary(&out);
    // README.md, guide.md, other.md, and what they link to.
    assert_eq!(summary["external_checked"], 2, "{summary}");
    let prefix = crawlscope::url::Url::from_directory_path(&repo)
        .unwrap()
        .to_string();
    let points = json_of(&db, &["point", "list", "--json"]);
    let urls: Vec<&str> = points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["url"].as_str().unwrap())
        .collect();
    let expect: Vec<String> = ["README.md", "docs/guide.md", "docs/other.md"]
        .iter()
        .map(|p| format!("{prefix}{p}"))
        .collect();
    assert_eq!(urls, expect);
    let server_prefix = server.url("/");
    for &(kind, path, found) in MARKDOWN_FINDINGS {
        let prefix = if kind == "external" {
            &server_prefix
        } else {
            &prefix
        };
        let rows = row_urls(&report(&db, kind, prefix));
        assert_eq!(
            rows.contains(&path.to_string()),
            found,
            "{kind} {path}: {rows:?}"
        );
    }
    let titles = report(&db, "titles", &prefix);
    assert_eq!(
        titles,
        Value::Array(vec![]),
        "Markdown is not audited as HTML"
    );
}

#[test]
fn a_path_that_is_not_there_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let out = crate::support::crawl::crawl(&db, &["./no-such-dir/"]);
    assert_eq!(out.status.code(), Some(2));
    let err = crate::support::stderr_of(&out);
    assert!(err.contains("no such file or directory"), "{err}");
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let out = crate::support::crawl::crawl(
        &db,
        &[
            "--markdown",
            &tmp.path().join("empty").display().to_string(),
        ],
    );
    assert!(!out.status.success());
    let err = crate::support::stderr_of(&out);
    assert!(err.contains("no Markdown files under"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

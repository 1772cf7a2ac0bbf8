//! The seed designs' rules, through the real binary: an empty query is no
//! query on every path a URL is stored by; a mimetype's parameters in any
//! order are one type; spider-result keywords are written as the page
//! writes them; `--stopwords FILE` replaces the built-in list for its
//! point's pages (and for `search --stopwords`).

use crate::support::crawl::*;
use crate::support::{json_of, on_store, page, stderr_of, Reply, Resp, TestServer};
use crawlscope::store::prelude::*;

/// A page of `text` (plus `links`) served with `content_type`.
fn typed(content_type: &str, text: &str, links: &[&str]) -> Reply {
    let body = page("T", text, links).body;
    Reply::Respond(Resp::bytes(content_type, body))
}

#[test]
fn an_empty_query_is_no_query_and_parameters_in_any_order_are_one_type() {
    let s = TestServer::start();
    // How each page is reached with an empty query: a link, a redirect's
    // Location, a sitemap entry (in a sitemap robots.txt names with one),
    // and the start URL itself.
    let reached = [
        ("/link.html", "link"),
        ("/moved.html", "redirect"),
        ("/listed.html", "sitemap"),
        ("/", "start URL"),
    ];
    s.route(
        "/",
        typed(
            "text/html; charset=utf-8; foo=bar",
            "home",
            &["/link.html?", "/link.html", "/old.html"],
        ),
    );
    s.route(
        "/old.html",
        Reply::Respond(Resp::redirect(301, "/moved.html?")),
    );
    crate::support::robots(
        &s,
        &format!("User-agent: *\nSitemap: {}\n", s.url("map.xml?")),
    );
    s.route(
        "/map.xml",
        Reply::Respond(Resp::bytes(
            "application/xml",
            format!(
                "<urlset><url><loc>{}</loc></url></urlset>",
                s.url("listed.html?")
            )
            .into_bytes(),
        )),
    );
    // The same type, its parameters in another order and case.
    for path in ["/link.html", "/moved.html", "/listed.html"] {
        s.route(
            path,
            typed("text/html; FOO=bar; Charset=UTF-8", "leaf", &[]),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.url("/?")]);

    let asked: Vec<String> = s.requests().into_iter().map(|r| r.path).collect();
    assert!(
        !asked.iter().any(|p| p.ends_with('?')),
        "asked with an empty query: {asked:?}"
    );
    let mut stored = Vec::new();
    let st = store(&db);
    st.read()
        .unwrap()
        .for_each_url(|_, url| {
            stored.push(url.to_string());
            Ok(true)
        })
        .unwrap();
    assert!(
        !stored.iter().any(|u| u.ends_with('?')),
        "stored with an empty query: {stored:?}"
    );
    for (path, how) in reached {
        assert_eq!(state(&db, &s.url(path)).as_deref(), Some("done"), "{how}");
    }

    let rows = json_of(&db, &["report", "mimetypes", "--json"]);
    let html: Vec<&serde_json::Value> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["mime"] == "text/html")
        .collect();
    assert_eq!(html.len(), 1, "one type, one row: {rows}");
    assert_eq!(html[0]["pages"], 4);
    assert_eq!(
        html[0]["params"],
        serde_json::json!({"charset": "utf-8", "foo": "bar"})
    );
}

#[test]
fn spider_result_keywords_are_written_as_the_page_writes_them() {
    let s = TestServer::start();
    // Most pages write the stem "list" as "listing"; /own writes "List".
    s.route(
        "/",
        Reply::Respond(page("Home", "listing", &["/a", "/b", "/c", "/own"])),
    );
    for p in ["/a", "/b", "/c"] {
        s.route(p, Reply::Respond(page("A", "listing", &[])));
    }
    s.route(
        "/own",
        Reply::Respond(page("Own", "List: lists, List and kiwis", &[])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    let out = on_store(&db, &["export", "--format", "spider-result"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // A block is title, URL, date and size, keywords.
    let keywords_of = |title: &str, path: &str| {
        let at = lines
            .windows(2)
            .position(|w| w == [title, &s.url(path)])
            .unwrap_or_else(|| panic!("{path}'s block in {text}"));
        lines[at + 3]
    };
    // The stem "list" 3 times, written "List" twice (lowercased, as every
    // shown word is) and "lists" once; the store's form would be "listing".
    assert_eq!(keywords_of("Own", "/own"), "list 3; kiwis 1");
    assert_eq!(keywords_of("A", "/a"), "listing 1");
    let words = json_of(&db, &["words", "list", "--json"]);
    assert_eq!(words[0]["word"], "listing", "the store-wide form: {words}");
}

#[test]
fn a_stopword_file_replaces_the_built_in_list_for_its_point() {
    let s = TestServer::start();
    for dir in ["/own/", "/built/"] {
        s.route(
            dir,
            Reply::Respond(page("Orchard", "the orchard of kiwis", &[])),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let list = dir.path().join("stop.txt");
    std::fs::write(&list, "# kept out of the index\nOrchard\n\nkiwis\n").unwrap();
    let list_arg = list.to_str().unwrap();
    let add = |root: &str, extra: &[&str]| {
        let url = s.url(root);
        let mut args = vec!["point", "add", &url, "--json"];
        args.extend_from_slice(extra);
        json_of(&db, &args)
    };
    // Two points in one crawl, one with a list of its own.
    let own = add("/own/", &["--stopwords", list_arg]);
    assert_eq!(own["stopwords"], serde_json::json!(["orchard", "kiwis"]));
    let built = add("/built/", &[]);
    assert_eq!(built["stopwords"], serde_json::Value::Null);
    crawl_ok(&db, &[]);

    let (own_url, built_url) = (s.url("/own/"), s.url("/built/"));
    // (stem, pages holding it): "the" is indexed where the list lacks it.
    let cases = [
        ("the", vec![own_url.clone()]),
        ("orchard", vec![built_url.clone()]),
        ("kiwi", vec![built_url.clone()]),
    ];
    for (stem, want) in cases {
        assert_eq!(pages_with(&db, stem), want, "{stem}");
    }
    // The query analysed the same way finds the word the list let in.
    let hits = json_of(&db, &["search", "the", "--json", "--stopwords", list_arg]);
    assert_eq!(hits[0]["url"], own_url.as_str(), "{hits}");
    let hits = json_of(&db, &["search", "the", "--json"]);
    assert_eq!(hits, serde_json::json!([]));
    // `word` finds a built-in stopword where a point's list indexed it,
    // and still calls one no point indexes a stopword.
    let word = json_of(&db, &["word", "the", "--json"]);
    assert_eq!(word["stem"], "the", "{word}");
    assert_eq!(word["df"], 1, "{word}");
    assert_eq!(word["postings"][0]["url"], own_url.as_str(), "{word}");
    let word = json_of(&db, &["word", "and", "--json"]);
    assert_eq!(word["stem"], serde_json::Value::Null, "{word}");
    let text = String::from_utf8_lossy(&on_store(&db, &["word", "the"]).stdout).into_owned();
    assert!(text.contains("stem   the"), "{text}");

    // An unreadable file is a usage error naming it, for every command.
    let missing = dir.path().join("no-such-list.txt");
    let missing = missing.to_str().unwrap();
    for args in [
        vec!["crawl", &s.base() as &str, "--stopwords", missing],
        vec!["point", "update", "1", "--stopwords", missing],
        vec!["search", "kiwi", "--stopwords", missing],
    ] {
        let out = on_store(&db, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_of(&out);
        assert!(
            err.lines().next().is_some_and(|l| l.contains(missing)),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_document_groups_points_whose_runs_and_reports_follow_it() {
    let s = TestServer::start();
    // /a/ and /b/ become points of the document "guide", /c/ stays out;
    // each links to a private page and a broken one.
    for section in ["a", "b", "c"] {
        let (private, broken) = (format!("/{section}/private/x"), format!("/{section}/gone"));
        s.route(
            &format!("/{section}/"),
            Reply::Respond(page(section, "section", &[&private, &broken])),
        );
        s.route(&private, Reply::Respond(page("P", "private", &[])));
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let (a, b, c) = (s.url("/a/"), s.url("/b/"), s.url("/c/"));

    let out = on_store(&db, &["point", "add", &a, "--doc", "guide"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("crawlscope doc list"),
        "{}",
        stderr_of(&out)
    );

    let private = |section: &str| s.url(&format!("/{section}/private/"));
    let doc = json_of(
        &db,
        &[
            "doc",
            "add",
            "guide",
            "--exclude",
            &private("a"),
            "--exclude",
            &private("b"),
            "--json",
        ],
    );
    assert_eq!(
        doc["excludes"],
        serde_json::json!([private("a"), private("b")])
    );
    assert_eq!(
        json_of(&db, &["point", "add", &a, "--doc", "guide", "--json"])["docs"],
        serde_json::json!(["guide"])
    );
    json_of(&db, &["point", "add", &b, "--json"]);
    json_of(&db, &["point", "add", &c, "--json"]);
    assert_eq!(
        json_of(&db, &["point", "update", "2", "--doc", "guide", "--json"])["docs"],
        serde_json::json!(["guide"])
    );
    crawl_ok(&db, &[]);

    // (page, its state): the document's excludes hold for its points only.
    let states = [
        ("/a/private/x", "skipped:excluded"),
        ("/b/private/x", "skipped:excluded"),
        ("/c/private/x", "done"),
    ];
    for (path, want) in states {
        assert_eq!(state(&db, &s.url(path)).as_deref(), Some(want), "{path}");
    }
    let docs = json_of(&db, &["doc", "list", "--json"]);
    assert_eq!(docs[0]["name"], "guide");
    assert_eq!(docs[0]["points"], serde_json::json!([1, 2]));

    let runs = json_of(&db, &["runs", "--doc", "guide", "--json"]);
    let mut points: Vec<u64> = runs
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| r["point"].as_u64().expect("point"))
        .collect();
    points.sort_unstable();
    assert_eq!(points, [1, 2], "{runs}");
    let broken = |extra: &[&str]| {
        let mut args = vec!["report", "broken", "--json"];
        args.extend_from_slice(extra);
        let rows = json_of(&db, &args);
        let mut urls: Vec<String> = rows
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r["url"].as_str().unwrap_or_default().to_string())
            .collect();
        urls.sort();
        urls
    };
    assert_eq!(
        broken(&["--doc", "guide"]),
        [s.url("/a/gone"), s.url("/b/gone")]
    );
    assert_eq!(broken(&[]).len(), 3);
    let out = on_store(&db, &["report", "--doc", "nothing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("crawlscope doc list"));

    // New excludes re-scope the document's points on their next crawl.
    json_of(
        &db,
        &["doc", "add", "guide", "--exclude", &private("a"), "--json"],
    );
    let pending: Vec<bool> = json_of(&db, &["point", "list", "--json"])
        .as_array()
        .expect("points")
        .iter()
        .map(|p| p["rescope_pending"].as_bool().expect("bool"))
        .collect();
    assert_eq!(pending, [true, true, false]);
    crawl_ok(&db, &[]);
    assert_eq!(state(&db, &s.url("/b/private/x")).as_deref(), Some("done"));
    assert_eq!(
        state(&db, &s.url("/a/private/x")).as_deref(),
        Some("skipped:excluded")
    );
}

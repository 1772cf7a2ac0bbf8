//! The look-up commands on a crawled store, run as the real binary: `page`
//! (fetched, skipped, failed, redirected, queued and never-seen URLs),
//! `word`, `stats` and `export --format jsonl`; `search` tells its true
//! count, `page` shows keywords as written, and `check` shows progress on a
//! terminal only.

use crate::support::crawl::{crawl_ok, serve_demo};
use crate::support::{json_of, on_store as run, stderr_of, Reply, Resp, TestServer};
use serde_json::{json, Value};

const LAST_MODIFIED: &str = "Sat, 01 Jun 2024 00:00:00 GMT";
const OFFSITE: &str = "http://127.0.0.1:1/offsite";

fn doc(title: &str, meta: &str, body: &str, links: &[&str]) -> String {
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>{meta}</head>\n<body><p>{body}</p>\n"
    );
    for l in links {
        html.push_str(&format!("<a href=\"{l}\"></a>\n"));
    }
    html.push_str("</body></html>\n");
    html
}

fn alpha_html() -> String {
    doc(
        "Alpha",
        "<meta name=\"description\" content=\"first letter\">",
        // positions: alpha 0, beta 1 and 2, gamma 3, running 4
        "alpha beta beta gamma running",
        &["/"],
    )
}

/// / → /a, /redir (301 → /b), /missing (404), an off-site URL and /secret/x
/// (excluded by the crawl).
fn site() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(&doc(
            "Home",
            "",
            "welcome home",
            &["/a", "/redir", "/missing", OFFSITE, "/secret/x"],
        ))),
    );
    s.route(
        "/a",
        Reply::Respond(Resp::html(&alpha_html()).header("Last-Modified", LAST_MODIFIED)),
    );
    s.route("/redir", Reply::Respond(Resp::redirect(301, "/b")));
    s.route(
        "/b",
        Reply::Respond(Resp::html(&doc("Bravo", "", "bravo page", &[]))),
    );
    s.route("/missing", Reply::Respond(Resp::status(404)));
    s.route(
        "/secret/x",
        Reply::Respond(Resp::html(&doc("Secret", "", "hidden", &[]))),
    );
    s
}

fn crawled(s: &TestServer) -> tempfile::TempDir {
    let db = tempfile::tempdir().expect("temp dir");
    let exclude = s.url("/secret/");
    let summary = crawl_ok(db.path(), &[&s.base(), "--exclude", &exclude]);
    assert_eq!(summary["fetched"], 3, "{summary}");
    db
}

fn is_rfc3339_utc(v: &Value) -> bool {
    let s = v.as_str().unwrap_or("");
    s.len() == 20 && s.as_bytes()[10] == b'T' && s.ends_with('Z') && s.as_bytes()[4] == b'-'
}

#[test]
fn page_answers_for_fetched_unfetched_redirected_and_unknown_urls() {
    let s = site();
    let db = crawled(&s);
    let db = db.path();

    let a = json_of(db, &["page", "--json", &s.url("/a")]);
    assert!(a["id"].is_u64());
    assert_eq!(a["url"], s.url("/a"));
    assert_eq!(a["state"], "done");
    assert_eq!(a["redirect_to"], Value::Null);
    assert_eq!(a["title"], "Alpha");
    assert_eq!(a["status"], 200);
    assert_eq!(a["mime"], "text/html; charset=utf-8");
    assert_eq!(a["size"], alpha_html().len());
    assert_eq!(a["last_modified"], "2024-06-01T00:00:00Z");
    assert!(is_rfc3339_utc(&a["fetched_at"]), "{}", a["fetched_at"]);
    assert_eq!(a["depth"], 1);
    // tf desc, then stem; each word as the page wrote it, its stem beside.
    assert_eq!(
        a["keywords"],
        json!([
            {"word": "beta", "stem": "beta", "freq": 2},
            {"word": "alpha", "stem": "alpha", "freq": 1},
            {"word": "gamma", "stem": "gamma", "freq": 1},
            {"word": "running", "stem": "run", "freq": 1},
        ])
    );
    let meta = a["meta"].as_array().expect("meta");
    assert!(
        meta.contains(&json!({"name": "description", "content": "first letter", "attr": "name"})),
        "{meta:?}"
    );
    assert_eq!(a["parents"], json!([s.base()]));
    assert_eq!(a["children"], json!([s.base()]));

    // Seen, never fetched: no status, and the state says why.
    for (url, state) in [
        (OFFSITE.to_string(), "skipped:out_of_scope"),
        (s.url("/secret/x"), "skipped:excluded"),
    ] {
        let p = json_of(db, &["page", "--json", &url]);
        assert_eq!(p["state"], state, "{url}");
        assert_eq!(p["status"], Value::Null, "{url}");
        assert_eq!(p["title"], Value::Null, "{url}");
        assert_eq!(p["parents"], json!([s.base()]), "{url}");
    }

    // Fetched with an error status: a page, failed.
    let missing = json_of(db, &["page", "--json", &s.url("/missing")]);
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["state"], "failed");

    // A redirect points at its target, which holds the page.
    let redir = json_of(db, &["page", "--json", &s.url("/redir")]);
    assert_eq!(redir["state"], "redirected");
    assert_eq!(redir["redirect_to"], s.url("/b"));
    assert_eq!(redir["status"], Value::Null);
    let b = json_of(db, &["page", "--json", &s.url("/b")]);
    assert_eq!(b["title"], "Bravo");

    // The human form carries the same facts.
    let out = run(db, &["page", &s.url("/a")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Alpha") && text.contains("beta 2; alpha 1"),
        "{text}"
    );

    // Never seen: exit 1, one error line.
    let out = run(db, &["page", &s.url("/never")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: no such page"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_queued_url_has_no_status() {
    let s = site();
    let db = tempfile::tempdir().expect("temp dir");
    // One successful fetch: the root's links stay in the frontier.
    crawl_ok(
        db.path(),
        &[&s.base(), "--max-pages", "1", "--concurrency", "1"],
    );
    let p = json_of(db.path(), &["page", "--json", &s.url("/a")]);
    assert_eq!(p["state"], "queued");
    assert_eq!(p["status"], Value::Null);
    assert_eq!(p["keywords"], json!([]));
}

#[test]
fn word_stats_and_jsonl_export() {
    let s = site();
    let db = crawled(&s);
    let db = db.path();

    // `running` is analysed to the stem it was indexed under.
    let mut w = json_of(db, &["word", "--json", "running"]);
    // The word's id was added (the id maps work both ways); the rest as before.
    assert!(w["id"].is_u64(), "{w}");
    w.as_object_mut().map(|o| o.remove("id"));
    assert_eq!(
        w,
        json!({"word": "running", "stem": "run", "df": 1,
               "postings": [{"url": s.url("/a"), "freq": 1, "positions": [4]}]})
    );
    let w = json_of(db, &["word", "--json", "Beta"]);
    assert_eq!(
        w["postings"],
        json!([{"url": s.url("/a"), "freq": 2, "positions": [1, 2]}])
    );
    // A stopword has no stem; an unknown word no postings. Neither is an error.
    let w = json_of(db, &["word", "--json", "the"]);
    assert_eq!((&w["stem"], &w["df"]), (&Value::Null, &json!(0)));
    let w = json_of(db, &["word", "--json", "zeppelins"]);
    assert_eq!(
        w,
        json!({"word": "zeppelins", "id": null, "stem": "zeppelin", "df": 0, "postings": []})
    );
    let out = run(db, &["word", "running"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("stem   run"));

    // Pages: /, /a, /b and the 404 (a response is a page). Links: five
    // from the root, one from /a. Words (bodies and titles): home welcom
    // alpha beta gamma run bravo page.
    let st = json_of(db, &["stats", "--json"]);
    assert_eq!(st["pages"], 4, "{st}");
    assert_eq!(st["fetched"], 3, "{st}");
    assert_eq!(st["failed"], 1, "{st}");
    assert_eq!(st["queued"], 0, "{st}");
    assert_eq!(st["links"], 6, "{st}");
    assert_eq!(st["words"], 8, "{st}");

    // jsonl: one `page --json` object a line, every page once.
    let out = run(db, &["export", "--format", "jsonl"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object a line"))
        .collect();
    let mut urls: Vec<&str> = lines.iter().filter_map(|p| p["url"].as_str()).collect();
    urls.sort();
    let mut want = [s.base(), s.url("/a"), s.url("/b"), s.url("/missing")];
    want.sort();
    assert_eq!(urls, want);
    let a_line = lines.iter().find(|p| p["url"] == s.url("/a")).expect("/a");
    assert_eq!(*a_line, json_of(db, &["page", "--json", &s.url("/a")]));

    // --out writes the same to a file and nothing to stdout.
    let out_dir = tempfile::tempdir().expect("temp dir");
    let file = out_dir.path().join("export.jsonl");
    let file_arg = file.to_string_lossy().into_owned();
    let out = run(db, &["export", "--format", "jsonl", "--out", &file_arg]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).expect("export file"), text);
}

#[test]
fn the_vocabulary_lists_and_maps_ids_both_ways() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(crate::support::page(
            "Movies",
            "movies and movie nights, mover",
            &[],
        )),
    );
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let words = json_of(db.path(), &["words", "mov", "--json"]);
    let list = words.as_array().expect("a list");
    let stems: Vec<&str> = list.iter().filter_map(|w| w["stem"].as_str()).collect();
    assert_eq!(stems, ["mover", "movi"], "prefix, in stem order");
    let all = json_of(db.path(), &["words", "--json"]);
    let all: Vec<&str> = (all.as_array().expect("a list").iter())
        .filter_map(|w| w["stem"].as_str())
        .collect();
    assert!(
        all.len() > 2 && all.is_sorted() && all.contains(&"movi"),
        "no prefix: the whole vocabulary, in stem order: {all:?}"
    );
    let two = json_of(db.path(), &["words", "--limit", "2", "--json"]);
    assert_eq!(two.as_array().map(Vec::len), Some(2));
    let movi = &list[1];
    assert_eq!(movi["word"], "movies");
    assert_eq!(movi["df"], 1);
    let id = movi["id"].as_u64().expect("an id").to_string();
    let back = json_of(db.path(), &["word", "--id", &id, "--json"]);
    assert_eq!(back["stem"], "movi");
    assert_eq!(back["word"], "movies");
    assert_eq!(back["df"], 1);
    let out = run(db.path(), &["word", "--id", "999999"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: no word has id 999999"
    );
}

#[test]
fn all_keywords_lists_the_whole_forward_record() {
    let s = TestServer::start();
    let text = "apple banana cherry damson elder fig grape hazel iris juniper kiwi lemon mango nectar olive";
    s.route("/", Reply::Respond(crate::support::page("T", text, &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let top = json_of(db.path(), &["page", &s.base(), "--json"]);
    assert_eq!(top["keywords"].as_array().map(Vec::len), Some(10));
    let all = json_of(db.path(), &["page", &s.base(), "--all-keywords", "--json"]);
    // The 15 body words, each stem once ("t", the title, is a stopword).
    let n = all["keywords"].as_array().map_or(0, Vec::len);
    assert_eq!(n, 15, "{all}");
}

#[test]
fn body_returns_the_exact_stored_bytes_of_any_type() {
    let s = TestServer::start();
    let blob: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    crate::support::home(&s, &["blob.bin", "gone"]);
    s.route(
        "/blob.bin",
        Reply::Respond(Resp::bytes("application/octet-stream", blob.clone())),
    );
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let out = run(db.path(), &["body", &s.url("blob.bin")]);
    assert!(out.status.success());
    assert_eq!(out.stdout, blob, "the bytes, exactly");
    let file = db.path().join("blob.out");
    let out = run(
        db.path(),
        &["body", &s.url("blob.bin"), "--out", file.to_str().unwrap()],
    );
    assert!(out.status.success());
    assert_eq!(std::fs::read(&file).unwrap(), blob);
    // A 404 was fetched but has no 2xx body; a URL never seen is no page.
    let out = run(db.path(), &["body", &s.url("gone")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: no stored body for"));
    let out = run(db.path(), &["body", &s.url("never")]);
    assert_eq!(out.status.code(), Some(1));
    // An unwritable --out: an error, and nothing left behind.
    let bad = db.path().join("no-such-dir").join("x.bin");
    let out = run(
        db.path(),
        &["body", &s.url("blob.bin"), "--out", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!bad.parent().unwrap().exists());
}

#[test]
fn search_tells_the_true_count_whatever_the_limit() {
    let demo = serve_demo(120);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&demo.1]);
    let all: serde_json::Value = serde_json::from_slice(
        &run(&db, &["search", "harbor", "--json", "--limit", "100000"]).stdout,
    )
    .unwrap();
    let n = all.as_array().map_or(0, Vec::len);
    assert!(n > 3, "the demo site has harbors: {n}");
    let out = run(&db, &["search", "harbor", "--limit", "0"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{n} pages match \"harbor\" (none listed: --limit 0)")
    );
    // A phrase is echoed as typed, its quotes not escaped.
    let out = run(&db, &["search", "\"zebra quokka\""]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "no page matches '\"zebra quokka\"'"
    );
    let out = run(&db, &["search", "harbor", "--limit", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().last(),
        Some(format!("2 of {n} matching pages shown (--limit 2)").as_str()),
        "{text}"
    );
}

#[test]
fn keywords_are_shown_as_words_with_their_stems_beside() {
    use crate::support::page;
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(page(
            "Admissions",
            "Admissions open soon. Movies, movies and a movie about sorcerers; sorcerers again.",
            &["/other"],
        )),
    );
    s.route(
        "/other",
        Reply::Respond(page("Other", "movies tonight, admissions closed", &[])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    let out = run(&db, &["page", &s.base(), "--json"]);
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kw = |stem: &str| {
        p["keywords"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["stem"] == stem)
            .cloned()
            .unwrap_or_else(|| panic!("no keyword {stem}: {p}"))
    };
    assert_eq!(kw("movi")["word"], "movies");
    assert_eq!(kw("movi")["freq"], 3);
    assert_eq!(kw("admiss")["word"], "admissions");
    assert_eq!(kw("sorcer")["word"], "sorcerers");
    let text = String::from_utf8_lossy(&run(&db, &["page", &s.base()]).stdout).into_owned();
    assert!(text.contains("movies 3"), "{text}");
    assert!(!text.contains("movi 3"), "{text}");
}

#[test]
fn check_says_what_it_is_doing_on_a_terminal_only() {
    let demo = serve_demo(40);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&demo.1]);
    let bin = env!("CARGO_BIN_EXE_crawlscope");
    let cmd = format!("{bin} --db {} check", db.display());
    // `script` (util-linux, in every Debian) gives the command a terminal.
    let tty = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("run script");
    assert!(tty.status.success());
    let shown = String::from_utf8_lossy(&tty.stdout);
    // One step of the check a line, as it goes: the first and the last.
    assert!(
        shown.contains("checking ") && shown.contains("step 1/"),
        "{shown}"
    );
    let last = shown
        .rfind("step ")
        .map(|i| &shown[i..])
        .unwrap_or_default();
    let (n, of) = last[5..]
        .split_once(',')
        .unwrap_or_default()
        .0
        .split_once('/')
        .unwrap_or_default();
    assert!(
        !n.is_empty() && n == of,
        "the last step shown is the last: {shown}"
    );
    let piped = run(&db, &["check"]);
    assert_eq!(String::from_utf8_lossy(&piped.stdout), "store is whole\n");
    assert_eq!(stderr_of(&piped), "", "no progress into a pipe");
}

/// The five pages a home page links to, the most sources a test row has.
const KIDS: [&str; 5] = ["/p0", "/p1", "/p2", "/p3", "/p4"];

/// A home page linking to [`KIDS`], each kid answering `kid(path)`,
/// crawled into a new store.
fn crawled_kids(kid: impl Fn(&str) -> Resp) -> (TestServer, tempfile::TempDir) {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(crate::support::page("Home", "home", &KIDS)),
    );
    for k in KIDS {
        s.route(k, Reply::Respond(kid(k)));
    }
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    (s, db)
}

#[test]
fn search_lists_the_first_links_of_each_hit_and_counts_them_all() {
    let (s, db) = crawled_kids(|k| crate::support::page(k, "kid", &["/"]));
    let home = |extra: &[&str]| {
        let mut args = vec!["search", "home", "--json"];
        args.extend_from_slice(extra);
        let hits = json_of(db.path(), &args);
        assert_eq!(hits[0]["url"], s.base(), "{hits}");
        hits[0].clone()
    };
    let all: Vec<String> = KIDS.iter().map(|k| s.url(k)).collect();
    // (flags, links listed of each kind): the first by page id (parents)
    // and in link order (children), both counts whole.
    for (flags, listed) in [
        (&[][..], 5),
        (&["--links", "2"][..], 2),
        (&["--links", "0"][..], 0),
    ] {
        let h = home(flags);
        assert_eq!(
            (&h["parent_count"], &h["child_count"]),
            (&json!(5), &json!(5)),
            "{flags:?}: {h}"
        );
        assert_eq!(h["parents"], json!(all[..listed]), "{flags:?}");
        assert_eq!(h["children"], json!(all[..listed]), "{flags:?}");
    }
    let out = run(db.path(), &["search", "home", "--links", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("... 3 more parent links"), "{text}");
}

#[test]
fn page_lists_the_first_parents_and_counts_them_all() {
    let (s, db) = crawled_kids(|k| crate::support::page(k, "kid", &["/"]));
    let kids = KIDS;
    let base = s.base();
    let page = |extra: &[&str]| {
        let mut args = vec!["page", "--json"];
        args.extend_from_slice(extra);
        args.push(&base);
        json_of(db.path(), &args)
    };
    let all = page(&["--parents", "0"])["parents"].clone();
    let all = all.as_array().expect("parents");
    assert_eq!(all.len(), kids.len(), "{all:?}");
    // (flags, parents listed): the first by page id, the count whole.
    for (flags, listed) in [
        (&[][..], 5),
        (&["--parents", "2"][..], 2),
        (&["--parents", "0"][..], 5),
    ] {
        let p = page(flags);
        assert_eq!(p["parent_count"], kids.len(), "{flags:?}");
        assert_eq!(p["parents"], json!(all[..listed]), "{flags:?}");
    }
    let out = run(db.path(), &["page", "--parents", "2", &s.base()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("parents (5)") && text.contains("… and 3 more"),
        "{text}"
    );
    // A bad count is refused in one line.
    let out = run(db.path(), &["page", "--parents", "x", &s.base()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn reports_list_the_first_sources_of_a_row_and_count_them_all() {
    // Every kid links to a page that is gone and loads a stylesheet that
    // is missing (neither is routed: 404).
    let (s, db) = crawled_kids(|k| {
        Resp::html(&format!(
            "<!DOCTYPE html><html><head><title>{k}</title>\
             <link rel=stylesheet href=/missing.css></head>\
             <body><p>kid</p><a href=/gone>gone</a></body></html>"
        ))
    });
    let kids = KIDS;
    let row_of = |kind: &str, path: &str, extra: &[&str]| {
        let mut args = vec!["report", kind, "--json"];
        args.extend_from_slice(extra);
        let rows = json_of(db.path(), &args);
        let url = format!("{}{}", s.base().trim_end_matches('/'), path);
        rows.as_array()
            .expect("rows")
            .iter()
            .find(|r| r["url"] == url.as_str())
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} row for {url}: {rows}"))
    };
    // (kind, the row's URL, flags, sources listed): the count is whole.
    for (kind, path) in [("broken", "/gone"), ("resources", "/missing.css")] {
        for (flags, listed) in [
            (&[][..], 5),
            (&["--sources", "2"][..], 2),
            (&["--sources", "0"][..], 5),
        ] {
            let row = row_of(kind, path, flags);
            assert_eq!(row["source_count"], kids.len(), "{kind} {flags:?}: {row}");
            let sources = row["sources"].as_array().expect("sources");
            assert_eq!(sources.len(), listed, "{kind} {flags:?}: {row}");
        }
    }
    let out = run(db.path(), &["report", "broken", "--sources", "x"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_page_without_a_title_is_untitled_in_every_output() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(
            "<!DOCTYPE html><html><body><p>nameless zebra</p></body></html>",
        )),
    );
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let text = |args: &[&str]| String::from_utf8_lossy(&run(db.path(), args).stdout).into_owned();
    let search = text(&["search", "zebra"]);
    assert!(search.contains("(untitled)"), "{search}");
    let spider = text(&["export", "--format", "spider-result"]);
    assert!(spider.starts_with("(untitled)\n"), "{spider}");
}

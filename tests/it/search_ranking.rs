//! Ranked search end to end: a hand-built site served on 127.0.0.1, crawled
//! by the real binary, queried with `crawlscope search --json`. Each expected
//! ranking is worked out from the model (weight = tf/max_tf × log2(N/df),
//! cosine against the stored norm, title boost) in the test's comments.
//!
//! Where two pages would tie, the page the test expects *second* is linked
//! first, so it gets the lower page id and would win the tie-break: the
//! ranking has to come from the score, not from the order of discovery.

use std::path::Path;

use crate::support::crawl::crawl_ok;
use crate::support::{crawlscope, Reply, Resp, TestServer};
use serde_json::Value;

const LAST_MODIFIED: &str = "Sat, 01 Jun 2024 00:00:00 GMT";

/// A page whose title is only in `<title>` (no `<h1>` repeating it), so the
/// body holds exactly `body`; links have no text, adding no words.
fn doc(title: &str, body: &str, links: &[&str]) -> String {
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body><p>{body}</p>\n"
    );
    for l in links {
        html.push_str(&format!("<a href=\"{l}\"></a>\n"));
    }
    html.push_str("</body></html>\n");
    html
}

/// (path, title, body) of every page but the root, in the root's link order.
const PAGES: &[(&str, &str, &str)] = &[
    // Title boost: identical bodies; only /kiwi-title has the word in its title.
    (
        "/kiwi-body",
        "Garden Diary",
        "orchard notes: kiwi grows on vines",
    ),
    ("/kiwi-title", "Kiwi", "orchard notes: kiwi grows on vines"),
    // tf: mango 1 of 4 distinct words vs 3 of 6 tokens.
    ("/mango-one", "Tropical", "mango pulp seed skin"),
    (
        "/mango-three",
        "Tropical",
        "mango mango mango pulp seed skin",
    ),
    // idf: papaya on three pages, guava on one; otherwise alike.
    ("/papaya-jam", "Card", "papaya jam recipe"),
    ("/papaya-salad", "Card", "papaya salad recipe"),
    ("/papaya-smoothie", "Card", "papaya smoothie recipe"),
    ("/guava", "Card", "guava jam recipe"),
    // Stemming: run, runs, running.
    ("/run-daily", "Habit", "she runs every morning"),
    ("/run-long", "Habit", "a long run by the river"),
    ("/run-shoes", "Shop", "running shoes for sale"),
    // Phrases.
    ("/hk-apart", "Names", "hong is a name and kong is another"),
    ("/hk-adjacent", "Travel", "cheap flights to hong kong today"),
    ("/hk-title", "Hong Kong Guide", "harbour views at night"),
    ("/art-apart", "Museum", "state art museum"),
    ("/art-adjacent", "Lab", "a state of the art laboratory"),
];

/// The site, crawled once into a fresh store.
struct Corpus {
    server: TestServer,
    db: tempfile::TempDir,
}

impl Corpus {
    fn crawled() -> Corpus {
        let server = TestServer::start();
        let paths: Vec<&str> = PAGES.iter().map(|p| p.0).collect();
        server.route(
            "/",
            Reply::Respond(Resp::html(&doc("Fruit Index", "an index of pages", &paths))),
        );
        for &(path, title, body) in PAGES {
            // /kiwi-title links on, for the export test's child lines.
            let links: &[&str] = if path == "/kiwi-title" {
                &["/kiwi-body", "/mango-three"]
            } else {
                &["/"]
            };
            let html = doc(title, body, links);
            server.route(
                path,
                Reply::Respond(Resp::html(&html).header("Last-Modified", LAST_MODIFIED)),
            );
        }
        let db = tempfile::tempdir().expect("temp dir");
        let summary = crawl_ok(db.path(), &[&server.base()]);
        assert_eq!(summary["fetched"], PAGES.len() + 1, "{summary}");
        Corpus { server, db }
    }

    fn db(&self) -> &Path {
        self.db.path()
    }

    /// `search --json QUERY`: the hits, asserting exit 0.
    fn search(&self, query: &str) -> Vec<Value> {
        let out = crawlscope()
            .arg("--db")
            .arg(self.db())
            .args(["search", "--json", "--", query])
            .output()
            .expect("run crawlscope search");
        assert!(
            out.status.success(),
            "search {query:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("search JSON");
        v.as_array().cloned().expect("search JSON is an array")
    }

    /// The paths of the hits, best first.
    fn ranked(&self, query: &str) -> Vec<String> {
        self.search(query)
            .iter()
            .map(|h| self.path(h["url"].as_str().expect("url")))
            .collect()
    }

    fn path(&self, url: &str) -> String {
        let base = self.server.base();
        format!("/{}", url.strip_prefix(&base).unwrap_or(url))
    }

    fn page_id(&self, path: &str) -> u64 {
        let out = crawlscope()
            .arg("--db")
            .arg(self.db())
            .args(["page", "--json", &self.server.url(path)])
            .output()
            .expect("run crawlscope page");
        assert!(out.status.success(), "page {path}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("page JSON");
        v["id"].as_u64().expect("id")
    }
}

fn scores(hits: &[Value]) -> Vec<f64> {
    hits.iter()
        .map(|h| h["score"].as_f64().expect("score"))
        .collect()
}

#[test]
fn title_tf_and_idf_decide_the_order() {
    let c = Corpus::crawled();
    // Linked first, so each page expected second would win a tie on id.
    assert!(c.page_id("/kiwi-body") < c.page_id("/kiwi-title"));
    assert!(c.page_id("/mango-one") < c.page_id("/mango-three"));
    assert!(c.page_id("/papaya-jam") < c.page_id("/guava"));

    // Title boost: same body score; /kiwi-title adds TITLE_BOOST × 1 (its
    // title holds the whole query).
    let hits = c.search("kiwi");
    assert_eq!(c.ranked("kiwi"), ["/kiwi-title", "/kiwi-body"]);
    let s = scores(&hits);
    assert!(s[0] > s[1] + 0.5, "a strong boost: {s:?}");
    assert_eq!(hits[0]["title"], "Kiwi");
    assert_eq!(hits[0]["last_modified"], "2024-06-01T00:00:00Z");
    assert_eq!(hits[0]["keywords"].as_array().map(Vec::len), Some(5));

    // tf: /mango-three: mango tf 3 = max_tf, the others 1/3 → norm
    // √(1 + 3·(1/3)²) ≈ 1.155, cosine ≈ 1/1.155 ≈ 0.87. /mango-one: four
    // words of tf 1 → norm 2, cosine 0.5.
    assert_eq!(c.ranked("mango"), ["/mango-three", "/mango-one"]);
    let s = scores(&c.search("mango"));
    assert!(
        (s[0] - 0.866).abs() < 0.01 && (s[1] - 0.5).abs() < 0.01,
        "{s:?}"
    );

    // idf: guava (df 1) outweighs papaya (df 3); the pages have the same
    // shape (three words of tf 1), and the dot product carries idf² of the
    // term matched, so /guava is first. The papaya pages tie exactly and
    // keep page id order.
    assert_eq!(
        c.ranked("papaya guava"),
        ["/guava", "/papaya-jam", "/papaya-salad", "/papaya-smoothie"]
    );
    let s = scores(&c.search("papaya guava"));
    assert!(s[0] > s[1] && s[1] == s[2] && s[2] == s[3], "{s:?}");

    // --limit keeps the best ones.
    let out = crawlscope()
        .arg("--db")
        .arg(c.db())
        .args(["search", "--json", "--limit", "2", "papaya guava"])
        .output()
        .expect("run");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v.as_array().map(Vec::len), Some(2));
}

#[test]
fn stems_match_and_stopwords_neither_match_nor_count() {
    let c = Corpus::crawled();
    // run / runs / running share the stem "run", whichever form is asked.
    let mut all = c.ranked("running");
    all.sort();
    assert_eq!(all, ["/run-daily", "/run-long", "/run-shoes"]);
    assert_eq!(c.ranked("runs"), c.ranked("running"));
    assert_eq!(c.ranked("RUN"), c.ranked("running"));

    // Stopwords are dropped from the query: same pages, same scores.
    let plain = c.search("kiwi");
    let with_stops = c.search("the kiwi of and");
    assert_eq!(with_stops, plain);

    // Nothing to search for: [] and exit 0 (checked by `search`).
    assert!(c.search("").is_empty());
    assert!(c.search("the of and").is_empty());
    // A word no page has: also empty, not an error.
    assert!(c.search("zeppelin").is_empty());

    // The human form says why.
    let out = crawlscope()
        .arg("--db")
        .arg(c.db())
        .args(["search", "the of and"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("stopwords"), "{text}");
    let out = crawlscope()
        .arg("--db")
        .arg(c.db())
        .args(["search", ""])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("empty"));
}

#[test]
fn phrases_need_adjacency_and_exclusions_drop_pages() {
    let c = Corpus::crawled();
    // Unquoted: either word anywhere.
    let mut loose = c.ranked("hong kong");
    loose.sort();
    assert_eq!(loose, ["/hk-adjacent", "/hk-apart", "/hk-title"]);
    // Quoted: adjacent only; /hk-title matches in its title and is boosted
    // above the body match.
    assert_eq!(c.ranked("\"hong kong\""), ["/hk-title", "/hk-adjacent"]);
    // Stopword gaps are kept: "state of the art" is state@0, art@3, which
    // /art-adjacent has ("a state of the art": state@1, art@4) and
    // /art-apart ("state art", state@0, art@1) has not. The reverse for
    // "state art".
    assert_eq!(c.ranked("\"state of the art\""), ["/art-adjacent"]);
    assert_eq!(c.ranked("\"state art\""), ["/art-apart"]);

    // Exclusion drops every page holding the word.
    assert_eq!(c.ranked("recipe -papaya"), ["/guava"]);
    assert!(c.ranked("kiwi -vines").is_empty());
    assert_eq!(c.ranked("hong -\"hong kong\""), ["/hk-apart"]);
}

#[test]
fn spider_result_export_lists_a_known_page() {
    let c = Corpus::crawled();
    let out = crawlscope()
        .arg("--db")
        .arg(c.db())
        .args(["export", "--format", "spider-result"])
        .output()
        .expect("run crawlscope export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    let url = c.server.url("/kiwi-title");
    // The URL also appears in the root's child lines: the block starts
    // where the title line precedes it.
    let at = (1..lines.len())
        .find(|&i| lines[i] == url && lines[i - 1] == "Kiwi")
        .expect("the page's block");
    let html = doc(
        "Kiwi",
        "orchard notes: kiwi grows on vines",
        &["/kiwi-body", "/mango-three"],
    );
    let separator = "-".repeat(79);
    let expected = [
        "Kiwi".to_string(),
        url.clone(),
        format!("2024-06-01T00:00:00Z, {} bytes", html.len()),
        // Every stem once, shown as the word written: tf ties by stem.
        "grows 1; kiwi 1; notes 1; orchard 1; vines 1".to_string(),
        c.server.url("/kiwi-body"),
        c.server.url("/mango-three"),
        separator.clone(),
    ];
    assert_eq!(lines[at - 1..at + 6], expected);
    // One block per fetched page, each closed by the separator.
    let blocks = lines.iter().filter(|l| **l == separator).count();
    assert_eq!(blocks, PAGES.len() + 1);
}

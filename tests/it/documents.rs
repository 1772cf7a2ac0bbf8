//! Documents beyond HTML, end to end: a PDF's text is indexed like a
//! page's (`search` finds a word only it holds), its title comes from its
//! metadata and `page` counts its words; a PDF that cannot be read (broken,
//! one that makes the extractor panic, or one cut at `--max-body-bytes`)
//! is kept byte-exact with its reason in `page`, and the crawl still exits
//! 0.

use crate::support::crawl::*;
use crate::support::pdf::{minimal_pdf, pdf_of};
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};

/// One served PDF and what the crawl must make of it.
struct Case {
    path: &'static str,
    body: Vec<u8>,
    title: Option<&'static str>,
    /// A word only this PDF holds, when its text can be read.
    word: Option<&'static str>,
    /// The reason's first word, when it cannot.
    reason: Option<&'static str>,
}

#[test]
fn pdf_text_is_indexed_and_an_unreadable_pdf_is_a_reason() {
    let long = "filler ".repeat(400);
    let cases = [
        Case {
            path: "/report.pdf",
            body: minimal_pdf("Quarterly Wombat Census", "wombats burrow under eucalyptus"),
            title: Some("Quarterly Wombat Census"),
            word: Some("eucalyptus"),
            reason: None,
        },
        Case {
            path: "/broken.pdf",
            body: b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage".to_vec(),
            title: None,
            word: None,
            reason: Some("unreadable"),
        },
        Case {
            // Text shown before any font is set: the extractor panics.
            path: "/panics.pdf",
            body: pdf_of("Panics", "BT 72 720 Td (hello) Tj ET"),
            title: None,
            word: None,
            reason: Some("extractor failed"),
        },
        Case {
            path: "/cut.pdf",
            body: minimal_pdf("Cut", &format!("{long} platypus")),
            title: None,
            word: None,
            reason: Some("truncated"),
        },
    ];
    let s = TestServer::start();
    let paths: Vec<&str> = cases.iter().map(|c| c.path).collect();
    s.route("/", Reply::Respond(page("Home", "documents", &paths)));
    for c in &cases {
        s.route(
            c.path,
            Reply::Respond(Resp::bytes("application/pdf", c.body.clone())),
        );
    }
    let db = tempfile::tempdir().unwrap();
    // The cut PDF is the only body over the limit.
    let sum = crawl_ok(db.path(), &[&s.base(), "--max-body-bytes", "2048"]);
    assert_eq!(sum["failed"], 0, "{sum}");
    for c in &cases {
        let url = s.url(c.path);
        let p = json_of(db.path(), &["page", &url, "--json"]);
        assert_eq!(p["title"].as_str(), c.title, "{}: {p}", c.path);
        let reason = p["text_error"].as_str().and_then(|r| r.split(':').next());
        assert_eq!(reason, c.reason, "{}: {p}", c.path);
        let words = p["word_count"].as_u64().unwrap_or(0);
        assert_eq!(words > 0, c.word.is_some(), "{}: {p}", c.path);
        if let Some(word) = c.word {
            let found = json_of(db.path(), &["search", word, "--json"]);
            assert_eq!(found[0]["url"], url.as_str(), "{word}: {found}");
        }
        // Whatever its text gave, the body is kept as it came (cut at the
        // limit for the one over it).
        let kept = on_store(db.path(), &["body", &url]).stdout;
        assert_eq!(
            kept[..],
            c.body[..kept.len().min(c.body.len())],
            "{}",
            c.path
        );
        assert!(kept.len() >= c.body.len().min(2048), "{}", c.path);
    }
    assert_whole(db.path());
}

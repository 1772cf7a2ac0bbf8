//! Failures are recorded per URL with a reason and never stall the crawl:
//! timeouts, resets mid-body, 4xx, 5xx (retried), oversize bodies, bad
//! encodings and non-HTML content.

use std::time::Duration;

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

#[test]
fn failures_are_recorded_and_the_crawl_goes_on() {
    let s = TestServer::start();
    crate::support::home(&s, &["slow", "reset", "missing", "flaky", "broken", "ok"]);
    s.route(
        "/slow",
        Reply::SlowBytes {
            resp: page("Slow", "slow page", &[]),
            per_byte: Duration::from_millis(300),
        },
    );
    s.route(
        "/reset",
        Reply::ResetMidBody {
            resp: page("Reset", "reset page words", &[]),
            after: 20,
        },
    );
    s.route("/missing", Reply::Respond(Resp::status(404)));
    s.route(
        "/flaky",
        Reply::Sequence(vec![
            Reply::Respond(Resp::status(503)),
            Reply::Respond(Resp::status(503)),
            Reply::Respond(page("Flaky", "third time lucky", &[])),
        ]),
    );
    s.route("/broken", Reply::Respond(Resp::status(500)));
    s.route("/ok", Reply::Respond(page("Ok", "fine", &[])));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base(), "--timeout-s", "1"]);
    assert_eq!(sum["fetched"], 3, "home, flaky (after retries), ok: {sum}");
    assert_eq!(sum["failed"], 4, "{sum}");
    assert_eq!(s.hits("/flaky"), 3, "5xx retried twice");
    assert_eq!(s.hits("/broken"), 3, "5xx retried at most twice");
    assert_eq!(s.hits("/missing"), 1, "4xx not retried");
    assert_eq!(
        stored_page(db.path(), &s.url("missing")).unwrap().status,
        404
    );
    for path in ["slow", "reset", "missing", "broken"] {
        assert_eq!(
            state(db.path(), &s.url(path)).as_deref(),
            Some("failed"),
            "{path}"
        );
    }
    assert_whole(db.path());
}

#[test]
fn oversize_bodies_are_cut_and_marked_truncated() {
    let s = TestServer::start();
    let big = format!(
        "<html><title>Big</title><body>{}</body></html>",
        "lorem ipsum ".repeat(20_000)
    );
    s.route("/", Reply::Respond(Resp::html(&big).gzip()));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base(), "--max-body-bytes", "10000"]);
    assert_eq!(sum["fetched"], 1);
    let p = stored_page(db.path(), &s.base()).unwrap();
    assert!(p.truncated);
    let st = store(db.path());
    let r = st.read().unwrap();
    use crawlscope::store::prelude::*;
    let id = r
        .page_id(&crawlscope::url::Url::parse(&s.base()).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(
        r.body(id).unwrap().unwrap().len(),
        10_000,
        "the limit is on decompressed bytes"
    );
}

#[test]
fn encodings_and_content_types_are_handled() {
    let s = TestServer::start();
    crate::support::home(&s, &["latin", "notes.txt", "blob.bin", "garbage"]);
    // "café" in windows-1252 announced by a meta tag only.
    let mut latin = b"<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head><body>caf\xe9 cr\xe8me</body></html>".to_vec();
    latin.push(b'\n');
    s.route("/latin", Reply::Respond(Resp::bytes("text/html", latin)));
    s.route(
        "/notes.txt",
        Reply::Respond(Resp::text("plain words about walruses")),
    );
    s.route(
        "/blob.bin",
        Reply::Respond(Resp::bytes(
            "application/octet-stream",
            vec![0, 1, 2, 3, 255],
        )),
    );
    let garbage: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    s.route(
        "/garbage",
        Reply::Respond(Resp::bytes("text/html", garbage)),
    );
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 5, "{sum}");
    assert_eq!(
        stored_page(db.path(), &s.url("latin"))
            .unwrap()
            .title
            .as_deref(),
        Some("Café")
    );
    let creme = crawlscope::index::Analyzer::global()
        .stem_word("crème")
        .unwrap();
    assert_eq!(pages_with(db.path(), &creme), vec![s.url("latin")]);
    assert_eq!(pages_with(db.path(), "walrus"), vec![s.url("notes.txt")]);
    let blob = stored_page(db.path(), &s.url("blob.bin")).unwrap();
    assert_eq!(blob.size, 5);
    assert_eq!(blob.token_count, 0, "non-text content is metadata only");
    assert_whole(db.path());
}

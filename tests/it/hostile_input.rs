//! Hostile input, each served for real on 127.0.0.1: nothing panics,
//! nothing grows without bound, the crawl goes on and the store stays whole.

use std::io::Write;

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};
use crawlscope::store::prelude::*;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn body_len(db: &std::path::Path, url: &str) -> usize {
    let st = store(db);
    let r = st.read().unwrap();
    let id = r
        .page_id(&crawlscope::url::Url::parse(url).unwrap())
        .unwrap()
        .unwrap();
    r.body(id).unwrap().map_or(0, |b| b.len())
}

#[test]
fn hostile_pages_are_bounded_and_the_crawl_goes_on() {
    let s = TestServer::start();
    crate::support::home(
        &s,
        &["bomb", "deep", "links", "long", "nul", "word", "after"],
    );
    // 64 MiB of zeros in ~64 KiB of gzip: the limit counts decompressed bytes.
    let bomb = gzip(&vec![b' '; 64 << 20]);
    s.route(
        "/bomb",
        Reply::Respond(Resp::bytes("text/html", bomb).header("Content-Encoding", "gzip")),
    );
    let deep = format!(
        "<html><title>Deep</title><body>{}deepword<a href=\"/after\">a</a>{}</body></html>",
        "<div>".repeat(100_000),
        "</div>".repeat(100_000)
    );
    s.route("/deep", Reply::Respond(Resp::html(&deep)));
    let mut many = String::from("<html><title>Links</title><body>");
    for i in 0..200_000 {
        many.push_str(&format!("<a href=\"/l/{i}\">x</a>"));
    }
    s.route("/links", Reply::Respond(Resp::html(&many)));
    let long_url = format!("/{}", "x".repeat(10_000));
    s.route(
        "/long",
        Reply::Respond(Resp::html(&format!(
            "<html><title>Long</title><a href=\"{long_url}\">long</a><a href=\"/after\">ok</a></html>"
        ))),
    );
    let mut nul = b"<html><head><title>Bad\x00\xff\xfe title</title><meta name=\"description\" content=\"nul\x00here \xc3\x28\"></head><body>fine text</body></html>".to_vec();
    nul.extend_from_slice(b"\n");
    s.route(
        "/nul",
        Reply::Respond(Resp::bytes("text/html; charset=utf-8", nul)),
    );
    s.route(
        "/word",
        Reply::Respond(Resp::html(&format!(
            "<html><title>Word</title><body>{} shortword</body></html>",
            "a".repeat(10_000)
        ))),
    );
    s.route("/after", Reply::Respond(page("After", "survivor", &[])));

    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(
        db.path(),
        &[&s.base(), "--max-body-bytes", "1000000", "--depth", "1"],
    );
    assert_eq!(sum["failed"], 0, "{sum}");
    assert_eq!(
        stored_page(db.path(), &s.url("after"))
            .unwrap()
            .title
            .as_deref(),
        Some("After")
    );

    let bomb = stored_page(db.path(), &s.url("bomb")).unwrap();
    assert!(bomb.truncated);
    assert_eq!(body_len(db.path(), &s.url("bomb")), 1_000_000);

    assert_eq!(pages_with(db.path(), "deepword"), vec![s.url("deep")]);
    assert!(children(db.path(), &s.url("deep")).contains(&s.url("after")));

    assert_eq!(
        children(db.path(), &s.url("links")).len(),
        crawlscope::html::MAX_LINKS_PER_PAGE
    );

    assert_eq!(
        children(db.path(), &s.url("long")),
        vec![s.url("after")],
        "the 10,000-char URL is dropped"
    );

    let nul = stored_page(db.path(), &s.url("nul")).unwrap();
    let title = nul.title.unwrap();
    assert!(
        !title.contains('\0') && title.starts_with("Bad"),
        "{title:?}"
    );
    let st = store(db.path());
    let r = st.read().unwrap();
    let id = r
        .page_id(&crawlscope::url::Url::parse(&s.url("nul")).unwrap())
        .unwrap()
        .unwrap();
    for crawlscope::html::MetaTag {
        name: k,
        content: v,
        ..
    } in r.meta_tags(id).unwrap()
    {
        assert!(!k.contains('\0') && !v.contains('\0'), "{k:?} {v:?}");
    }
    drop(r);
    drop(st);

    assert_eq!(pages_with(db.path(), "shortword"), vec![s.url("word")]);
    assert!(pages_with(db.path(), &"a".repeat(10_000)).is_empty());
    assert_whole(db.path());
}

#[test]
fn a_ten_megabyte_robots_txt_is_read_up_to_a_limit() {
    let s = TestServer::start();
    let mut robots = String::from("User-agent: *\nDisallow: /blocked\n");
    while robots.len() < 10 << 20 {
        robots.push_str("# filler filler filler filler filler filler filler filler\n");
    }
    robots.push_str("Disallow: /\n"); // beyond the limit: never read
    crate::support::robots(&s, &robots);
    crate::support::home(&s, &["blocked", "open"]);
    s.route("/blocked", Reply::Respond(page("Blocked", "no", &[])));
    s.route("/open", Reply::Respond(page("Open", "yes", &[])));
    let db = tempfile::tempdir().unwrap();
    let sum = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(sum["fetched"], 2, "{sum}");
    assert_eq!(sum["skipped_robots"], 1);
    assert_eq!(s.hits("/blocked"), 0);
}

#[test]
fn a_trickling_server_is_cut_by_the_total_timeout() {
    let s = TestServer::start();
    crate::support::home(&s, &["slow", "fast"]);
    s.route(
        "/slow",
        Reply::SlowBytes {
            resp: page("Slow", "slow", &[]),
            per_byte: std::time::Duration::from_secs(1),
        },
    );
    s.route("/fast", Reply::Respond(page("Fast", "fast", &[])));
    let db = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let sum = crawl_ok(db.path(), &[&s.base(), "--timeout-s", "1"]);
    // Three attempts of one second each, plus backoff; the body alone would
    // take a second a byte. The bound is half of that, so a loaded machine
    // cannot fail it but a timeout that waits for the body does.
    let body_secs = page("Slow", "slow", &[]).body.len() as u64;
    assert!(started.elapsed() < std::time::Duration::from_secs(body_secs / 2));
    assert_eq!(sum["fetched"], 2);
    assert_eq!(state(db.path(), &s.url("slow")).as_deref(), Some("failed"));
}

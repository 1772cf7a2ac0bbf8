//! What a crawl keeps of each page, end to end through `crawl` and `page
//! --json`: every meta tag, description, headings, canonical links (tag and
//! header), robots directives and where they came from, anchor texts; that
//! nofollow links are recorded but never requested unless asked; that a 200
//! with the stored body is `unchanged`; and that a page whose old records
//! cannot be replaced fails alone while the crawl goes on.

use serde_json::{json, Value};

use crawlscope::store::prelude::*;
use crawlscope::store::UrlState;

use crate::support::crawl::*;
use crate::support::{json_of, page, Reply, Resp, TestServer};

const HOME: &str = concat!(
    "<html><head><meta charset=utf-8><title>Home</title>",
    "<meta name=description content='The  home page'>",
    "<meta property=og:title content=OG><meta http-equiv=refresh content=600>",
    "<meta itemprop=price content=3>",
    "<link rel=canonical href='/home'>",
    "</head><body><h1>Welcome <em>home</em></h1><h1>Again</h1>",
    "<a href='/a'>The A page</a> <a href='/trap' rel='nofollow'>calendar</a>",
    "<a href='/hdr'><img alt='header page'></a> <a href='/quiet'>quiet</a>",
    "</body></html>"
);

fn site() -> TestServer {
    let s = TestServer::start();
    s.route("/", Reply::Respond(Resp::html(HOME)));
    s.route("/a", Reply::Respond(page("A", "alpha words", &[])));
    s.route(
        "/trap",
        Reply::Respond(page("Trap", "endless calendar", &[])),
    );
    // Canonical and noindex from the headers.
    s.route(
        "/hdr",
        Reply::Respond(
            page("Hdr", "header words", &[])
                .header("Link", "</a>; rel=\"canonical\"")
                .header("X-Robots-Tag", "noindex"),
        ),
    );
    // A page whose meta robots say nofollow: its links are not followed.
    s.route(
        "/quiet",
        Reply::Respond(Resp::html(
            "<meta name=robots content='noindex, nofollow'><a href='/behind'>behind</a>",
        )),
    );
    s.route("/behind", Reply::Respond(page("Behind", "hidden", &[])));
    s
}

fn meta<'a>(page: &'a Value, name: &str) -> Option<&'a Value> {
    page["meta"]
        .as_array()
        .expect("meta")
        .iter()
        .find(|m| m["name"] == name)
}

#[test]
fn pages_keep_meta_headings_canonicals_directives_and_anchors() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    let summary = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(summary["nofollow"], 2, "/trap and /behind: {summary}");

    let home = json_of(db.path(), &["page", "--json", &s.base()]);
    assert_eq!(home["description"], "The home page");
    assert_eq!(home["h1"], json!(["Welcome home", "Again"]));
    assert_eq!(home["canonical"], s.url("/home"));
    assert_eq!(home["noindex"], Value::Null);
    assert!(home["response_ms"].is_u64());
    // "Welcome home Again The A page calendar quiet" (alt text is no body text).
    assert_eq!(home["word_count"], 8, "{home}");
    assert_eq!(home["content_hash"].as_str().map(str::len), Some(16));
    for (name, attr, content) in [
        ("charset", "charset", "utf-8"),
        ("description", "name", "The home page"),
        ("og:title", "property", "OG"),
        ("refresh", "http-equiv", "600"),
        ("price", "itemprop", "3"),
    ] {
        let m = meta(&home, name).unwrap_or_else(|| panic!("{name} kept: {home}"));
        assert_eq!(
            (m["attr"].as_str(), m["content"].as_str()),
            (Some(attr), Some(content))
        );
    }
    let links: Vec<Value> = home["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| json!({"url": l["url"], "anchor": l["anchor"], "nofollow": l["nofollow"]}))
        .collect();
    assert_eq!(
        Value::from(links),
        json!([
            {"url": s.url("/a"), "anchor": "The A page", "nofollow": false},
            {"url": s.url("/trap"), "anchor": "calendar", "nofollow": true},
            {"url": s.url("/hdr"), "anchor": "header page", "nofollow": false},
            {"url": s.url("/quiet"), "anchor": "quiet", "nofollow": false},
        ])
    );

    let hdr = json_of(db.path(), &["page", "--json", &s.url("/hdr")]);
    assert_eq!(hdr["canonical"], s.url("/a"), "from the Link header");
    assert_eq!(hdr["noindex"], "header");
    let quiet = json_of(db.path(), &["page", "--json", &s.url("/quiet")]);
    assert_eq!(
        (&quiet["noindex"], &quiet["nofollow"]),
        (&json!("meta"), &json!("meta"))
    );

    // Recorded in the graph, never requested.
    assert_eq!(s.hits("/trap"), 0);
    assert_eq!(s.hits("/behind"), 0);
    let trap = json_of(db.path(), &["page", "--json", &s.url("/trap")]);
    assert_eq!(trap["state"], "skipped:nofollow");
    assert_eq!(trap["parents"], json!([s.base()]));
    assert_eq!(
        state(db.path(), &s.url("/behind")).as_deref(),
        Some("skipped:nofollow")
    );
    assert_whole(db.path());
}

#[test]
fn follow_nofollow_follows_them() {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    let summary = crawl_ok(db.path(), &[&s.base(), "--follow-nofollow"]);
    assert_eq!(summary["nofollow"], 0, "{summary}");
    assert_eq!((s.hits("/trap"), s.hits("/behind")), (1, 1));
    let points = json_of(db.path(), &["point", "list", "--json"]);
    assert_eq!(points[0]["follow_nofollow"], true, "kept on the point");
}

#[test]
fn a_followed_link_queues_what_a_nofollow_link_only_recorded() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(
            "<a href='/x' rel=nofollow>x</a><a href='/mid'>mid</a>",
        )),
    );
    s.route("/mid", Reply::Respond(page("Mid", "m", &["/x"])));
    s.route("/x", Reply::Respond(page("X", "x", &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(s.hits("/x"), 1);
    assert_eq!(state(db.path(), &s.url("/x")).as_deref(), Some("done"));
}

#[test]
fn a_200_with_the_stored_body_is_unchanged_and_not_reindexed() {
    // A server with no validators: every visit is a full 200.
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(page("Home", "stable words", &["a", "b"])),
    );
    s.route("/a", Reply::Respond(page("A", "alpha zebra", &[])));
    s.route("/b", Reply::Respond(page("B", "beta", &[])));
    let db = tempfile::tempdir().unwrap();
    assert_eq!(crawl_ok(db.path(), &[&s.base()])["fetched"], 3);
    let before = stored_page(db.path(), &s.url("/a")).unwrap();

    s.route("/b", Reply::Respond(page("B", "beta giraffe", &[])));
    let second = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(
        (&second["unchanged"], &second["fetched"]),
        (&json!(2), &json!(1)),
        "{second}"
    );
    assert_eq!(s.hits("/a"), 2, "still fetched");
    let after = stored_page(db.path(), &s.url("/a")).unwrap();
    assert_eq!(after.content_hash, before.content_hash);
    assert_eq!(pages_with(db.path(), "zebra"), vec![s.url("/a")]);
    assert_eq!(pages_with(db.path(), "giraff"), vec![s.url("/b")]);
    assert_whole(db.path());
}

#[test]
fn a_page_that_cannot_be_reindexed_fails_alone_and_the_crawl_goes_on() {
    let s = TestServer::start();
    s.route("/", Reply::Respond(page("Home", "home", &["a", "b"])));
    s.route("/a", Reply::Respond(page("A", "alpha", &[])));
    s.route("/b", Reply::Respond(page("B", "beta", &[])));
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    // Break /a's forward record, as a bad sector or a bug might: replacing
    // the page must read it to take its old words out of the index.
    let a_id = json_of(db.path(), &["page", "--json", &s.url("/a")])["id"]
        .as_u64()
        .unwrap() as u32;
    {
        let env = unsafe { heed::EnvOpenOptions::new().max_dbs(64).open(db.path()) }.unwrap();
        let mut txn = env.write_txn().unwrap();
        let table = |name| -> heed::Database<heed::types::Bytes, heed::types::Bytes> {
            env.open_database(&txn, Some(name)).unwrap().unwrap()
        };
        // Keyed `segment ‖ page`, the segment found in `page_segments`.
        let segment = table("page_segments")
            .get(&txn, &a_id.to_be_bytes())
            .unwrap()
            .unwrap()
            .to_vec();
        let key = [&segment[..], &a_id.to_be_bytes()].concat();
        table("forward").put(&mut txn, &key, &[0xff; 3]).unwrap();
        txn.commit().unwrap();
        env.prepare_for_closing().wait();
    }
    s.route("/a", Reply::Respond(page("A", "alpha changed", &[])));
    s.route("/b", Reply::Respond(page("B", "beta changed okapi", &[])));
    let second = crawl_ok(db.path(), &[&s.base()]);
    assert_eq!(second["failed"], 1, "{second}");
    // (`page` itself refuses the corrupt record, so read the state here.)
    let st = store(db.path());
    let a = st.read().unwrap().url_state(a_id).unwrap();
    match a {
        Some(UrlState::Failed { reason, .. }) => {
            assert!(reason.starts_with("could not be indexed: "), "{reason}")
        }
        other => panic!("/a should have failed: {other:?}"),
    }
    // The rest of the batch was written.
    let found = json_of(db.path(), &["search", "okapi", "--json"]);
    assert_eq!(found[0]["url"], s.url("/b"), "{found}");
}

#[test]
fn every_mime_parameter_is_kept_and_shown() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::bytes(
            "Text/CSV; Charset=UTF-8; header=present",
            b"a,b\n1,2\n".to_vec(),
        )),
    );
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&s.base()]);
    let p = json_of(db.path(), &["page", "--json", &s.base()]);
    assert_eq!(p["mime"], "text/csv; charset=utf-8; header=present");
}

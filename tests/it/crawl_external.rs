//! `--check-external`: every out-of-scope link is checked once (HEAD, GET
//! where HEAD is refused), politely and never crawled; the answers are kept
//! and counted.

use crawlscope::store::prelude::*;

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

#[test]
fn out_of_scope_links_are_checked_once_and_never_crawled() {
    let other = TestServer::start();
    other.route("/ok", Reply::Respond(page("Ok", "fine", &[])));
    other.route("/gone", Reply::Respond(Resp::status(404)));
    // Refuses HEAD, answers GET.
    other.route(
        "/nohead",
        Reply::Sequence(vec![
            Reply::Respond(Resp::status(405)),
            Reply::Respond(page("No head", "x", &[])),
        ]),
    );
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let s = TestServer::start();
    let dead_url = format!("http://{dead}/x");
    let links = [
        other.url("/ok"),
        other.url("/gone"),
        other.url("/nohead"),
        dead_url.clone(),
        "a".to_string(),
    ];
    let links: Vec<&str> = links.iter().map(String::as_str).collect();
    s.route("/", Reply::Respond(page("Home", "home", &links)));
    s.route("/a", Reply::Respond(page("A", "a", &[&other.url("/ok")])));
    let db = tempfile::tempdir().unwrap();

    let summary = crawl_ok(db.path(), &[&s.base(), "--check-external"]);
    assert_eq!(summary["external_checked"], 4, "{summary}");
    assert_eq!(summary["external_broken"], 2, "{summary}");
    // Its robots.txt is asked too: external checks obey it.
    let asked: Vec<(String, String)> = other
        .requests()
        .into_iter()
        .filter(|r| r.path != "/robots.txt")
        .map(|r| (r.method, r.path))
        .collect();
    let mut expected = vec![
        ("HEAD".to_string(), "/ok".to_string()),
        ("HEAD".into(), "/gone".into()),
        ("HEAD".into(), "/nohead".into()),
        ("GET".into(), "/nohead".into()),
    ];
    let mut got = asked.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "checked once each, never crawled: {asked:?}");

    let st = store(db.path());
    let r = st.read().unwrap();
    let check = |url: &str| {
        let id = r
            .page_id(&crawlscope::url::Url::parse(url).unwrap())
            .unwrap()
            .unwrap();
        r.external_check(id).unwrap().expect("checked")
    };
    assert_eq!(check(&other.url("/ok")).reason, None);
    assert_eq!(check(&other.url("/nohead")).status, Some(200));
    assert_eq!(
        check(&other.url("/gone")).reason.as_deref(),
        Some("Not Found")
    );
    assert_eq!(
        check(&dead_url).reason.as_deref(),
        Some("connection refused")
    );
    drop(r);
    drop(st);
    // Without the flag nothing outside is asked.
    let again = tempfile::tempdir().unwrap();
    let before = other.requests().len();
    let plain = crawl_ok(again.path(), &[&s.base()]);
    assert_eq!(plain["external_checked"], 0);
    assert_eq!(other.requests().len(), before);
}

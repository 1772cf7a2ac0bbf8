//! `--check-external` in the console, on a real crawl of a loopback site
//! whose home links out of scope (another loopback address, the same
//! server): the graph shows what each check found, and the Findings pane
//! tells "no external link found" apart from "not checked".

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::loopback::read_head;
use super::real_crawl::crawl_events;
use super::*;
use crate::crawl::CrawlConfig;
use crate::store::prelude::*;
use crate::store::Store;
use crate::tui::findings_jobs::{self, ExternalChecked};
use crate::tui::jobs;

/// Serves `home` at `/`, 404 at `/gone` and a small page anywhere else.
pub(super) async fn serve(listener: TcpListener, home: Arc<String>) {
    while let Ok((conn, _)) = listener.accept().await {
        tokio::spawn(answer(conn, home.clone()));
    }
}

async fn answer(mut conn: TcpStream, home: Arc<String>) {
    let Some(head) = read_head(&mut conn).await else {
        return;
    };
    let path = head.split(' ').nth(1).unwrap_or("/");
    let (status, body) = match path {
        "/" => ("200 OK", home.to_string()),
        "/gone" => ("404 Not Found", "<title>gone</title>no such page".into()),
        _ => ("200 OK", "<title>a page</title>just a page".into()),
    };
    // A HEAD answer has no body but says how long the GET one would be.
    let sent = if head.starts_with("HEAD") { "" } else { &body };
    let reply = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sent}",
        body.len()
    );
    let _ = conn.write_all(reply.as_bytes()).await;
    let _ = conn.shutdown().await;
}

/// A site at 127.0.0.1 whose home links to `/gone` and `/fine` on
/// 127.0.0.2 (out of scope: another host) when `outward`, and only to a
/// page of its own otherwise.
async fn site(outward: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let home = if outward {
        let other = TcpListener::bind("127.0.0.2:0")
            .await
            .expect("bind 127.0.0.2");
        let port = other.local_addr().expect("address").port();
        let home = Arc::new(format!(
            "<title>home</title><a href=\"/own\">own</a>\
             <a href=\"http://127.0.0.2:{port}/gone\">gone</a>\
             <a href=\"http://127.0.0.2:{port}/fine\">fine</a>"
        ));
        tokio::spawn(serve(other, home.clone()));
        home
    } else {
        Arc::new("<title>home</title><a href=\"/own\">own</a>".into())
    };
    tokio::spawn(serve(listener, home));
    addr
}

/// `site` crawled into a fresh store by a point that checks external links
/// when `check`; the crawl's events.
pub(super) async fn crawl(
    site: SocketAddr,
    check: bool,
) -> (tempfile::TempDir, Arc<Store>, Vec<CrawlEvent>) {
    crawl_point(site, |rec| rec.check_external = check).await
}

/// A crawl of `site` by a point `edit` shapes, one request at a time.
pub(super) async fn crawl_point(
    site: SocketAddr,
    edit: impl FnOnce(&mut crate::store::PointRecord),
) -> (tempfile::TempDir, Arc<Store>, Vec<CrawlEvent>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&dir.path().join("store")).expect("open store"));
    let url = crate::url::parse_start(&format!("http://{site}/")).expect("start URL");
    let mut rec = crate::points::new_record(&url);
    edit(&mut rec);
    let (point, _) = crate::points::add(&store, rec).expect("point");
    let cfg = CrawlConfig {
        concurrency: 1,
        per_host: 1,
        ignore_robots: true,
        ..CrawlConfig::default()
    };
    let events = crawl_events(&store, cfg, point).await;
    (dir, store, events)
}

/// A console told of a crawl's events, with the first page fetched
/// (which opens in the graph) loaded from the store: its load's sequence
/// number and view.
pub(super) fn open_first_page(
    h: &mut Harness,
    store: &Store,
    events: Vec<CrawlEvent>,
) -> (u64, crate::tui::panes::graph::PageView) {
    h.send(Msg::CrawlStarted);
    let Some(Command::LoadPage { seq, page }) = h.send(Msg::Engine(events)) else {
        panic!("the first page fetched opens in the graph");
    };
    let view = jobs::page_view(store, page).expect("the first page");
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view.clone()),
    });
    (seq, view)
}

/// The graph pane drawn alone at 140×24, as text.
pub(super) fn graph_shown(h: &Harness) -> String {
    let area = ratatui::layout::Rect::new(0, 0, 140, 24);
    let mut buf = Buffer::empty(area);
    h.app.pane(PaneId::Graph).draw(area, &mut buf);
    text(&buf)
}

/// The Findings pane at 80×24 once it has the store's counts.
fn findings_shown(store: &Store) -> (ExternalChecked, String) {
    let counts = findings_jobs::counts(store).expect("counts");
    let external = counts.external;
    let mut h = Harness::sized(80, 24);
    h.key(KeyCode::Char('7'));
    h.send(Msg::FindingCounts(Ok(counts)));
    let line = h
        .screen(80, 24)
        .lines()
        .find(|l| l.contains("external"))
        .unwrap_or_default()
        .to_string();
    (external, line)
}

#[tokio::test]
async fn the_graph_shows_what_each_check_found() {
    let addr = site(true).await;
    let (_dir, store, events) = crawl(addr, true).await;
    let mut h = Harness::new();
    let (seq, view) = open_first_page(&mut h, &store, events);
    let shown = graph_shown(&h);
    let row = |path: &str| {
        shown
            .lines()
            .find(|l| l.contains("127.0.0.2:") && l.contains(path))
            .unwrap_or_else(|| panic!("no row for {path}: {shown}"))
            .to_string()
    };
    assert!(row("/gone").contains("404 external"), "{shown}");
    assert!(row("/fine").contains("200 external"), "{shown}");
    assert!(!shown.contains("skipped:out_of_scope"), "{shown}");

    // The checked page's own view says it too, beside its state.
    let gone = view
        .children
        .iter()
        .find(|c| c.url.ends_with("/gone"))
        .expect("the /gone row");
    let gone = jobs::page_view(&store, gone.page).expect("the /gone page");
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(gone.clone()),
    });
    let shown = graph_shown(&h);
    assert!(
        shown.contains("· skipped: outside the crawl point's root · external check: 404 Not Found"),
        "{shown}"
    );
    let check = gone.external.expect("the check of /gone");
    assert_eq!(check.status, Some(404));
    assert_eq!(
        check,
        store
            .read()
            .expect("read")
            .external_check(gone.page)
            .expect("the check")
            .expect("one"),
    );

    let (external, line) = findings_shown(&store);
    assert_eq!(external, ExternalChecked::Yes);
    assert!(line.contains(" 1"), "one broken external link: {line}");
}

#[tokio::test]
async fn findings_tell_none_found_from_not_checked() {
    let addr = site(false).await;
    let (_checked, store, _) = crawl(addr, true).await;
    let (external, line) = findings_shown(&store);
    assert_eq!(external, ExternalChecked::NoneFound);
    assert!(line.contains("no external link found"), "{line}");

    let (_unchecked, store, _) = crawl(addr, false).await;
    let (external, line) = findings_shown(&store);
    assert_eq!(external, ExternalChecked::No);
    assert!(line.contains("not checked"), "{line}");
}

//! The console's face of a run that decides less: after a full crawl, a
//! `--depth 1` re-run, a re-run stopped by `--max-pages 1` and a second
//! point rooted deeper leave the store totals of the status bar, the
//! Findings pane's counts and every page's state in the graph as they were
//! (tests/it/run_decisions.rs holds the CLI's face to the same rule).

use std::sync::Arc;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::loopback::read_head;
use super::real_crawl::crawl_events;
use crate::crawl::CrawlConfig;
use crate::store::Store;
use crate::tui::{findings_jobs, jobs};

/// Home links to /a, /b and /gone (404); /a to /c and /d. No validators:
/// a re-run fetches every page again and queues its links anew, which is
/// what a run stopped early leaves queued.
async fn answer(mut conn: TcpStream) {
    let Some(head) = read_head(&mut conn).await else {
        return;
    };
    let path = head.split(' ').nth(1).unwrap_or("/");
    let (status, body) = match path {
        "/" => (
            "200 OK",
            r#"<title>home</title><a href="/a">a</a><a href="/b">b</a><a href="/gone">gone</a>"#,
        ),
        "/a" => (
            "200 OK",
            r#"<title>a</title><a href="/c">c</a><a href="/d">d</a>"#,
        ),
        "/gone" => ("404 Not Found", "<title>gone</title>no such page"),
        _ => ("200 OK", "<title>a page</title>just a page"),
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = conn.write_all(reply.as_bytes()).await;
    let _ = conn.shutdown().await;
}

/// What the console shows of the store: its totals, the findings per
/// kind, and the state of every page the graph can open.
fn shown(store: &Store) -> String {
    let snap = jobs::snapshot(store).expect("snapshot");
    let mut counts = findings_jobs::counts(store).expect("findings");
    // The pane names the run it counts, which is the new one.
    counts.as_of = None;
    let t = &snap.totals;
    let urls = t.queued + t.claimed + t.done + t.failed + t.skipped + t.redirected;
    let pages = (1..=urls)
        .filter_map(|id| jobs::page_view(store, id as u32).ok())
        .map(|v| format!("{} {:?}", v.url, v.state))
        .collect::<Vec<_>>();
    format!("{:?}\n{:?}\n{}", snap.totals, counts, pages.join("\n"))
}

#[tokio::test]
async fn a_run_that_decides_less_changes_nothing_the_console_shows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&dir.path().join("store")).expect("store"));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let server = tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            tokio::spawn(answer(conn));
        }
    });
    let url = crate::url::parse_start(&format!("http://{addr}/")).expect("start URL");
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).expect("point");
    let cfg = CrawlConfig {
        ignore_robots: true,
        ..CrawlConfig::default()
    };
    crawl_events(&store, cfg.clone(), point).await;
    let full = shown(&store);
    let counts = findings_jobs::counts(&store).expect("findings");
    assert!(
        counts.kinds.iter().any(|&(k, n)| k == "broken" && n > 0),
        "the full crawl finds broken links: {full}"
    );
    for (what, limited) in [
        (
            "a --depth 1 re-run",
            CrawlConfig {
                depth: Some(1),
                ..cfg.clone()
            },
        ),
        (
            "a re-run stopped by --max-pages 1",
            CrawlConfig {
                max_pages: Some(1),
                ..cfg.clone()
            },
        ),
    ] {
        crawl_events(&store, limited, point).await;
        if what.contains("max-pages") {
            let queued = jobs::snapshot(&store).expect("snapshot").work.queued;
            assert!(queued > 0, "the stopped run left URLs queued");
        }
        assert_eq!(shown(&store), full, "{what} changed what the console shows");
    }
    // A second point rooted deeper, at /a: /c and /d are outside its
    // scope, a decision of its run that leaves what the first one found.
    let deeper = crate::url::parse_start(&format!("http://{addr}/a")).expect("URL");
    let mut rec = crate::points::new_record(&deeper);
    rec.root = deeper.to_string();
    let (second, _) = crate::points::add(&store, rec).expect("second point");
    crawl_events(&store, cfg, second).await;
    assert_eq!(
        shown(&store),
        full,
        "a second point changed what the console shows"
    );
    server.abort();
}

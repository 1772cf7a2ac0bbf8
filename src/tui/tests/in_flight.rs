//! "In flight" is what a server sees: a real crawl of a loopback server
//! that counts the requests it is answering at once, many workers sharing
//! few per-host slots. The engine's stats, the status bar and the queue
//! pane (fed every event as it came, at the time it came) never count more
//! than the slots, and the queue's ages time the fetch, not the wait for a
//! slot.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::loopback::read_head;
use super::*;
use crate::crawl::CrawlConfig;
use crate::store::Store;

const PAGES: u32 = 24;
const ANSWER_AFTER: Duration = Duration::from_millis(200);
const WORKERS: usize = 12;
const PER_HOST: usize = 2;

/// Requests being answered now, and the most at once.
#[derive(Default)]
struct Counting {
    now: AtomicUsize,
    most: AtomicUsize,
}

/// `/` links to `/p/1` ... `/p/PAGES`; every answer takes `ANSWER_AFTER`.
async fn serve(listener: TcpListener, counting: Arc<Counting>) {
    while let Ok((conn, _)) = listener.accept().await {
        tokio::spawn(answer(conn, counting.clone()));
    }
}

async fn answer(mut conn: TcpStream, counting: Arc<Counting>) {
    let Some(head) = read_head(&mut conn).await else {
        return;
    };
    let now = counting.now.fetch_add(1, Ordering::SeqCst) + 1;
    counting.most.fetch_max(now, Ordering::SeqCst);
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    let body = if path == "/" {
        (1..=PAGES)
            .map(|i| format!("<a href=\"/p/{i}\">page {i}</a>"))
            .collect::<String>()
    } else {
        format!("<title>{path}</title>just a page")
    };
    tokio::time::sleep(ANSWER_AFTER).await;
    // Counted out before the reply goes: once the client has it, it may
    // send its next request while this connection is still closing.
    counting.now.fetch_sub(1, Ordering::SeqCst);
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = conn.write_all(reply.as_bytes()).await;
    let _ = conn.shutdown().await;
}

/// Every event of a crawl of the counting server, with when it came.
async fn crawl(site: SocketAddr) -> Vec<(Instant, CrawlEvent)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(&dir.path().join("store")).expect("open store"));
    let url = crate::url::parse_start(&format!("http://{site}/")).expect("start URL");
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).expect("point");
    let cfg = CrawlConfig {
        concurrency: WORKERS,
        per_host: PER_HOST,
        ignore_robots: true,
        ..CrawlConfig::default()
    };
    let mut handle = crate::crawl::start(store, cfg, vec![point]).expect("start crawl");
    let mut events = Vec::new();
    while let Some(ev) = handle.events.recv().await {
        let last = matches!(ev, CrawlEvent::Finished(_));
        events.push((Instant::now(), ev));
        if last {
            break;
        }
    }
    handle.done.await.expect("crawl task").expect("crawl");
    events
}

/// The queue pane's "In flight (N)" and the ages of its rows.
fn queue_shown(h: &Harness) -> (usize, Vec<Duration>) {
    let area = ratatui::layout::Rect::new(0, 0, 60, 60);
    let mut buf = Buffer::empty(area);
    h.app.pane(PaneId::Queue).draw(area, &mut buf);
    let shown = text(&buf);
    let Some(n) = shown
        .lines()
        .find_map(|l| l.strip_prefix("In flight ("))
        .and_then(|rest| rest.split(')').next())
    else {
        return (0, Vec::new());
    };
    let ages = shown
        .lines()
        .skip_while(|l| !l.starts_with("In flight ("))
        .skip(1)
        .take_while(|l| !l.starts_with("Next in frontier"))
        .filter_map(|l| l.split_whitespace().next())
        .map(|age| match age.strip_suffix("ms") {
            Some(ms) => Duration::from_millis(ms.parse().expect("ms")),
            None => {
                Duration::from_secs_f64(age.strip_suffix('s').expect("seconds").parse().expect("s"))
            }
        })
        .collect();
    (n.parse().expect("a count"), ages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_flight_counts_requests_on_the_wire_and_ages_time_the_fetch() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let site = listener.local_addr().expect("address");
    let counting = Arc::new(Counting::default());
    let server = tokio::spawn(serve(listener, counting.clone()));
    let events = crawl(site).await;
    server.abort();
    let most = counting.most.load(Ordering::SeqCst);
    assert!(most <= PER_HOST, "the server saw {most} at once");

    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    let (mut most_shown, mut oldest) = (0, Duration::ZERO);
    for (at, ev) in &events {
        if let CrawlEvent::Stats(s) = ev {
            assert!(s.in_flight <= PER_HOST as u64, "stats: {s:?}");
        }
        let ms = at.saturating_duration_since(events[0].0).as_millis() as u64;
        h.tick(ms);
        h.send(Msg::Engine(vec![ev.clone()]));
        let (n, ages) = queue_shown(&h);
        most_shown = most_shown.max(n);
        oldest = ages.into_iter().fold(oldest, Duration::max);
        let status = h.screen(120, 40);
        let on_status = status
            .split("in flight ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
            .expect("the status bar shows in flight");
        assert!(on_status <= PER_HOST, "{status}");
    }
    assert!(most_shown > 0, "some fetch was seen in flight");
    assert!(
        most_shown <= PER_HOST,
        "the queue showed {most_shown} in flight"
    );
    // A fetch takes ANSWER_AFTER; waiting for a slot behind the other
    // workers took up to six times that (the margin is for a busy machine).
    assert!(oldest < ANSWER_AFTER * 4, "a row aged {oldest:?}");
    let fetched = events
        .iter()
        .filter(|(_, e)| matches!(e, CrawlEvent::Fetched(_)))
        .count();
    assert_eq!(fetched, PAGES as usize + 1);
}

//! The console sharing a frontier (`tui --frontier`): the Cluster pane
//! shows what the server said (every crawler, this one marked, the queue,
//! the slots, the merged log), is read about once a second, and `p`/`s`
//! order the whole cluster. The server's side is tested with real
//! processes in `tests/it/cluster_control.rs`.

use super::*;
use crate::crawl::shared::cluster::{PointQueue, Slot, View};
use crate::crawl::shared::control::Order;
use crate::crawl::shared::log::Entry;
use crate::crawl::shared::{this_host, Crawler};

fn view(paused: bool) -> View {
    let crawler = |host: &str, pid: u32| Crawler {
        host: host.into(),
        pid,
        rate: 12.5,
        in_flight: 3,
        heartbeat: 1_000_000,
    };
    View {
        crawlers: vec![
            crawler("elsewhere", 4242),
            crawler(&this_host(), std::process::id()),
        ],
        points: vec![PointQueue {
            point: "http://site.test/".into(),
            run: 2,
            queued: 1234,
            leased: 17,
            done: 5678,
            finished: false,
        }],
        slots: vec![Slot {
            origin: "http://site.test".into(),
            due_in_ms: 250,
        }],
        log: vec![Entry {
            crawler: "elsewhere:4242".into(),
            status: Some(404),
            url: "http://site.test/missing".into(),
            ms: 31,
        }],
        paused,
    }
}

#[test]
fn the_cluster_pane_is_there_only_when_sharing_a_frontier() {
    let mut alone = Harness::new();
    alone.key(KeyCode::Char('8'));
    assert_ne!(alone.app.focus(), PaneId::Cluster);
    assert!(!alone.screen(120, 40).contains("8 Cluster"));
    let mut h = Harness::cluster();
    h.key(KeyCode::Char('8'));
    assert_eq!(h.app.focus(), PaneId::Cluster);
    assert!(h.screen(120, 40).contains("8 Cluster"));
}

#[test]
fn the_cluster_is_read_about_once_a_second_and_shown_whole() {
    let mut h = Harness::cluster();
    let reads = |c: Option<Command>| match c {
        Some(Command::Batch(cmds)) => cmds.contains(&Command::ReadCluster),
        Some(c) => c == Command::ReadCluster,
        None => false,
    };
    assert!(reads(h.tick(0)), "read at once");
    assert!(!reads(h.tick(500)), "one read at a time");
    h.send(Msg::Cluster {
        view: Ok(view(false)),
        read_at: 1_000_500,
    });
    assert!(!reads(h.tick(900)), "not before a second has passed");
    assert!(reads(h.tick(1600)), "again after a second");
    h.key(KeyCode::Char('8'));
    let screen = h.screen(120, 40);
    for want in [
        "Crawlers (2) · cluster running",
        "elsewhere",
        "4242",
        "500ms ago",
        "1234",
        "5678",
        "http://site.test/",
        "in 250ms",
        "404",
        "site.test/missing",
        "p pause/resume the cluster",
        "s stop the cluster",
    ] {
        assert!(screen.contains(want), "no {want:?}:\n{screen}");
    }
    let me = format!("* {}", this_host());
    let line = screen.lines().find(|l| l.contains(&me));
    assert!(
        line.is_some_and(|l| l.contains(&std::process::id().to_string())),
        "this console is not marked:\n{screen}"
    );
}

#[test]
fn pause_and_stop_order_the_whole_cluster() {
    let mut h = Harness::cluster();
    h.send(Msg::CrawlStarted);
    assert_eq!(
        h.key(KeyCode::Char('p')),
        Some(Command::Order(Order::Pause)),
        "p pauses the cluster, not only this console's crawl"
    );
    h.send(Msg::Cluster {
        view: Ok(view(true)),
        read_at: 1_000_000,
    });
    assert_eq!(
        h.key(KeyCode::Char('p')),
        Some(Command::Order(Order::Resume))
    );
    assert_eq!(h.key(KeyCode::Char('s')), Some(Command::Order(Order::Stop)));
    assert_eq!(h.app.run_state(), RunState::Stopping);
    // A console alone keeps its own pause and stop.
    let mut alone = crawling();
    assert_eq!(
        alone.key(KeyCode::Char('p')),
        Some(Command::Engine(CrawlCommand::Pause))
    );
}

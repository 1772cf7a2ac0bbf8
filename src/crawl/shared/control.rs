//! The cluster's pause and stop: one hash on the server,
//! `crawlscope:control`, with `paused` (1 while the cluster is paused) and
//! `stops` (how many stops were ordered, ever). A face orders ([`order`]);
//! every crawler reads the hash twice a second on a thread of its own
//! ([`watch`]) and its dispatcher obeys as it obeys the console's own
//! pause and stop. A stop is a count, not a state, so that it ends the
//! crawlers running when it was ordered and no later one: a crawler
//! started after it begins a new crawl of the cluster, with nothing to
//! clear. A pause holds every crawler, those started later too, until
//! resumed; a stop ends it.

use std::time::Duration;

use redis::{Client, Connection};

use super::crawlers;
use crate::store::StoreError;

const CONTROL: &str = "crawlscope:control";
/// How often a crawler reads the control hash: a pause or stop reaches
/// it within this.
const POLL: Duration = Duration::from_millis(500);

/// What a face asks of the whole cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Pause,
    Resume,
    Stop,
}

/// The cluster as one crawler last read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cluster {
    pub paused: bool,
    /// A stop was ordered since this crawler started.
    pub stopped: bool,
    /// Live crawlers sharing the frontier, this one included.
    pub crawlers: u64,
}

/// Gives `order` to every crawler of the frontier at `url`.
pub fn order(url: &str, order: Order) -> Result<(), StoreError> {
    let mut c = connect(url)?;
    let mut pipe = redis::pipe();
    match order {
        Order::Pause => pipe.hset(CONTROL, "paused", 1).ignore(),
        Order::Resume => pipe.hset(CONTROL, "paused", 0).ignore(),
        // A stop ends the pause too: the next crawl starts running.
        Order::Stop => pipe
            .hset(CONTROL, "paused", 0)
            .ignore()
            .hincr(CONTROL, "stops", 1)
            .ignore(),
    };
    pipe.atomic()
        .query::<()>(&mut c)
        .map_err(|e| super::frontier_error(url, &e))
}

fn connect(url: &str) -> Result<Connection, StoreError> {
    let client = Client::open(url).map_err(|e| super::frontier_error(url, &e))?;
    super::connect(&client, url)
}

/// `paused` and `stops`, as the hash holds them.
pub(super) fn read(c: &mut Connection) -> redis::RedisResult<(bool, u64)> {
    let (paused, stops): (Option<u8>, Option<u64>) = redis::cmd("HMGET")
        .arg(CONTROL)
        .arg("paused")
        .arg("stops")
        .query(c)?;
    Ok((paused == Some(1), stops.unwrap_or(0)))
}

/// Starts reading the control hash of the frontier at `url` for a crawler
/// starting now; the receiver holds what was read last, from the start
/// (read before this returns, so a paused cluster holds the crawler
/// before its first claim). The thread ends when the receiver is gone.
pub fn watch(url: &str) -> Result<tokio::sync::watch::Receiver<Cluster>, StoreError> {
    let client = Client::open(url).map_err(|e| super::frontier_error(url, &e))?;
    let mut conn = super::connect(&client, url)?;
    let (paused, stops_before) = read(&mut conn).map_err(|e| super::frontier_error(url, &e))?;
    // This crawler's first heartbeat may not be written yet.
    let crawlers = crawlers::live(&mut conn).unwrap_or(0).max(1);
    let (tx, rx) = tokio::sync::watch::channel(Cluster {
        paused,
        stopped: false,
        crawlers,
    });
    let spawned = std::thread::Builder::new()
        .name("crawlscope-control".into())
        .spawn(move || {
            let mut conn = Some(conn);
            while !tx.is_closed() {
                std::thread::sleep(POLL);
                if conn.is_none() {
                    conn = super::connect_raw(&client).ok();
                }
                let Some(c) = conn.as_mut() else { continue };
                let read = read(c).and_then(|(p, s)| Ok((p, s, crawlers::live(c)?)));
                match read {
                    Ok((paused, stops, crawlers)) => {
                        let now = Cluster {
                            paused,
                            // Latched: a stop is not taken back.
                            stopped: stops > stops_before || tx.borrow().stopped,
                            crawlers,
                        };
                        tx.send_if_modified(|was| std::mem::replace(was, now) != now);
                    }
                    Err(e) => {
                        // The last state holds; connected anew next round.
                        tracing::warn!(error = %e, "cluster control not read");
                        conn = None;
                    }
                }
            }
        });
    spawned.map_err(|e| {
        StoreError::Frontier(format!("no thread to read the cluster's control: {e}"))
    })?;
    Ok(rx)
}

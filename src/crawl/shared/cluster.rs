//! The cluster as a face reads it from the server, in one go: its
//! crawlers (from their heartbeats, see [`super::crawlers`]), each point's
//! shared queue (queued, leased, done), each origin's next politeness slot,
//! the merged log's tail and whether the cluster is paused. The console's
//! Cluster view and `runs --frontier` show it; nothing here writes.

use std::collections::HashMap;

use redis::{Client, Commands, Connection};
use serde::Serialize;

use super::crawlers::{self, Crawler};
use super::log::{self, Entry};
use crate::store::StoreError;

/// One point's run on the server, as its keys hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PointQueue {
    /// The point's start URL: the name every crawler knows it by.
    pub point: String,
    /// The run's number on the server (each new run of the cluster adds one).
    pub run: u64,
    pub queued: u64,
    /// Claimed by a crawler, not yet done.
    pub leased: u64,
    pub done: u64,
    /// The run ended: nothing queued, nothing leased.
    pub finished: bool,
}

/// The columns of [`PointQueue::line`].
pub fn heading() -> String {
    format!(
        "{:>4} {:>8} {:>7} {:>8} {:<8} point",
        "run", "queued", "leased", "done", "state"
    )
}

impl PointQueue {
    /// One line: what `runs --frontier` prints and the Cluster view shows.
    pub fn line(&self) -> String {
        format!(
            "{:>4} {:>8} {:>7} {:>8} {:<8} {}",
            self.run,
            self.queued,
            self.leased,
            self.done,
            if self.finished { "finished" } else { "open" },
            self.point
        )
    }
}

/// An origin's politeness slot: when the next request to it may start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub origin: String,
    /// Milliseconds from now (0: free now).
    pub due_in_ms: u64,
}

/// Everything the Cluster view shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    pub crawlers: Vec<Crawler>,
    pub points: Vec<PointQueue>,
    /// Busiest first.
    pub slots: Vec<Slot>,
    pub log: Vec<Entry>,
    pub paused: bool,
}

/// Whether `c` is this process.
pub fn is_me(c: &Crawler) -> bool {
    c.pid == std::process::id() && c.host == crawlers::this_host()
}

fn connect(url: &str) -> Result<Connection, StoreError> {
    let client = Client::open(url).map_err(|e| super::frontier_error(url, &e))?;
    super::connect(&client, url)
}

/// The whole view, with the log's last `log_tail` entries.
pub fn read(url: &str, log_tail: usize) -> Result<View, StoreError> {
    let err = |e: redis::RedisError| super::frontier_error(url, &e);
    let mut c = connect(url)?;
    Ok(View {
        crawlers: crawlers::list(url)?,
        points: queues(&mut c).map_err(err)?,
        slots: slots(&mut c).map_err(err)?,
        log: log::tail(&mut c, log_tail).map_err(err)?,
        paused: super::control::read(&mut c).map_err(err)?.0,
    })
}

/// Every point's run the server holds, by URL.
pub fn points(url: &str) -> Result<Vec<PointQueue>, StoreError> {
    let mut c = connect(url)?;
    queues(&mut c).map_err(|e| super::frontier_error(url, &e))
}

fn queues(c: &mut Connection) -> redis::RedisResult<Vec<PointQueue>> {
    let metas: Vec<String> = c
        .scan_match("crawlscope:{*}:meta")?
        .collect::<redis::RedisResult<_>>()?;
    let mut out = Vec::new();
    for meta in metas {
        let Some(point) = meta
            .strip_prefix("crawlscope:{")
            .and_then(|m| m.strip_suffix("}:meta"))
        else {
            continue;
        };
        let k = super::keys_of(point);
        let (run, finished, queued, leased, done): (Option<u64>, Option<u8>, u64, u64, u64) =
            redis::pipe()
                .hget(&k[0], "run")
                .hget(&k[0], "finished")
                .zcard(&k[1])
                .hlen(&k[4])
                .scard(&k[6])
                .query(c)?;
        out.push(PointQueue {
            point: point.to_string(),
            run: run.unwrap_or(0),
            queued,
            leased,
            done,
            finished: finished == Some(1),
        });
    }
    out.sort_by(|a, b| a.point.cmp(&b.point));
    Ok(out)
}

/// The origins' next starts, on the server's clock.
fn slots(c: &mut Connection) -> redis::RedisResult<Vec<Slot>> {
    let (due, (secs, micros)): (HashMap<String, i64>, (i64, i64)) =
        redis::pipe().hgetall(super::SLOTS).cmd("TIME").query(c)?;
    let now = secs * 1000 + micros / 1000;
    let mut out: Vec<Slot> = due
        .into_iter()
        .map(|(origin, at)| Slot {
            origin,
            due_in_ms: u64::try_from(at - now).unwrap_or(0),
        })
        .collect();
    out.sort_by(|a, b| b.due_in_ms.cmp(&a.due_in_ms).then(a.origin.cmp(&b.origin)));
    Ok(out)
}

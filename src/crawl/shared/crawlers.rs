//! The crawlers sharing a frontier, as the cluster sees them: each beats
//! a heartbeat hash (`crawlscope:crawler:OWNER`: host, pid, pages a second,
//! requests on the wire, the time) that expires when it stops beating, and
//! is named in the set `crawlscope:crawlers`; `stats --frontier` reads
//! them, dropping the names whose hash expired.

use std::sync::Arc;
use std::time::Duration;

use redis::{Client, Connection};
use serde::Serialize;

use crate::store::StoreError;

const CRAWLERS: &str = "crawlscope:crawlers";

/// What this crawler tells of itself at each beat: requests on the wire
/// and pages fetched a second.
pub type Pulse = Arc<dyn Fn() -> (u64, f64) + Send + Sync>;

/// One crawler of the cluster, at its last heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Crawler {
    pub host: String,
    pub pid: u32,
    pub rate: f64,
    pub in_flight: u64,
    /// Unix milliseconds, on the crawler's clock.
    pub heartbeat: i64,
}

/// This host's name, as the cluster lists it.
pub fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

fn key(owner: &str) -> String {
    format!("crawlscope:crawler:{owner}")
}

/// Beats `owner`'s heartbeat; it expires after `ttl` without another.
pub(super) fn beat(
    c: &mut Connection,
    owner: &str,
    pulse: &Pulse,
    ttl: Duration,
) -> redis::RedisResult<()> {
    let (in_flight, rate) = pulse();
    // `owner` is `host:pid:start-ms` (see the writer), the host first.
    let mut parts = owner.rsplitn(3, ':');
    let (_, pid, host) = (parts.next(), parts.next(), parts.next());
    redis::pipe()
        .hset_multiple(
            key(owner),
            &[
                ("host", host.unwrap_or_default().to_string()),
                ("pid", pid.unwrap_or_default().to_string()),
                ("rate", format!("{rate:.1}")),
                ("in_flight", in_flight.to_string()),
                ("heartbeat", crate::time::unix_now_ms().to_string()),
            ],
        )
        .ignore()
        .pexpire(
            key(owner),
            i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX),
        )
        .ignore()
        .sadd(CRAWLERS, owner)
        .ignore()
        .query(c)
}

/// How many crawlers beat now (a name whose hash expired is not counted).
pub(super) fn live(c: &mut Connection) -> redis::RedisResult<u64> {
    let owners: Vec<String> = redis::cmd("SMEMBERS").arg(CRAWLERS).query(c)?;
    let mut pipe = redis::pipe();
    for owner in &owners {
        pipe.exists(key(owner));
    }
    let alive: Vec<bool> = pipe.query(c)?;
    Ok(alive.into_iter().filter(|&a| a).count() as u64)
}

pub(super) fn leave(c: &mut Connection, owner: &str) -> redis::RedisResult<()> {
    redis::pipe()
        .del(key(owner))
        .ignore()
        .srem(CRAWLERS, owner)
        .ignore()
        .query(c)
}

/// The live crawlers of the frontier at `url`, by host and pid.
pub fn list(url: &str) -> Result<Vec<Crawler>, StoreError> {
    let err = |e: redis::RedisError| super::frontier_error(url, &e);
    let client = Client::open(url).map_err(err)?;
    let mut c = super::connect(&client, url)?;
    let owners: Vec<String> = redis::cmd("SMEMBERS")
        .arg(CRAWLERS)
        .query(&mut c)
        .map_err(err)?;
    let mut out = Vec::new();
    for owner in owners {
        let fields: std::collections::HashMap<String, String> = redis::cmd("HGETALL")
            .arg(key(&owner))
            .query(&mut c)
            .map_err(err)?;
        if fields.is_empty() {
            // Its heartbeat expired: gone without a word.
            redis::cmd("SREM")
                .arg(CRAWLERS)
                .arg(&owner)
                .query::<()>(&mut c)
                .map_err(err)?;
            continue;
        }
        let field = |k: &str| fields.get(k).map(String::as_str).unwrap_or_default();
        out.push(Crawler {
            host: field("host").to_string(),
            pid: field("pid").parse().unwrap_or(0),
            rate: field("rate").parse().unwrap_or(0.0),
            in_flight: field("in_flight").parse().unwrap_or(0),
            heartbeat: field("heartbeat").parse().unwrap_or(0),
        });
    }
    out.sort_by(|a, b| (&a.host, a.pid).cmp(&(&b.host, b.pid)));
    Ok(out)
}

//! The shared frontier on a Redis-protocol server (`crawl --frontier
//! redis://HOST:PORT[/DB]`): the keys of each point's run there, and the
//! Lua scripts (in `lua/`) that take, renew, finish and put back URLs,
//! each one atomic on the server. The writer thread calls it between its
//! transactions (see `writer/frontier`); [`lease`] keeps the leases of
//! this crawler alive from a thread of its own. It knows nothing of the
//! local store: URLs are strings here, and each crawler maps them to its
//! own shard's ids.

pub mod cluster;
pub mod control;
mod crawlers;
mod lease;
mod link;
pub mod log;
mod points;
mod robots;
mod slots;

use std::collections::HashMap;
use std::time::Duration;

use redis::{Client, Connection, Script};

use crate::crawl::msg::Settle;
use crate::store::{PointId, StoreError};

pub use crawlers::{list as crawlers, this_host, Crawler, Pulse};
pub use lease::Leases;
pub use points::{publish as publish_point, spawn_watch as watch_points};
pub use robots::{Known, SharedRobots};
pub use slots::{Held, SharedSlots};

/// The politeness slots of every origin, all points' (see `lua/slot.lua`).
const SLOTS: &str = "crawlscope:slots";

/// What a crawl needs to share its frontier: the server and the lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// `redis://HOST:PORT[/DB]`.
    pub url: String,
    /// How long a claim holds without a renewal (`--lease-s`).
    pub lease: Duration,
}

/// A redis URL as `--frontier` takes it; the refusal is a usage error.
pub fn parse_url(s: &str) -> Result<String, String> {
    let url = url::Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
    if url.scheme() != "redis" || url.host_str().is_none_or(str::is_empty) {
        return Err("expected redis://HOST:PORT[/DB]".into());
    }
    Client::open(s).map_err(|e| e.to_string())?;
    Ok(s.to_string())
}

/// A URL this crawler took: its point, and the depth and redirect hops
/// the frontier keeps for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub point: PointId,
    pub url: String,
    pub depth: u32,
    pub hops: u8,
}

/// A URL offered to a point's queue (the run's seen set decides).
pub type Offer = Taken;

/// How many times a call is tried while the server cannot be reached,
/// and the wait between tries: a server restarting has this long.
const TRIES: u32 = 40;
const RETRY_WAIT: Duration = Duration::from_millis(250);
const IO_TIMEOUT: Duration = Duration::from_secs(5);

struct Scripts {
    join: Script,
    offer: Script,
    claim: Script,
    renew: Script,
    finish: Script,
    settle: Script,
}

macro_rules! script {
    ($file:literal) => {
        Script::new(concat!(
            include_str!("lua/common.lua"),
            include_str!(concat!("lua/", $file))
        ))
    };
}

impl Scripts {
    fn new() -> Scripts {
        Scripts {
            join: script!("join.lua"),
            offer: script!("offer.lua"),
            claim: script!("claim.lua"),
            renew: script!("renew.lua"),
            finish: script!("finish.lua"),
            settle: script!("settle.lua"),
        }
    }
}

/// The keys of one point's run (see `lua/common.lua`), in the order
/// every script takes them. The point's URL is the hash tag: one point's
/// keys stay on one node of a cluster.
fn keys_of(point_url: &str) -> Vec<String> {
    let tag = format!("crawlscope:{{{point_url}}}");
    ["meta", "queue", "info", "seen", "lease", "expiry", "done"]
        .iter()
        .map(|k| format!("{tag}:{k}"))
        .chain(std::iter::once(SLOTS.to_string()))
        .collect()
}

/// One connection to the frontier, with what this crawler is called
/// there and the keys of the points it crawls.
pub struct SharedFrontier {
    client: Client,
    conn: Connection,
    url: String,
    scripts: Scripts,
    owner: String,
    lease_ms: u64,
    delay_ms: u64,
    keys: HashMap<PointId, Vec<String>>,
    /// Each point's page limit for the run, across the cluster.
    limits: HashMap<PointId, u64>,
    leases: Leases,
}

fn frontier_error(url: &str, e: &redis::RedisError) -> StoreError {
    StoreError::Frontier(format!("{}: {e}", crate::url::redact(url)))
}

/// A connection whose calls give up after [`IO_TIMEOUT`].
fn connect_raw(client: &Client) -> redis::RedisResult<Connection> {
    let conn = client.get_connection_with_timeout(IO_TIMEOUT)?;
    conn.set_read_timeout(Some(IO_TIMEOUT))?;
    conn.set_write_timeout(Some(IO_TIMEOUT))?;
    Ok(conn)
}

fn connect(client: &Client, url: &str) -> Result<Connection, StoreError> {
    connect_raw(client).map_err(|e| frontier_error(url, &e))
}

impl SharedFrontier {
    /// Connects as crawler `owner` (`host:pid:start-ms`, unique in the
    /// cluster), for `points` (each with its URL, the name all crawlers
    /// know it by), and joins each point's run; starts renewing this
    /// crawler's leases and beating its heartbeat with what `pulse` says.
    pub fn join(
        spec: &Spec,
        owner: String,
        delay: Duration,
        points: &[(PointId, String)],
        pulse: Pulse,
    ) -> Result<SharedFrontier, StoreError> {
        let client = Client::open(spec.url.as_str()).map_err(|e| frontier_error(&spec.url, &e))?;
        let conn = connect(&client, &spec.url)?;
        let lease_ms = u64::try_from(spec.lease.as_millis()).unwrap_or(u64::MAX);
        let keys: HashMap<PointId, Vec<String>> =
            points.iter().map(|(id, url)| (*id, keys_of(url))).collect();
        let leases = Leases::start(
            client.clone(),
            owner.clone(),
            spec.lease,
            keys.clone(),
            Script::new(concat!(
                include_str!("lua/common.lua"),
                include_str!("lua/renew.lua")
            )),
            pulse,
        );
        let mut shared = SharedFrontier {
            client,
            conn,
            url: spec.url.clone(),
            scripts: Scripts::new(),
            owner,
            lease_ms,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            keys,
            limits: HashMap::new(),
            leases,
        };
        for (id, _) in points {
            let keys = shared.keys[id].clone();
            shared.call(|c, s| s.join.key(&keys).invoke::<u64>(c))?;
        }
        Ok(shared)
    }

    /// Runs `f` on the connection, reconnecting and trying again while
    /// the server cannot be reached (a restart), up to [`TRIES`] times.
    fn call<T>(
        &mut self,
        f: impl Fn(&mut Connection, &Scripts) -> redis::RedisResult<T>,
    ) -> Result<T, StoreError> {
        let mut tries = 0;
        loop {
            match f(&mut self.conn, &self.scripts) {
                Ok(v) => return Ok(v),
                Err(e) if tries < TRIES && unreachable(&e) => {
                    tries += 1;
                    tracing::warn!(error = %e, "shared frontier unreachable, trying again");
                    std::thread::sleep(RETRY_WAIT);
                    if let Ok(conn) = connect(&self.client, &self.url) {
                        self.conn = conn;
                    }
                }
                Err(e) => return Err(frontier_error(&self.url, &e)),
            }
        }
    }

    fn keys(&self, point: PointId) -> Result<Vec<String>, StoreError> {
        self.keys
            .get(&point)
            .cloned()
            .ok_or_else(|| StoreError::NotFound(format!("crawl point {point} in the frontier")))
    }

    /// Joins the run of `point`, known to all crawlers by `url`: a point
    /// taken up mid-crawl.
    pub fn join_point(&mut self, point: PointId, url: &str) -> Result<(), StoreError> {
        let keys = keys_of(url);
        self.call(|c, s| s.join.key(&keys).invoke::<u64>(c))?;
        self.leases.know(point, keys.clone());
        self.keys.insert(point, keys);
        Ok(())
    }

    /// `point`'s run takes at most `max` URLs, whichever crawlers take them.
    pub fn limit(&mut self, point: PointId, max: u64) {
        self.limits.insert(point, max);
    }

    /// Queues `offers` (each point's run keeps a URL once); returns how
    /// many were new.
    pub fn offer(&mut self, offers: &[Offer]) -> Result<u64, StoreError> {
        let mut queued = 0;
        for (point, of_point) in by_point(offers) {
            let keys = self.keys(point)?;
            let args: Vec<String> = of_point
                .iter()
                .flat_map(|o| [o.url.clone(), o.depth.to_string(), o.hops.to_string()])
                .collect();
            queued += self.call(|c, s| s.offer.key(&keys).arg(&args).invoke::<u64>(c))?;
        }
        Ok(queued)
    }

    /// Takes up to `n` URLs of `points`, leased to this crawler; also
    /// returns how many stay queued.
    pub fn claim(&mut self, n: usize, points: &[PointId]) -> Result<(Vec<Taken>, u64), StoreError> {
        let mut taken = Vec::new();
        let mut queued = 0;
        for &point in points {
            let want = n.saturating_sub(taken.len());
            let keys = self.keys(point)?;
            let (owner, lease, delay) = (self.owner.clone(), self.lease_ms, self.delay_ms);
            let limit = self.limits.get(&point).copied().unwrap_or(0);
            let reply: Vec<String> = self.call(|c, s| {
                s.claim
                    .key(&keys)
                    .arg(&owner)
                    .arg(want)
                    .arg(lease)
                    .arg(delay)
                    .arg(limit)
                    .invoke(c)
            })?;
            let mut reply = reply.into_iter();
            queued += reply
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
            while let (Some(url), Some(info)) = (reply.next(), reply.next()) {
                let mut nums = info.split(' ').map(str::parse::<u32>);
                let depth = nums.next().and_then(Result::ok).unwrap_or(0);
                let hops = nums.next().and_then(Result::ok).unwrap_or(0);
                taken.push(Taken {
                    point,
                    url,
                    depth,
                    hops: u8::try_from(hops).unwrap_or(u8::MAX),
                });
            }
        }
        self.leases.hold(&taken);
        Ok((taken, queued))
    }

    /// Renews the leases of `held` now, before their results commit;
    /// returns for each whether it is still this crawler's.
    pub fn confirm(&mut self, held: &[(PointId, &str)]) -> Result<Vec<bool>, StoreError> {
        let mut still = vec![false; held.len()];
        let mut by: HashMap<PointId, Vec<usize>> = HashMap::new();
        for (i, (point, _)) in held.iter().enumerate() {
            by.entry(*point).or_default().push(i);
        }
        for (point, at) in by {
            let keys = self.keys(point)?;
            let urls: Vec<&str> = at.iter().map(|&i| held[i].1).collect();
            let (owner, lease) = (self.owner.clone(), self.lease_ms);
            let answer: Vec<u8> = self.call(|c, s| {
                s.renew
                    .key(&keys)
                    .arg(&owner)
                    .arg(lease)
                    .arg(&urls)
                    .invoke(c)
            })?;
            for (&i, ok) in at.iter().zip(answer) {
                still[i] = ok == 1;
            }
        }
        let lost: Vec<(PointId, &str)> = held
            .iter()
            .zip(&still)
            .filter(|(_, &ok)| !ok)
            .map(|(h, _)| *h)
            .collect();
        self.leases.release(&lost);
        Ok(still)
    }

    /// Marks `pages` (2xx: they count toward `--max-pages`) and `other`
    /// URLs done and puts `back` URLs back in the queue, of the leases
    /// still this crawler's; after the local commit.
    pub fn finish(
        &mut self,
        pages: &[(PointId, String)],
        other: &[(PointId, String)],
        back: &[(PointId, String)],
    ) -> Result<(), StoreError> {
        let all = || pages.iter().chain(other).chain(back);
        let mut points: Vec<PointId> = all().map(|(p, _)| *p).collect();
        points.sort_unstable();
        points.dedup();
        for point in points {
            let keys = self.keys(point)?;
            let of = |list: &[(PointId, String)]| -> Vec<String> {
                list.iter()
                    .filter(|(p, _)| *p == point)
                    .map(|(_, u)| u.clone())
                    .collect()
            };
            let (pages, other, back) = (of(pages), of(other), of(back));
            let owner = self.owner.clone();
            self.call(|c, s| {
                s.finish
                    .key(&keys)
                    .arg(&owner)
                    .arg(pages.len())
                    .arg(other.len())
                    .arg(&pages)
                    .arg(&other)
                    .arg(&back)
                    .invoke::<u8>(c)
            })?;
        }
        let settled: Vec<(PointId, &str)> = all().map(|(p, u)| (*p, u.as_str())).collect();
        self.leases.release(&settled);
        Ok(())
    }

    /// Whether the runs of `points` are over, across the cluster.
    pub fn settle(&mut self, points: &[PointId]) -> Result<Settle, StoreError> {
        let mut settle = Settle::Done;
        for &point in points {
            let keys = self.keys(point)?;
            let limit = self.limits.get(&point).copied().unwrap_or(0);
            let said: String = self.call(|c, s| s.settle.key(&keys).arg(limit).invoke(c))?;
            match said.as_str() {
                "more" => return Ok(Settle::More),
                "wait" => settle = Settle::Wait,
                _ => {}
            }
        }
        Ok(settle)
    }
}

/// Whether a failure means the server is not there (yet), or still
/// loading its data after a restart: worth trying again.
fn unreachable(e: &redis::RedisError) -> bool {
    e.is_io_error()
        || e.is_timeout()
        || matches!(e.retry_method(), redis::RetryMethod::WaitAndRetry)
}

fn by_point(offers: &[Offer]) -> Vec<(PointId, Vec<&Offer>)> {
    let mut out: Vec<(PointId, Vec<&Offer>)> = Vec::new();
    for o in offers {
        match out.iter_mut().find(|(p, _)| *p == o.point) {
            Some((_, list)) => list.push(o),
            None => out.push((o.point, vec![o])),
        }
    }
    out
}

//! This crawler's leases, kept alive: the URLs it holds, renewed from a
//! thread of its own a few times per lease, so a writer busy with a long
//! commit does not lose them. A lease another crawler took meanwhile (this
//! one was stopped past it) is dropped here; the writer finds out for
//! itself when it confirms the lease before committing the result. Each
//! round also beats this crawler's heartbeat (see [`super::crawlers`]).

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use redis::{Client, Script};

use super::crawlers::{self, Pulse};
use super::Taken;
use crate::store::PointId;

const HEARTBEAT: Duration = Duration::from_secs(2);

type Held = Arc<Mutex<HashMap<PointId, HashSet<String>>>>;
/// Each point's keys (see `keys_of`), points taken up mid-crawl too.
type Keys = Arc<Mutex<HashMap<PointId, Vec<String>>>>;

/// The leases this crawler holds; renewal stops when dropped.
pub struct Leases {
    held: Held,
    keys: Keys,
    /// Dropped with `Leases`: the renewing thread sees it gone and ends.
    _stop: Sender<()>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Leases {
    /// Renews the held leases every third of `lease` (2 s at most) on a
    /// connection of its own, with `renew` (`lua/renew.lua`), and beats the heartbeat of
    /// crawler `owner` with what `pulse` says.
    pub fn start(
        client: Client,
        owner: String,
        lease: Duration,
        keys: HashMap<PointId, Vec<String>>,
        renew: Script,
        pulse: Pulse,
    ) -> Leases {
        let held: Held = Arc::default();
        let (stop, stopped) = channel::<()>();
        let mine = held.clone();
        let keys: Keys = Arc::new(Mutex::new(keys));
        let known = keys.clone();
        // A third of the lease, and the heartbeat's figures at most 2 s old.
        let every = (lease / 3).clamp(Duration::from_millis(100), HEARTBEAT);
        let lease_ms = u64::try_from(lease.as_millis()).unwrap_or(u64::MAX);
        let spawned = std::thread::Builder::new()
            .name("crawlscope-leases".into())
            .spawn(move || {
                let mut conn = None;
                // A round at once (the heartbeat from the start), then one
                // every `every` until stopped.
                let mut first = true;
                while first || stopped.recv_timeout(every) == Err(RecvTimeoutError::Timeout) {
                    first = false;
                    if conn.is_none() {
                        conn = super::connect_raw(&client).ok();
                    }
                    let Some(c) = conn.as_mut() else { continue };
                    if let Err(e) = crawlers::beat(c, &owner, &pulse, lease * 3) {
                        tracing::warn!(error = %e, "heartbeat not written");
                    }
                    let snapshot: Vec<(PointId, Vec<String>)> = lock(&mine)
                        .iter()
                        .map(|(p, urls)| (*p, urls.iter().cloned().collect()))
                        .collect();
                    for (point, urls) in snapshot {
                        let Some(keys) = lock(&known).get(&point).cloned() else {
                            continue;
                        };
                        let renewed: redis::RedisResult<Vec<u8>> = renew
                            .key(&keys)
                            .arg(&owner)
                            .arg(lease_ms)
                            .arg(&urls)
                            .invoke(c);
                        match renewed {
                            Ok(still) => {
                                let mut held = lock(&mine);
                                if let Some(set) = held.get_mut(&point) {
                                    for (url, ok) in urls.iter().zip(still) {
                                        if ok == 0 {
                                            set.remove(url);
                                        }
                                    }
                                }
                            }
                            Err(e) => {
                                // Reconnected on the next round.
                                tracing::warn!(error = %e, "lease renewal failed");
                                conn = None;
                                break;
                            }
                        }
                    }
                }
                // Ended: no longer one of the cluster's crawlers.
                let mut conn = conn.or_else(|| super::connect_raw(&client).ok());
                if let Some(c) = conn.as_mut() {
                    let _ = crawlers::leave(c, &owner);
                }
            });
        if let Err(e) = spawned {
            // Leases then live as long as one lease: the crawl goes on,
            // and a long fetch may be taken over and dropped at its commit.
            tracing::warn!(error = %e, "no lease renewal thread");
        }
        Leases {
            held,
            keys,
            _stop: stop,
        }
    }

    /// Renews the leases of `point`, taken up mid-crawl, from now on.
    pub fn know(&self, point: PointId, keys: Vec<String>) {
        lock(&self.keys).insert(point, keys);
    }

    pub fn hold(&self, taken: &[Taken]) {
        let mut held = lock(&self.held);
        for t in taken {
            held.entry(t.point).or_default().insert(t.url.clone());
        }
    }

    pub fn release(&self, urls: &[(PointId, &str)]) {
        let mut held = lock(&self.held);
        for (point, url) in urls {
            if let Some(set) = held.get_mut(point) {
                set.remove(*url);
            }
        }
    }
}

//! Per-origin politeness across crawlers, kept on the shared frontier's
//! server: the gap between two request starts to one origin
//! (`--delay-ms`, robots' Crawl-delay), a pause the origin asked for
//! (Retry-After) and `--per-host` as a bound on the cluster's requests in
//! flight there. A request takes the origin's next start and a hold
//! (`lua/slot.lua`) right before it leaves, after this crawler's own gate;
//! the hold ends when the request does (`lua/release.lua`, which also
//! moves the next start past a Retry-After that request was answered),
//! or lapses after [`SharedSlots::new`]'s `hold` when its crawler died.
//! Taken then, not when the URL is claimed: a request that waits locally
//! (robots.txt first, another of this crawler's requests) would start
//! late and crowd the next crawler's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use redis::Script;

use super::link::Link;

/// The holds of one origin: a sorted set, hold name -> when it lapses.
fn holds_key(origin: &str) -> String {
    format!("crawlscope:holds:{origin}")
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

pub struct SharedSlots {
    link: Arc<Link>,
    take: Script,
    release: Script,
    /// This crawler's part of its holds' names, unique in the cluster.
    me: String,
    next_hold: AtomicU64,
    per_host: usize,
    hold: Duration,
}

/// A request's hold on its origin's bound, ended by [`Held::release`].
pub struct Held {
    slots: Arc<SharedSlots>,
    origin: String,
    name: String,
}

impl SharedSlots {
    /// `hold`: how long a hold lasts when its crawler never ends it (the
    /// longest a request may take).
    pub fn new(url: &str, per_host: usize, hold: Duration) -> Option<Arc<SharedSlots>> {
        let me = format!("{}:{}", std::process::id(), crate::time::unix_now_ms());
        Some(Arc::new(SharedSlots {
            link: Link::new(url)?,
            take: Script::new(concat!(
                include_str!("lua/common.lua"),
                include_str!("lua/slot.lua")
            )),
            release: Script::new(concat!(
                include_str!("lua/common.lua"),
                include_str!("lua/release.lua")
            )),
            me,
            next_hold: AtomicU64::new(0),
            per_host: per_host.max(1),
            hold,
        }))
    }

    /// Waits until `origin`'s next start is this crawler's, `gap` after the
    /// last request any crawler started there, past any pause it asked for
    /// and with fewer than `--per-host` requests of the cluster on it. A
    /// server that cannot be asked leaves the local gate alone to keep
    /// them: no hold then.
    pub async fn take(self: &Arc<Self>, origin: &str, gap: Duration) -> Option<Held> {
        let n = self.next_hold.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}:{n}", self.me);
        let (gap, hold) = (ms(gap), ms(self.hold));
        loop {
            let (me, o, held) = (self.clone(), origin.to_string(), name.clone());
            let asked = self
                .link
                .ask(move |c| {
                    me.take
                        .key(super::SLOTS)
                        .key(holds_key(&o))
                        .arg(&o)
                        .arg(gap)
                        .arg(me.per_host)
                        .arg(&held)
                        .arg(hold)
                        .invoke::<u64>(c)
                })
                .await;
            match asked {
                Ok(0) => {
                    return Some(Held {
                        slots: self.clone(),
                        origin: origin.to_string(),
                        name,
                    })
                }
                Ok(wait) => tokio::time::sleep(Duration::from_millis(wait)).await,
                Err(e) => {
                    tracing::warn!(error = %e, "shared politeness slot not taken");
                    return None;
                }
            }
        }
    }
}

impl Held {
    /// Ends the hold; `pause`: the origin asked for one (Retry-After),
    /// which every crawler keeps from now on.
    pub fn release(self, pause: Option<Duration>) {
        let pause = pause.map_or(0, ms);
        let Held {
            slots,
            origin,
            name,
        } = self;
        let me = slots.clone();
        slots.link.send(move |c| {
            me.release
                .key(super::SLOTS)
                .key(holds_key(&origin))
                .arg(&origin)
                .arg(&name)
                .arg(pause)
                .invoke(c)
        });
    }
}

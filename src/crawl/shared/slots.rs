//! Per-origin politeness across crawlers: the gap between two request
//! starts to one origin (`--delay-ms`, robots' Crawl-delay) is a slot on
//! the shared frontier's server (`lua/slot.lua`), taken right before the
//! request leaves, after this crawler's own gate. Taken then, not when the
//! URL is claimed: a request that waits locally (robots.txt first, another
//! of this crawler's requests) would start late and crowd the next
//! crawler's.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::{Client, Connection, Script};

use super::Spec;

pub struct SharedSlots {
    client: Client,
    conn: Mutex<Option<Connection>>,
    script: Script,
}

impl SharedSlots {
    pub fn new(spec: &Spec) -> Option<Arc<SharedSlots>> {
        let client = Client::open(spec.url.as_str()).ok()?;
        Some(Arc::new(SharedSlots {
            client,
            conn: Mutex::new(None),
            script: Script::new(concat!(
                include_str!("lua/common.lua"),
                include_str!("lua/slot.lua")
            )),
        }))
    }

    /// Waits until `origin`'s next slot is this crawler's, `gap` after the
    /// last request any crawler started there. A server that cannot be
    /// asked leaves the local gate alone to keep the gap.
    pub async fn take(self: &Arc<Self>, origin: &str, gap: Duration) {
        let gap_ms = u64::try_from(gap.as_millis()).unwrap_or(u64::MAX);
        loop {
            let me = self.clone();
            let origin = origin.to_string();
            let asked = tokio::task::spawn_blocking(move || me.ask(&origin, gap_ms)).await;
            match asked {
                Ok(Ok(0)) => return,
                Ok(Ok(wait)) => tokio::time::sleep(Duration::from_millis(wait)).await,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "shared politeness slot not taken");
                    return;
                }
                Err(_) => return,
            }
        }
    }

    fn ask(&self, origin: &str, gap_ms: u64) -> redis::RedisResult<u64> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let c = match conn.as_mut() {
            Some(c) => c,
            None => conn.insert(super::connect_raw(&self.client)?),
        };
        let asked = self
            .script
            .key(super::SLOTS)
            .arg(origin)
            .arg(gap_ms)
            .invoke(c);
        if asked.is_err() {
            // Connected anew on the next ask.
            *conn = None;
        }
        asked
    }
}

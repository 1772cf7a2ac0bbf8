//! robots.txt answers kept on the shared frontier's server, one per
//! origin (`crawlscope:robots:ORIGIN`: status, body, when fetched), gone
//! when this crawler's own cache would fetch again ([`ROBOTS_TTL_S`]): the
//! first crawler that needs an origin's fetches it and the others wait
//! for its answer and read it (`lua/robots.lua`). An answer that says the
//! file cannot be had now is not kept, as locally: each crawler asks again.

use std::sync::Arc;
use std::time::Duration;

use redis::Script;

use super::link::Link;
use crate::crawl::robots::ROBOTS_TTL_S;
use crate::store::RobotsRecord;

/// How long a crawler's turn to fetch one lasts when it never answers:
/// the others fetch it then.
const TURN: Duration = Duration::from_secs(60);
/// How often a crawler waiting for another's answer looks again.
const LOOK_EVERY: Duration = Duration::from_millis(100);

fn key(origin: &str) -> String {
    format!("crawlscope:robots:{origin}")
}

fn turn_key(origin: &str) -> String {
    format!("crawlscope:robots:{origin}:turn")
}

/// What the cluster knows of an origin's robots.txt.
pub enum Known {
    /// Another crawler's answer.
    Kept(RobotsRecord),
    /// None yet: this crawler fetches it, then [`SharedRobots::keep`]s it
    /// or [`SharedRobots::pass`]es.
    Mine,
}

pub struct SharedRobots {
    link: Arc<Link>,
    look: Script,
}

impl SharedRobots {
    pub fn new(url: &str) -> Option<Arc<SharedRobots>> {
        Some(Arc::new(SharedRobots {
            link: Link::new(url)?,
            look: Script::new(include_str!("lua/robots.lua")),
        }))
    }

    /// The answer kept for `origin`, waiting while another crawler fetches
    /// it; `Mine` too when the server cannot be asked (fetched then as alone).
    pub async fn known(self: &Arc<Self>, origin: &str) -> Known {
        loop {
            let (me, o) = (self.clone(), origin.to_string());
            let looked = self
                .link
                .ask(move |c| {
                    me.look
                        .key(key(&o))
                        .key(turn_key(&o))
                        .arg(u64::try_from(TURN.as_millis()).unwrap_or(u64::MAX))
                        .invoke::<(String, String, String, Vec<u8>)>(c)
                })
                .await;
            match looked {
                Ok((said, status, fetched_at, body)) if said == "kept" => {
                    if let (Ok(status), Ok(fetched_at)) = (status.parse(), fetched_at.parse()) {
                        return Known::Kept(RobotsRecord {
                            fetched_at,
                            status,
                            body,
                        });
                    }
                    tracing::warn!(origin, "shared robots.txt answer unreadable: fetched again");
                    return Known::Mine;
                }
                Ok((said, ..)) if said == "wait" => tokio::time::sleep(LOOK_EVERY).await,
                Ok(_) => return Known::Mine,
                Err(e) => {
                    tracing::warn!(error = %e, "shared robots.txt answers not read");
                    return Known::Mine;
                }
            }
        }
    }

    /// Keeps this crawler's answer for the others, for as long as it is
    /// fresh, and ends its turn.
    pub async fn keep(self: &Arc<Self>, origin: &str, rec: &RobotsRecord) {
        let left = ROBOTS_TTL_S - (crate::time::unix_now() - rec.fetched_at);
        let (o, rec) = (origin.to_string(), rec.clone());
        let kept = self
            .link
            .ask(move |c| {
                let mut pipe = redis::pipe();
                pipe.atomic().del(turn_key(&o)).ignore();
                if left > 0 {
                    pipe.hset_multiple(
                        key(&o),
                        &[
                            ("status", rec.status.to_string().into_bytes()),
                            ("fetched_at", rec.fetched_at.to_string().into_bytes()),
                            ("body", rec.body),
                        ],
                    )
                    .ignore()
                    .expire(key(&o), left)
                    .ignore();
                }
                pipe.query::<()>(c)
            })
            .await;
        if let Err(e) = kept {
            tracing::warn!(error = %e, "robots.txt answer not shared");
        }
    }

    /// Ends this crawler's turn with nothing kept: the next to need the
    /// origin's robots.txt fetches it.
    pub async fn pass(self: &Arc<Self>, origin: &str) {
        let o = origin.to_string();
        let passed = self
            .link
            .ask(move |c| redis::cmd("DEL").arg(turn_key(&o)).query::<()>(c))
            .await;
        if let Err(e) = passed {
            tracing::warn!(error = %e, "robots.txt turn not passed");
        }
    }
}

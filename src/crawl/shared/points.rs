//! The cluster's points: `point add --frontier` hands a point's record to
//! the server (`crawlscope:points`, start URL -> the record as JSON), and
//! each running crawler takes up the ones it does not crawl yet, looking
//! about every second. A point is known by its start URL, as everywhere
//! on the shared frontier.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use redis::Client;

use super::link::Link;
use crate::store::{PointRecord, StoreError};

const POINTS: &str = "crawlscope:points";
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// Hands `rec` to the cluster at `url`: running crawlers take it up.
pub fn publish(url: &str, rec: &PointRecord) -> Result<(), StoreError> {
    let err = |e: redis::RedisError| super::frontier_error(url, &e);
    let json = serde_json::to_string(rec).map_err(|e| StoreError::Frontier(e.to_string()))?;
    let client = Client::open(url).map_err(err)?;
    let mut c = super::connect(&client, url)?;
    redis::cmd("HSET")
        .arg(POINTS)
        .arg(&rec.url)
        .arg(json)
        .query::<()>(&mut c)
        .map_err(err)
}

/// Looks at the cluster's points at `url` until `take` says to stop,
/// giving it each one not among `known` (start URLs) once. A server that
/// cannot be asked is asked again at the next look.
pub async fn watch(url: &str, mut known: HashSet<String>, take: impl Fn(PointRecord) -> bool) {
    let Some(link) = Link::new(url) else {
        return;
    };
    loop {
        tokio::time::sleep(LOOK_EVERY).await;
        let looked = link
            .ask(|c| {
                redis::cmd("HGETALL")
                    .arg(POINTS)
                    .query::<HashMap<String, String>>(c)
            })
            .await;
        let points = match looked {
            Ok(points) => points,
            Err(e) => {
                tracing::warn!(error = %e, "the cluster's points not read");
                continue;
            }
        };
        for (start, json) in points {
            if known.contains(&start) {
                continue;
            }
            known.insert(start.clone());
            match serde_json::from_str::<PointRecord>(&json) {
                Ok(rec) => {
                    if !take(rec) {
                        return;
                    }
                }
                Err(e) => tracing::warn!(point = %start, error = %e, "unreadable point left out"),
            }
        }
    }
}

/// `watch` for a crawl whose dispatcher takes commands on `commands`: a
/// point found becomes an `AddPoint`; ends with the dispatcher.
pub fn spawn_watch(
    url: String,
    known: HashSet<String>,
    commands: tokio::sync::mpsc::WeakUnboundedSender<crate::crawl::event::CrawlCommand>,
) {
    tokio::spawn(async move {
        let take = move |rec: PointRecord| {
            commands.upgrade().is_some_and(|tx| {
                tx.send(crate::crawl::event::CrawlCommand::AddPoint(Box::new(rec)))
                    .is_ok()
            })
        };
        watch(&url, known, take).await;
    });
}

//! The cluster's merged live log: a capped stream on the server,
//! `crawlscope:log`, one entry per URL a crawler fetched (crawler, status,
//! URL, ms), appended by each crawler's writer right after the commit
//! that wrote them, and read from its tail by the console. Capped at
//! about [`KEEP`] entries (`MAXLEN ~`, so trimming costs nothing): a live
//! view, not a record; each shard keeps its own pages.

use redis::Connection;
use serde::Serialize;

use crate::crawl::msg::Outcome;

const LOG: &str = "crawlscope:log";
/// Entries the stream keeps, about.
const KEEP: usize = 5000;

/// One fetched URL, as the merged log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// `host:pid` of the crawler that fetched it.
    pub crawler: String,
    /// None when nothing answered.
    pub status: Option<u16>,
    pub url: String,
    pub ms: u32,
}

/// What the committed `outcomes` fetched, as entries of crawler `crawler`.
pub fn entries(crawler: &str, outcomes: &[Outcome]) -> Vec<Entry> {
    let ms = |d: std::time::Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
    outcomes
        .iter()
        .filter_map(|o| {
            let (status, url, ms) = match o {
                Outcome::Fetched {
                    claim,
                    page,
                    elapsed,
                } => (Some(page.write.record.status), &claim.url, ms(*elapsed)),
                Outcome::NotModified { claim, .. } => (Some(304), &claim.url, 0),
                Outcome::Unchanged {
                    claim, response_ms, ..
                } => (Some(200), &claim.url, *response_ms),
                Outcome::Redirect { claim, status, .. } => (Some(*status), &claim.url, 0),
                Outcome::Failed { claim, .. } => (None, &claim.url, 0),
                _ => return None,
            };
            Some(Entry {
                crawler: crawler.to_string(),
                status,
                url: url.clone(),
                ms,
            })
        })
        .collect()
}

/// Appends `entries` to the stream, trimming it to about [`KEEP`].
pub(super) fn append(c: &mut Connection, entries: &[Entry]) -> redis::RedisResult<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut pipe = redis::pipe();
    for e in entries {
        let status = e.status.map_or_else(|| "-".to_string(), |s| s.to_string());
        pipe.cmd("XADD")
            .arg(LOG)
            .arg("MAXLEN")
            .arg("~")
            .arg(KEEP)
            .arg("*")
            .arg("crawler")
            .arg(&e.crawler)
            .arg("status")
            .arg(status)
            .arg("url")
            .arg(&e.url)
            .arg("ms")
            .arg(e.ms)
            .ignore();
    }
    pipe.query(c)
}

/// The last `n` entries, oldest first.
pub(super) fn tail(c: &mut Connection, n: usize) -> redis::RedisResult<Vec<Entry>> {
    let raw: Vec<(String, Vec<String>)> = redis::cmd("XREVRANGE")
        .arg(LOG)
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(n)
        .query(c)?;
    let mut out: Vec<Entry> = raw
        .into_iter()
        .map(|(_, fields)| {
            let field = |k: &str| {
                fields
                    .chunks(2)
                    .find(|kv| kv[0] == k)
                    .and_then(|kv| kv.get(1))
                    .cloned()
                    .unwrap_or_default()
            };
            Entry {
                crawler: field("crawler"),
                status: field("status").parse().ok(),
                url: field("url"),
                ms: field("ms").parse().unwrap_or(0),
            }
        })
        .collect();
    out.reverse();
    Ok(out)
}

impl super::SharedFrontier {
    /// Tells the merged log what a committed batch fetched. A live view
    /// only: a failure is logged and the crawl goes on.
    pub fn log(&mut self, outcomes: &[Outcome]) {
        // The owner is `host:pid:start-ms`; the log names `host:pid`.
        let crawler = self
            .owner
            .rsplit_once(':')
            .map_or(self.owner.as_str(), |(hp, _)| hp);
        let entries = entries(crawler, outcomes);
        if let Err(e) = append(&mut self.conn, &entries) {
            tracing::warn!(error = %e, "merged log not appended");
        }
    }
}

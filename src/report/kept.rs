//! The figures kept for the default view (each point's current view, no
//! `--point`, `--doc` or `--run`): `report summary`'s counts, every page's
//! link score and the `stats` counts, made in one pass when a crawl ends
//! ([`refresh`]) and stored in the `kept` table with the transaction they
//! are true of. A reader whose snapshot is that transaction reads a few
//! records instead of every page and state; any later write makes them
//! stale and the reports count afresh, as they always did. So `report
//! summary`, `page` and `stats` answer in milliseconds on a finished
//! crawl of any size, and never say what a full count would not. The
//! same pass keeps each list kind's findings ([`kept_lists`](super::kept_lists)).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::summary::{self, ByStatus, Summary};
use super::{Ctx, Result};
use crate::store::prelude::*;
use crate::store::{codec, PageId, Reader, SkipReason, StateCounts, Store, StoreError};

const SUMMARY: &str = "summary";
const LINK_SCORES: &str = "link_scores";
const STATS: &str = "stats";

const SKIP_REASONS: [SkipReason; 5] = [
    SkipReason::OutOfScope,
    SkipReason::Excluded,
    SkipReason::Robots,
    SkipReason::TooDeep,
    SkipReason::Nofollow,
];

/// A summary's counts as stored: names as strings.
#[derive(Serialize, Deserialize)]
struct Counts {
    pages: u64,
    urls: u64,
    /// 2xx, 3xx, 4xx, 5xx, failed.
    by_status: [u64; 5],
    skipped: Vec<(String, u64)>,
    by_depth: Vec<(u32, u64)>,
    no_link_depth: u64,
    by_mime: Vec<(String, u64)>,
    findings: Vec<(String, u64)>,
}

/// What `stats` counts by reading whole tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreCounts {
    pub done: u64,
    pub failed: u64,
    pub skipped: u64,
    pub links: u64,
    pub words: u64,
}

impl StoreCounts {
    pub fn count(r: &Reader<'_>) -> Result<StoreCounts, StoreError> {
        let StateCounts {
            done,
            failed,
            skipped,
            ..
        } = r.state_counts()?;
        Ok(StoreCounts {
            done,
            failed,
            skipped,
            links: r.link_count()?,
            words: r.word_count()?,
        })
    }
}

/// Makes the kept figures true of the store as it is now, unless they
/// are. Returns whether they are current afterwards (not when another
/// write came first: the next crawl's end, or the next call, makes them).
pub fn refresh(store: &Store) -> Result<bool> {
    let (as_of, records) = {
        let r = store.read()?;
        let stamp = r.write_seq()?;
        // `depth`'s order is kept whatever the size: a store whose
        // figures an older build kept has none.
        if r.kept(SUMMARY)?.is_some() && r.kept(super::depth::DEPTH_ORDER)?.is_some() {
            return Ok(true);
        }
        let mut ctx = Ctx::new(&r, None)?;
        // The lists first: each kind is found once, and counted for the
        // summary as it is.
        let mut records = super::kept_lists::records(&mut ctx)?;
        records.push(super::depth::kept_record(&ctx)?);
        records.push(super::link_depth::kept_record(&ctx)?);
        let counts = Counts::of(&summary::counted(&ctx)?);
        let scores = encode_scores(super::links::scored(&ctx)?);
        records.extend([
            (SUMMARY, codec::encode(&counts)?),
            (LINK_SCORES, scores),
            (STATS, codec::encode(&StoreCounts::count(&r)?)?),
        ]);
        (stamp, records)
    };
    // The snapshot is closed first: a write that grows the map waits for
    // this thread's readers.
    Ok(store.keep_figures(as_of, &records)?)
}

/// Makes the kept figures current before a read that uses them, unless a
/// crawl is writing (they would be stale at once): a store crawled by an
/// older build, or changed since its last crawl, counts once, saying so
/// on stderr when that is long. A store that cannot be written (or any
/// other failure) only costs the reports their speed.
pub fn ensure(store: &Store) {
    let started = std::time::Instant::now();
    let result = crawling(store).and_then(|busy| {
        if busy {
            return Ok(None);
        }
        refresh(store).map(Some)
    });
    match result {
        Ok(Some(_)) if started.elapsed() >= SAY_AFTER => eprintln!(
            "counted the store's report figures in {:.1} s; they are kept until it changes",
            started.elapsed().as_secs_f64()
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "report figures not kept"),
    }
}

/// A count longer than this is told on stderr.
const SAY_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a live crawler has the store.
fn crawling(store: &Store) -> Result<bool> {
    let r = store.read()?;
    let instances: std::collections::HashMap<_, _> = r.instances()?.into_iter().collect();
    Ok(instances
        .keys()
        .any(|&id| !crate::crawl::instance_dead(&instances, id)))
}

/// `report summary` of the default view from the kept counts, when they
/// are current; None: count.
pub fn summary(ctx: &Ctx<'_, '_>) -> Result<Option<Summary>> {
    if !super::kept_lists::default_view(ctx) {
        return Ok(None);
    }
    let Some(bytes) = ctx.r.kept(SUMMARY)? else {
        return Ok(None);
    };
    let counts: Counts = codec::decode(bytes)?;
    Ok(counts.summary())
}

/// Every page's link score in the default view, when kept and current.
pub fn link_scores(r: &Reader<'_>) -> Result<Option<FxHashMap<PageId, f64>>, StoreError> {
    let Some(bytes) = r.kept(LINK_SCORES)? else {
        return Ok(None);
    };
    Ok(Some(score_records(bytes).collect()))
}

/// One page's link score, when the scores are kept and current: `Some(None)`
/// for a page that has none (not fetched, or outside the view).
pub fn link_score(r: &Reader<'_>, page: PageId) -> Result<Option<Option<f64>>, StoreError> {
    let Some(bytes) = r.kept(LINK_SCORES)? else {
        return Ok(None);
    };
    let n = bytes.len() / SCORE_BYTES;
    let at = |i: usize| record(&bytes[i * SCORE_BYTES..(i + 1) * SCORE_BYTES]);
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let (id, score) = at(mid);
        match id.cmp(&page) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(Some(Some(score))),
        }
    }
    Ok(Some(None))
}

/// `stats`' whole-table counts: kept when current, else counted.
pub fn store_counts(r: &Reader<'_>) -> Result<StoreCounts, StoreError> {
    if let Some(bytes) = r.kept(STATS)? {
        return codec::decode(bytes);
    }
    StoreCounts::count(r)
}

/// A score record: the page id and the score in tenths (scores have one
/// decimal, 0-100), so the f64 read back is the one computed.
const SCORE_BYTES: usize = 6;

/// Scores in page id order (the graph's node order), encoded without a
/// map or a sorted copy of a million of them.
fn encode_scores(scores: impl ExactSizeIterator<Item = (PageId, f64)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(scores.len() * SCORE_BYTES);
    for (page, score) in scores {
        out.extend_from_slice(&page.to_be_bytes());
        out.extend_from_slice(&((score * 10.0).round() as u16).to_be_bytes());
    }
    out
}

fn record(b: &[u8]) -> (PageId, f64) {
    let page = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let tenths = u16::from_be_bytes([b[4], b[5]]);
    (page, f64::from(tenths) / 10.0)
}

fn score_records(bytes: &[u8]) -> impl Iterator<Item = (PageId, f64)> + '_ {
    bytes.chunks_exact(SCORE_BYTES).map(record)
}

impl Counts {
    fn of(s: &Summary) -> Counts {
        let b = &s.by_status;
        let owned = |m: &BTreeMap<&'static str, u64>| -> Vec<(String, u64)> {
            m.iter().map(|(k, &n)| (k.to_string(), n)).collect()
        };
        Counts {
            pages: s.pages,
            urls: s.urls,
            by_status: [b.ok, b.redirect, b.client_error, b.server_error, b.failed],
            skipped: owned(&s.skipped),
            by_depth: s.by_depth.iter().map(|(&d, &n)| (d, n)).collect(),
            no_link_depth: s.no_link_depth,
            by_mime: s.by_mime.iter().map(|(m, &n)| (m.clone(), n)).collect(),
            findings: (s.findings.iter())
                .map(|(k, &n)| (k.to_string(), n as u64))
                .collect(),
        }
    }

    /// The summary these counts were made from, without its runs; None
    /// when a name is not one this build counts.
    fn summary(self) -> Option<Summary> {
        let reasons = SKIP_REASONS.map(SkipReason::as_str);
        let mut skipped = BTreeMap::new();
        for (name, n) in self.skipped {
            skipped.insert(known(&reasons, &name)?, n);
        }
        let mut findings = BTreeMap::new();
        for (name, n) in self.findings {
            // A kept summary naming a kind no longer counted is stale.
            let kind = super::Kind::FINDINGS.iter().find(|k| k.name() == name)?;
            findings.insert(kind.name(), usize::try_from(n).ok()?);
        }
        let [ok, redirect, client_error, server_error, failed] = self.by_status;
        Some(Summary {
            pages: self.pages,
            urls: self.urls,
            by_status: ByStatus {
                ok,
                redirect,
                client_error,
                server_error,
                failed,
            },
            skipped,
            by_depth: self.by_depth.into_iter().collect(),
            no_link_depth: self.no_link_depth,
            by_mime: self.by_mime.into_iter().collect(),
            findings,
            run: None,
            runs: Vec::new(),
            all_runs: false,
            rows_from_runs: Vec::new(),
            external_checked: None,
        })
    }
}

/// `name` as the static name it equals in `names`.
fn known(names: &[&'static str], name: &str) -> Option<&'static str> {
    names.iter().copied().find(|&n| n == name)
}

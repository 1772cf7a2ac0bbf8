//! `crawlscope merge`: shard stores folded into one. Each shard's points
//! and runs go in first (`runs`), then each URL it knows through the
//! store's own write path (`urls`): a fetched page's body is parsed again
//! for the merged store, so its words, postings, body compression and
//! links are the merged store's, as a crawl would have written them.
//! Merging a shard again updates what it brought: a later fetch of a URL
//! wins, and a run's counts are folded again from each shard's latest.

mod ids;
mod runs;
mod urls;

use crate::store::prelude::*;
use crate::store::{Store, StoreError};

/// URLs are merged this many to a write transaction.
const URLS_PER_TXN: usize = 256;

/// What merging one shard did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// URLs whose state the shard set (a fetch of its own, or the first
    /// word on a URL).
    pub urls: u64,
    /// Of them, pages stored (written again, body and links).
    pub pages: u64,
    pub runs: u64,
}

/// Why a shard could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{} is the store merged into (or a copy of it)", .0.display())]
    SameStore(std::path::PathBuf),
}

/// Folds `shard` into `into`.
pub fn merge(into: &Store, shard: &Store) -> Result<Merged, MergeError> {
    // One snapshot at a time: a store merged into itself is one
    // environment, whose two readers on one thread LMDB refuses.
    let into_id = into.read()?.store_id()?;
    let shard_id = shard.read()?.store_id()?;
    if shard_id == into_id {
        return Err(MergeError::SameStore(shard.path().to_path_buf()));
    }
    let r = shard.read()?;
    let mut merged = Merged::default();
    let ids = into.update(|w| runs::points_and_runs(w, &r, &shard_id))?;
    merged.runs = ids.runs.len() as u64;
    let mut states = Vec::new();
    r.for_each_state(|id, state| {
        if let Some(fact) = state.fact() {
            states.push((id, fact.clone()));
        }
        Ok(true)
    })?;
    let history = urls::History::of(&r, &ids)?;
    for chunk in states.chunks(URLS_PER_TXN) {
        let (n, pages) = into.update(|w| {
            let mut won = (0, 0);
            for (id, state) in chunk {
                if let Some(page) = urls::merge_url(w, into, &r, &ids, &history, *id, state)? {
                    won.0 += 1;
                    won.1 += u64::from(page);
                }
            }
            Ok(won)
        })?;
        merged.urls += n;
        merged.pages += pages;
    }
    for point in ids.points.keys() {
        let mut marks = Vec::new();
        r.for_each_point_mark(*point, |page, mark| {
            marks.push((page, mark));
            Ok(())
        })?;
        for chunk in marks.chunks(URLS_PER_TXN) {
            into.update(|w| urls::merge_marks(w, &r, &ids, *point, chunk))?;
        }
    }
    into.update(|w| urls::merge_checks_and_listings(w, &r, &ids))?;
    Ok(merged)
}

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
//! Each figure's record is made and read by its own module (`summary`,
//! `links`, `depth`, `link_depth`); this one makes them all at once.

use serde::{Deserialize, Serialize};

use super::summary;
use super::{Ctx, Result};
use crate::store::prelude::*;
use crate::store::{codec, KeptRecords, Reader, StateCounts, Store, StoreError};

const STATS: &str = "stats";

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
    let (as_of, mut records) = {
        let r = store.read()?;
        let stamp = r.write_seq()?;
        // `depth`'s order is kept whatever the size: a store whose
        // figures an older build kept has none.
        if r.kept(summary::SUMMARY)?.is_some() && r.kept(super::depth::DEPTH_ORDER)?.is_some() {
            return Ok(true);
        }
        let mut records = KeptRecords::new(store)?;
        let mut keep = |(name, record): (&'static str, Vec<u8>)| Ok(records.push(name, &record)?);
        let mut ctx = Ctx::new(&r, None)?;
        // The lists first: each kind is found once, and counted for the
        // summary as it is.
        super::kept_lists::records(&mut ctx, &mut keep)?;
        // The link graph goes before the summary counts the kinds not
        // kept: they read the pages' markup facts, not the graph.
        keep(super::links::kept_record(&ctx)?)?;
        ctx.forget_graph();
        keep(super::depth::kept_record(&ctx)?)?;
        keep(super::link_depth::kept_record(&ctx)?)?;
        keep(summary::kept_record(&ctx)?)?;
        keep((STATS, codec::encode(&StoreCounts::count(&r)?)?))?;
        (stamp, records)
    };
    // The snapshot is closed first: a write that grows the map waits for
    // this thread's readers.
    Ok(store.keep_figures(as_of, &mut records)?)
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

/// `stats`' whole-table counts: kept when current, else counted.
pub fn store_counts(r: &Reader<'_>) -> Result<StoreCounts, StoreError> {
    if let Some(bytes) = r.kept(STATS)? {
        return codec::decode(bytes);
    }
    StoreCounts::count(r)
}

//! Proof that a store is whole: walks every table and reports each broken
//! invariant (page ↔ forward, index ↔ forward, doc freqs, both link
//! directions, id maps, frontier ↔ states, a state for every URL the crawl
//! decided on, crawl points of queued URLs, id counters beyond every id in
//! use, claims of dead processes, run history of known points and URLs,
//! pair postings that match a fresh count from their segment's postings,
//! the document each point names, references into a repacked store's
//! shared frames, every stored body the one fetched) as one readable line.

mod crawl;
mod index;
mod pages;
mod resources;
mod shelves;

use std::collections::HashMap;

use super::codec::{read_u32, read_u64};
use super::dictionary::{self, Kind};
use super::inverted::segments::SegmentRead;
use super::inverted::stems;
use super::schema::{meta_keys, Db, InstanceId};
use super::sealed::View;
use super::{Result, StoreError};

/// Problems are capped so a badly broken store still answers quickly.
const MAX_PROBLEMS: usize = 200;

/// The invariant checker.
pub trait CheckRead: View {
    /// Every invariant that does not hold; empty when the store is whole.
    /// `is_dead` says whether a crawler instance no longer runs.
    fn check(&self, is_dead: &dyn Fn(InstanceId) -> bool) -> Result<Vec<String>> {
        self.check_telling(is_dead, &mut |_, _| {})
    }

    /// [`CheckRead::check`], telling `step` (the step's number from 1 of
    /// [`CHECK_STEPS`], and what it reads) as each step begins: a large
    /// store takes minutes.
    fn check_telling(
        &self,
        is_dead: &dyn Fn(InstanceId) -> bool,
        step: &mut dyn FnMut(usize, &'static str),
    ) -> Result<Vec<String>> {
        let mut p = Problems::default();
        let mut in_use = InUse::default();
        let mut n = 0;
        let mut next = |what| {
            n += 1;
            step(n, what);
        };
        // Live segment -> its page count: the streams' parts must be in one.
        let listed: HashMap<u32, u32> = self.live_segments()?.entries().iter().copied().collect();
        next("shared frames");
        if !shelves::check_shelves(self, &mut p)? {
            return Ok(p.list);
        }
        next("pages");
        pages::check_pages(self, &mut p)?;
        next("index");
        index::check_index(self, &listed, &mut in_use, &mut p)?;
        next("pair postings");
        index::check_pairs(self, &mut p)?;
        next("links");
        index::check_links(self, &listed, &mut in_use, &mut p)?;
        next("id maps");
        pages::check_id_maps(self, &mut p)?;
        next("frontier");
        crawl::check_frontier(self, is_dead, &mut in_use, &mut p)?;
        next("URL states");
        crawl::check_seen_urls(self, &mut p)?;
        next("run history");
        crawl::check_history(self, &mut in_use, &mut p)?;
        next("documents");
        crawl::check_documents(self, &mut p)?;
        next("counters");
        check_counters(self, &in_use, &mut p)?;
        check_store_id(self, &mut p)?;
        next("resources");
        resources::check_resources(self, &mut p)?;
        next("bodies");
        pages::check_bodies(self, &mut p)?;
        Ok(p.list)
    }
}

/// The steps [`CheckRead::check_telling`] tells.
pub const CHECK_STEPS: usize = 13;

impl<T: View + ?Sized> CheckRead for T {}

#[derive(Default)]
struct Problems {
    list: Vec<String>,
}

impl Problems {
    fn add(&mut self, msg: String) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(msg);
        }
    }
}

/// The largest id of each kind that records name, beyond the keys of the
/// kind's own table: `meta`'s counter must be past all of them, or the next
/// id handed out would be one already in use.
#[derive(Default)]
struct InUse {
    segment: u64,
    /// Large segments' ids less [`crate::schema::LARGE_SEGMENTS`].
    large_segment: u64,
    point: u64,
    instance: u64,
    frontier_seq: u64,
}

impl InUse {
    /// A segment a record names: a small one's id or a large one's.
    fn note_segment(&mut self, segment: u32) {
        match segment.checked_sub(crate::schema::LARGE_SEGMENTS) {
            Some(large) => self.large_segment = self.large_segment.max(u64::from(large)),
            None => self.segment = self.segment.max(u64::from(segment)),
        }
    }
}

/// The zstd dictionary `frame` names when the store does not hold it.
fn missing_dictionary<V: View + ?Sized>(v: &V, kind: Kind, frame: &[u8]) -> Result<Option<u32>> {
    match dictionary::frame_dictionary(frame) {
        Some(id) if !dictionary::holds(v, kind, id)? => Ok(Some(id)),
        _ => Ok(None),
    }
}

/// The store has its id (`merge` knows a shard by it).
fn check_store_id<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    use super::MergedRead;
    match v.store_id() {
        Ok(_) => Ok(()),
        Err(StoreError::Corrupt(why)) => {
            p.add(why);
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Each id counter in `meta` is past every id in use (a missing counter
/// starts again at 1).
fn check_counters<V: View + ?Sized>(v: &V, in_use: &InUse, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let last_key = |db: &Db| -> Result<u64> {
        db.last(t)?
            .map_or(Ok(0), |(k, _)| read_u32(k).map(u64::from))
    };
    for (key, what, used) in [
        (meta_keys::NEXT_PAGE, "page", last_key(&d.urls)?),
        (
            meta_keys::NEXT_WORD,
            "word",
            u64::from(stems::next_id(v, d.words)?.saturating_sub(1)),
        ),
        (meta_keys::NEXT_ORIGIN, "origin", last_key(&d.origins)?),
        (meta_keys::NEXT_MIME, "mimetype", last_key(&d.mimetypes)?),
        (
            meta_keys::NEXT_POINT,
            "crawl point",
            last_key(&d.crawl_points)?.max(in_use.point),
        ),
        (
            meta_keys::NEXT_INSTANCE,
            "crawler",
            last_key(&d.instances)?.max(in_use.instance),
        ),
        (meta_keys::NEXT_RUN, "run", last_key(&d.runs)?),
        (meta_keys::NEXT_SEGMENT, "segment", in_use.segment),
        (
            meta_keys::NEXT_LARGE_SEGMENT,
            "large segment",
            in_use.large_segment,
        ),
        (
            meta_keys::FRONTIER_SEQ,
            "frontier sequence",
            in_use.frontier_seq,
        ),
    ] {
        let next = d.meta.get(t, key)?.map(read_u64).transpose()?;
        if used >= next.unwrap_or(1) {
            let name = String::from_utf8_lossy(key);
            p.add(match next {
                Some(n) => format!("counter {name} is {n}, but {what} id {used} is in use"),
                None => format!("counter {name} is missing, but {what} id {used} is in use"),
            });
        }
    }
    Ok(())
}

//! Staged merges: the large segments, each written over many write
//! transactions. A tier merge ([`super::segments`]) stops at
//! [`FINAL_PAGES`](super::segments::FINAL_PAGES) because it is one
//! transaction, whose dirty pages are the writer's heap; a million pages
//! would stay ~250 segments, and a query reads each word and each hit's
//! parents once per segment. Past that size,
//! [`FANOUT`](super::segments::FANOUT) segments of one tier are merged
//! into a large one a few steps at a time, each step a bounded read of
//! the sources' parts, after the transaction's own writes.
//!
//! While it is written the new segment is not live: readers never see it,
//! and its sources keep answering. A page that leaves a source meanwhile
//! (indexed again, or removed) leaves the new segment too: its entries
//! of the words already copied are removed there as well, those not yet
//! copied are gone from the source, and the new segment's pairs list it
//! gone. When every stream and the pairs are written, one step makes it
//! live in its sources' place with their pages, mapping each source to it
//! as a tier merge does; later steps delete the sources' entries.
//!
//! The merge under way is one `meta` record: the new segment, its sources
//! and the phase it is in. One runs at a time, so the new segment, the
//! newest large one, is written at the end of its tables.

use std::ops::Bound::Included;

use super::pairs::{self, Kept, PairList, PairRead};
use super::part_writer::PartWriter;
use super::segments::pick_tier;
use crate::codec::{self, triple_key, u32_key};
use crate::schema::{meta_keys, Db, Stream, WordId, LARGE_SEGMENTS};
use crate::sealed::{put_appending, View};
use crate::{Result, StoreError, Writer};

/// The largest segment a staged merge writes, in final segments: a
/// million pages make about eight of 131,072, where final segments made
/// ~250.
const LARGE_MAX_FINALS: u32 = 32;

/// A staged step per this many pages the transaction indexed (and at
/// least one): the two large tiers rewrite each page's entries about
/// twice, ~4 KB, and a step reads about 256 KB.
const PAGES_PER_STEP: u32 = 64;

/// Pages' worth of steps per transaction when merges are finished at a
/// crawl's end: ~16 steps, a few MB read.
const FINISH_PAGES: u32 = 1024;

/// First stems whose pair lists one step merges.
const PAIR_STEMS_PER_STEP: usize = 8;

/// Keys one step deletes of the sources' entries, once merged.
const DROP_KEYS_PER_STEP: usize = 512;

const KEY: &[u8] = b"staged_merge";

/// A merge under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// The large segment being written.
    pub into: u32,
    /// Its sources, live until it is.
    pub group: Vec<u32>,
    pub phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Copying `stream`'s entries of words (or children) from `from` on.
    Copy { stream: Stream, from: u32 },
    /// Merging the sources' pair lists of first stems from `from` on.
    Pairs { from: WordId },
    /// Live: deleting what the sources held.
    Drop,
}

impl Staged {
    fn encode(&self) -> Vec<u8> {
        let (tag, stream, from) = match self.phase {
            Phase::Copy { stream, from } => (0u8, stream as u8, from),
            Phase::Pairs { from } => (1, 0, from),
            Phase::Drop => (2, 0, 0),
        };
        let mut v = vec![tag, stream];
        v.extend_from_slice(&from.to_be_bytes());
        v.extend_from_slice(&self.into.to_be_bytes());
        for s in &self.group {
            v.extend_from_slice(&s.to_be_bytes());
        }
        v
    }

    fn decode(v: &[u8]) -> Result<Staged> {
        let bad = || StoreError::corrupt("staged merge record is malformed");
        if v.len() < 10 || !(v.len() - 10).is_multiple_of(4) {
            return Err(bad());
        }
        let from = codec::read_u32(&v[2..6])?;
        let phase = match (v[0], v[1]) {
            (0, s) => Phase::Copy {
                stream: *Stream::ALL.get(usize::from(s)).ok_or_else(bad)?,
                from,
            },
            (1, _) => Phase::Pairs { from },
            (2, _) => Phase::Drop,
            _ => return Err(bad()),
        };
        Ok(Staged {
            into: codec::read_u32(&v[6..10])?,
            group: v[10..]
                .chunks_exact(4)
                .map(codec::read_u32)
                .collect::<Result<_>>()?,
            phase,
        })
    }

    /// Segments whose entries are kept but not live: the new one while it
    /// is written, then its sources until they are deleted.
    pub fn not_live(&self) -> &[u32] {
        match self.phase {
            Phase::Drop => &self.group,
            _ => std::slice::from_ref(&self.into),
        }
    }

    /// The segment that also receives what leaves `segment`: the new one
    /// while `segment` is a source still live.
    fn twin(&self, segment: u32) -> Option<u32> {
        (self.phase != Phase::Drop && self.group.contains(&segment)).then_some(self.into)
    }
}

/// The merge under way, if any.
pub fn staged<V: View + ?Sized>(v: &V) -> Result<Option<Staged>> {
    v.dbs()
        .meta
        .get(v.txn(), KEY)?
        .map(Staged::decode)
        .transpose()
}

/// The segments a staged merge can take (of `live`, as `(segment,
/// pages)`): those of at least half the final size (a tier merge takes
/// neither a final segment nor eight almost final ones, which would be
/// stuck below it), FANOUT of one tier (by `ilog(FANOUT)` of their
/// pages), the smallest of it, as many as fit in [`LARGE_MAX_FINALS`]
/// final segments together (at least two).
fn pick(live: &[(u32, u32)], final_pages: u32) -> Option<Vec<u32>> {
    let large = (live.iter().copied()).filter(|&(_, pages)| pages >= final_pages / 2);
    pick_tier(large, final_pages.saturating_mul(LARGE_MAX_FINALS))
}

impl crate::Store {
    /// Runs staged merges to their end, each step in a transaction of its
    /// own (bounded, as during a crawl), starting those that are due: a
    /// crawl ends with the fewest segments its size allows.
    pub fn finish_merges(&self) -> Result<()> {
        while self.update(|w| {
            // Entries move between segments; no figure a report counts changes.
            w.keeps_figures();
            w.stage_merges(FINISH_PAGES)
        })? {}
        Ok(())
    }
}

impl Writer<'_> {
    /// The segments a tier merge must leave alone: a staged merge's
    /// sources, while they are live.
    pub(crate) fn staged_sources(&self) -> Result<Vec<u32>> {
        Ok(match staged(self)? {
            Some(st) if st.phase != Phase::Drop => st.group,
            _ => Vec::new(),
        })
    }

    /// The segment that must lose what `segment` loses (see the module).
    pub(crate) fn staged_twin(&self, segment: u32) -> Result<Option<u32>> {
        Ok(staged(self)?.and_then(|st| st.twin(segment)))
    }

    /// Advances staged merges by as many steps as `pages` newly indexed
    /// pages call for (one at least), starting one when none is under way
    /// and a tier is full. Whether work is left.
    pub(crate) fn stage_merges(&mut self, pages: u32) -> Result<bool> {
        for _ in 0..=pages / PAGES_PER_STEP {
            let st = match staged(self)? {
                Some(st) => st,
                None => {
                    let live = self.segments_mut()?.entries().to_vec();
                    let Some(group) = pick(&live, self.final_pages) else {
                        return Ok(false);
                    };
                    let n = self.next_id32(meta_keys::NEXT_LARGE_SEGMENT)?;
                    let into = LARGE_SEGMENTS
                        .checked_add(n)
                        .ok_or_else(|| StoreError::corrupt("large segment ids exhausted"))?;
                    let phase = Phase::Copy {
                        stream: Stream::Body,
                        from: 0,
                    };
                    Staged { into, group, phase }
                }
            };
            match self.stage_step(st)? {
                Some(next) => self.dbs.meta.put(&mut self.txn, KEY, &next.encode())?,
                None => self.dbs.meta.delete(&mut self.txn, KEY).map(drop)?,
            }
        }
        Ok(true)
    }

    /// One step of `st`; what is left of it (None: it is done).
    fn stage_step(&mut self, mut st: Staged) -> Result<Option<Staged>> {
        st.phase = match st.phase {
            Phase::Copy { stream, from } => {
                let mut out = PartWriter::new(st.into);
                let next = self.merge_step(stream, &st.group, from, &mut out)?;
                let db = self.dbs.stream(stream, st.into);
                for (key, part) in out.finish() {
                    put_appending(&mut self.txn, db, &key, &part)?;
                }
                let after = Stream::ALL.iter().skip_while(|&&s| s != stream).nth(1);
                match (next, after) {
                    (Some(from), _) => Phase::Copy { stream, from },
                    (None, Some(&stream)) => Phase::Copy { stream, from: 0 },
                    (None, None) => {
                        self.keep_common_pairs(&st)?;
                        Phase::Pairs { from: 0 }
                    }
                }
            }
            Phase::Pairs { from } => match self.merge_pairs_step(&st, from)? {
                Some(from) => Phase::Pairs { from },
                None => {
                    self.make_live(&st)?;
                    Phase::Drop
                }
            },
            Phase::Drop => {
                if self.drop_step(&st.group)? {
                    Phase::Drop
                } else {
                    return Ok(None);
                }
            }
        };
        Ok(Some(st))
    }

    /// Starts the new segment's pairs: the stems every source keeps pairs
    /// of (a pair's pages in the new segment are then its pages in each).
    fn keep_common_pairs(&mut self, st: &Staged) -> Result<()> {
        let mut stems: Option<Vec<WordId>> = None;
        for &s in &st.group {
            let held = self.pairs_kept(s)?.map(|k| k.stems).unwrap_or_default();
            stems = Some(match stems {
                None => held,
                Some(mut all) => {
                    all.retain(|w| held.binary_search(w).is_ok());
                    all
                }
            });
        }
        let stems = stems.unwrap_or_default();
        if stems.is_empty() {
            return Ok(());
        }
        let kept = Kept {
            stems,
            gone: Vec::new(),
        };
        pairs::write_kept(&mut self.txn, self.dbs.pair_postings, st.into, &kept)
    }

    /// Merges the sources' lists of [`PAIR_STEMS_PER_STEP`] first stems
    /// from `from` on, less each source's gone pages; the next first stem
    /// (None: all are written).
    fn merge_pairs_step(&mut self, st: &Staged, from: WordId) -> Result<Option<WordId>> {
        let Some(kept) = self.pairs_kept(st.into)? else {
            return Ok(None);
        };
        let mut sources = Vec::with_capacity(st.group.len());
        for &s in &st.group {
            if let Some(k) = self.pairs_kept(s)? {
                sources.push((s, k));
            }
        }
        let firsts: Vec<WordId> = kept.stems.iter().copied().filter(|&a| a >= from).collect();
        let mut lists: Vec<PairList> = Vec::new();
        for &a in firsts.iter().take(PAIR_STEMS_PER_STEP) {
            for &b in &kept.stems {
                let mut list = Vec::new();
                for (s, k) in &sources {
                    self.pair_counts(*s, k, (a, b), &mut list)?;
                }
                if !list.is_empty() {
                    list.sort_unstable_by_key(|&(page, _)| page);
                    lists.push(((a, b), list));
                }
            }
        }
        pairs::write_lists(&mut self.txn, self.dbs.pair_postings, st.into, &lists)?;
        Ok(firsts.get(PAIR_STEMS_PER_STEP).copied())
    }

    /// The new segment takes its sources' place in the live list, with the
    /// pages they hold now, and each source is mapped to it.
    fn make_live(&mut self, st: &Staged) -> Result<()> {
        let list = self.segments_mut()?;
        let mut pages = 0i64;
        for &s in &st.group {
            if let Some(&(_, n)) = list.entries().iter().find(|&&(id, _)| id == s) {
                pages += i64::from(n);
                list.add_pages(s, -i64::from(n));
            }
        }
        list.add_pages(st.into, pages);
        for &s in &st.group {
            self.map_merged(s, st.into)?;
        }
        Ok(())
    }

    /// Deletes up to [`DROP_KEYS_PER_STEP`] keys of `group`'s entries
    /// (streams and pairs); whether any were left.
    fn drop_step(&mut self, group: &[u32]) -> Result<bool> {
        let mut budget = DROP_KEYS_PER_STEP;
        let mut found = false;
        for &s in group {
            let tables: Vec<(Db, Vec<u8>, Vec<u8>)> = Stream::ALL
                .iter()
                .map(|&stream| {
                    let (lo, hi) = (triple_key(s, 0, 0), triple_key(s, u32::MAX, u32::MAX));
                    (self.dbs.stream(stream, s), lo.to_vec(), hi.to_vec())
                })
                .chain([(
                    self.dbs.pair_postings,
                    u32_key(s).to_vec(),
                    [u32_key(s).as_slice(), &[0xFF; 12]].concat(),
                )])
                .collect();
            for (db, lo, hi) in tables {
                let keys: Vec<Vec<u8>> = db
                    .range(&self.txn, &(Included(&lo[..]), Included(&hi[..])))?
                    .take(budget)
                    .map(|item| item.map(|(k, _)| k.to_vec()))
                    .collect::<std::result::Result<_, _>>()?;
                found |= !keys.is_empty();
                budget -= keys.len();
                for k in keys {
                    db.delete(&mut self.txn, &k)?;
                }
                if budget == 0 {
                    return Ok(true);
                }
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverted::segments::{FANOUT, FINAL_PAGES};

    #[test]
    fn records_read_back_and_a_bad_one_is_corrupt() {
        for phase in [
            Phase::Copy {
                stream: Stream::LinksIn,
                from: 77,
            },
            Phase::Pairs { from: 5 },
            Phase::Drop,
        ] {
            let st = Staged {
                into: LARGE_SEGMENTS + 3,
                group: vec![4, 9, 12],
                phase,
            };
            assert_eq!(Staged::decode(&st.encode()).unwrap(), st);
        }
        assert!(Staged::decode(&[0, 9, 0, 0, 0, 0, 0, 0, 0, 1]).is_err());
        assert!(Staged::decode(&[1, 0, 0]).is_err());
    }

    #[test]
    fn large_merges_take_a_full_tier_of_large_enough_segments() {
        let f = FINAL_PAGES;
        let live: Vec<(u32, u32)> = (0..FANOUT as u32).map(|s| (s, 4000)).collect();
        assert_eq!(pick(&live[1..], f), None, "seven are not a tier");
        assert_eq!(pick(&live, f), Some((0..FANOUT as u32).collect()));
        let small: Vec<(u32, u32)> = (0..20).map(|s| (s, f / 2 - 1)).collect();
        assert_eq!(pick(&small, f), None, "tier merges take those");
        // Eight near the largest size: as many as fit, two at least.
        let big: Vec<(u32, u32)> = (0..FANOUT as u32).map(|s| (s, 40_000 + s)).collect();
        assert_eq!(pick(&big, f), Some(vec![0, 1, 2]));
        let full: Vec<(u32, u32)> = (0..FANOUT as u32).map(|s| (s, 70_000)).collect();
        assert_eq!(pick(&full, f), None, "the largest tier stays");
    }
}

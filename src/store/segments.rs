//! The live posting segments and their merges (LSM-style). Each write
//! transaction that indexes pages adds one segment (see [`super::postings`]);
//! once [`FANOUT`] segments of one size tier are live they are merged into
//! one, so a word is read from a few dozen segments however many
//! transactions wrote it, and each posting is rewritten about twice. A
//! merged segment's id is recorded against every segment it replaced, so
//! the segment a page's forward record names still leads to its postings
//! without the forward records being rewritten.
//!
//! The list of live segments with their page counts is one `meta` record;
//! the merge map is one `meta` record per merged segment.

use std::ops::Bound::{Excluded, Included, Unbounded};

use heed::PutFlags;
use rustc_hash::FxHashMap as HashMap;

use super::codec::{self, u32_key};
use super::postings::{self, part_key};
use super::schema::{PageId, WordId};
use super::sealed::View;
use super::{Result, StoreError, Writer};

/// Segments of one tier merged at a time.
pub const FANOUT: usize = 8;

/// Segments this large are final: a merge stays a bounded transaction
/// (a few tens of MB at most) instead of rewriting the whole index.
pub const FINAL_PAGES: u32 = 4096;

/// Postings read into memory per step of a merge.
const MERGE_STEP_BYTES: usize = 8 << 20;

const LIST_KEY: &[u8] = b"posting_segments";
const MERGED_PREFIX: &[u8] = b"merged_segment:";

fn merged_key(segment: u32) -> Vec<u8> {
    let mut k = MERGED_PREFIX.to_vec();
    k.extend_from_slice(&u32_key(segment));
    k
}

/// Live segments with the pages each holds, in segment order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentList(Vec<(u32, u32)>);

impl SegmentList {
    fn decode(v: &[u8]) -> Result<SegmentList> {
        if !v.len().is_multiple_of(8) {
            return Err(StoreError::corrupt("segment list is not 8-byte entries"));
        }
        v.chunks_exact(8)
            .map(|c| Ok((codec::read_u32(&c[..4])?, codec::read_u32(&c[4..])?)))
            .collect::<Result<_>>()
            .map(SegmentList)
    }

    fn encode(&self) -> Vec<u8> {
        self.0
            .iter()
            .flat_map(|&(s, n)| codec::pair_key(s, n))
            .collect()
    }

    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().map(|&(s, _)| s)
    }

    /// `(segment, pages)` in segment order.
    pub fn entries(&self) -> &[(u32, u32)] {
        &self.0
    }

    /// Counts pages into or out of a segment; a segment left with none is
    /// no longer live.
    fn add_pages(&mut self, segment: u32, delta: i64) {
        let i = match self.0.binary_search_by_key(&segment, |&(s, _)| s) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (segment, 0));
                i
            }
        };
        let pages = (i64::from(self.0[i].1) + delta).clamp(0, i64::from(u32::MAX));
        if pages == 0 {
            self.0.remove(i);
        } else {
            self.0[i].1 = pages as u32;
        }
    }

    /// The smallest tier's segments once [`FANOUT`] of them are live.
    fn pick_merge(&self) -> Option<Vec<u32>> {
        let mut tiers: HashMap<u32, Vec<u32>> = HashMap::default();
        for &(s, pages) in &self.0 {
            if pages < FINAL_PAGES {
                tiers.entry(pages.ilog(FANOUT as u32)).or_default().push(s);
            }
        }
        tiers
            .into_iter()
            .filter(|(_, group)| group.len() >= FANOUT)
            .min_by_key(|(tier, _)| *tier)
            .map(|(_, group)| group)
    }
}

/// Segment look-ups for readers and the writer.
pub trait SegmentRead: View {
    fn live_segments(&self) -> Result<SegmentList> {
        match self.dbs().meta.get(self.txn(), LIST_KEY)? {
            Some(v) => SegmentList::decode(v),
            None => Ok(SegmentList::default()),
        }
    }

    /// The live segment that holds what was written to `segment`.
    fn resolve_segment(&self, mut segment: u32) -> Result<u32> {
        // Each hop is one merge into a larger tier: a longer chain is a loop.
        for _ in 0..64 {
            match self.dbs().meta.get(self.txn(), &merged_key(segment))? {
                Some(v) => segment = codec::read_u32(v)?,
                None => return Ok(segment),
            }
        }
        Err(StoreError::corrupt("merged segments form a loop"))
    }

    /// The stored part of `word` in `segment` that would hold `page`.
    fn part_for_page(
        &self,
        segment: u32,
        word: WordId,
        page: PageId,
    ) -> Result<Option<([u8; 12], &[u8])>> {
        let found = self
            .dbs()
            .postings
            .get_lower_than_or_equal_to(self.txn(), &part_key(segment, word, page))?;
        match found {
            Some((k, v)) if k.starts_with(&postings::block_prefix(segment, word)) => {
                let key: [u8; 12] = k
                    .try_into()
                    .map_err(|_| StoreError::corrupt("posting key is not 12 bytes"))?;
                Ok(Some((key, v)))
            }
            _ => Ok(None),
        }
    }
}

impl<T: View + ?Sized> SegmentRead for T {}

impl Writer<'_> {
    fn segments_mut(&mut self) -> Result<&mut SegmentList> {
        if self.pending.segments.is_none() {
            self.pending.segments = Some(self.live_segments()?);
        }
        Ok(self.pending.segments.get_or_insert_with(Default::default))
    }

    /// Writes a part whose key is past every key of the table: the newest
    /// segment's, in key order. LMDB then fills each leaf before starting
    /// the next (an ordinary put splits the last leaf in half, leaving
    /// the table half empty).
    pub(super) fn append_posting(&mut self, key: &[u8; 12], part: &[u8]) -> Result<()> {
        self.dbs
            .postings
            .put_with_flags(&mut self.txn, PutFlags::APPEND, key, part)?;
        Ok(())
    }

    /// One page's postings left `segment` (a live one).
    pub(super) fn segment_lost_page(&mut self, segment: u32) -> Result<()> {
        if self.pending.segment == Some(segment) {
            self.pending.segment_pages = self.pending.segment_pages.saturating_sub(1);
        } else {
            self.segments_mut()?.add_pages(segment, -1);
        }
        Ok(())
    }

    /// After this transaction's postings are written: its segment joins
    /// the live list, full tiers are merged, and the list is saved.
    pub(super) fn settle_segments(&mut self) -> Result<()> {
        if let Some(s) = self.pending.segment {
            let pages = i64::from(std::mem::take(&mut self.pending.segment_pages));
            self.segments_mut()?.add_pages(s, pages);
        }
        while let Some(group) = self.segments_mut()?.pick_merge() {
            self.merge(&group)?;
        }
        if let Some(list) = self.pending.segments.take() {
            self.dbs.meta.put(&mut self.txn, LIST_KEY, &list.encode())?;
        }
        Ok(())
    }

    /// Merges `group` into a new segment, a step of words at a time, so no
    /// more than about [`MERGE_STEP_BYTES`] of postings is held in memory.
    fn merge(&mut self, group: &[u32]) -> Result<()> {
        let into = self.next_id32(super::schema::meta_keys::NEXT_SEGMENT)?;
        let mut from: WordId = 0;
        loop {
            let mut words: std::collections::BTreeMap<WordId, Vec<Vec<u8>>> = Default::default();
            let mut bytes = 0usize;
            // The step ends before this word: every segment is read up to it.
            let mut upto: Option<WordId> = None;
            for &s in group {
                let lo = part_key(s, from, 0);
                let end = s.checked_add(1).map(u32_key);
                let hi = match &end {
                    Some(e) => Excluded(&e[..]),
                    None => Unbounded,
                };
                for item in self
                    .dbs
                    .postings
                    .range(&self.txn, &(Included(&lo[..]), hi))?
                {
                    let (k, v) = item?;
                    let (_, w, _) = postings::split_part_key(k)?;
                    if upto.is_some_and(|u| w >= u) {
                        break;
                    }
                    if upto.is_none()
                        && bytes >= MERGE_STEP_BYTES
                        && w > from
                        && !words.contains_key(&w)
                    {
                        upto = Some(w);
                        break;
                    }
                    words.entry(w).or_default().push(v.to_vec());
                    bytes += v.len();
                }
            }
            if let Some(u) = upto {
                // Read from earlier segments before the step's end was known.
                words.retain(|&w, _| w < u);
            }
            for (w, parts) in &words {
                for (first, part) in postings::merge_parts(parts.iter().map(Vec::as_slice))? {
                    self.append_posting(&part_key(into, *w, first), &part)?;
                }
            }
            for &s in group {
                let lo = part_key(s, from, 0);
                let end = match upto {
                    Some(u) => Some(part_key(s, u, 0)),
                    None => s.checked_add(1).map(|n| part_key(n, 0, 0)),
                };
                let hi = match &end {
                    Some(e) => Excluded(&e[..]),
                    None => Unbounded,
                };
                self.dbs
                    .postings
                    .delete_range(&mut self.txn, &(Included(&lo[..]), hi))?;
            }
            match upto {
                Some(u) => from = u,
                None => break,
            }
        }
        let list = self.segments_mut()?;
        let mut pages = 0i64;
        for &s in group {
            if let Some(&(_, n)) = list.0.iter().find(|&&(id, _)| id == s) {
                pages += i64::from(n);
                list.add_pages(s, -i64::from(n));
            }
        }
        list.add_pages(into, pages);
        for &s in group {
            self.dbs
                .meta
                .put(&mut self.txn, &merged_key(s), &u32_key(into))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_tier_is_merged_and_final_segments_are_not() {
        let mut l = SegmentList::default();
        for s in 1..FANOUT as u32 {
            l.add_pages(s, 80);
        }
        l.add_pages(100, 9);
        assert_eq!(l.pick_merge(), None, "seven of tier 2, one of tier 1");
        l.add_pages(200, 100);
        let group = l.pick_merge().unwrap();
        assert_eq!(group.len(), FANOUT);
        assert!(!group.contains(&100));
        let mut big = SegmentList::default();
        for s in 0..20 {
            big.add_pages(s, i64::from(FINAL_PAGES));
        }
        assert_eq!(big.pick_merge(), None);
        big.add_pages(3, -i64::from(FINAL_PAGES));
        assert_eq!(big.ids().count(), 19, "an emptied segment is not live");
        assert_eq!(SegmentList::decode(&big.encode()).unwrap(), big);
        assert!(SegmentList::decode(&[1, 2, 3]).is_err());
    }
}

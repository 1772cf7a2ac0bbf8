//! Segments and their merges (LSM-style). The tables whose writes would
//! otherwise land all over their B-trees — body and title postings and
//! reverse links, each a stream of parts under `segment ‖ word (or child)
//! ‖ first page (or parent)` — are keyed by the segment of the page that
//! wrote the entry: each write transaction that indexes pages adds one
//! segment at the end of each table, so a commit copies the leaves it
//! filled, not leaves across tables that grow with the crawl. Once
//! [`FANOUT`] segments of one size tier are live they are merged into
//! one, so a word or a page's parents are read from a few dozen segments
//! however many transactions wrote them, and each entry is rewritten
//! about twice. A merged segment's id is recorded against every segment
//! it replaced, so the segment a page's forward record names still leads
//! to its entries without the forward records being rewritten.
//!
//! The list of live segments with their page counts is one `meta` record;
//! the merge map is one `meta` record per merged segment.

use std::ops::Bound::Included;

use heed::{PutFlags, RoTxn};

use super::{merge, pairs, part_writer};
use crate::body_blocks::{self, Shelf};
use crate::codec::{self, split_triple_key, triple_key, u32_key};
use crate::schema::{Db, PageId, Stream, WordId};
use crate::sealed::View;
use crate::{Result, StoreError, Writer};

/// Segments of one tier merged at a time.
pub const FANOUT: usize = 8;

/// Segments this large are final, and no merge of one transaction writes
/// a larger one: a merge stays a bounded transaction (a few tens of MB)
/// instead of rewriting the whole index. Larger ones are written by
/// stages (`staged`). The default of [`crate::StoreOptions::final_pages`].
pub const FINAL_PAGES: u32 = 4096;

/// Stored bytes of parts read into memory per step of a merge: a merge's
/// buffer was the largest heap user after LMDB's dirty pages at 8 MB,
/// and a step lists the parts' runs, where a rare word's run of ~4 stored
/// bytes becomes a 24-byte slice (64 bytes in tests, so their merges take
/// many steps).
const POSTING_STEP_BYTES: usize = if cfg!(test) { 64 } else { 1 << 18 };

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
    pub(super) fn add_pages(&mut self, segment: u32, delta: i64) {
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

    /// The smallest tier's segments once [`FANOUT`] of them are live:
    /// its smallest, as many as fit in `final_pages` together (at least
    /// two). Without that cap, eight segments just under the final size
    /// merged into one eight times larger, and the dirty pages of that
    /// one transaction set the crawl's peak heap (growing with the crawl).
    fn pick_merge(&self, busy: &[u32], final_pages: u32) -> Option<Vec<u32>> {
        let small = (self.0.iter().copied())
            .filter(|&(s, pages)| pages < final_pages && !busy.contains(&s));
        pick_tier(small, final_pages)
    }
}

/// Of `segments` (`(segment, pages)`), the smallest tier (by
/// `ilog(FANOUT)` of their pages) with [`FANOUT`] of them: its smallest,
/// as many as fit in `most` pages together (at least two).
pub(super) fn pick_tier(segments: impl Iterator<Item = (u32, u32)>, most: u32) -> Option<Vec<u32>> {
    let mut tiers: std::collections::BTreeMap<u32, Vec<(u32, u32)>> = Default::default();
    for (s, pages) in segments {
        tiers
            .entry(pages.ilog(FANOUT as u32))
            .or_default()
            .push((pages, s));
    }
    tiers
        .into_values()
        .filter(|tier| tier.len() >= FANOUT)
        .find_map(|mut tier| {
            tier.sort_unstable();
            let mut total = 0u32;
            let picked: Vec<u32> = tier
                .into_iter()
                .take(FANOUT)
                .take_while(|&(pages, _)| {
                    total = total.saturating_add(pages);
                    total <= most
                })
                .map(|(_, s)| s)
                .collect();
            (picked.len() >= 2).then_some(picked)
        })
}

/// The live segments as `meta` lists them.
pub(crate) fn live_in(txn: &RoTxn<'_>, meta: Db) -> Result<SegmentList> {
    match meta.get(txn, LIST_KEY)? {
        Some(v) => SegmentList::decode(v),
        None => Ok(SegmentList::default()),
    }
}

/// Segment look-ups for readers and the writer.
pub trait SegmentRead: View {
    fn live_segments(&self) -> Result<SegmentList> {
        live_in(self.txn(), self.dbs().meta)
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

    /// The live segment of a page's entries (None: the page is not
    /// indexed).
    fn page_segment(&self, page: PageId) -> Result<Option<u32>> {
        match crate::page_records::segment_of(self, page)? {
            Some(segment) => Ok(Some(self.resolve_segment(segment)?)),
            None => Ok(None),
        }
    }

    /// The part of `stream` that would hold `key` (`segment ‖ word ‖
    /// page`): the last at or before it in the key's segment, read
    /// through its reference.
    fn record_holding(&self, stream: Stream, key: &[u8; 12]) -> Result<Option<(&[u8], &[u8])>> {
        let segment = codec::read_u32(&key[..4])?;
        let db = self.dbs().stream(stream, segment);
        match db.get_lower_than_or_equal_to(self.txn(), key)? {
            Some((k, stored)) if k.starts_with(&key[..4]) => Ok(Some((
                k,
                body_blocks::plain(self, Shelf::Postings, stored)?,
            ))),
            _ => Ok(None),
        }
    }

    /// Where a read of `word`'s entries in `segment` of `stream` starts:
    /// the part holding its first entry, which may begin with earlier
    /// words' runs.
    fn postings_start(&self, stream: Stream, segment: u32, word: u32) -> Result<[u8; 12]> {
        let db = self.dbs().stream(stream, segment);
        let first = triple_key(segment, word, 0);
        // Only the key: the part's value (a reference, maybe) is read later.
        let holder = db.get_lower_than_or_equal_to(self.txn(), &first)?;
        match holder.filter(|(k, _)| k.starts_with(&u32_key(segment))) {
            Some((k, _)) => k
                .try_into()
                .map_err(|_| StoreError::corrupt("postings key is not 12 bytes")),
            None => Ok(first),
        }
    }
}

impl<T: View + ?Sized> SegmentRead for T {}

impl Writer<'_> {
    pub(super) fn segments_mut(&mut self) -> Result<&mut SegmentList> {
        if self.pending.segments.is_none() {
            self.pending.segments = Some(self.live_segments()?);
        }
        Ok(self.pending.segments.get_or_insert_with(Default::default))
    }

    /// Writes an entry whose key is past every key of the table: the
    /// newest segment's, in key order. LMDB then fills each leaf before
    /// starting the next (an ordinary put splits the last leaf in half,
    /// leaving the table half empty).
    pub(crate) fn append(&mut self, db: Db, key: &[u8; 12], value: &[u8]) -> Result<()> {
        db.put_with_flags(&mut self.txn, PutFlags::APPEND, key, value)?;
        Ok(())
    }

    /// Appends `segment`'s part of `stream` from each word's block, in
    /// word order: (word, block, whether its pages came out of order).
    pub(crate) fn write_stream<'b>(
        &mut self,
        stream: Stream,
        segment: u32,
        blocks: impl Iterator<Item = (WordId, &'b [u8], bool)>,
    ) -> Result<()> {
        let mut parts = part_writer::PartWriter::new(segment);
        for (w, block, out_of_order) in blocks {
            if !block.is_empty() {
                parts.push_block(w, block, !out_of_order)?;
            }
        }
        let db = self.dbs.stream(stream, segment);
        for (key, part) in parts.finish() {
            self.append(db, &key, &part)?;
        }
        Ok(())
    }

    /// A page's postings left `segment` (a live one): the segment's pairs,
    /// counted with that page, leave it out from now on.
    pub(crate) fn segment_lost_page(&mut self, segment: u32, page: PageId) -> Result<()> {
        if let Some(into) = self.staged_twin(segment)? {
            pairs::forget_page(&mut self.txn, self.dbs.pair_postings, into, page)?;
        }
        if self.pending.segment == Some(segment) {
            self.pending.segment_pages = self.pending.segment_pages.saturating_sub(1);
        } else {
            let list = self.segments_mut()?;
            list.add_pages(segment, -1);
            let live = list.ids().any(|s| s == segment);
            let db = self.dbs.pair_postings;
            if live {
                pairs::forget_page(&mut self.txn, db, segment, page)?;
            } else {
                // Its last page: the segment is gone, and its pairs with it.
                pairs::drop(&mut self.txn, db, segment)?;
            }
        }
        Ok(())
    }

    /// After this transaction's postings are written: its segment joins
    /// the live list, full tiers are merged, a staged merge advances by
    /// as much as the pages indexed call for, and the list is saved.
    pub(crate) fn settle_segments(&mut self) -> Result<()> {
        let indexed = std::mem::take(&mut self.pending.segment_pages);
        if let Some(s) = self.pending.segment {
            self.segments_mut()?.add_pages(s, i64::from(indexed));
        }
        let busy = self.staged_sources()?;
        let final_pages = self.final_pages;
        while let Some(group) = self.segments_mut()?.pick_merge(&busy, final_pages) {
            self.merge(&group)?;
        }
        if self.pending.segment.is_some() {
            self.stage_merges(indexed)?;
        }
        if let Some(list) = self.pending.segments.take() {
            self.dbs.meta.put(&mut self.txn, LIST_KEY, &list.encode())?;
        }
        Ok(())
    }

    /// Merges every live segment below the final size into one, when
    /// there are two or more and they fit in one (whether it did): a
    /// small crawl's last few segments, each of which keeps a run head
    /// for most of the words it shares with the others.
    pub(crate) fn merge_to_one(&mut self) -> Result<bool> {
        // Postings move between segments; no figure a report counts changes.
        self.keeps_figures();
        let busy = self.staged_sources()?;
        let final_pages = self.final_pages;
        let list = self.segments_mut()?;
        let small: Vec<(u32, u32)> = list
            .0
            .iter()
            .copied()
            .filter(|&(s, pages)| pages < final_pages && !busy.contains(&s))
            .collect();
        let total: u64 = small.iter().map(|&(_, pages)| u64::from(pages)).sum();
        if small.len() < 2 || total > u64::from(final_pages) {
            return Ok(false);
        }
        let group: Vec<u32> = small.into_iter().map(|(s, _)| s).collect();
        self.merge(&group)?;
        Ok(true)
    }

    /// Merges `group` into a new segment, table by table.
    fn merge(&mut self, group: &[u32]) -> Result<()> {
        let into = self.next_id32(crate::schema::meta_keys::NEXT_SEGMENT)?;
        let dbs = self.dbs;
        for stream in Stream::ALL {
            self.merge_postings(stream, group, into)?;
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
            self.map_merged(s, into)?;
            pairs::drop(&mut self.txn, dbs.pair_postings, s)?;
        }
        let pages = u32::try_from(pages).unwrap_or(u32::MAX);
        if pages >= self.pair_min_pages && self.pair_postings {
            pairs::build(&mut self.txn, &dbs, &self.blocks, into, pages)?;
        }
        Ok(())
    }

    /// Records that what was written to `segment` is in `into` now.
    pub(super) fn map_merged(&mut self, segment: u32, into: u32) -> Result<()> {
        let key = merged_key(segment);
        self.dbs.meta.put(&mut self.txn, &key, &u32_key(into))?;
        Ok(())
    }

    /// Merges the group's parts of `stream` into `into`, a step of words
    /// at a time ([`Writer::merge_step`]), and deletes the group's.
    fn merge_postings(&mut self, stream: Stream, group: &[u32], into: u32) -> Result<()> {
        let mut out = part_writer::PartWriter::new(into);
        let mut from = Some(0u32);
        while let Some(word) = from {
            from = self.merge_step(stream, group, word, &mut out)?;
        }
        let db = self.dbs.stream(stream, into);
        for (key, part) in out.finish() {
            self.append(db, &key, &part)?;
        }
        for &s in group {
            let (lo, hi) = (triple_key(s, 0, 0), triple_key(s, u32::MAX, u32::MAX));
            let db = self.dbs.stream(stream, s);
            db.delete_range(&mut self.txn, &(Included(&lo[..]), Included(&hi[..])))?;
        }
        Ok(())
    }

    /// One step of merging the group's parts of `stream` into `out` (the
    /// merged segment's): reads every segment's parts from the one holding
    /// word `from` until about [`POSTING_STEP_BYTES`] are read, keeps the
    /// runs of the step's words, merges each word's runs in page order
    /// ([`merge::merge_parts`]), cutting them into parts again, and
    /// appends the parts done. Returns the word the next step starts at
    /// (None: this was the last).
    pub(super) fn merge_step(
        &mut self,
        stream: Stream,
        group: &[u32],
        from: u32,
        out: &mut part_writer::PartWriter,
    ) -> Result<Option<u32>> {
        // (key word, part) of every segment; the step ends before `upto`.
        let mut read: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut bytes = 0usize;
        let mut upto: Option<u32> = None;
        for &s in group {
            let start = self.postings_start(stream, s, from)?;
            let end = triple_key(s, u32::MAX, u32::MAX);
            let db = self.dbs.stream(stream, s);
            for item in db.range(&self.txn, &(Included(&start[..]), Included(&end[..])))? {
                let (k, v) = item?;
                let word = split_triple_key(k)?.1;
                if upto.is_some_and(|u| word >= u) {
                    break;
                }
                if upto.is_none() && bytes >= POSTING_STEP_BYTES && word > from {
                    upto = Some(word);
                    break;
                }
                let part = body_blocks::plain(self, Shelf::Postings, v)?;
                bytes += part.len();
                read.push((word, part.to_vec()));
            }
        }
        let in_step = |w: u32| w >= from && upto.is_none_or(|u| w < u);
        let parts = read.iter().map(|(word, part)| (*word, part.as_slice()));
        merge::merge_parts(out, parts, in_step)?;
        let db = self.dbs.stream(stream, out.segment());
        for (key, part) in out.take_done() {
            self.append(db, &key, &part)?;
        }
        Ok(upto)
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
        assert_eq!(
            l.pick_merge(&[], FINAL_PAGES),
            None,
            "seven of tier 2, one of tier 1"
        );
        l.add_pages(200, 100);
        let group = l.pick_merge(&[], FINAL_PAGES).unwrap();
        assert_eq!(group.len(), FANOUT);
        assert_eq!(
            l.pick_merge(&[1], FINAL_PAGES),
            None,
            "a staged merge's source stays"
        );
        assert!(!group.contains(&100));
        // Eight of tier 3: only the smallest that fit in FINAL_PAGES merge,
        // and two that cannot merge under it stay as they are.
        let mut t3 = SegmentList::default();
        for s in 0..FANOUT as u32 {
            t3.add_pages(s, 1000 + i64::from(s));
        }
        assert_eq!(t3.pick_merge(&[], FINAL_PAGES), Some(vec![0, 1, 2, 3]));
        let mut stuck = SegmentList::default();
        for s in 0..FANOUT as u32 {
            stuck.add_pages(s, 2100);
        }
        assert_eq!(stuck.pick_merge(&[], FINAL_PAGES), None);
        let mut big = SegmentList::default();
        for s in 0..20 {
            big.add_pages(s, i64::from(FINAL_PAGES));
        }
        assert_eq!(big.pick_merge(&[], FINAL_PAGES), None);
        big.add_pages(3, -i64::from(FINAL_PAGES));
        assert_eq!(big.ids().count(), 19, "an emptied segment is not live");
        assert_eq!(SegmentList::decode(&big.encode()).unwrap(), big);
        assert!(SegmentList::decode(&[1, 2, 3]).is_err());
    }
}

//! Pair postings: for the stems common in a merged segment (on at least
//! half its pages), how many times each ordered pair of them stands side
//! by side on each page. A phrase of two such words ("nou dubobiquio",
//! both on every page, tens of times each) is then one short list per
//! segment instead of millions of positions decoded and lined up.
//!
//! `pair_postings` holds, per segment, its common stems under the bare
//! segment id, and each pair's `(page, count)` entries (pages with at
//! least one match) under `segment ‖ first stem ‖ second stem ‖ first
//! page`, cut at [`LEAF_VALUE_BYTES`]. Pairs are counted from the
//! segment's own postings when a merge writes a segment of at least
//! [`PAIR_MIN_PAGES`] pages, and dropped with them: when the segment is
//! merged away or loses a page (a page indexed again), so a segment's
//! pairs never disagree with its positions. A segment without pairs is
//! read positionally, as before.

use std::ops::Bound::{Excluded, Included, Unbounded};

use heed::{MdbError, PutFlags, RoTxn, RwTxn};

use super::codec::{self, put_varint, split_triple_key, triple_key, u32_key, VarintReader};
use super::postings;
use super::schema::{Db, PageId, WordId, LEAF_VALUE_BYTES};
use super::sealed::View;
use super::{Result, StoreError};

/// Merged segments this large get pairs: in smaller ones the positional
/// walk is already quick, and they are merged again soon.
pub const PAIR_MIN_PAGES: u32 = if cfg!(test) { 8 } else { 512 };

/// Most stems a segment keeps pairs of (the most frequent): counting holds
/// a counter per ordered pair of them, and marks positions with a byte.
const MOST_STEMS: usize = 128;

/// No page the crawler indexes has a position this far (bodies stop at 8
/// MiB, a token takes two bytes with its separator): the marks of one page
/// stay under 4 MiB.
const MOST_POSITIONS: usize = 1 << 22;

/// A page's matches of one pair.
pub type PairCount = (PageId, u32);

/// A segment's pairs: its common stems (ascending) and each ordered pair
/// that matches somewhere, with its pages in page order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SegmentPairs {
    pub stems: Vec<WordId>,
    pub lists: Vec<((WordId, WordId), Vec<PairCount>)>,
}

fn pair_key(segment: u32, a: WordId, b: WordId, page: PageId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..12].copy_from_slice(&triple_key(segment, a, b));
    k[12..].copy_from_slice(&page.to_be_bytes());
    k
}

/// The stems on at least half of the segment's `pages` (the
/// [`MOST_STEMS`] most frequent of them), ascending, with their positions
/// on each page read from the segment's postings, then lined up page by
/// page.
pub(super) fn count(
    txn: &RoTxn<'_>,
    postings: Db,
    segment: u32,
    pages: u32,
) -> Result<SegmentPairs> {
    let lo = triple_key(segment, 0, 0);
    let hi = triple_key(segment, u32::MAX, u32::MAX);
    let range = (Included(&lo[..]), Included(&hi[..]));
    // The segment's runs, word by word (a word's entries may run on
    // across parts).
    let mut runs: Vec<postings::Run<'_>> = Vec::new();
    for item in postings.range(txn, &range)? {
        let (k, part) = item?;
        for run in postings::runs(split_triple_key(k)?.1, part) {
            runs.push(run?);
        }
    }
    // Each word's pages, counted only where its runs are long enough to
    // hold half the pages (an entry takes two bytes or more): most words
    // are rare, and passing their runs unread is most of the work saved.
    let mut df: Vec<(WordId, u32)> = Vec::new();
    for word_runs in runs.chunk_by(|x, y| x.word == y.word) {
        let bytes: usize = word_runs.iter().map(|r| r.bytes.len()).sum();
        if (bytes as u64) < u64::from(pages) {
            continue;
        }
        let mut n = 0u32;
        for e in word_runs.iter().flat_map(postings::Run::entries) {
            e?;
            n += 1;
        }
        if u64::from(n) * 2 >= u64::from(pages) {
            df.push((word_runs[0].word, n));
        }
    }
    df.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    df.truncate(MOST_STEMS);
    let mut stems: Vec<WordId> = df.into_iter().map(|(w, _)| w).collect();
    stems.sort_unstable();
    // Each common stem's entries, in page order, positions still encoded.
    let mut entries: Vec<Vec<postings::Entry<'_>>> = vec![Vec::new(); stems.len()];
    for run in &runs {
        if let Ok(i) = stems.binary_search(&run.word) {
            for e in run.entries() {
                entries[i].push(e?);
            }
        }
    }
    // Then page by page: each common position marks its stem in `slot`,
    // and each one whose next position is marked counts for that pair.
    let n = stems.len();
    let mut counts = vec![0u32; n * n];
    let mut touched: Vec<usize> = Vec::new();
    let mut lists: Vec<Vec<PairCount>> = vec![Vec::new(); n * n];
    let mut cursors = vec![0usize; n];
    let mut at: Vec<(usize, usize)> = Vec::new();
    // Stem + 1 at each marked position (0: none), cleared after each page.
    let mut slot: Vec<u8> = Vec::new();
    while let Some(page) = (0..n)
        .filter_map(|i| entries[i].get(cursors[i]).map(|e| e.page))
        .min()
    {
        at.clear();
        for (stem, (list, cursor)) in entries.iter().zip(cursors.iter_mut()).enumerate() {
            if let Some(e) = list.get(*cursor).filter(|e| e.page == page) {
                *cursor += 1;
                e.encoded_positions().decode(|p| {
                    at.push((p as usize, stem));
                    true
                })?;
            }
        }
        let last = at.iter().map(|&(p, _)| p).max().unwrap_or(0);
        if last >= MOST_POSITIONS {
            // Not from this crawler: such a segment keeps no pairs (and
            // is read from positions, as any other without).
            return Ok(SegmentPairs::default());
        }
        if slot.len() < last + 2 {
            slot.resize(last + 2, 0);
        }
        // MOST_STEMS keeps stem + 1 within a byte.
        for &(p, stem) in &at {
            slot[p] = stem as u8 + 1;
        }
        for &(p, a) in &at {
            if let Some(b) = usize::from(slot[p + 1]).checked_sub(1) {
                let i = a * n + b;
                if counts[i] == 0 {
                    touched.push(i);
                }
                counts[i] += 1;
            }
        }
        for &(p, _) in &at {
            slot[p] = 0;
        }
        for &i in &touched {
            lists[i].push((page, counts[i]));
            counts[i] = 0;
        }
        touched.clear();
    }
    let lists = lists
        .into_iter()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| ((stems[i / n], stems[i % n]), l))
        .collect();
    Ok(SegmentPairs { stems, lists })
}

/// Writes a segment's pairs (it has none yet). The segment's keys come
/// after every other segment's when it is the newest: appended, so
/// leaves fill.
pub(super) fn write(txn: &mut RwTxn<'_>, db: Db, segment: u32, pairs: &SegmentPairs) -> Result<()> {
    let mut stems = Vec::new();
    codec::put_u32_list(&mut stems, &pairs.stems);
    put_appending(txn, db, &u32_key(segment), &stems)?;
    for &((a, b), ref list) in &pairs.lists {
        let mut rest = &list[..];
        while let Some(&(first, _)) = rest.first() {
            let mut value = Vec::new();
            let mut prev = first;
            let mut taken = 0;
            for &(page, n) in rest {
                if value.len() >= LEAF_VALUE_BYTES {
                    break;
                }
                // Most pairs match once on a page: the flag beside the
                // page delta saves that count's byte.
                put_varint(&mut value, u64::from(page - prev) << 1 | u64::from(n != 1));
                if n != 1 {
                    put_varint(&mut value, u64::from(n));
                }
                prev = page;
                taken += 1;
            }
            put_appending(txn, db, &pair_key(segment, a, b, first), &value)?;
            rest = &rest[taken..];
        }
    }
    Ok(())
}

fn put_appending(txn: &mut RwTxn<'_>, db: Db, key: &[u8], value: &[u8]) -> Result<()> {
    match db.put_with_flags(txn, PutFlags::APPEND, key, value) {
        // Not past the table's last key (an upgrade of segments out of
        // order): an ordinary put.
        Err(heed::Error::Mdb(MdbError::KeyExist)) => db.put(txn, key, value)?,
        done => done?,
    }
    Ok(())
}

/// Removes a segment's pairs (nothing when it has none).
pub(super) fn drop(txn: &mut RwTxn<'_>, db: Db, segment: u32) -> Result<()> {
    let lo = u32_key(segment);
    let hi = segment.checked_add(1).map(u32_key);
    let hi = match &hi {
        Some(h) => Excluded(&h[..]),
        None => Unbounded,
    };
    db.delete_range(txn, &(Included(&lo[..]), hi))?;
    Ok(())
}

/// Pair look-ups for readers.
pub trait PairRead: View {
    /// The stems a segment keeps pairs of (None: it keeps none).
    fn pair_stems(&self, segment: u32) -> Result<Option<Vec<WordId>>> {
        self.dbs()
            .pair_postings
            .get(self.txn(), &u32_key(segment))?
            .map(|v| codec::read_u32_list(&mut VarintReader::new(v)))
            .transpose()
    }

    /// The pages of `segment` where `b` follows `a`, with how many times,
    /// appended to `out` in page order (both must be among the segment's
    /// [`PairRead::pair_stems`]).
    fn pair_counts(
        &self,
        segment: u32,
        a: WordId,
        b: WordId,
        out: &mut Vec<PairCount>,
    ) -> Result<()> {
        let lo = pair_key(segment, a, b, 0);
        let hi = pair_key(segment, a, b, PageId::MAX);
        for item in self
            .dbs()
            .pair_postings
            .range(self.txn(), &(Included(&lo[..]), Included(&hi[..])))?
        {
            let (k, v) = item?;
            let first = k
                .get(12..)
                .map(codec::read_u32)
                .transpose()?
                .ok_or_else(|| StoreError::corrupt("pair key is not 16 bytes"))?;
            decode_list(first, v, out)?;
        }
        Ok(())
    }

    /// Every segment's pairs as stored, in segment order: for `check`.
    fn stored_pairs(&self) -> Result<Vec<(u32, SegmentPairs)>> {
        let mut out: Vec<(u32, SegmentPairs)> = Vec::new();
        for item in self.dbs().pair_postings.iter(self.txn())? {
            let (k, v) = item?;
            if k.len() == 4 {
                let stems = codec::read_u32_list(&mut VarintReader::new(v))?;
                let pairs = SegmentPairs {
                    stems,
                    lists: Vec::new(),
                };
                out.push((codec::read_u32(k)?, pairs));
                continue;
            }
            if k.len() != 16 {
                return Err(StoreError::corrupt("pair key is neither 4 nor 16 bytes"));
            }
            let (segment, a, b) = split_triple_key(&k[..12])?;
            let first = codec::read_u32(&k[12..])?;
            if out.last().is_none_or(|(s, _)| *s != segment) {
                // Lists without their stems: as if it kept none, which
                // `check` then finds disagrees with the lists.
                out.push((segment, SegmentPairs::default()));
            }
            let Some((_, pairs)) = out.last_mut() else {
                continue;
            };
            if pairs.lists.last().is_none_or(|(pair, _)| *pair != (a, b)) {
                pairs.lists.push(((a, b), Vec::new()));
            }
            if let Some((_, list)) = pairs.lists.last_mut() {
                decode_list(first, v, list)?;
            }
        }
        Ok(out)
    }
}

impl<T: View + ?Sized> PairRead for T {}

fn decode_list(first: PageId, v: &[u8], out: &mut Vec<PairCount>) -> Result<()> {
    let mut r = VarintReader::new(v);
    let mut page = first;
    while !r.is_empty() {
        let head = r.next_u64()?;
        page = u32::try_from(head >> 1)
            .ok()
            .and_then(|d| page.checked_add(d))
            .ok_or_else(|| StoreError::corrupt("page id overflow in pair postings"))?;
        let n = if head & 1 == 1 { r.next_u32()? } else { 1 };
        out.push((page, n));
    }
    Ok(())
}

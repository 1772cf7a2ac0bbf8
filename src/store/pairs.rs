//! Pair postings: for the stems common in a merged segment (on at least
//! half its pages), how many times each ordered pair of them stands side
//! by side on each page. A phrase of two such words ("nou dubobiquio",
//! both on every page, tens of times each) is then one short list per
//! segment instead of millions of positions decoded and lined up.
//!
//! `pair_postings` holds, per segment, its common stems under the bare
//! segment id, and each pair's `(page, count)` entries (pages with at
//! least one match) in records of one first stem: runs of `second stem,
//! length, entries`, cut at [`LEAF_VALUE_BYTES`] and keyed `segment ‖
//! first stem ‖ second stem ‖ page` of the record's first entry (a record
//! each for the ~5,800 lists of a segment, most of them a few pages long,
//! cost more in keys and LMDB nodes than in entries). Pairs are counted
//! from the segment's own postings when a merge writes a segment of at least
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

/// A segment's pairs, counted from its postings: the stems on at least
/// half of its `pages` (the [`MOST_STEMS`] most frequent of them),
/// ascending, and for each ordered pair of them the pages where they
/// stand side by side, with how many times. Used by the merge that writes
/// the segment, the upgrade and `check`.
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
    // The record being filled: its key and its runs so far.
    let mut open: Option<([u8; 16], Vec<u8>)> = None;
    for &((a, b), ref list) in &pairs.lists {
        if open
            .as_ref()
            .is_some_and(|(key, _)| key[4..8] != a.to_be_bytes())
        {
            flush(txn, db, open.take())?;
        }
        let mut rest = &list[..];
        while let Some(&(first, _)) = rest.first() {
            let (_, value) =
                open.get_or_insert_with(|| (pair_key(segment, a, b, first), Vec::new()));
            let mut run = Vec::new();
            let mut prev = 0;
            let mut taken = 0;
            for &(page, n) in rest {
                if value.len() + run.len() >= LEAF_VALUE_BYTES {
                    break;
                }
                // Most pairs match once on a page: the flag beside the
                // page delta saves that count's byte.
                put_varint(&mut run, u64::from(page - prev) << 1 | u64::from(n != 1));
                if n != 1 {
                    put_varint(&mut run, u64::from(n));
                }
                prev = page;
                taken += 1;
            }
            if taken == 0 {
                // The record is full before this run's first entry.
                flush(txn, db, open.take())?;
                continue;
            }
            put_varint(value, u64::from(b));
            put_varint(value, run.len() as u64);
            value.extend_from_slice(&run);
            // What is left of the list (the record is full) starts the next.
            rest = &rest[taken..];
        }
    }
    flush(txn, db, open.take())
}

fn flush(txn: &mut RwTxn<'_>, db: Db, record: Option<([u8; 16], Vec<u8>)>) -> Result<()> {
    match record {
        Some((key, value)) => put_appending(txn, db, &key, &value),
        None => Ok(()),
    }
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
        let db = self.dbs().pair_postings;
        let want = pair_key(segment, a, b, 0);
        // The list may start inside the record of an earlier second word.
        let start = match db.get_lower_than_or_equal_to(self.txn(), &want)? {
            Some((k, _)) if k.len() == 16 && k[..8] == want[..8] => k.to_vec(),
            _ => want.to_vec(),
        };
        let end = pair_key(segment, a, b, PageId::MAX);
        for item in db.range(self.txn(), &(Included(&start[..]), Included(&end[..])))? {
            let (_, v) = item?;
            for run in runs(v) {
                let (second, entries) = run?;
                if second > b {
                    return Ok(());
                }
                if second == b {
                    decode_run(entries, out)?;
                }
            }
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
            let (segment, a, _) = split_triple_key(&k[..12])?;
            if out.last().is_none_or(|(s, _)| *s != segment) {
                // Lists without their stems: as if it kept none, which
                // `check` then finds disagrees with the lists.
                out.push((segment, SegmentPairs::default()));
            }
            let Some((_, pairs)) = out.last_mut() else {
                continue;
            };
            for run in runs(v) {
                let (b, entries) = run?;
                if pairs.lists.last().is_none_or(|(pair, _)| *pair != (a, b)) {
                    pairs.lists.push(((a, b), Vec::new()));
                }
                if let Some((_, list)) = pairs.lists.last_mut() {
                    decode_run(entries, list)?;
                }
            }
        }
        Ok(out)
    }
}

impl<T: View + ?Sized> PairRead for T {}

/// A record's runs: (second word, its entries).
fn runs(v: &[u8]) -> impl Iterator<Item = Result<(WordId, &[u8])>> {
    let mut r = VarintReader::new(v);
    std::iter::from_fn(move || {
        if r.is_empty() {
            return None;
        }
        let run = (|| {
            let second = r.next_u32()?;
            let len = usize::try_from(r.next_u64()?).unwrap_or(usize::MAX);
            let rest = r.remaining();
            if len > rest.len() {
                return Err(StoreError::corrupt("pair run overruns its record"));
            }
            let (entries, after) = rest.split_at(len);
            r = VarintReader::new(after);
            Ok((second, entries))
        })();
        if run.is_err() {
            // Stop after a failure.
            r = VarintReader::new(&[]);
        }
        Some(run)
    })
}

/// A run's entries: pages from 0 by delta, each with its count.
fn decode_run(v: &[u8], out: &mut Vec<PairCount>) -> Result<()> {
    let mut r = VarintReader::new(v);
    let mut page: PageId = 0;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn lists_cut_across_records_and_shared_ones_read_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("open");
        let mut seed = 3u64;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) % n
        };
        // Lists of 1 to 3,000 pages, some counts past a byte: several
        // share a record, long ones run on across records.
        let mut lists = Vec::new();
        for a in [3, 9] {
            for b in [1, 2, 4, 5, 7] {
                let len = [1, 3, 40, 700, 3000][next(5) as usize];
                let mut page = next(1000) as PageId;
                let list: Vec<PairCount> = (0..len)
                    .map(|_| {
                        page += 1 + next(300) as PageId;
                        (page, [1, 1, 2, 300][next(4) as usize])
                    })
                    .collect();
                lists.push(((a, b), list));
            }
        }
        let pairs = SegmentPairs {
            stems: vec![1, 2, 3, 4, 5, 7, 9],
            lists,
        };
        store
            .update(|w| {
                write(&mut w.txn, w.dbs.pair_postings, 6, &pairs)?;
                // Another segment's, before and after, must not leak in.
                let other = SegmentPairs {
                    stems: vec![3],
                    lists: vec![((3, 3), vec![(1, 1)])],
                };
                write(&mut w.txn, w.dbs.pair_postings, 5, &other)?;
                write(&mut w.txn, w.dbs.pair_postings, 7, &other)
            })
            .expect("write");
        let r = store.read().expect("read");
        let records = r.dbs.pair_postings.len(&r.txn).expect("len");
        assert!(records > 12, "{records} records: lists were not cut");
        for ((a, b), list) in &pairs.lists {
            let mut got = Vec::new();
            r.pair_counts(6, *a, *b, &mut got).expect("read");
            assert_eq!(&got, list, "({a}, {b})");
        }
        let mut none = Vec::new();
        r.pair_counts(6, 3, 3, &mut none).expect("read");
        r.pair_counts(6, 9, 6, &mut none).expect("read");
        assert!(none.is_empty());
        let stored = r.stored_pairs().expect("stored");
        assert_eq!(stored.len(), 3);
        assert_eq!(stored[1], (6, pairs));
    }
}

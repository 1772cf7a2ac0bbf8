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
//! [`PAIR_MIN_PAGES`] pages. A page that leaves the segment (indexed again
//! elsewhere, or removed) joins the segment's gone pages, kept with its
//! stems, and is left out of every list read from then on; the pairs go
//! when the segment is merged away or loses its last page. So a segment's
//! pairs never disagree with its positions. A segment without pairs is
//! read positionally, as before.

use std::ops::Bound::{Excluded, Included, Unbounded};

use heed::{RoTxn, RwTxn};

use super::run;
use crate::body_blocks::{BlockCache, Shelf};
use crate::codec::{self, put_varint, split_triple_key, triple_key, u32_key, VarintReader};
use crate::schema::{Db, Dbs, PageId, Stream, WordId, LEAF_VALUE_BYTES};
use crate::sealed::{by_id, put_appending, View};
use crate::{Result, StoreError};

/// Merged segments this large get pairs (the default of
/// [`crate::StoreOptions::pair_min_pages`]): in smaller ones the
/// positional walk is already quick, and they are merged again soon.
pub const PAIR_MIN_PAGES: u32 = 512;

/// Most stems a segment keeps pairs of (the most frequent): counting holds
/// a counter per ordered pair of them, and marks positions with a byte.
const MOST_STEMS: usize = 128;

/// No page the crawler indexes has a position this far (bodies stop at 8
/// MiB, a token takes two bytes with its separator): the marks of one page
/// stay under 4 MiB.
const MOST_POSITIONS: usize = 1 << 22;

/// A page's matches of one pair.
pub type PairCount = (PageId, u32);

/// A segment's pairs: what they answer, and each ordered pair that
/// matches somewhere, with its pages in page order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SegmentPairs {
    pub kept: Kept,
    pub lists: Vec<PairList>,
}

/// An ordered pair of stems and its pages.
pub type PairList = ((WordId, WordId), Vec<PairCount>);

/// What a segment's pairs answer: phrases of two of its common `stems`
/// (ascending), less the pages in `gone` (ascending: those that left the
/// segment since its pairs were counted).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Kept {
    pub stems: Vec<WordId>,
    pub gone: Vec<PageId>,
}

impl Kept {
    fn decode(v: &[u8]) -> Result<Kept> {
        let mut r = VarintReader::new(v);
        Ok(Kept {
            stems: codec::read_u32_list(&mut r)?,
            gone: codec::read_u32_list(&mut r)?,
        })
    }

    fn encode(&self) -> Vec<u8> {
        let mut v = Vec::new();
        codec::put_u32_list(&mut v, &self.stems);
        codec::put_u32_list(&mut v, &self.gone);
        v
    }

    /// Whether the segment keeps pairs of `stem`.
    pub fn holds(&self, stem: WordId) -> bool {
        self.stems.binary_search(&stem).is_ok()
    }
}

fn pair_key(segment: u32, a: WordId, b: WordId, page: PageId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..12].copy_from_slice(&triple_key(segment, a, b));
    k[12..].copy_from_slice(&page.to_be_bytes());
    k
}

/// Counts a segment's pairs from its postings and writes them (it has
/// none yet): the stems on at least half of its `pages` (the
/// [`MOST_STEMS`] most frequent of them) and, for each ordered pair of
/// them, the pages where they stand side by side, with how many times.
/// For the merge that writes the segment (its writer's `blocks`).
pub(crate) fn build(
    txn: &mut RwTxn<'_>,
    dbs: &Dbs,
    blocks: &BlockCache,
    segment: u32,
    pages: u32,
) -> Result<()> {
    let counted = {
        let runs = segment_runs(txn, dbs, blocks, segment)?;
        let stems = common_stems(&runs, pages)?;
        match count_pairs(&runs, &stems)? {
            Some(lists) => SegmentPairs {
                kept: Kept {
                    stems,
                    gone: Vec::new(),
                },
                lists,
            },
            // Such a segment keeps no pairs and is read from positions,
            // as any other without.
            None => SegmentPairs::default(),
        }
    };
    write(txn, dbs.pair_postings, segment, &counted)
}

/// The pairs of `stems` in a segment as its postings are now: what its
/// stored pairs must read as (`check`).
pub(crate) fn recount<V: View + ?Sized>(
    v: &V,
    segment: u32,
    stems: &[WordId],
) -> Result<Option<Vec<PairList>>> {
    let runs = segment_runs(v.txn(), v.dbs(), v.block_cache(), segment)?;
    count_pairs(&runs, stems)
}

/// A segment's posting runs, word by word (a word's entries may run on
/// across parts), read through `blocks` (a view's).
fn segment_runs<'t>(
    txn: &'t RoTxn<'_>,
    dbs: &Dbs,
    blocks: &'t BlockCache,
    segment: u32,
) -> Result<Vec<run::Run<'t>>> {
    let lo = triple_key(segment, 0, 0);
    let hi = triple_key(segment, u32::MAX, u32::MAX);
    let mut runs = Vec::new();
    for item in dbs
        .stream(Stream::Body, segment)
        .range(txn, &(Included(&lo[..]), Included(&hi[..])))?
    {
        let (k, stored) = item?;
        let part = blocks.plain(txn, dbs, Shelf::Postings, stored)?;
        for run in run::runs(split_triple_key(k)?.1, part) {
            runs.push(run?);
        }
    }
    Ok(runs)
}

/// The stems on at least half of `pages`, the [`MOST_STEMS`] most
/// frequent of them, ascending.
fn common_stems(runs: &[run::Run<'_>], pages: u32) -> Result<Vec<WordId>> {
    // Each word's pages, counted only where its runs are long enough to
    // hold half the pages: most words are rare, and passing their runs
    // unread is most of the work saved. A bit-coded entry takes two bits
    // or more (a gap and a position or flag), so `bytes` hold at most
    // `4 * bytes` entries, and half the pages need `8 * bytes >= pages`.
    let mut df: Vec<(WordId, u32)> = Vec::new();
    for word_runs in runs.chunk_by(|x, y| x.word == y.word) {
        let bytes: usize = word_runs.iter().map(|r| r.bytes.len()).sum();
        if 8 * (bytes as u64) < u64::from(pages) {
            continue;
        }
        let mut n = 0u32;
        for e in word_runs.iter().flat_map(run::Run::entries) {
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
    Ok(stems)
}

/// Each ordered pair of `stems` (ascending) that stands side by side on
/// some page of `runs`, with those pages and how many times (None: a page
/// reaches past [`MOST_POSITIONS`]).
fn count_pairs(runs: &[run::Run<'_>], stems: &[WordId]) -> Result<Option<Vec<PairList>>> {
    if stems.len() > MOST_STEMS {
        return Err(StoreError::corrupt(
            "a segment keeps pairs of too many stems",
        ));
    }
    // Each common stem's entries, in page order, positions still encoded.
    let mut entries: Vec<Vec<run::Entry<'_>>> = vec![Vec::new(); stems.len()];
    for run in runs {
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
            // Not from this crawler.
            return Ok(None);
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
    Ok(Some(
        lists
            .into_iter()
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .map(|(i, l)| ((stems[i / n], stems[i % n]), l))
            .collect(),
    ))
}

/// Writes a segment's pairs (it has none yet). The segment's keys come
/// after every other segment's when it is the newest: appended, so
/// leaves fill.
pub(crate) fn write(txn: &mut RwTxn<'_>, db: Db, segment: u32, pairs: &SegmentPairs) -> Result<()> {
    write_kept(txn, db, segment, &pairs.kept)?;
    write_lists(txn, db, segment, &pairs.lists)
}

/// Writes what a segment's pairs answer (its lists follow).
pub(crate) fn write_kept(txn: &mut RwTxn<'_>, db: Db, segment: u32, kept: &Kept) -> Result<()> {
    put_appending(txn, db, &u32_key(segment), &kept.encode())
}

/// Writes pair lists of a segment, in pair order, after any it has of
/// earlier first stems.
pub(crate) fn write_lists(
    txn: &mut RwTxn<'_>,
    db: Db,
    segment: u32,
    lists: &[PairList],
) -> Result<()> {
    // The record being filled: its key and its runs so far.
    let mut open: Option<([u8; 16], Vec<u8>)> = None;
    for &((a, b), ref list) in lists {
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

/// Notes that `page` left `segment` (indexed again elsewhere, or
/// removed): its entries in the segment's pairs no longer count. Rewriting
/// every list that names it would cost more than the page.
pub(crate) fn forget_page(txn: &mut RwTxn<'_>, db: Db, segment: u32, page: PageId) -> Result<()> {
    let key = u32_key(segment);
    let Some(v) = db.get(txn, &key)? else {
        return Ok(());
    };
    let mut kept = Kept::decode(v)?;
    if let Err(at) = kept.gone.binary_search(&page) {
        kept.gone.insert(at, page);
        db.put(txn, &key, &kept.encode())?;
    }
    Ok(())
}

/// Removes a segment's pairs (nothing when it has none).
pub(crate) fn drop(txn: &mut RwTxn<'_>, db: Db, segment: u32) -> Result<()> {
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
    /// What a segment's pairs answer (None: it keeps none).
    fn pairs_kept(&self, segment: u32) -> Result<Option<Kept>> {
        by_id(self, self.dbs().pair_postings, segment, Kept::decode)
    }

    /// The pages of `segment` where `b` follows `a`, with how many times,
    /// appended to `out` in page order (both must be among the stems the
    /// segment's pairs keep, `kept`, whose gone pages are left out).
    fn pair_counts(
        &self,
        segment: u32,
        kept: &Kept,
        (a, b): (WordId, WordId),
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
                    decode_run(entries, &kept.gone, out)?;
                }
            }
        }
        Ok(())
    }

    /// Every segment's pairs as stored, in segment order, read as a phrase
    /// reads them (gone pages left out): for `check`.
    fn stored_pairs(&self) -> Result<Vec<(u32, SegmentPairs)>> {
        let mut out: Vec<(u32, SegmentPairs)> = Vec::new();
        for item in self.dbs().pair_postings.iter(self.txn())? {
            let (k, v) = item?;
            if k.len() == 4 {
                let pairs = SegmentPairs {
                    kept: Kept::decode(v)?,
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
                    decode_run(entries, &pairs.kept.gone, list)?;
                }
            }
        }
        for (_, pairs) in &mut out {
            pairs.lists.retain(|(_, list)| !list.is_empty());
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

/// A run's entries but those of `gone` pages: pages from 0 by delta,
/// each with its count.
fn decode_run(v: &[u8], gone: &[PageId], out: &mut Vec<PairCount>) -> Result<()> {
    let mut r = VarintReader::new(v);
    let mut page: PageId = 0;
    while !r.is_empty() {
        let head = r.next_u64()?;
        page = u32::try_from(head >> 1)
            .ok()
            .and_then(|d| page.checked_add(d))
            .ok_or_else(|| StoreError::corrupt("page id overflow in pair postings"))?;
        let n = if head & 1 == 1 { r.next_u32()? } else { 1 };
        if gone.binary_search(&page).is_err() {
            out.push((page, n));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverted::part_writer;
    use crate::Store;

    #[test]
    fn a_stem_on_half_the_pages_is_common_however_few_bits_its_entries_take() {
        // Every other page of 600, position 0: three bits an entry.
        let mut writer = part_writer::PartWriter::new(1);
        for page in (0..600).step_by(2) {
            writer.push_positions(7, page, &[0], 0).expect("in order");
        }
        writer.push_positions(8, 5, &[0], 0).expect("in order");
        let parts = writer.finish();
        let mut runs = Vec::new();
        for (k, part) in &parts {
            let word = split_triple_key(k).expect("key").1;
            runs.extend(run::runs(word, part).map(|r| r.expect("run")));
        }
        let bytes: usize = runs
            .iter()
            .filter(|r| r.word == 7)
            .map(|r| r.bytes.len())
            .sum();
        assert!(bytes < 600, "fewer bytes than pages: {bytes}");
        assert_eq!(common_stems(&runs, 600).expect("runs"), vec![7]);
        assert_eq!(
            common_stems(&runs, 602).expect("runs"),
            Vec::<WordId>::new()
        );
    }

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
            kept: Kept {
                stems: vec![1, 2, 3, 4, 5, 7, 9],
                gone: Vec::new(),
            },
            lists,
        };
        store
            .update(|w| {
                write(&mut w.txn, w.dbs.pair_postings, 6, &pairs)?;
                // Another segment's, before and after, must not leak in.
                let other = SegmentPairs {
                    kept: Kept {
                        stems: vec![3],
                        gone: Vec::new(),
                    },
                    lists: vec![((3, 3), vec![(1, 1)])],
                };
                write(&mut w.txn, w.dbs.pair_postings, 5, &other)?;
                write(&mut w.txn, w.dbs.pair_postings, 7, &other)
            })
            .expect("write");
        let r = store.read().expect("read");
        let records = r.dbs.pair_postings.len(&r.txn).expect("len");
        assert!(records > 12, "{records} records: lists were not cut");
        let kept = r.pairs_kept(6).expect("read").expect("kept");
        for (pair, list) in &pairs.lists {
            let mut got = Vec::new();
            r.pair_counts(6, &kept, *pair, &mut got).expect("read");
            assert_eq!(&got, list, "{pair:?}");
        }
        let mut none = Vec::new();
        r.pair_counts(6, &kept, (3, 3), &mut none).expect("read");
        r.pair_counts(6, &kept, (9, 6), &mut none).expect("read");
        assert!(none.is_empty());
        let stored = r.stored_pairs().expect("stored");
        assert_eq!(stored.len(), 3);
        assert_eq!(stored[1], (6, pairs));
    }
}

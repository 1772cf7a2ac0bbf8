//! Body postings in blocks: the postings of one word from one *segment*
//! (what one write transaction indexed, or several segments merged),
//! sorted by page and cut into parts of at most [`PART_BYTES`], under
//! `segment ‖ word id ‖ first page` (big-endian). A part holds, for each
//! of its pages, `page delta << 1 | several`, then either the one
//! position (tf 1: seven entries in eight on a real site) or `tf, byte
//! length, position deltas`, so a tf-only scan skips the positions.
//!
//! The segment leads the key so that each transaction's postings are
//! appended at the end of the B-tree: a commit copies only the pages it
//! filled, however large the index has grown (with the word first, every
//! batch touched leaves across the whole table, and each commit copied
//! more of it the larger the crawl). [`super::segments`] keeps the list of
//! live segments and merges them, so a word is read from a few.
//!
//! A page's postings live in one segment, which its forward record names
//! (through the merges since); the part holding a page is found with one
//! seek on `segment ‖ word ‖ page`.

use rustc_hash::FxHashMap as HashMap;

use super::codec::{self, put_varint, VarintReader};
use super::schema::{PageId, WordId};
use super::segments::SegmentList;
use super::{Result, StoreError};

/// Largest part: LMDB keeps values up to about 2 KiB inside its 4 KiB
/// leaf pages; anything larger takes whole overflow pages.
pub const PART_BYTES: usize = 1900;

pub fn part_key(segment: u32, word: WordId, first_page: PageId) -> [u8; 12] {
    codec::triple_key(segment, word, first_page)
}

/// Appends one page's posting to a pending (unsorted) block; `page` is
/// stored whole, as the delta from 0.
pub fn push_entry(block: &mut Vec<u8>, page: PageId, positions: &[u32]) {
    if let [only] = positions {
        put_head(block, page, 1, 0);
        put_varint(block, u64::from(*only));
        return;
    }
    // The byte length comes first, so measure the deltas before writing.
    let mut len = 0u64;
    let mut prev = 0u32;
    for &p in positions {
        len += varint_len(p.wrapping_sub(prev));
        prev = p;
    }
    put_head(block, page, positions.len() as u32, len);
    let mut prev = 0u32;
    for &p in positions {
        put_varint(block, u64::from(p.wrapping_sub(prev)));
        prev = p;
    }
}

/// An entry's head: the page (or its delta) with a flag for "more than
/// one position", then tf and byte length only when flagged: a lone
/// position is one varint, which delimits itself.
fn put_head(out: &mut Vec<u8>, page: PageId, tf: u32, len: u64) {
    let several = tf != 1;
    put_varint(out, u64::from(page) << 1 | u64::from(several));
    if several {
        put_varint(out, u64::from(tf));
        put_varint(out, len);
    }
}

fn varint_len(v: u32) -> u64 {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0x0fff_ffff => 4,
        _ => 5,
    }
}

/// One decoded entry; positions stay encoded until asked for.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub page: PageId,
    pub tf: u32,
    raw_positions: &'a [u8],
}

impl Entry<'_> {
    pub fn positions(&self) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(self.tf as usize);
        self.positions_into(&mut out)?;
        Ok(out)
    }

    /// Decodes the positions into `out` (cleared first), so a scan can
    /// reuse one buffer.
    pub fn positions_into(&self, out: &mut Vec<u32>) -> Result<()> {
        out.clear();
        let mut r = VarintReader::new(self.raw_positions);
        let mut prev = 0u32;
        for _ in 0..self.tf {
            prev = prev
                .checked_add(r.next_u32()?)
                .ok_or_else(|| StoreError::corrupt("position overflow"))?;
            out.push(prev);
        }
        Ok(())
    }
}

/// Iterates the entries of a block, failing on malformed bytes. Stored
/// parts carry page deltas; pending blocks carry whole page ids.
pub struct Entries<'a> {
    rest: &'a [u8],
    delta: bool,
    prev: PageId,
}

/// Entries of a stored part (page ids as deltas).
pub fn entries(part: &[u8]) -> Entries<'_> {
    Entries {
        rest: part,
        delta: true,
        prev: 0,
    }
}

fn pending_entries(block: &[u8]) -> Entries<'_> {
    Entries {
        rest: block,
        delta: false,
        prev: 0,
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        Some(self.read_one())
    }
}

impl<'a> Entries<'a> {
    fn read_one(&mut self) -> Result<Entry<'a>> {
        let mut r = VarintReader::new(self.rest);
        let head = r.next_u64()?;
        let mut page = u32::try_from(head >> 1)
            .map_err(|_| StoreError::corrupt("page id overflow in a posting part"))?;
        if self.delta {
            page = self
                .prev
                .checked_add(page)
                .ok_or_else(|| StoreError::corrupt("page id overflow in a posting part"))?;
            self.prev = page;
        }
        if head & 1 == 0 {
            let raw_positions = r.next_raw().inspect_err(|_| self.rest = &[])?;
            self.rest = r.remaining();
            return Ok(Entry {
                page,
                tf: 1,
                raw_positions,
            });
        }
        let tf = r.next_u32()?;
        let len = r.next_u64()? as usize;
        let after_head = r.remaining();
        if len > after_head.len() {
            self.rest = &[];
            return Err(StoreError::corrupt(
                "posting block entry overruns its block",
            ));
        }
        // Every position takes at least one byte: a larger tf is a lie
        // that would otherwise make `positions` reserve gigabytes.
        if tf as usize > len {
            self.rest = &[];
            return Err(StoreError::corrupt("posting tf exceeds its positions"));
        }
        let (raw_positions, rest) = after_head.split_at(len);
        self.rest = rest;
        Ok(Entry {
            page,
            tf,
            raw_positions,
        })
    }
}

/// A stored part: the first page of it (its key's last field) and bytes.
pub type Part = (PageId, Vec<u8>);

/// Sorts a pending block by page and cuts it into stored parts.
pub fn into_parts(pending: &[u8]) -> Result<Vec<Part>> {
    let mut list: Vec<Entry<'_>> = pending_entries(pending).collect::<Result<_>>()?;
    list.sort_unstable_by_key(|e| e.page);
    Ok(encode_parts(&list))
}

/// One word's stored parts from several segments (which never share a
/// page) as the parts of one block.
pub fn merge_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> Result<Vec<Part>> {
    let mut list = Vec::new();
    for part in parts {
        for e in entries(part) {
            list.push(e?);
        }
    }
    list.sort_unstable_by_key(|e| e.page);
    Ok(encode_parts(&list))
}

fn encode_parts(list: &[Entry<'_>]) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut part = Vec::new();
    let mut first = 0u32;
    let mut prev = 0u32;
    for e in list {
        if part.len() >= PART_BYTES {
            parts.push((first, std::mem::take(&mut part)));
            prev = 0;
        }
        if part.is_empty() {
            first = e.page;
        }
        put_head(&mut part, e.page - prev, e.tf, e.raw_positions.len() as u64);
        prev = e.page;
        part.extend_from_slice(e.raw_positions);
    }
    if !part.is_empty() {
        parts.push((first, part));
    }
    parts
}

/// A part as schemas 6 and before wrote it (`page delta, tf, byte length,
/// positions` for every entry) in this layout, for the upgrade.
pub fn part_from_schema_6(old: &[u8]) -> Result<Vec<u8>> {
    let mut r = VarintReader::new(old);
    let mut out = Vec::with_capacity(old.len());
    while !r.is_empty() {
        let delta = r.next_u32()?;
        let tf = r.next_u32()?;
        let len = r.next_u64()?;
        let positions = r.take(len)?;
        if tf == 1 && VarintReader::new(positions).next_raw()?.len() != positions.len() {
            return Err(StoreError::corrupt(
                "posting of tf 1 holds other than one position",
            ));
        }
        put_head(&mut out, delta, tf, len);
        out.extend_from_slice(positions);
    }
    Ok(out)
}

/// A stored part without one page's entry (empty when it was the last).
pub fn part_without_page(part: &[u8], page: PageId) -> Result<Vec<u8>> {
    let kept: Vec<Entry<'_>> = entries(part)
        .filter(|e| e.as_ref().is_err() || e.as_ref().is_ok_and(|e| e.page != page))
        .collect::<Result<_>>()?;
    Ok(encode_parts(&kept)
        .into_iter()
        .flat_map(|(_, bytes)| bytes)
        .collect())
}

/// A pending block without one page's entry.
pub fn pending_without_page(block: &[u8], page: PageId) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(block.len());
    for e in pending_entries(block) {
        let e = e?;
        if e.page != page {
            put_head(&mut out, e.page, e.tf, e.raw_positions.len() as u64);
            out.extend_from_slice(e.raw_positions);
        }
    }
    Ok(out)
}

/// What one write transaction accumulates before it commits: the blocks of
/// its segment and the doc-freq changes, written once each at the end.
#[derive(Default)]
pub struct Pending {
    pub segment: Option<u32>,
    /// Pages indexed in `segment` by this transaction.
    pub segment_pages: u32,
    /// The live segments, once this transaction changed them.
    pub segments: Option<SegmentList>,
    /// Bodies of this transaction's pages.
    pub bodies: super::bodies::PendingBodies,
    pub blocks: HashMap<WordId, Vec<u8>>,
    pub doc_freq: HashMap<WordId, i64>,
    /// Pages of this transaction that wrote a word each way.
    pub forms: HashMap<WordId, Vec<(Box<str>, u32)>>,
    pub new_words: HashMap<String, WordId>,
    /// `norms` chunks touched by this transaction.
    pub norms: HashMap<u32, Vec<f32>>,
    /// Compression dictionaries this transaction made sure the store holds.
    pub dictionaries: Vec<(super::dictionary::Kind, u32)>,
    /// Next values of the `meta` id counters used in this transaction.
    pub counters: HashMap<&'static [u8], u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(part: &[u8]) -> Vec<(PageId, u32, Vec<u32>)> {
        entries(part)
            .map(|e| {
                let e = e.unwrap();
                (e.page, e.tf, e.positions().unwrap())
            })
            .collect()
    }

    #[test]
    fn blocks_are_sorted_cut_into_parts_and_drop_a_page() {
        let mut b = Vec::new();
        push_entry(&mut b, 300_000, &[0]);
        push_entry(&mut b, 7, &[1, 5, 9]);
        push_entry(&mut b, 9, &[2, 3]);
        let parts = into_parts(&b).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].0, 7, "keyed by its first page");
        let parts: Vec<Vec<u8>> = parts.into_iter().map(|(_, p)| p).collect();
        assert_eq!(
            decode(&parts[0]),
            vec![
                (7, 3, vec![1, 5, 9]),
                (9, 2, vec![2, 3]),
                (300_000, 1, vec![0])
            ]
        );
        let rest = part_without_page(&parts[0], 9).unwrap();
        assert_eq!(
            decode(&rest),
            vec![(7, 3, vec![1, 5, 9]), (300_000, 1, vec![0])]
        );
        let pending = pending_without_page(&b, 7).unwrap();
        let pages: Vec<PageId> = pending_entries(&pending).map(|e| e.unwrap().page).collect();
        assert_eq!(pages, vec![300_000, 9]);
    }

    #[test]
    fn large_blocks_are_cut_below_the_overflow_size() {
        let mut b = Vec::new();
        let positions: Vec<u32> = (0..50).map(|i| i * 3).collect();
        for page in (0..400u32).rev() {
            push_entry(&mut b, page * 2, &positions);
        }
        let parts = into_parts(&b).unwrap();
        assert!(parts.len() > 1);
        assert!(parts.iter().all(|(_, p)| p.len() < PART_BYTES + 200));
        for (first, p) in &parts {
            assert_eq!(decode(p)[0].0, *first);
        }
        let pages: Vec<PageId> = parts
            .iter()
            .flat_map(|(_, p)| decode(p))
            .map(|e| e.0)
            .collect();
        assert_eq!(pages, (0..400u32).map(|p| p * 2).collect::<Vec<_>>());
        // Two segments' parts merge into one block in page order.
        let (odd, even): (Vec<u32>, Vec<u32>) = (0..40u32).partition(|p| p % 2 == 1);
        let block_of = |pages: &[u32]| {
            let mut b = Vec::new();
            for &p in pages {
                push_entry(&mut b, p, &[p, p + 1]);
            }
            into_parts(&b).unwrap()
        };
        let (a, c) = (block_of(&odd), block_of(&even));
        let merged = merge_parts(a.iter().chain(&c).map(|(_, p)| p.as_slice())).unwrap();
        let all: Vec<_> = merged.iter().flat_map(|(_, p)| decode(p)).collect();
        assert_eq!(
            all,
            (0..40u32)
                .map(|p| (p, 2, vec![p, p + 1]))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_lone_position_costs_its_page_delta_and_itself() {
        let mut b = Vec::new();
        for page in 0..10 {
            push_entry(&mut b, page, &[page + 3]);
        }
        push_entry(&mut b, 10, &[1, 2]);
        let parts = into_parts(&b).unwrap();
        // Ten entries of two bytes, then head, tf, length and two deltas.
        assert_eq!(parts[0].1.len(), 10 * 2 + 5);
        let decoded = decode(&parts[0].1);
        assert_eq!(decoded[4], (4, 1, vec![7]));
        assert_eq!(decoded[10], (10, 2, vec![1, 2]));
    }

    #[test]
    fn schema_6_parts_are_rewritten_and_lying_ones_refused() {
        // Page 3 (tf 1, position 300), then page 5 (tf 2, positions 1, 2).
        let old = [3, 1, 2, 0xac, 0x02, 2, 2, 2, 1, 1];
        let new = part_from_schema_6(&old).unwrap();
        assert_eq!(decode(&new), vec![(3, 1, vec![300]), (5, 2, vec![1, 2])]);
        // tf 1 with two positions' bytes.
        assert!(part_from_schema_6(&[3, 1, 2, 1, 1]).is_err());
        assert!(part_from_schema_6(&[3, 1, 9, 1]).is_err());
    }

    #[test]
    fn a_lying_block_is_an_error_not_a_panic() {
        let bad = [5u8, 2, 200, 1];
        assert!(entries(&bad).any(|e| e.is_err()));
        assert!(part_without_page(&bad, 1).is_err());
        assert!(into_parts(&bad).is_err());
    }
}

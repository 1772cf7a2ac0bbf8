//! Body postings in blocks: one LMDB entry per (word, segment) under
//! `word id ‖ segment` (big-endian), where a segment is the set of pages
//! indexed by one write transaction. A block holds, for each of its pages,
//! `page, tf, byte length, position deltas`, so a tf-only scan skips the
//! positions. One put per distinct word per batch, instead of one per
//! (word, page), is what makes batched indexing fast and the index small.
//!
//! A page's forward record names its segment, so its postings can be found
//! and removed when it is re-indexed.

use rustc_hash::FxHashMap as HashMap;

use super::codec::{self, put_varint, VarintReader};
use super::schema::{PageId, WordId};
use super::{Result, StoreError};

pub fn block_key(word: WordId, segment: u32) -> [u8; 8] {
    codec::pair_key(word, segment)
}

/// Appends one page's posting to a block.
pub fn push_entry(block: &mut Vec<u8>, page: PageId, positions: &[u32]) {
    put_varint(block, u64::from(page));
    put_varint(block, positions.len() as u64);
    // The byte length comes first, so measure the deltas before writing.
    let mut len = 0u64;
    let mut prev = 0u32;
    for &p in positions {
        len += varint_len(p.wrapping_sub(prev));
        prev = p;
    }
    put_varint(block, len);
    let mut prev = 0u32;
    for &p in positions {
        put_varint(block, u64::from(p.wrapping_sub(prev)));
        prev = p;
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
pub struct Entry<'a> {
    pub page: PageId,
    pub tf: u32,
    raw_positions: &'a [u8],
}

impl Entry<'_> {
    pub fn positions(&self) -> Result<Vec<u32>> {
        let mut r = VarintReader::new(self.raw_positions);
        let mut out = Vec::with_capacity(self.tf as usize);
        let mut prev = 0u32;
        for _ in 0..self.tf {
            prev = prev
                .checked_add(r.next_u32()?)
                .ok_or_else(|| StoreError::corrupt("position overflow"))?;
            out.push(prev);
        }
        Ok(out)
    }
}

/// Iterates the entries of a block, failing on malformed bytes.
pub struct Entries<'a> {
    rest: &'a [u8],
}

pub fn entries(block: &[u8]) -> Entries<'_> {
    Entries { rest: block }
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
        let page = r.next_u32()?;
        let tf = r.next_u32()?;
        let len = r.next_u64()? as usize;
        let after_head = r.remaining();
        if len > after_head.len() {
            self.rest = &[];
            return Err(StoreError::corrupt(
                "posting block entry overruns its block",
            ));
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

/// The block without one page's entry.
pub fn without_page(block: &[u8], page: PageId) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(block.len());
    let mut rest = block;
    while !rest.is_empty() {
        let mut it = entries(rest);
        let start_len = rest.len();
        let e = it.read_one()?;
        let used = start_len - it.rest.len();
        if e.page != page {
            out.extend_from_slice(&rest[..used]);
        }
        rest = it.rest;
    }
    Ok(out)
}

/// What one write transaction accumulates before it commits: the blocks of
/// its segment and the doc-freq changes, written once each at the end.
#[derive(Default)]
pub struct Pending {
    pub segment: Option<u32>,
    pub blocks: HashMap<WordId, Vec<u8>>,
    pub doc_freq: HashMap<WordId, i64>,
    pub new_words: HashMap<String, WordId>,
    /// `norms` chunks touched by this transaction.
    pub norms: HashMap<u32, Vec<f32>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_drop_a_page() {
        let mut b = Vec::new();
        push_entry(&mut b, 7, &[1, 5, 9]);
        push_entry(&mut b, 300_000, &[0]);
        push_entry(&mut b, 9, &[2, 3]);
        let got: Vec<(PageId, u32, Vec<u32>)> = entries(&b)
            .map(|e| {
                let e = e.unwrap();
                (e.page, e.tf, e.positions().unwrap())
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (7, 3, vec![1, 5, 9]),
                (300_000, 1, vec![0]),
                (9, 2, vec![2, 3])
            ]
        );
        let b2 = without_page(&b, 300_000).unwrap();
        let pages: Vec<PageId> = entries(&b2).map(|e| e.unwrap().page).collect();
        assert_eq!(pages, vec![7, 9]);
    }

    #[test]
    fn a_lying_block_is_an_error_not_a_panic() {
        let bad = [5u8, 2, 200, 1];
        assert!(entries(&bad).any(|e| e.is_err()));
        assert!(without_page(&bad, 1).is_err());
    }
}

//! A transaction's postings before they become its segment's stream:
//! each word's entries appended to a *block* as its pages come, byte-coded
//! with whole page ids (a block is never stored; [`super::PartWriter`]
//! sorts it into runs at the commit), and the title postings' blocks.

use crate::codec::{put_varint, VarintReader};
use crate::schema::PageId;
use crate::{Result, StoreError};

use super::run::{Entry, Held};

/// Appends one page's posting to a pending (unsorted) block, byte-coded:
/// `page << 1 | several`, then the one position or `tf, byte length,
/// deltas`; `page` is stored whole.
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
        len += varint_len(u64::from(p.wrapping_sub(prev))) as u64;
        prev = p;
    }
    put_head(block, page, positions.len() as u32, len);
    put_deltas(block, positions);
}

/// Ascending positions as stored: each one's distance from the one
/// before (the first's from 0), as varints.
pub(super) fn put_deltas(out: &mut Vec<u8>, positions: &[u32]) {
    let mut prev = 0u32;
    for &p in positions {
        put_varint(out, u64::from(p.wrapping_sub(prev)));
        prev = p;
    }
}

/// A byte-coded entry's head: the page (or its delta) with a flag for
/// "more than one position", then tf and byte length only when flagged:
/// a lone position is one varint, which delimits itself.
fn put_head(out: &mut Vec<u8>, page: PageId, tf: u32, len: u64) {
    let several = tf != 1;
    put_varint(out, u64::from(page) << 1 | u64::from(several));
    if several {
        put_varint(out, u64::from(tf));
        put_varint(out, len);
    }
}

fn varint_len(v: u64) -> usize {
    ((64 - v.leading_zeros()).max(1) as usize).div_ceil(7)
}

/// Iterates a pending block's byte-coded entries (whole page ids),
/// failing on malformed bytes.
pub struct ByteEntries<'a> {
    rest: &'a [u8],
}

pub(super) fn pending_entries(block: &[u8]) -> ByteEntries<'_> {
    ByteEntries { rest: block }
}

impl<'a> Iterator for ByteEntries<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let one = self.read_one();
        if one.is_err() {
            self.rest = &[];
        }
        Some(one)
    }
}

impl<'a> ByteEntries<'a> {
    fn read_one(&mut self) -> Result<Entry<'a>> {
        let mut r = VarintReader::new(self.rest);
        let head = r.next_u64()?;
        let page = u32::try_from(head >> 1)
            .map_err(|_| StoreError::corrupt("page id overflow in a posting part"))?;
        if head & 1 == 0 {
            let held = Held::Lone(r.next_u32()?);
            self.rest = r.remaining();
            return Ok(Entry {
                page,
                tf: 1,
                held,
                class: 0,
            });
        }
        let tf = r.next_u32()?;
        let len = r.next_u64()?;
        let deltas = r.take(len)?;
        self.rest = r.remaining();
        if VarintReader::new(deltas).take_varints(tf)?.len() != deltas.len() {
            return Err(StoreError::corrupt(
                "posting tf disagrees with its positions",
            ));
        }
        Ok(Entry {
            page,
            tf,
            held: Held::Deltas(deltas),
            class: 0,
        })
    }
}

impl Entry<'_> {
    /// The entry in the pending blocks' byte layout, its page whole.
    fn put_bytes(&self, out: &mut Vec<u8>) {
        match self.held {
            Held::Lone(p) => {
                put_head(out, self.page, 1, 0);
                put_varint(out, u64::from(p));
            }
            Held::Deltas(deltas) => {
                put_head(out, self.page, self.tf, deltas.len() as u64);
                out.extend_from_slice(deltas);
            }
        }
    }
}

/// A pending block without one page's entry.
pub fn pending_without_page(block: &[u8], page: PageId) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(block.len());
    for e in pending_entries(block) {
        let e = e?;
        if e.page != page {
            e.put_bytes(&mut out);
        }
    }
    Ok(out)
}

/// One word's title postings in a transaction, as [`push_entry`] writes
/// them (a title's words are few, so they keep a map of their own rather
/// than widening every body word's entry).
#[derive(Debug, Default)]
pub struct TitleBlock {
    pub block: Vec<u8>,
    last_page: PageId,
    /// Whether an entry came after one of a later page.
    pub out_of_order: bool,
}

impl TitleBlock {
    pub fn push(&mut self, page: PageId, positions: &[u32]) {
        self.out_of_order |= !self.block.is_empty() && page <= self.last_page;
        self.last_page = page;
        push_entry(&mut self.block, page, positions);
    }
}

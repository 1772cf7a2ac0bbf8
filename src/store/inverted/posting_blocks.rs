//! A repacked small store's body posting parts in shared zstd frames
//! ("posting blocks"): the `posting_blocks` table (`block ‖ raw length ‖
//! chunk` → the frame, cut to fill leaves as bodies are) and the
//! references the `postings` table keeps instead of those parts:
//! `[0, 0]`, then varints block, offset and length of the part in the
//! block decompressed. Only the repack writes blocks
//! ([`super::repost`]); a later crawl writes plain parts as it always
//! did, and a part it rewrites (a page removed or merged) is read
//! through its reference and written plain.
//!
//! `[0, 0]` is never the start of a part (see [`super::run`]): a part of
//! today begins with a run head `length << 1 | …` with a length of at
//! least 1, a varint whose first byte is not 0; one written before
//! 2026-11-27 begins with its first run's word delta, 0, and then that
//! run's length, again at least 1. A reference read as a part fails (an
//! empty run) rather than being misread.
//!
//! Every read of a stored part goes through [`resolve`] (for a view,
//! [`part`]), which alone knows about references. A run's entries borrow
//! the part's bytes for as long as the view lives, so a view keeps the
//! blocks it decompressed in its [`Arena`] until it ends: a resolved
//! part is a slice of one. The blocks cannot change under a view (no
//! transaction writes them), so an arena is never stale.

use std::sync::OnceLock;

use heed::RoTxn;

use crate::store::body_blocks::BlockRef;
use crate::store::codec::{self, put_varint, VarintReader};
use crate::store::schema::Db;
use crate::store::sealed::View;
use crate::store::{Result, StoreError};

/// The first bytes of a reference.
const REFERENCE: [u8; 2] = [0, 0];

/// The largest block a reader decompresses: far over what the repack
/// writes ([`super::repost`]), so that a corrupt key cannot make a read
/// allocate gigabytes.
const MAX_BLOCK_RAW: u32 = 16 << 20;

/// The `postings` value that refers to `r`.
pub fn encode(r: &BlockRef) -> Vec<u8> {
    let mut out = REFERENCE.to_vec();
    for v in [r.block, r.offset, r.len] {
        put_varint(&mut out, u64::from(v));
    }
    out
}

/// The reference a `postings` value holds; None when it is a part.
pub fn decode(stored: &[u8]) -> Result<Option<BlockRef>> {
    let Some(rest) = stored.strip_prefix(&REFERENCE) else {
        return Ok(None);
    };
    let mut r = VarintReader::new(rest);
    let reference = BlockRef {
        block: r.next_u32()?,
        offset: r.next_u32()?,
        len: r.next_u32()?,
    };
    if !r.is_empty() {
        return Err(StoreError::corrupt(
            "a posting reference runs on past its length",
        ));
    }
    Ok(Some(reference))
}

/// The posting blocks one view decompressed, by number, for as long as
/// the view lives (sized at its first reference, from the table's last
/// key).
#[derive(Default)]
pub struct Arena(OnceLock<Box<[Slot]>>);

/// A block of an arena, once decompressed.
type Slot = OnceLock<Box<[u8]>>;

impl Arena {
    /// Block `block` decompressed, read from `blocks` the first time.
    fn block<'a>(&'a self, txn: &RoTxn<'_>, blocks: Db, block: u32) -> Result<&'a [u8]> {
        let cells = match self.0.get() {
            Some(cells) => cells,
            None => {
                let count = match blocks.last(txn)? {
                    Some((k, _)) => codec::split_triple_key(k)?.0 as usize + 1,
                    None => 0,
                };
                self.0
                    .get_or_init(|| (0..count).map(|_| OnceLock::new()).collect())
            }
        };
        let cell = cells.get(block as usize).ok_or_else(|| {
            StoreError::corrupt(format!(
                "posting block {block} is referred to but not stored"
            ))
        })?;
        if let Some(raw) = cell.get() {
            return Ok(raw);
        }
        let raw = load(txn, blocks, block)?;
        Ok(cell.get_or_init(|| raw))
    }
}

/// Block `block` read from its chunks and decompressed.
fn load(txn: &RoTxn<'_>, blocks: Db, block: u32) -> Result<Box<[u8]>> {
    let corrupt = |what: &str| StoreError::corrupt(format!("posting block {block}: {what}"));
    let mut frame = Vec::new();
    let mut raw_len = None;
    for item in blocks.prefix_iter(txn, &codec::u32_key(block))? {
        let (k, chunk) = item?;
        let raw = codec::split_triple_key(k)?.1;
        if raw_len.is_some_and(|r| r != raw) {
            return Err(corrupt("its chunks name different lengths"));
        }
        raw_len = Some(raw);
        frame.extend_from_slice(chunk);
    }
    let raw_len = raw_len.ok_or_else(|| corrupt("referred to but not stored"))?;
    if raw_len > MAX_BLOCK_RAW {
        return Err(corrupt("longer than any block is"));
    }
    let raw =
        zstd::bulk::decompress(&frame, raw_len as usize).map_err(|e| corrupt(&e.to_string()))?;
    if raw.len() != raw_len as usize {
        return Err(corrupt("shorter than its key says"));
    }
    Ok(raw.into_boxed_slice())
}

/// The part a `postings` value `stored` holds: itself, or the slice of a
/// block (in `blocks`, decompressed into `arena`) it refers to.
pub fn resolve<'a>(
    txn: &RoTxn<'_>,
    blocks: Db,
    arena: &'a Arena,
    stored: &'a [u8],
) -> Result<&'a [u8]> {
    let Some(r) = decode(stored)? else {
        return Ok(stored);
    };
    let block = arena.block(txn, blocks, r.block)?;
    r.slice(block).ok_or_else(|| {
        StoreError::corrupt(format!(
            "a posting part lies past the end of posting block {}",
            r.block
        ))
    })
}

/// [`resolve`] in a view: the part a value of a posting stream holds.
pub fn part<'t, V: View + ?Sized>(v: &'t V, stored: &'t [u8]) -> Result<&'t [u8]> {
    resolve(v.txn(), v.dbs().posting_blocks, v.posting_arena(), stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_reads_back_and_no_part_is_taken_for_one() {
        for r in [
            BlockRef {
                block: 0,
                offset: 0,
                len: 1,
            },
            BlockRef {
                block: u32::MAX,
                offset: 1 << 17,
                len: 1900,
            },
        ] {
            assert_eq!(decode(&encode(&r)).unwrap(), Some(r));
        }
        // A part of today (head 1 << 1 | 1), one written before
        // 2026-11-27 (delta 0, length 1), an empty value.
        for part in [&[3, 5][..], &[0, 1, 5], &[]] {
            assert_eq!(decode(part).unwrap(), None);
        }
        assert!(decode(&[0, 0, 1, 2]).is_err(), "cut short");
        assert!(decode(&[0, 0, 1, 2, 3, 4]).is_err(), "runs on");
    }
}

//! A small store's body posting parts gathered into posting blocks when
//! it is repacked (the format and reading: [`super::posting_blocks`]).
//! The parts are bit-coded already, so zstd finds few repeats in them;
//! what it gains is entropy coding of those bits (on the 300-page bench
//! site 462 KB of parts took 393 KB at level 19 in blocks of 64 KiB,
//! 392 KB at 18, 399 KB at 17 and 416 KB at 16; blocks of 16 KiB or one
//! frame of them all come within 1% of that). Each part compressed alone
//! saves nothing (406 KB, and two still fill a leaf). A store that has
//! blocks already has its references resolved and its blocks written
//! anew, without the bytes no reference uses any more; nothing changes
//! unless the blocks and references come out smaller than the parts.

use heed::RoTxn;

use super::posting_blocks::{self, Arena};
use crate::store::bodies::LeafFill;
use crate::store::body_blocks::BlockRef;
use crate::store::schema::Db;
use crate::store::{Result, StoreError};

/// Parts are gathered into a block until it holds this many bytes: a
/// read decompresses one whole block (64 KiB: ~0.1 ms), and larger
/// blocks compress no better.
const BLOCK_RAW: usize = 64 << 10;

/// zstd's level for blocks (see the module doc).
const LEVEL: i32 = 18;

/// Stored posting bytes past which a store's parts are left as they are
/// (every part is held in memory): the bound the bodies have.
const MAX_STORED: usize = 8 << 20;

/// What a block's chunk costs beside its bytes: its key, and LMDB's
/// node header and pointer.
const CHUNK_OVERHEAD: usize = 12 + 8 + 2;

/// The records of a store's `postings` and `posting_blocks` tables as
/// the repack writes them, each in key order.
pub(in crate::store) struct Reposted {
    postings: Vec<([u8; 12], Vec<u8>)>,
    blocks: Vec<([u8; 12], Vec<u8>)>,
}

impl Reposted {
    /// The records to write to the table `name`, if this writes it.
    pub(in crate::store) fn table(&self, name: &str) -> Option<&[([u8; 12], Vec<u8>)]> {
        match name {
            "postings" => Some(&self.postings),
            "posting_blocks" => Some(&self.blocks),
            _ => None,
        }
    }
}

/// The parts of `postings` (their references resolved through `blocks`,
/// the `posting_blocks` table if the store has one), gathered into
/// blocks when that makes them smaller, else written as plain parts;
/// None when the store is too large, or zstd fails: both tables are then
/// copied as they are.
pub(in crate::store) fn regather(
    txn: &RoTxn<'_>,
    postings: Db,
    blocks: Option<Db>,
) -> Result<Option<Reposted>> {
    let arena = Arena::default();
    let mut parts: Vec<([u8; 12], &[u8])> = Vec::new();
    let mut stored = 0;
    for item in postings.iter(txn)? {
        let (k, v) = item?;
        let key: [u8; 12] = k
            .try_into()
            .map_err(|_| StoreError::corrupt("postings key is not 12 bytes"))?;
        let part = match blocks {
            Some(blocks) => posting_blocks::resolve(txn, blocks, &arena, v)?,
            None if posting_blocks::decode(v)?.is_some() => {
                return Err(StoreError::corrupt(
                    "a posting reference in a store without posting blocks",
                ))
            }
            None => v,
        };
        stored += part.len();
        if stored > MAX_STORED {
            return Ok(None);
        }
        parts.push((key, part));
    }
    let Some(gathered) = gather(&parts)? else {
        return Ok(None);
    };
    Ok(Some(gathered.unwrap_or_else(|| Reposted {
        postings: parts.iter().map(|&(k, v)| (k, v.to_vec())).collect(),
        blocks: Vec::new(),
    })))
}

/// `parts` gathered into blocks of [`BLOCK_RAW`] bytes (None: zstd
/// failed; Some(None): they come out no smaller).
fn gather(parts: &[([u8; 12], &[u8])]) -> Result<Option<Option<Reposted>>> {
    let mut out = Reposted {
        postings: Vec::with_capacity(parts.len()),
        blocks: Vec::new(),
    };
    let mut fill = LeafFill::after(0);
    let (mut before, mut after) = (0, 0);
    for (number, block) in in_blocks(parts).enumerate() {
        let number = u32_of(number)?;
        let mut raw = Vec::with_capacity(BLOCK_RAW);
        for (key, part) in block {
            let r = BlockRef {
                block: number,
                offset: u32_of(raw.len())?,
                len: u32_of(part.len())?,
            };
            let reference = posting_blocks::encode(&r);
            before += part.len();
            after += reference.len();
            out.postings.push((*key, reference));
            raw.extend_from_slice(part);
        }
        let Ok(frame) = zstd::bulk::compress(&raw, LEVEL) else {
            return Ok(None);
        };
        after += frame.len();
        // A chunk's key is `block ‖ raw length ‖ chunk`.
        fill.cut(number, u32_of(raw.len())?, &frame, |key, chunk| {
            after += CHUNK_OVERHEAD;
            out.blocks.push((*key, chunk.to_vec()));
            Ok(())
        })?;
    }
    Ok(Some((after < before).then_some(out)))
}

/// `parts` cut into blocks of at most [`BLOCK_RAW`] bytes (a part is
/// never cut; one alone may be larger).
fn in_blocks<'p, 'a>(
    mut parts: &'p [([u8; 12], &'a [u8])],
) -> impl Iterator<Item = &'p [([u8; 12], &'a [u8])]> {
    std::iter::from_fn(move || {
        let mut raw = 0;
        let taken = parts
            .iter()
            .position(|(_, part)| {
                raw += part.len();
                raw > BLOCK_RAW
            })
            .unwrap_or(parts.len())
            .max(1)
            .min(parts.len());
        let (block, rest) = parts.split_at(taken);
        parts = rest;
        (!block.is_empty()).then_some(block)
    })
}

fn u32_of(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| StoreError::corrupt("posting blocks over 2^32 bytes or blocks"))
}

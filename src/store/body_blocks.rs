//! A repacked small store's bodies in shared zstd frames ("blocks"): the
//! `body_blocks` table (`block ‖ first page ‖ chunk` → the frame, cut to
//! fill leaves as bodies are) and the references that the `bodies` table
//! keeps for those pages instead of a frame of their own.
//!
//! A page compressed alone can use only what the body dictionary learnt
//! of its neighbours; a frame of many pages uses all of them. On the
//! 300-page bench site (1.85 MB of HTML) the bodies took 594 KB as frames
//! of one page with a 29 KB dictionary, and 484 KB as one frame of all of
//! them (zstd level 16; 500 KB in frames of 1 MiB). Only the repack writes
//! blocks (`retrain`): a crawl still stores each page in a frame of its
//! own, and a page crawled again after the repack drops its reference and
//! gets one. A block keeps the bodies no page refers to any more until the
//! next repack writes the blocks anew.
//!
//! Reading a body decompresses its whole block, so blocks are bounded
//! ([`BLOCK_RAW`]) and hold pages in id order, the order exports read
//! them in; a [`BlockCache`] keeps a reader's last block.

use std::sync::{Arc, Mutex};

use super::bodies::LeafFill;
use super::codec::{put_varint, u32_key, VarintReader};
use super::schema::PageId;
use super::sealed::View;
use super::{Result, StoreError};

/// The first byte of a reference: a zstd frame begins with 0x28 (its
/// magic number) or 0x50-0x5F (a skippable one), never with this.
const REFERENCE: u8 = 0;

/// Bodies are gathered into a block until it holds this many bytes of
/// HTML: a body read decompresses its whole block (about 1 ms a MiB).
pub const BLOCK_RAW: usize = 2 << 20;

/// zstd's level for blocks: 16 is where its strongest strategy starts (on
/// the 300-page bench site's 1.85 MB: 15 made 506 KB, 16 484 KB, 19 480 KB
/// in over twice the time).
const LEVEL: i32 = 16;

/// Where a page's body is inside a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef {
    pub block: u32,
    pub offset: u32,
    pub len: u32,
}

impl BlockRef {
    /// The `bodies` record of a page whose body is in a block.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![REFERENCE];
        for v in [self.block, self.offset, self.len] {
            put_varint(&mut out, u64::from(v));
        }
        out
    }

    /// The body in its block, decompressed (None: the block is shorter).
    pub fn slice<'a>(&self, block: &'a [u8]) -> Option<&'a [u8]> {
        let start = self.offset as usize;
        block.get(start..start.saturating_add(self.len as usize))
    }

    /// The reference a `bodies` record holds; None when it is a frame.
    pub fn decode(stored: &[u8]) -> Result<Option<BlockRef>> {
        let Some((&REFERENCE, rest)) = stored.split_first() else {
            return Ok(None);
        };
        let mut r = VarintReader::new(rest);
        Ok(Some(BlockRef {
            block: r.next_u32()?,
            offset: r.next_u32()?,
            len: r.next_u32()?,
        }))
    }
}

/// A reader's last decompressed block: exports read every page in id
/// order, and a block holds consecutive ids.
#[derive(Default)]
pub struct BlockCache(Mutex<Option<(u32, Arc<Vec<u8>>)>>);

/// Block `block` decompressed, from `cache` when it holds it.
pub fn block<V: View + ?Sized>(v: &V, block: u32) -> Result<Arc<Vec<u8>>> {
    let cache = v.block_cache();
    if let Some(cache) = cache {
        if let Ok(held) = cache.0.lock() {
            if let Some((_, raw)) = held.as_ref().filter(|(id, _)| *id == block) {
                return Ok(Arc::clone(raw));
            }
        }
    }
    let mut frame = Vec::new();
    for item in v.dbs().body_blocks.prefix_iter(v.txn(), &u32_key(block))? {
        frame.extend_from_slice(item?.1);
    }
    if frame.is_empty() {
        return Err(StoreError::corrupt(format!(
            "body block {block} is referred to but not stored"
        )));
    }
    let raw = Arc::new(
        zstd::stream::decode_all(&frame[..])
            .map_err(|e| StoreError::corrupt(format!("body block {block}: {e}")))?,
    );
    if let Some(cache) = cache {
        if let Ok(mut held) = cache.0.lock() {
            *held = Some((block, Arc::clone(&raw)));
        }
    }
    Ok(raw)
}

/// The body `r` points to.
pub fn body<V: View + ?Sized>(v: &V, page: PageId, r: BlockRef) -> Result<Vec<u8>> {
    let raw = block(v, r.block)?;
    r.slice(&raw).map(<[u8]>::to_vec).ok_or_else(|| {
        StoreError::corrupt(format!(
            "body of page {page} lies past the end of body block {}",
            r.block
        ))
    })
}

/// Bodies gathered into blocks: what the repack writes to `body_blocks`
/// and, for each page, to `bodies`.
pub struct Blocks {
    /// `body_blocks` records, in key order.
    pub chunks: Vec<([u8; 12], Vec<u8>)>,
    /// `bodies` records (`segment ‖ page ‖ 0` → reference), in key order.
    pub references: Vec<([u8; 12], Vec<u8>)>,
    /// The frames' bytes.
    pub bytes: usize,
}

/// Gathers `bodies` (segment, page, HTML) into blocks of pages in id
/// order; None when zstd fails.
pub fn gather(mut bodies: Vec<(u32, PageId, Vec<u8>)>) -> Result<Option<Blocks>> {
    bodies.sort_unstable_by_key(|&(_, page, _)| page);
    let mut out = Blocks {
        chunks: Vec::new(),
        references: Vec::new(),
        bytes: 0,
    };
    let mut fill = LeafFill::after(0);
    let mut start = 0;
    let mut number = 0u32;
    while start < bodies.len() {
        let mut end = start;
        let mut raw = Vec::new();
        while end < bodies.len() && (end == start || raw.len() + bodies[end].2.len() <= BLOCK_RAW) {
            let (segment, page, body) = &bodies[end];
            let r = BlockRef {
                block: number,
                offset: u32_of(raw.len())?,
                len: u32_of(body.len())?,
            };
            out.references
                .push((super::codec::triple_key(*segment, *page, 0), r.encode()));
            raw.extend_from_slice(body);
            end += 1;
        }
        let Ok(frame) = zstd::bulk::compress(&raw, LEVEL) else {
            return Ok(None);
        };
        out.bytes += frame.len();
        fill.cut(number, bodies[start].1, &frame, |key, chunk| {
            out.chunks.push((*key, chunk.to_vec()));
            Ok(())
        })?;
        number = number
            .checked_add(1)
            .ok_or_else(|| StoreError::corrupt("over 2^32 body blocks"))?;
        start = end;
    }
    out.references.sort_unstable();
    Ok(Some(out))
}

fn u32_of(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| StoreError::corrupt("a body block over 4 GiB"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_reads_back_and_is_never_taken_for_a_frame() {
        for r in [
            BlockRef {
                block: 0,
                offset: 0,
                len: 0,
            },
            BlockRef {
                block: u32::MAX,
                offset: 1 << 21,
                len: 6000,
            },
        ] {
            assert_eq!(BlockRef::decode(&r.encode()).unwrap(), Some(r));
        }
        let frame = zstd::bulk::compress(b"<p>a page</p>", 3).unwrap();
        assert_eq!(BlockRef::decode(&frame).unwrap(), None);
        assert_eq!(BlockRef::decode(&[]).unwrap(), None);
        assert!(BlockRef::decode(&[REFERENCE, 0x80]).is_err());
    }
}

//! Page bodies: zstd-compressed off the writer thread (with the store's
//! body dictionary once trained, see `dictionary`), stored in chunks under
//! `segment ‖ page id ‖ chunk number`, the segment being the one the page
//! was indexed in (the one its forward record names; bodies are never
//! merged). A transaction's bodies are appended at the end of the table in
//! key order, and each chunk is cut to the room left in the leaf it lands
//! in, so leaves come out full: a body as one value takes whole 4 KiB
//! overflow pages of its own, and chunks of one fixed size leave the tail
//! of every leaf that the next chunk does not fit (18% of the bench site's
//! leaves with 992-byte chunks).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::Ordering;

use super::codec::{pair_key, triple_key};
use super::schema::PageId;
use super::sealed::View;
use super::{Result, StoreError, Writer};

/// LMDB's leaf layout: a page header, then per entry a 2-byte pointer and
/// a node (8-byte header, key, value, padded to an even size).
const PAGE_HEADER: usize = 16;
const NODE_OVERHEAD: usize = 8 + 12 + 2;

/// A chunk never reaches LMDB's overflow size (about half a leaf).
const MAX_CHUNK: usize = 2000;

/// A leaf with less room than this for a chunk is left as it is.
const MIN_CHUNK: usize = 128;

/// Where appended chunks land: the room in the table's last leaf. LMDB
/// starts a new leaf for an appended entry that does not fit, so as long
/// as the count is right, each chunk cut to the room fills its leaf; when
/// it is wrong (another process wrote, or this one just opened the store)
/// the first chunk that does not fit starts a leaf on both sides and the
/// count is right again.
pub(super) struct LeafFill {
    leaf: usize,
    room: usize,
}

impl LeafFill {
    /// The size of the next chunk of a body with `remaining` bytes to go.
    fn next_chunk(&mut self, remaining: usize) -> usize {
        let fit = |room: usize| room.saturating_sub(NODE_OVERHEAD) & !1;
        if fit(self.room) < MIN_CHUNK.min(remaining) {
            self.room = self.leaf;
        }
        let size = remaining.min(MAX_CHUNK).min(fit(self.room));
        self.room = self
            .room
            .saturating_sub(NODE_OVERHEAD + size.next_multiple_of(2));
        size
    }
}

/// A body compressed without the store's dictionary (tests and benches;
/// the crawl compresses through [`super::Dictionaries`]).
pub fn compress_body(raw: &[u8]) -> Vec<u8> {
    super::dictionary::compress_plain(raw)
}

/// The stored (compressed) body of a page, its chunks joined.
pub fn read<V: View + ?Sized>(v: &V, page: PageId) -> Result<Option<Vec<u8>>> {
    let Some(segment) = super::page_records::segment_of(v, page)? else {
        return Ok(None);
    };
    let (dbs, txn) = (v.dbs(), v.txn());
    let mut out: Option<Vec<u8>> = None;
    for item in dbs.bodies.prefix_iter(txn, &pair_key(segment, page))? {
        out.get_or_insert_with(Vec::new).extend_from_slice(item?.1);
    }
    Ok(out)
}

/// Bodies of this transaction's pages, written at its end.
pub type PendingBodies = BTreeMap<PageId, Vec<u8>>;

impl Writer<'_> {
    /// Keeps a page's body (none when `compressed` is empty); the page's
    /// earlier body was removed with its index entries.
    pub(super) fn put_body(&mut self, page: PageId, compressed: &[u8]) -> Result<()> {
        if compressed.is_empty() {
            self.pending.bodies.remove(&page);
        } else {
            self.keep_dictionary(super::dictionary::Kind::Body, compressed)?;
            self.pending.bodies.insert(page, compressed.to_vec());
        }
        Ok(())
    }

    /// Removes the body a page was given when indexed in `segment`.
    pub(super) fn delete_body(&mut self, page: PageId, segment: u32) -> Result<()> {
        if self.pending.segment == Some(segment) {
            self.pending.bodies.remove(&page);
            return Ok(());
        }
        let lo = triple_key(segment, page, 0);
        let hi = triple_key(segment, page, u32::MAX);
        let range = (Bound::Included(&lo[..]), Bound::Included(&hi[..]));
        self.dbs.bodies.delete_range(&mut self.txn, &range)?;
        Ok(())
    }

    /// Appends this transaction's bodies under its segment.
    pub(super) fn flush_bodies(&mut self) -> Result<()> {
        let bodies = std::mem::take(&mut self.pending.bodies);
        let Some(segment) = self.pending.segment else {
            return Ok(());
        };
        let mut leaf = LeafFill::after(self.body_leaf_room.load(Ordering::Relaxed));
        let db = self.dbs.bodies;
        for (page, body) in bodies {
            leaf.cut(segment, page, &body, |key, chunk| {
                self.append(db, key, chunk)
            })?;
        }
        self.body_leaf_room.store(leaf.room, Ordering::Relaxed);
        Ok(())
    }
}

impl LeafFill {
    /// Cuts for a table whose last leaf has `room` bytes left.
    pub(super) fn after(room: usize) -> LeafFill {
        LeafFill {
            leaf: super::page_size() - PAGE_HEADER,
            room,
        }
    }

    /// Cuts page `page`'s body into chunks and hands each to `put` with
    /// its key, in key order.
    pub(super) fn cut(
        &mut self,
        segment: u32,
        page: PageId,
        body: &[u8],
        mut put: impl FnMut(&[u8; 12], &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut rest = body;
        let mut n = 0u32;
        while !rest.is_empty() {
            let (chunk, tail) = rest.split_at(self.next_chunk(rest.len()));
            put(&triple_key(segment, page, n), chunk)?;
            rest = tail;
            n = n
                .checked_add(1)
                .ok_or_else(|| StoreError::corrupt("a body needs over 2^32 chunks"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunks of bodies of one size, cut by `LeafFill`, against LMDB's
    /// packing of appended entries.
    fn leaves_for(sizes: &[usize], cut: &mut dyn FnMut(usize) -> usize) -> usize {
        let leaf = 4096 - PAGE_HEADER;
        let (mut leaves, mut room) = (1, leaf);
        for &size in sizes {
            let mut rest = size;
            while rest > 0 {
                let chunk = cut(rest);
                assert!((1..=MAX_CHUNK).contains(&chunk));
                rest -= chunk;
                let node = NODE_OVERHEAD + chunk.next_multiple_of(2);
                if node > room {
                    leaves += 1;
                    room = leaf;
                }
                room -= node;
            }
        }
        leaves
    }

    #[test]
    fn chunks_cut_to_the_room_fill_their_leaves() {
        // Bodies of the bench site's compressed size, and a mix.
        let mixes: [Vec<usize>; 2] = [
            vec![2258; 1000],
            (0..1000).map(|i| 300 + (i * 7919) % 20_000).collect(),
        ];
        for sizes in mixes {
            let bytes: usize = sizes.iter().sum();
            let mut fill = LeafFill {
                leaf: 4080,
                room: 0,
            };
            let leaves = leaves_for(&sizes, &mut |rest| fill.next_chunk(rest));
            let ratio = (leaves * 4096) as f64 / bytes as f64;
            assert!(ratio < 1.05, "{ratio:.3} of the bodies' bytes");
            // Fixed 992-byte chunks, as before: 1.24 for the first mix.
            let fixed = leaves_for(&sizes, &mut |rest| rest.min(992));
            assert!(leaves < fixed, "{leaves} leaves against {fixed}");
        }
    }
}

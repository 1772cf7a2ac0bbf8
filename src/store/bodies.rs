//! Page bodies: zstd-compressed off the writer thread, stored in chunks of
//! at most [`CHUNK_BYTES`] under `segment ‖ page id ‖ chunk number`, the
//! segment being the one the page was indexed in (the one its forward
//! record names; bodies are never merged). A transaction's bodies are
//! appended at the end of the table in key order, so leaves fill up, four
//! chunks to a leaf: a body as one value takes whole 4 KiB overflow pages
//! of its own (a 6 KB page compresses to ~2.9 KB and took two), and chunks
//! put in fetch order leave leaves half empty.

use std::collections::BTreeMap;
use std::ops::Bound;

use super::codec::{pair_key, split_triple_key, triple_key, u32_key, VarintReader};
use super::schema::{Dbs, PageId};
use super::{Result, StoreError, Writer};

/// Four chunks and their keys fill a 4 KiB leaf.
const CHUNK_BYTES: usize = 992;

/// Compresses a body; whoever parses the page calls it, not the writer.
pub fn compress_body(raw: &[u8]) -> Vec<u8> {
    thread_local! {
        // A compression context costs more to set up than a 6 KB page
        // costs to compress: keep one per thread.
        static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            std::cell::RefCell::new(zstd::bulk::Compressor::new(1).ok());
    }
    COMPRESSOR.with(|c| match c.borrow_mut().as_mut() {
        Some(c) => c.compress(raw).unwrap_or_default(),
        None => zstd::bulk::compress(raw, 1).unwrap_or_default(),
    })
}

/// `(segment, page)` of a chunk key.
pub fn owner_of(key: &[u8]) -> Result<(u32, PageId)> {
    let (segment, page, _) = split_triple_key(key)?;
    Ok((segment, page))
}

/// The stored (compressed) body of a page, its chunks joined.
pub fn read(dbs: &Dbs, txn: &heed::RoTxn<'_>, page: PageId) -> Result<Option<Vec<u8>>> {
    let Some(fwd) = dbs.forward.get(txn, &u32_key(page))? else {
        return Ok(None);
    };
    let segment = VarintReader::new(fwd).next_u32()?;
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
    pub(super) fn put_body(&mut self, page: PageId, compressed: &[u8]) {
        if compressed.is_empty() {
            self.pending.bodies.remove(&page);
        } else {
            self.pending.bodies.insert(page, compressed.to_vec());
        }
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
        for (page, body) in bodies {
            for (i, chunk) in body.chunks(CHUNK_BYTES).enumerate() {
                let n = u32::try_from(i)
                    .map_err(|_| StoreError::corrupt("a body needs over 2^32 chunks"))?;
                self.append(self.dbs.bodies, &triple_key(segment, page, n), chunk)?;
            }
        }
        Ok(())
    }
}

//! Page bodies: zstd-compressed off the writer thread, stored in chunks of
//! at most [`CHUNK_BYTES`] under `page id ‖ chunk number`. A value larger
//! than about 2 KiB would take whole 4 KiB overflow pages of its own (a
//! 6 KB page compresses to ~2.9 KB and took two); chunks share leaf pages.

use std::ops::Bound::{Excluded, Included, Unbounded};

use super::codec::u32_key;
use super::schema::{Db, PageId};
use super::{Result, StoreError};

/// Largest chunk: below LMDB's limit for values kept in leaf pages.
const CHUNK_BYTES: usize = 1900;

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

fn chunk_key(page: PageId, chunk: u16) -> [u8; 6] {
    let mut k = [0u8; 6];
    k[..4].copy_from_slice(&u32_key(page));
    k[4..].copy_from_slice(&chunk.to_be_bytes());
    k
}

/// The page a chunk key belongs to.
pub fn page_of(key: &[u8]) -> Result<PageId> {
    match key {
        [a, b, c, d, _, _] => Ok(u32::from_be_bytes([*a, *b, *c, *d])),
        _ => Err(StoreError::corrupt("body key is not 6 bytes")),
    }
}

/// The stored (compressed) body of a page, its chunks joined.
pub fn read(db: &Db, txn: &heed::RoTxn<'_>, page: PageId) -> Result<Option<Vec<u8>>> {
    let mut out: Option<Vec<u8>> = None;
    for item in db.prefix_iter(txn, &u32_key(page))? {
        out.get_or_insert_with(Vec::new).extend_from_slice(item?.1);
    }
    Ok(out)
}

pub fn write(db: &Db, txn: &mut heed::RwTxn<'_>, page: PageId, compressed: &[u8]) -> Result<()> {
    delete(db, txn, page)?;
    for (i, chunk) in compressed.chunks(CHUNK_BYTES).enumerate() {
        let n =
            u16::try_from(i).map_err(|_| StoreError::corrupt("a body needs over 65,535 chunks"))?;
        db.put(txn, &chunk_key(page, n), chunk)?;
    }
    Ok(())
}

pub fn delete(db: &Db, txn: &mut heed::RwTxn<'_>, page: PageId) -> Result<()> {
    let lo = u32_key(page);
    let next = page.checked_add(1).map(u32_key);
    let hi = match &next {
        Some(n) => Excluded(&n[..]),
        None => Unbounded,
    };
    db.delete_range(txn, &(Included(&lo[..]), hi))?;
    Ok(())
}

//! A repacked small store's body posting parts in shared zstd frames
//! (`posting_blocks`, [`Shelf::Postings`]): the repack packs the
//! `postings` table's parts as it packs the stem and count records
//! (`body_blocks::shelve`), each part's value becoming a reference. The
//! parts are bit-coded already, so zstd finds few repeats in them; what
//! it gains is entropy coding of those bits (on the 300-page bench site
//! 462 KB of parts took 392 KB in blocks of 64 KiB at level 18; blocks
//! of 16 KiB or one frame of them all come within 1% of that; each part
//! compressed alone saves nothing: 406 KB, and two still fill a leaf).
//! A later crawl writes plain parts as it always did, and a part it
//! rewrites (a page removed or merged) is read through its reference and
//! written plain.
//!
//! Every read of a stored part goes through [`resolve`] (for a view,
//! [`part`]). A run's entries borrow the part's bytes for as long as the
//! view lives, so a view keeps the blocks it decompressed in its
//! [`Arena`] until it ends: a resolved part is a slice of one. The blocks
//! cannot change under a view (no transaction writes them), so an arena
//! is never stale.

use std::sync::OnceLock;

use heed::RoTxn;

use crate::store::body_blocks::{self, BlockRef, Shelf};
use crate::store::codec;
use crate::store::schema::Dbs;
use crate::store::sealed::View;
use crate::store::{Result, StoreError};

/// The posting blocks one view decompressed, by number, for as long as
/// the view lives (sized at its first reference, from the table's last
/// key).
#[derive(Default)]
pub struct Arena(OnceLock<Box<[Slot]>>);

/// A block of an arena, once decompressed.
type Slot = OnceLock<Box<[u8]>>;

impl Arena {
    /// Block `block` decompressed, read the first time it is asked for.
    fn block<'a>(&'a self, txn: &RoTxn<'_>, dbs: &Dbs, block: u32) -> Result<&'a [u8]> {
        let cells = match self.0.get() {
            Some(cells) => cells,
            None => {
                let count = match dbs.posting_blocks.last(txn)? {
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
        let raw = body_blocks::unpack(txn, dbs, Shelf::Postings, block)?;
        Ok(cell.get_or_init(|| raw.into_boxed_slice()))
    }
}

/// The part a `postings` value `stored` holds: itself, or the slice of a
/// block (decompressed into `arena`) it refers to.
pub fn resolve<'a>(
    txn: &RoTxn<'_>,
    dbs: &Dbs,
    arena: &'a Arena,
    stored: &'a [u8],
) -> Result<&'a [u8]> {
    let Some(r) = BlockRef::decode(stored, Shelf::Postings)? else {
        return Ok(stored);
    };
    let block = arena.block(txn, dbs, r.block)?;
    r.slice(block).ok_or_else(|| {
        StoreError::corrupt(format!(
            "a posting part lies past the end of posting block {}",
            r.block
        ))
    })
}

/// [`resolve`] in a view: the part a value of a posting stream holds.
pub fn part<'t, V: View + ?Sized>(v: &'t V, stored: &'t [u8]) -> Result<&'t [u8]> {
    resolve(v.txn(), v.dbs(), v.posting_arena(), stored)
}

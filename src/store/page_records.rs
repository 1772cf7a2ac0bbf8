//! Where a fetched page's own records live: its forward index, outgoing
//! links, meta tags and HTTP head are kept under `segment ‖ page id`, the
//! segment being the one the page was indexed in (never resolved through
//! merges: these records are not merged), and `page_segments` finds that
//! segment from the page id.
//!
//! Keyed by page id alone, these four tables filled 64-71% of their
//! leaves: pages finish out of id order, so most writes landed inside a
//! full leaf, which LMDB splits in half. Under the segment, a
//! transaction's records come after every older one, and the crawl's
//! writer takes a batch's pages in id order, so each is appended at the
//! end of its table (`MDB_APPEND`: LMDB starts a new leaf and leaves the
//! full one as it is; an ordinary put there still moves the last entry
//! over, which costs a sixth of a leaf of forward records).

use super::codec::{self, pair_key, u32_key};
use super::schema::{Db, Dbs, PageId};
use super::sealed::{put_appending, View};
use super::{Result, Writer};

/// The tables keyed `segment ‖ page id`.
pub(super) fn tables(dbs: &Dbs) -> [Db; 4] {
    [dbs.forward, dbs.links_out, dbs.meta_tags, dbs.headers]
}

/// The segment a page's records are under (None: the page has none).
pub(super) fn segment_of<V: View + ?Sized>(v: &V, page: PageId) -> Result<Option<u32>> {
    v.dbs()
        .page_segments
        .get(v.txn(), &u32_key(page))?
        .map(codec::read_u32)
        .transpose()
}

/// A page's record in `db`, one of [`tables`].
pub(super) fn get<V: View + ?Sized>(v: &V, db: Db, page: PageId) -> Result<Option<&[u8]>> {
    let Some(segment) = segment_of(v, page)? else {
        return Ok(None);
    };
    Ok(db.get(v.txn(), &pair_key(segment, page))?)
}

/// Where this transaction writes one page's records: `segment ‖ page`.
pub(super) struct Slot([u8; 8]);

impl Writer<'_> {
    /// Gives a page its place in this transaction's segment; its earlier
    /// records must be gone ([`Writer::drop_page_records`]).
    pub(super) fn page_slot(&mut self, page: PageId) -> Result<Slot> {
        let segment = self.segment()?;
        self.dbs
            .page_segments
            .put(&mut self.txn, &u32_key(page), &u32_key(segment))?;
        Ok(Slot(pair_key(segment, page)))
    }

    /// Appended, unless the page came out of order or was written twice
    /// in one transaction (then an ordinary put).
    pub(super) fn put_in_slot(&mut self, db: Db, slot: &Slot, value: &[u8]) -> Result<()> {
        put_appending(&mut self.txn, db, &slot.0, value)
    }

    /// Removes a page's records from every table of [`tables`] and its
    /// place (nothing when it has none).
    pub(super) fn drop_page_records(&mut self, page: PageId) -> Result<()> {
        let Some(segment) = segment_of(self, page)? else {
            return Ok(());
        };
        let key = pair_key(segment, page);
        for db in tables(&self.dbs) {
            db.delete(&mut self.txn, &key)?;
        }
        self.dbs
            .page_segments
            .delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

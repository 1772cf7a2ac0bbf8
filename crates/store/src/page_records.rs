//! Where a fetched page's own records live: its forward index, outgoing
//! links, meta tags and HTTP head, the four *parts* of one `forward`
//! record under `segment ‖ page id`, the segment being the one the page
//! was indexed in (never resolved through merges: these records are not
//! merged), and `page_segments` finds that segment from the page id.
//!
//! Keyed by page id alone, these records filled 64-71% of their leaves:
//! pages finish out of id order, so most writes landed inside a full
//! leaf, which LMDB splits in half. Under the segment, a transaction's
//! records come after every older one, and the crawl's writer takes a
//! batch's pages in id order, so each is appended at the end of its table
//! (`MDB_APPEND`: LMDB starts a new leaf and leaves the full one as it
//! is; an ordinary put there still moves the last entry over, which costs
//! a sixth of a leaf of forward records).
//!
//! One record, not a table per part: the four are written and
//! removed together, and a record of its own cost each part 8 bytes of key
//! and 10 of LMDB node, 0.55 MB of a 23 MB store of small pages. The
//! record is `varint length, part` for each part but the last, then the
//! last part (the head); an empty part is an absent one (every part that
//! is there has bytes: a forward record names its segment, the rest are
//! frames or encoded records).

use super::codec::{self, pair_key, put_varint, u32_key, VarintReader};
use super::schema::PageId;
use super::sealed::{put_appending, View};
use super::{Result, Writer};

/// The parts of a page's record, in the order it holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Forward,
    Links,
    Meta,
    Head,
}

/// A page's record of its four parts (empty: absent).
pub(super) fn encode(parts: [&[u8]; 4]) -> Vec<u8> {
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len() + 2).sum());
    for part in &parts[..3] {
        put_varint(&mut out, part.len() as u64);
        out.extend_from_slice(part);
    }
    out.extend_from_slice(parts[3]);
    out
}

/// The four parts of a page's record (empty: absent).
pub(super) fn split(record: &[u8]) -> Result<[&[u8]; 4]> {
    let mut parts: [&[u8]; 4] = [&[]; 4];
    let mut r = VarintReader::new(record);
    for part in &mut parts[..3] {
        let len = r.next_u64()?;
        *part = r.take(len)?;
    }
    parts[3] = r.remaining();
    Ok(parts)
}

/// One part of a page's record (empty: absent).
pub(super) fn part(record: &[u8], part: Part) -> Result<&[u8]> {
    Ok(split(record)?[part as usize])
}

/// The segment a page's records are under (None: the page has none).
pub(super) fn segment_of<V: View + ?Sized>(v: &V, page: PageId) -> Result<Option<u32>> {
    v.dbs()
        .page_segments
        .get(v.txn(), &u32_key(page))?
        .map(codec::read_u32)
        .transpose()
}

/// A page's `part` (None: the page has no record, or no such part).
pub(super) fn get<V: View + ?Sized>(v: &V, part: Part, page: PageId) -> Result<Option<&[u8]>> {
    let Some(segment) = segment_of(v, page)? else {
        return Ok(None);
    };
    let Some(record) = v.dbs().forward.get(v.txn(), &pair_key(segment, page))? else {
        return Ok(None);
    };
    let bytes = self::part(record, part)?;
    Ok((!bytes.is_empty()).then_some(bytes))
}

impl Writer<'_> {
    /// Puts a page's record in this transaction's segment; its earlier
    /// one must be gone ([`Writer::drop_page_records`]). Appended, unless
    /// the page came out of order or was written twice in one transaction
    /// (then an ordinary put).
    pub(super) fn put_page_records(&mut self, page: PageId, parts: [&[u8]; 4]) -> Result<()> {
        let segment = self.segment()?;
        self.dbs
            .page_segments
            .put(&mut self.txn, &u32_key(page), &u32_key(segment))?;
        let key = pair_key(segment, page);
        put_appending(&mut self.txn, self.dbs.forward, &key, &encode(parts))
    }

    /// Removes a page's record and its place (nothing when it has none).
    pub(super) fn drop_page_records(&mut self, page: PageId) -> Result<()> {
        let Some(segment) = segment_of(self, page)? else {
            return Ok(());
        };
        self.dbs
            .forward
            .delete(&mut self.txn, &pair_key(segment, page))?;
        self.dbs
            .page_segments
            .delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

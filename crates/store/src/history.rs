//! Run history: what each run of a crawl point saw of every URL it
//! fetched (status, title, content hash), 64 pages' entries to a record
//! keyed `point ‖ run ‖ page / 64`, so that `report changes` can compare
//! any two runs of a point. (A record an entry would spend 22 bytes of
//! key and LMDB node on each of them.) Every run's history is kept: a
//! run costs the entries of the URLs it saw, most of them a status alone
//! (below), and nothing more.
//!
//! An entry whose title and hash are the ones the page's record holds is
//! kept as its status alone ([`Kept::AsPage`]): most are, as
//! the run that fetched a page last wrote its record. Written whole, the
//! title took 47 of an entry's 62 bytes, and the table 0.93 MB of a
//! 23 MB store of small pages. Whatever replaces a page record's title or
//! hash, or removes the record, first writes the entries that lean on it
//! out whole ([`Writer::write_out_history`]).

use std::ops::Bound::{Excluded, Included, Unbounded};

use serde::{Deserialize, Serialize};

use heed::RwTxn;

use super::codec::{self, put_varint, read_u32, VarintReader};
use super::pages::PageRead;
use super::schema::{Db, PageId, PageRecord, PointId};
use super::sealed::View;
use super::{Result, StoreError, Writer};

/// One URL as one run saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEntry {
    /// The HTTP status answered; None when no answer came.
    pub status: Option<u16>,
    pub title: Option<String>,
    /// xxh3 of the body of a 2xx answer.
    pub content_hash: Option<u64>,
}

/// A run entry as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kept {
    Whole(RunEntry),
    /// A 2xx answer whose title and content hash are the page record's.
    AsPage {
        status: u16,
    },
}

impl Kept {
    pub fn status(&self) -> Option<u16> {
        match self {
            Kept::Whole(e) => e.status,
            Kept::AsPage { status } => Some(*status),
        }
    }

    /// `entry` as kept, beside the page record it was written with.
    fn of(entry: &RunEntry, record: Option<&PageRecord>) -> Kept {
        match (entry.status, record) {
            (Some(status), Some(rec))
                if entry.content_hash == Some(rec.content_hash) && entry.title == rec.title =>
            {
                Kept::AsPage { status }
            }
            _ => Kept::Whole(entry.clone()),
        }
    }
}

/// Pages to a record: `point ‖ run ‖ page / 64`.
const BLOCK_PAGES: u32 = 64;

fn key(point: PointId, gen: u32, block: u32) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&point.to_be_bytes());
    k[4..8].copy_from_slice(&gen.to_be_bytes());
    k[8..].copy_from_slice(&block.to_be_bytes());
    k
}

fn page_key(point: PointId, gen: u32, page: PageId) -> [u8; 12] {
    key(point, gen, page / BLOCK_PAGES)
}

/// `(point, run, block)` of a history key: the block's pages are
/// `block * 64 ..`.
pub(super) fn split_key(k: &[u8]) -> Result<(PointId, u32, u32)> {
    if k.len() != 12 {
        return Err(StoreError::corrupt("run history key is not 12 bytes"));
    }
    Ok((read_u32(&k[..4])?, read_u32(&k[4..8])?, read_u32(&k[8..])?))
}

/// The entries of a history record, by page: `page % 64, varint length,
/// the entry` for each, ascending.
pub(super) fn block_entries(
    block: u32,
    v: &[u8],
) -> impl Iterator<Item = Result<(PageId, Kept)>> + '_ {
    let mut r = VarintReader::new(v);
    let mut failed = false;
    std::iter::from_fn(move || {
        if r.is_empty() || failed {
            return None;
        }
        let entry = (|| {
            let slot = r.next_u64()?;
            let len = r.next_u64()?;
            if slot >= u64::from(BLOCK_PAGES) {
                return Err(StoreError::corrupt(
                    "run history entry past its record's pages",
                ));
            }
            let page = (u64::from(block) * u64::from(BLOCK_PAGES) + slot)
                .try_into()
                .map_err(|_| StoreError::corrupt("run history page id overflow"))?;
            Ok((page, codec::decode(r.take(len)?)?))
        })();
        failed = entry.is_err();
        Some(entry)
    })
}

/// `block` (a history record, or none) with `page`'s entry put in.
fn with_entry(block: Option<&[u8]>, page: PageId, kept: &Kept) -> Result<Vec<u8>> {
    let slot = u64::from(page % BLOCK_PAGES);
    let entry = codec::encode(kept)?;
    let mut out = Vec::with_capacity(block.map_or(0, <[u8]>::len) + entry.len() + 2);
    let put = |out: &mut Vec<u8>| {
        put_varint(out, slot);
        put_varint(out, entry.len() as u64);
        out.extend_from_slice(&entry);
    };
    let mut r = VarintReader::new(block.unwrap_or_default());
    let mut done = false;
    while !r.is_empty() {
        let at = r.next_u64()?;
        let len = r.next_u64()?;
        let bytes = r.take(len)?;
        if !done && at >= slot {
            put(&mut out);
            done = true;
        }
        if at != slot {
            put_varint(&mut out, at);
            put_varint(&mut out, len);
            out.extend_from_slice(bytes);
        }
    }
    if !done {
        put(&mut out);
    }
    Ok(out)
}

/// Puts `page`'s entry of a run into `db`'s history record of its block.
pub(super) fn put_kept(
    txn: &mut RwTxn<'_>,
    db: Db,
    (point, gen, page): (PointId, u32, PageId),
    kept: &Kept,
) -> Result<()> {
    let k = page_key(point, gen, page);
    let value = with_entry(db.get(txn, &k)?, page, kept)?;
    db.put(txn, &k, &value)?;
    Ok(())
}

/// Run history look-ups.
pub trait HistoryRead: View {
    /// The runs of `point` that left history, oldest first.
    fn runs_of(&self, point: PointId) -> Result<Vec<u32>> {
        let mut runs = Vec::new();
        let mut below = u32::MAX;
        // Walk down run by run: one key read per run, never a whole run.
        loop {
            let lo = key(point, 0, 0);
            let hi = key(point, below, 0);
            let range = (Included(&lo[..]), Excluded(&hi[..]));
            let Some(item) = self.dbs().run_history.rev_range(self.txn(), &range)?.next() else {
                break;
            };
            let (_, gen, _) = split_key(item?.0)?;
            runs.push(gen);
            below = gen;
        }
        runs.reverse();
        Ok(runs)
    }

    /// Every URL one run of a point saw, by page id.
    fn run_entries(&self, point: PointId, gen: u32) -> Result<Vec<(PageId, RunEntry)>> {
        (self.kept_entries(point, gen)?.into_iter())
            .map(|(page, kept)| Ok((page, self.resolve_entry(page, kept)?)))
            .collect()
    }

    /// Every URL one run of a point saw, as kept: a caller that compares
    /// two runs reads the page records only where they differ.
    fn kept_entries(&self, point: PointId, gen: u32) -> Result<Vec<(PageId, Kept)>> {
        let prefix = &key(point, gen, 0)[..8];
        let mut out = Vec::new();
        for item in self.dbs().run_history.prefix_iter(self.txn(), prefix)? {
            let (k, v) = item?;
            for entry in block_entries(split_key(k)?.2, v) {
                out.push(entry?);
            }
        }
        Ok(out)
    }

    /// A kept entry of `page` whole, from its page record if it leans on it.
    fn resolve_entry(&self, page: PageId, kept: Kept) -> Result<RunEntry> {
        match kept {
            Kept::Whole(entry) => Ok(entry),
            Kept::AsPage { status } => {
                let rec = self.page(page)?.ok_or_else(|| {
                    StoreError::corrupt(format!(
                        "run history of page {page} leans on a page record it lacks"
                    ))
                })?;
                Ok(RunEntry {
                    status: Some(status),
                    title: rec.title,
                    content_hash: Some(rec.content_hash),
                })
            }
        }
    }

    /// The points that have run history, ascending.
    fn points_with_history(&self) -> Result<Vec<PointId>> {
        let mut out: Vec<PointId> = Vec::new();
        let mut from = 0u32;
        loop {
            let lo = key(from, 0, 0);
            let Some(item) = self
                .dbs()
                .run_history
                .range(self.txn(), &(Included(&lo[..]), Unbounded))?
                .next()
            else {
                return Ok(out);
            };
            let (point, _, _) = split_key(item?.0)?;
            out.push(point);
            match point.checked_add(1) {
                Some(next) => from = next,
                None => return Ok(out),
            }
        }
    }
}

impl<T: View + ?Sized> HistoryRead for T {}

impl Writer<'_> {
    pub fn put_run_entry(
        &mut self,
        point: PointId,
        gen: u32,
        page: PageId,
        entry: &RunEntry,
    ) -> Result<()> {
        let kept = Kept::of(entry, self.page(page)?.as_ref());
        put_kept(
            &mut self.txn,
            self.dbs.run_history,
            (point, gen, page),
            &kept,
        )
    }

    /// Writes whole every run entry that leans on `page`'s record, which
    /// holds `old` and is about to change or go: in every run of every
    /// point, as any of them may have seen the page as it is (one key
    /// read a run, and only when a page's title or content changed).
    pub(super) fn write_out_history(&mut self, page: PageId, old: &PageRecord) -> Result<()> {
        for point in self.points_with_history()? {
            for gen in self.runs_of(point)? {
                let k = page_key(point, gen, page);
                let Some(v) = self.dbs.run_history.get(&self.txn, &k)? else {
                    continue;
                };
                let leans = block_entries(page / BLOCK_PAGES, v)
                    .find_map(|entry| match entry {
                        Ok((p, Kept::AsPage { status })) if p == page => Some(Ok(status)),
                        Ok(_) => None,
                        Err(e) => Some(Err(e)),
                    })
                    .transpose()?;
                if let Some(status) = leans {
                    let whole = Kept::Whole(RunEntry {
                        status: Some(status),
                        title: old.title.clone(),
                        content_hash: Some(old.content_hash),
                    });
                    put_kept(
                        &mut self.txn,
                        self.dbs.run_history,
                        (point, gen, page),
                        &whole,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Drops the history of `point` (a point removed for good).
    pub(super) fn drop_history(&mut self, point: PointId) -> Result<()> {
        let lo = key(point, 0, 0);
        let hi = key(point, u32::MAX, u32::MAX);
        self.dbs
            .run_history
            .delete_range(&mut self.txn, &(Included(&lo[..]), Included(&hi[..])))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_put_in_any_order_read_back_by_page_once_each() {
        let kept = |n: u16| Kept::AsPage { status: n };
        let mut record: Option<Vec<u8>> = None;
        // Block 2: pages 128..192, put out of order, 150 twice.
        for (page, n) in [(150, 1), (130, 2), (191, 3), (128, 4), (150, 5), (140, 6)] {
            record = Some(with_entry(record.as_deref(), page, &kept(n)).unwrap());
        }
        let read: Vec<(PageId, Kept)> = block_entries(2, &record.unwrap())
            .collect::<Result<_>>()
            .unwrap();
        let want = [(128, 4), (130, 2), (140, 6), (150, 5), (191, 3)];
        assert_eq!(read, want.map(|(p, n)| (p, kept(n))));
        // An entry past the record's 64 pages is corrupt, and ends the walk.
        let bad = [64, 1, 0, 0, 1, 0];
        let read: Vec<_> = block_entries(0, &bad).collect();
        assert_eq!(read.len(), 1);
        assert!(read[0].is_err());
    }
}

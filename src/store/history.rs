//! Run history: what each run of a crawl point saw of every URL it
//! fetched (status, title, content hash), keyed `point ‖ run ‖ page`, so
//! that `report changes` can compare a point's last two runs. Only the
//! last finished run and the current one are kept: a new run drops older
//! ones in the transaction that starts it.
//!
//! An entry whose title and hash are the ones the page's record holds is
//! kept as its status alone ([`Kept::AsPage`], schema 17): most are, as
//! the run that fetched a page last wrote its record. Written whole, the
//! title took 47 of an entry's 62 bytes, and the table 0.93 MB of a
//! 23 MB store of small pages. Whatever replaces a page record's title or
//! hash, or removes the record, first writes the entries that lean on it
//! out whole ([`Writer::write_out_history`]).

use std::ops::Bound::{Excluded, Included, Unbounded};

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32};
use super::pages::PageRead;
use super::schema::{PageId, PageRecord, PointId};
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
    AsPage { status: u16 },
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

fn key(point: PointId, gen: u32, page: PageId) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&point.to_be_bytes());
    k[4..8].copy_from_slice(&gen.to_be_bytes());
    k[8..].copy_from_slice(&page.to_be_bytes());
    k
}

/// `(point, run, page)` of a history key.
pub(super) fn split_key(k: &[u8]) -> Result<(PointId, u32, PageId)> {
    if k.len() != 12 {
        return Err(StoreError::corrupt("run history key is not 12 bytes"));
    }
    Ok((read_u32(&k[..4])?, read_u32(&k[4..8])?, read_u32(&k[8..])?))
}

/// Run history look-ups.
pub trait HistoryRead: View {
    /// The runs of `point` that left history, oldest first (at most two).
    fn runs_of(&self, point: PointId) -> Result<Vec<u32>> {
        let mut runs = Vec::new();
        let mut below = u32::MAX;
        // Walk down run by run: one key read per run, never a whole run.
        while runs.len() < 2 {
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
            out.push((split_key(k)?.2, codec::decode(v)?));
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
        self.dbs
            .run_history
            .put(&mut self.txn, &key(point, gen, page), &codec::encode(&kept)?)?;
        Ok(())
    }

    /// Writes whole every run entry that leans on `page`'s record, which
    /// holds `old` and is about to change or go.
    pub(super) fn write_out_history(&mut self, page: PageId, old: &PageRecord) -> Result<()> {
        for point in self.points_with_history()? {
            for gen in self.runs_of(point)? {
                let k = key(point, gen, page);
                let Some(v) = self.dbs.run_history.get(&self.txn, &k)? else {
                    continue;
                };
                if let Kept::AsPage { status } = codec::decode(v)? {
                    let whole = Kept::Whole(RunEntry {
                        status: Some(status),
                        title: old.title.clone(),
                        content_hash: Some(old.content_hash),
                    });
                    self.dbs
                        .run_history
                        .put(&mut self.txn, &k, &codec::encode(&whole)?)?;
                }
            }
        }
        Ok(())
    }

    /// Before a new run of `point`: keeps only its latest run, the one the
    /// new run will be compared with.
    pub fn keep_last_run(&mut self, point: PointId) -> Result<()> {
        if let Some(&last) = self.runs_of(point)?.last() {
            self.drop_runs(point, last)?;
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

    /// Deletes the runs of `point` before run `before`.
    fn drop_runs(&mut self, point: PointId, before: u32) -> Result<()> {
        let lo = key(point, 0, 0);
        let hi = key(point, before, 0);
        self.dbs
            .run_history
            .delete_range(&mut self.txn, &(Included(&lo[..]), Excluded(&hi[..])))?;
        Ok(())
    }
}

//! The `runs` table: one record per run of a crawl point, keyed by its
//! store-wide id (ascending, so newest last), saying when it started and
//! ended, how, with which flags, and what its crawlers counted. A run's
//! per-URL record is its history (`history`), keyed by point and gen.

use super::codec::{self, read_u32, u32_key};
use super::schema::{meta_keys, PointId, RunCounts, RunId, RunRecord};
use super::sealed::{by_id, View};
use super::{Result, StoreError, Writer};

/// Run look-ups.
pub trait RunRead: View {
    fn run(&self, id: RunId) -> Result<Option<RunRecord>> {
        by_id(self, self.dbs().runs, id, codec::decode)
    }

    /// Every run, oldest first; only `point`'s when given.
    fn runs(&self, point: Option<PointId>) -> Result<Vec<(RunId, RunRecord)>> {
        let mut out = Vec::new();
        for item in self.dbs().runs.iter(self.txn())? {
            let (k, v) = item?;
            let rec: RunRecord = codec::decode(v)?;
            if point.is_none_or(|p| p == rec.point) {
                out.push((read_u32(k)?, rec));
            }
        }
        Ok(out)
    }

    /// The run of `point` that crawls in generation `gen`, if recorded.
    fn run_of_gen(&self, point: PointId, gen: u32) -> Result<Option<(RunId, RunRecord)>> {
        // Newest first: the run asked for is nearly always among the last.
        for item in self.dbs().runs.rev_iter(self.txn())? {
            let (k, v) = item?;
            let rec: RunRecord = codec::decode(v)?;
            if rec.point == point && rec.gen == gen {
                return Ok(Some((read_u32(k)?, rec)));
            }
        }
        Ok(None)
    }
}

impl<T: View + ?Sized> RunRead for T {}

impl Writer<'_> {
    pub fn add_run(&mut self, rec: &RunRecord) -> Result<RunId> {
        let id = self.next_id32(meta_keys::NEXT_RUN)?;
        self.put_run(id, rec)?;
        Ok(id)
    }

    pub fn put_run(&mut self, id: RunId, rec: &RunRecord) -> Result<()> {
        self.dbs
            .runs
            .put(&mut self.txn, &u32_key(id), &codec::encode(rec)?)?;
        Ok(())
    }

    /// Adds what a transaction counted to run `id`'s counts.
    pub fn add_run_counts(&mut self, id: RunId, counts: &RunCounts) -> Result<()> {
        let mut rec = self
            .run(id)?
            .ok_or_else(|| StoreError::NotFound(format!("run {id}")))?;
        rec.counts.add(counts);
        self.put_run(id, &rec)
    }

    /// Drops the runs of `point` (a point removed for good).
    pub(super) fn drop_runs_of(&mut self, point: PointId) -> Result<()> {
        for (id, _) in self.runs(Some(point))? {
            self.dbs.runs.delete(&mut self.txn, &u32_key(id))?;
        }
        Ok(())
    }
}

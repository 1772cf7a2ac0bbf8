//! The `runs` table and its record: one per run of a crawl point, keyed by its
//! store-wide id (ascending, so newest last), saying when it started and
//! ended, how, with which flags, and what its crawlers counted. A run's
//! per-URL record is its history (`history`), keyed by point and gen.

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32, u32_key};
use super::schema::{meta_keys, InstanceId, PointId, PointRecord, RunId, SkipReason};
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

/// One run of a crawl point: every crawl of a point is one, numbered
/// store-wide; crawlers that join a run under way share its record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub point: PointId,
    /// The point's run generation (`PointRecord::gen`) this run crawls
    /// in: its url states and its history are keyed by it.
    pub gen: u32,
    /// Unix seconds; `ended_at` None while the run has not ended.
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub ended: RunEnd,
    /// The crawlers working on it while it is `Running`: when every one
    /// of them is dead, it was interrupted.
    pub crawlers: Vec<InstanceId>,
    pub flags: RunFlags,
    pub counts: RunCounts,
    /// Milliseconds the run ran, pauses excluded: each crawler adds its
    /// running time as it goes, and two crawlers at once count once.
    pub running_ms: u64,
    /// Unix milliseconds up to which `running_ms` counts: time before
    /// it, which another crawler of the run already counted, is not
    /// added again.
    pub ran_to_ms: i64,
}

impl RunRecord {
    /// Whether the run, having ended as `ended` (see `run_ended`), covered
    /// its point whole: finished, with its point's own scope and limits.
    pub fn complete(&self, ended: RunEnd) -> bool {
        ended == RunEnd::Finished && !self.flags.depth_override && !self.flags.max_pages_override
    }
}

/// How a run ended, as recorded; a `Running` run whose crawlers are all
/// dead reads as interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunEnd {
    Running,
    /// Nothing left to crawl.
    Finished,
    /// Ended with URLs still queued (Ctrl-C, stop, `--max-pages`).
    Stopped,
    /// Its crawlers died; a later crawl of the point started anew.
    Interrupted,
}

impl RunEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            RunEnd::Running => "running",
            RunEnd::Finished => "finished",
            RunEnd::Stopped => "stopped",
            RunEnd::Interrupted => "interrupted",
        }
    }
}

/// What a run was asked to do: its point's settings as they were, and
/// the limits the command line put over them for this run alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RunFlags {
    pub depth: Option<u32>,
    pub max_pages: Option<u64>,
    /// `--depth` / `--max-pages` given for this run over the point's own.
    pub depth_override: bool,
    pub max_pages_override: bool,
    pub check_external: bool,
    pub follow_nofollow: bool,
    pub no_sitemaps: bool,
    pub distinct_www: bool,
    pub no_resources: bool,
    pub check_fragments: bool,
    pub accept: Vec<(u16, u16)>,
    pub exclude_regex: Vec<String>,
}

impl RunFlags {
    /// A point's own settings, as a run's flags without overrides.
    pub fn of(p: &PointRecord) -> RunFlags {
        RunFlags {
            depth: p.depth,
            max_pages: p.max_pages,
            depth_override: false,
            max_pages_override: false,
            check_external: p.check_external,
            follow_nofollow: p.follow_nofollow,
            no_sitemaps: p.no_sitemaps,
            distinct_www: p.distinct_www,
            no_resources: p.no_resources,
            check_fragments: p.check_fragments,
            accept: p.accept.clone(),
            exclude_regex: p.exclude_regex.clone(),
        }
    }
}

/// A run's counts, from the outcomes its crawlers committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RunCounts {
    pub fetched: u64,
    pub failed: u64,
    pub redirected: u64,
    pub not_modified: u64,
    pub unchanged: u64,
    pub skipped_robots: u64,
    pub out_of_scope: u64,
    pub excluded: u64,
    pub too_deep: u64,
    pub nofollow: u64,
    pub external_checked: u64,
    pub external_broken: u64,
    /// Resource links (images, scripts, stylesheets, ...) checked in the
    /// run, and those of them found broken.
    pub resources_checked: u64,
    pub resources_broken: u64,
}

impl RunCounts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &RunCounts) {
        self.fetched += other.fetched;
        self.failed += other.failed;
        self.redirected += other.redirected;
        self.not_modified += other.not_modified;
        self.unchanged += other.unchanged;
        self.skipped_robots += other.skipped_robots;
        self.out_of_scope += other.out_of_scope;
        self.excluded += other.excluded;
        self.too_deep += other.too_deep;
        self.nofollow += other.nofollow;
        self.external_checked += other.external_checked;
        self.external_broken += other.external_broken;
        self.resources_checked += other.resources_checked;
        self.resources_broken += other.resources_broken;
    }

    /// The skip counter of `reason`.
    pub fn skipped_mut(&mut self, reason: SkipReason) -> &mut u64 {
        match reason {
            SkipReason::Robots => &mut self.skipped_robots,
            SkipReason::OutOfScope => &mut self.out_of_scope,
            SkipReason::Excluded => &mut self.excluded,
            SkipReason::TooDeep => &mut self.too_deep,
            SkipReason::Nofollow => &mut self.nofollow,
        }
    }

    /// URLs skipped, for every reason.
    pub fn skipped(&self) -> u64 {
        self.skipped_robots + self.out_of_scope + self.excluded + self.too_deep + self.nofollow
    }
}

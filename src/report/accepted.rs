//! Which failed URLs a report calls broken: a URL's state was written by
//! one run of one point, and that run's `--accept` list (its flags; the
//! point's own list when the run left no record) decides, through
//! [`crate::accept::Accept`]. Read once per report: the `runs` and
//! `crawl_points` tables are small.

use rustc_hash::FxHashMap;

use super::Result;
use crate::accept::Accept;
use crate::store::prelude::*;
use crate::store::{PointId, Reader};

/// The accepted statuses of every run and point of the store.
pub struct Accepted {
    by_run: FxHashMap<(PointId, u32), Vec<(u16, u16)>>,
    by_point: FxHashMap<PointId, Vec<(u16, u16)>>,
}

impl Accepted {
    pub fn read(r: &Reader<'_>) -> Result<Accepted> {
        // Oldest first, so the latest run of a generation has the last word.
        let by_run = r
            .runs(None)?
            .into_iter()
            .map(|(_, run)| ((run.point, run.gen), run.flags.accept))
            .collect();
        let by_point = r
            .points()?
            .into_iter()
            .map(|(id, p)| (id, p.accept))
            .collect();
        Ok(Accepted { by_run, by_point })
    }

    /// The list of the run `(point, gen)`.
    pub fn of(&self, point: PointId, gen: u32) -> Accept<'_> {
        let ranges = self
            .by_run
            .get(&(point, gen))
            .or_else(|| self.by_point.get(&point));
        Accept(ranges.map_or(&[][..], Vec::as_slice))
    }

    /// Whether a URL that run `(point, gen)` found answering `status`
    /// (None: no answer) is broken.
    pub fn is_broken(&self, point: PointId, gen: u32, status: Option<u16>) -> bool {
        self.of(point, gen).is_broken(status)
    }
}

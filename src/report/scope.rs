//! Which runs a report answers for, and so which URLs it covers. By
//! default each point's current view: its latest complete run (finished
//! with the point's own scope and limits) and the partial runs since,
//! which refresh what they reached and remove nothing; `--run ID` one run;
//! `--all-runs` every URL any run reached. A URL is covered when one of
//! those runs reached it (its history) or decided on it (its point's
//! mark), whatever other points did with it. Runs are named by their
//! store-wide ids alone; a point's run number (`gen`, which keys its
//! marks and history) is never shown.

use std::collections::HashMap;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::{ReportError, Result};
use crate::crawl::run_ended;
use crate::store::prelude::*;
use crate::store::{
    Decision, PageId, PointId, Reader, RunEnd, RunId, RunRecord, SkipReason, UrlState,
};
use crate::time::rfc3339;

/// Which runs a report answers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    #[default]
    Latest,
    Run(RunId),
    AllRuns,
}

/// A run a report names: the one it answers for, or each point's latest.
#[derive(Debug, Clone, Serialize)]
pub struct NamedRun {
    pub id: RunId,
    pub point: PointId,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub ended: &'static str,
}

impl NamedRun {
    fn of(id: RunId, run: &RunRecord, ended: RunEnd) -> NamedRun {
        NamedRun {
            id,
            point: run.point,
            started_at: rfc3339(run.started_at),
            ended_at: run.ended_at.map(rfc3339),
            ended: ended.as_str(),
        }
    }

    /// `point 1, run 3 (2026-11-27T02:12:08Z, finished)`.
    pub fn describe(&self) -> String {
        format!(
            "point {}, run {} ({}, {})",
            self.point, self.id, self.started_at, self.ended
        )
    }
}

/// The runs a scope picks: what [`View`] is built from, only when a
/// report reads URLs (the kept counts need none).
#[derive(Default)]
pub(super) struct Plan {
    /// (id, point, run number) of each.
    runs: Vec<(RunId, PointId, u32)>,
    /// The picked runs older than the one named for their point, with
    /// it: where rows may come from besides the named runs.
    older: Vec<RunId>,
}

impl Plan {
    /// The ids of the picked runs.
    pub fn ids(&self) -> impl Iterator<Item = RunId> + '_ {
        self.runs.iter().map(|&(id, _, _)| id)
    }

    /// The runs rows may come from when some are older than the runs
    /// named, oldest first; empty when the named runs alone give them.
    pub fn rows_from(&self) -> &[RunId] {
        &self.older
    }

    /// The URLs the picked runs decided on or reached: each point's own
    /// marks of those runs (what it queued, fetched or skipped, whatever
    /// other points did with the URL) and the history of what they fetched.
    pub fn build(&self, r: &Reader<'_>) -> Result<View> {
        let mut view = View {
            points: FxHashSet::default(),
            reached: FxHashSet::default(),
            skipped: FxHashMap::default(),
        };
        let mut gens: HashMap<PointId, FxHashSet<u32>> = HashMap::new();
        for &(_, point, gen) in &self.runs {
            gens.entry(point).or_default().insert(gen);
            let entries = r.kept_entries(point, gen)?;
            view.reached
                .extend(entries.into_iter().map(|(page, _)| page));
        }
        for (&point, gens) in &gens {
            view.points.insert(point);
            r.for_each_point_mark(point, |page, mark| {
                if gens.contains(&mark.gen) {
                    match mark.decision {
                        Decision::Skipped(reason) => {
                            view.skipped
                                .entry(page)
                                .or_insert((point, mark.gen, reason));
                        }
                        Decision::Queued | Decision::Settled => {
                            view.reached.insert(page);
                        }
                    }
                }
                Ok(())
            })?;
        }
        // A URL one picked point reached is shown as reached, whatever
        // another skipped.
        view.skipped.retain(|page, _| !view.reached.contains(page));
        Ok(view)
    }
}

/// The URLs a scope covers; None: every URL of the store.
pub(super) struct View {
    /// The points whose runs are picked.
    points: FxHashSet<PointId>,
    /// The URLs those runs queued, fetched or reached.
    reached: FxHashSet<PageId>,
    /// The URLs they only skipped: the point, its run and why.
    skipped: FxHashMap<PageId, (PointId, u32, SkipReason)>,
}

impl View {
    /// The state the scope shows of a URL it covers (None: not covered):
    /// what is known of the URL, unless the scope's points only skipped
    /// it and what is known comes from another point's run (that point's
    /// fetch is not theirs: they show their own skip, as crawled alone).
    pub fn state_of(&self, page: PageId, state: UrlState) -> Option<UrlState> {
        if self.reached.contains(&page) {
            return Some(state.known());
        }
        let &(point, gen, reason) = self.skipped.get(&page)?;
        let known = state.known();
        Some(if self.points.contains(&known.run().0) {
            known
        } else {
            UrlState::Skipped { point, gen, reason }
        })
    }
}

/// The view `scope` asks for over several points (a document's, named
/// `doc`): each point's, together. `--run ID` must name a run of one of
/// them; with no points, nothing is covered.
pub(super) fn view_of_points(
    r: &Reader<'_>,
    points: &[PointId],
    scope: Scope,
    doc: &str,
) -> Result<(Plan, Vec<NamedRun>)> {
    let mut all = Plan::default();
    let mut named = Vec::new();
    let of_run = match scope {
        Scope::Run(id) => Some(r.run(id)?.ok_or(ReportError::NoRun(id))?.point),
        _ => None,
    };
    if let (Scope::Run(run), Some(point)) = (scope, of_run) {
        if !points.contains(&point) {
            return Err(ReportError::RunOutsideDocument {
                run,
                doc: doc.to_string(),
            });
        }
    }
    for &point in points.iter().filter(|&&p| of_run.is_none_or(|o| o == p)) {
        let (view, runs) = view(r, Some(point), scope)?;
        // With a point, every scope gives a view.
        if let Some(v) = view {
            all.runs.extend(v.runs);
            all.older.extend(v.older);
        }
        named.extend(runs);
    }
    Ok((all, named))
}

/// The view `scope` asks for (of `point`'s runs only, when given) and the
/// runs it names.
pub(super) fn view(
    r: &Reader<'_>,
    point: Option<PointId>,
    scope: Scope,
) -> Result<(Option<Plan>, Vec<NamedRun>)> {
    let instances = r.instances()?.into_iter().collect();
    let ended = |run: &RunRecord| run_ended(run, &instances);
    let runs = r.runs(point)?;
    let mut older = Vec::new();
    let (picked, named): (Vec<(RunId, &RunRecord)>, Vec<NamedRun>) = match scope {
        Scope::AllRuns if point.is_none() => return Ok((None, Vec::new())),
        Scope::AllRuns => (
            runs.iter().map(|(id, run)| (*id, run)).collect(),
            Vec::new(),
        ),
        Scope::Run(id) => {
            let Some((_, run)) = runs.iter().find(|(at, _)| *at == id) else {
                return Err(match (r.run(id)?, point) {
                    (Some(_), Some(point)) => ReportError::RunOfAnotherPoint { run: id, point },
                    _ => ReportError::NoRun(id),
                });
            };
            (vec![(id, run)], vec![NamedRun::of(id, run, ended(run))])
        }
        Scope::Latest => {
            let mut by_point: HashMap<PointId, Vec<(RunId, &RunRecord)>> = HashMap::new();
            for (id, run) in &runs {
                by_point.entry(run.point).or_default().push((*id, run));
            }
            let mut points: Vec<_> = by_point.into_iter().collect();
            points.sort_unstable_by_key(|(p, _)| *p);
            let (mut picked, mut named) = (Vec::new(), Vec::new());
            for (_, runs) in points {
                let from = (runs.iter())
                    .rposition(|(_, run)| run.complete(ended(run)))
                    .unwrap_or(0);
                let since = &runs[from..];
                if since.len() > 1 {
                    older.extend(since.iter().map(|(id, _)| *id));
                }
                picked.extend(since.iter().copied());
                if let Some(&(id, run)) = runs.last() {
                    named.push(NamedRun::of(id, run, ended(run)));
                }
            }
            (picked, named)
        }
    };
    let runs = (picked.into_iter())
        .map(|(id, run)| (id, run.point, run.gen))
        .collect();
    Ok((Some(Plan { runs, older }), named))
}

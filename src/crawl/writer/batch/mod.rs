//! Applying one batch inside the writer's transaction: each outcome
//! becomes the URL's new state, the page and its links, and the history
//! entry; each link found is queued or recorded skipped as the frontier
//! policy decides; a request ending the batch is answered from the same
//! transaction. Nothing here is announced: the events and answers wait
//! for the commit, which the writer thread makes. This module owns the
//! batch and the applier's state; the outcomes ([`outcome`]), the links
//! they find ([`links`]) and the requests ([`request`]) are applied in
//! modules of their own.

mod links;
mod outcome;
mod request;

use std::collections::HashMap;

use rustc_hash::FxHashSet;

use super::counters::count_run;
use super::frontier::Frontier;
use super::runs::Overrides;
use crate::crawl::event::CrawlEvent;
use crate::crawl::history;
use crate::crawl::msg::{Outcome, Request, Settle};
use crate::crawl::policy::{PointRun, Runs};
use crate::crawl::{Part, PartsOff};
use crate::store::{
    Claim, InstanceId, OriginFigures, PageId, PointId, RunCounts, RunId, StoreError, Writer,
};

/// What the writer gathered to apply in one transaction: results, then at
/// most one request, which ended the gathering.
#[derive(Default)]
pub(super) struct Batch {
    pub outcomes: Vec<Outcome>,
    pub request: Option<Request>,
}

impl Batch {
    /// Whether the batch stores pages, and so indexes them.
    pub fn indexes(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Fetched { .. }))
    }
}

/// What applying one outcome leaves for after the commit.
pub(super) enum Done {
    Event(CrawlEvent),
    Queued(u64),
    Nothing,
}

/// The answer to a batch's request, sent once the batch has committed.
pub(super) enum Answer {
    Claimed(Vec<Claim>),
    Settled(Settle),
    Added(PointId, PointRun),
}

/// What one attempt at a batch's transaction did.
#[derive(Default)]
pub(super) struct Applied {
    /// In the order they are to be announced.
    pub done: Vec<Done>,
    pub answer: Option<Answer>,
    /// The outcome whose result could not be written, if one was.
    pub failed_at: Option<usize>,
}

/// Applies batches for this crawler: the runs of its points, and what the
/// transaction being applied gathers.
pub(super) struct Applier {
    pub instance: InstanceId,
    pub runs: Runs,
    /// Links recorded as skipped in the transaction being applied; their
    /// events go out with the batch's after the commit.
    skipped: Vec<CrawlEvent>,
    /// Per-origin figures of the requests in the transaction being
    /// applied, by run: added up here and written once per origin and run
    /// at its end, not read and rewritten for every request.
    figures: HashMap<(String, RunId), OriginFigures>,
    /// What the transaction being applied counted, by run: added to each
    /// run's record at its end.
    tallies: HashMap<RunId, RunCounts>,
    /// The command line's limits, for a point added mid-crawl.
    overrides: Overrides,
    /// URLs this crawl settled by a fetch (for any point): another point
    /// that reaches one reuses that fetch instead of asking again.
    fetched: FxHashSet<PageId>,
    /// Those of the transaction being applied, joining `fetched` once it
    /// commits.
    fetching: FxHashSet<PageId>,
    /// The parts a benchmark turned off: the writer leaves out `links`
    /// and `history`.
    parts_off: PartsOff,
    /// Where claims come from and found URLs go.
    pub frontier: Frontier,
}
impl Applier {
    pub fn new(
        instance: InstanceId,
        runs: Runs,
        overrides: Overrides,
        parts_off: PartsOff,
        frontier: Frontier,
    ) -> Applier {
        Applier {
            instance,
            runs,
            skipped: Vec::new(),
            figures: HashMap::new(),
            tallies: HashMap::new(),
            overrides,
            fetched: FxHashSet::default(),
            fetching: FxHashSet::default(),
            parts_off,
            frontier,
        }
    }

    /// Applies `batch` in `w`, recording in `applied` what is to be told
    /// once it commits. A store may run this more than once (after growing
    /// its map): each attempt starts afresh.
    pub fn apply(
        &mut self,
        w: &mut Writer<'_>,
        batch: &Batch,
        applied: &mut Applied,
    ) -> Result<(), StoreError> {
        applied.failed_at = None;
        applied.done.clear();
        applied.answer = None;
        self.skipped.clear();
        self.figures.clear();
        self.tallies.clear();
        self.fetching.clear();
        self.frontier.begin_attempt();
        let history = !self.parts_off.off(Part::History);
        for (i, o) in batch.outcomes.iter().enumerate() {
            let (done, queued) = self
                .outcome(w, o)
                .and_then(|r| {
                    if history {
                        history::record(w, o)?;
                    }
                    Ok(r)
                })
                .inspect_err(|_| applied.failed_at = Some(i))?;
            if let (Done::Event(e), Some(point)) = (&done, point_of(o)) {
                self.tally(point, e);
            }
            applied.done.push(done);
            applied.done.push(Done::Queued(queued));
        }
        if let Some(r) = &batch.request {
            applied.answer = Some(self.request(w, r, &mut applied.done)?);
        }
        for ((origin, run), delta) in &self.figures {
            w.add_origin_figures(origin, *run, delta)?;
        }
        for (&run, counts) in &self.tallies {
            w.add_run_counts(run, counts)?;
        }
        Ok(())
    }

    /// Counts a committed-to-be event in the current run of `point`.
    fn tally(&mut self, point: PointId, e: &CrawlEvent) {
        if let Some(run) = self.runs.get(&point) {
            count_run(self.tallies.entry(run.run).or_default(), e);
        }
    }

    /// The run a request counts in: its point's, else (robots.txt, a
    /// sitemap) this crawler's first; 0 before any run began.
    fn run_asking(&self, point: Option<PointId>) -> RunId {
        let first = || self.runs.values().map(|r| r.run).filter(|&r| r > 0).min();
        point
            .and_then(|p| self.runs.get(&p))
            .map(|r| r.run)
            .or_else(first)
            .unwrap_or(0)
    }

    /// The skips the last applied transaction recorded, for its events,
    /// once it committed.
    pub fn take_skipped(&mut self) -> std::vec::Drain<'_, CrawlEvent> {
        self.fetched.extend(self.fetching.drain());
        self.skipped.drain(..)
    }
}

/// The point whose run an outcome's event counts in.
fn point_of(o: &Outcome) -> Option<PointId> {
    match o {
        Outcome::Fetched { claim, .. }
        | Outcome::NotModified { claim, .. }
        | Outcome::Unchanged { claim, .. }
        | Outcome::Failed { claim, .. }
        | Outcome::Skipped { claim, .. }
        | Outcome::Redirect { claim, .. } => Some(claim.entry.point),
        Outcome::External { check, .. } => Some(check.point),
        Outcome::Resource { check, .. } => Some(check.point),
        _ => None,
    }
}

/// Puts a batch's fetched pages in page id order, each in one of the
/// places pages held (other outcomes keep theirs): the store then adds
/// their records at the end of its tables instead of splitting leaves
/// (see the store's `page_records`). Pages finish in no particular order
/// anyway.
pub(super) fn pages_in_id_order(outcomes: &mut Vec<Outcome>) {
    sort_among(outcomes, |o| match o {
        Outcome::Fetched { claim, .. } => Some(claim.page),
        _ => None,
    });
}

/// Sorts the items `key` picks by that key, each into one of the places
/// those items held; the others keep theirs.
fn sort_among<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> Option<K>) {
    let places: Vec<usize> = (0..items.len())
        .filter(|&i| key(&items[i]).is_some())
        .collect();
    let mut in_order = places.clone();
    in_order.sort_by_key(|&i| key(&items[i]));
    if in_order == places {
        return;
    }
    // The item each position takes: a permutation.
    let mut source: Vec<usize> = (0..items.len()).collect();
    for (&place, &from) in places.iter().zip(&in_order) {
        source[place] = from;
    }
    let mut taken: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(source.into_iter().filter_map(|from| taken[from].take()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_sorted_among_their_own_places() {
        // Negative numbers stand for other messages.
        let page = |v: &i32| (*v >= 0).then_some(*v);
        let mut v = vec![5, -1, 3, -2, 4, 1, -3];
        sort_among(&mut v, page);
        assert_eq!(v, vec![1, -1, 3, -2, 4, 5, -3]);
        let mut same = vec![-1, 1, 2, -2, 3];
        sort_among(&mut same, page);
        assert_eq!(same, vec![-1, 1, 2, -2, 3]);
        let mut none: Vec<i32> = vec![-1, -2];
        sort_among(&mut none, page);
        assert_eq!(none, vec![-1, -2]);
    }
}

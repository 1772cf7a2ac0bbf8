//! What a run keeps of each URL it dealt with, for `report changes`: the
//! writer calls [`record`] on every outcome in the transaction that applies
//! it, so the history never disagrees with the URL's state.

use super::msg::Outcome;
use crate::store::prelude::*;
use crate::store::{PageId, PointId, RunEntry, StoreError, UrlState, Writer};

/// Records one applied result in its run's history. Skips are not
/// recorded: the run did not fetch them.
pub(super) fn record(w: &mut Writer<'_>, outcome: &Outcome) -> Result<(), StoreError> {
    let (claim, entry) = match outcome {
        Outcome::Fetched { claim, page, .. } => {
            let rec = &page.write.record;
            (claim, answered(rec.status, &rec.title, rec.content_hash))
        }
        // Unchanged: the stored page is what this run saw.
        Outcome::NotModified { claim, .. } | Outcome::Unchanged { claim, .. } => {
            match w.page(claim.page)? {
                Some(rec) => (claim, answered(rec.status, &rec.title, rec.content_hash)),
                None => return Ok(()),
            }
        }
        Outcome::Failed { claim, .. } => (claim, unanswered()),
        // A redirect that closed a loop is recorded as the failure it became.
        Outcome::Redirect { claim, .. } => match w.url_state(claim.page)? {
            Some(UrlState::Redirected { status, .. }) => (claim, answered(status, &None, 0)),
            _ => (claim, unanswered()),
        },
        _ => return Ok(()),
    };
    w.put_run_entry(claim.entry.point, claim.entry.gen, claim.page, &entry)
}

fn answered(status: u16, title: &Option<String>, hash: u64) -> RunEntry {
    let ok = (200..300).contains(&status);
    RunEntry {
        status: Some(status),
        title: if ok { title.clone() } else { None },
        content_hash: ok.then_some(hash),
    }
}

fn unanswered() -> RunEntry {
    RunEntry {
        status: None,
        title: None,
        content_hash: None,
    }
}

/// Records, in the history of `point`'s run `gen`, a URL this crawl
/// fetched for another point: what that fetch answered is what this run
/// saw.
pub(super) fn record_reused(
    w: &mut Writer<'_>,
    point: PointId,
    gen: u32,
    page: PageId,
) -> Result<(), StoreError> {
    let fact = w.url_state(page)?.and_then(|s| s.fact().cloned());
    let entry = match (fact, w.page(page)?) {
        (Some(UrlState::Redirected { status, .. }), _) => answered(status, &None, 0),
        (Some(UrlState::Done { .. } | UrlState::Failed { .. }), Some(rec)) => {
            answered(rec.status, &rec.title, rec.content_hash)
        }
        (Some(UrlState::Failed { .. }), None) => unanswered(),
        _ => return Ok(()),
    };
    w.put_run_entry(point, gen, page, &entry)
}

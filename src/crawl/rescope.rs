//! Re-scoping a crawl point whose scope changed since its last crawl
//! (`point update` of root, excludes, depth or the www rule: the point is
//! marked dirty). At the start of its next crawl, in the writer's
//! transaction: queued URLs the scope now refuses leave the queue, recorded
//! skipped with the reason; URLs skipped for scope or depth that the scope
//! now takes are queued. Without it a resumed frontier would keep crawling
//! the old scope.

use super::event::CrawlEvent;
use super::policy::{self, PointRun};
use crate::store::prelude::*;
use crate::store::{
    Decision, FrontierEntry, PageId, PointId, PointMark, PointRecord, SkipReason, StoreError,
    UrlState, Writer,
};

/// What a re-scope did: how many URLs it queued, and the skip of each
/// queued URL it took out, for the faces (sent once committed, and counted
/// like every skip, so the log and the counts agree).
#[derive(Default)]
pub(super) struct Rescoped {
    pub queued: u64,
    pub skipped: Vec<CrawlEvent>,
}

/// Re-scopes point `id` under `rec` (its new scope), queueing newly taken
/// URLs in run `gen`; clears and saves the dirty mark.
pub(super) fn rescope(
    w: &mut Writer<'_>,
    id: PointId,
    rec: &mut PointRecord,
    gen: u32,
) -> Result<Rescoped, StoreError> {
    let run = PointRun::of(rec).and_doc_excludes(rec, crate::documents::excludes_for(w, rec)?);
    let mut refused = Vec::new();
    let taken = w.take_queued(id, |w, entry| {
        let url = url_of(w, entry.page)?;
        let reason = policy::refusal(&run, &url, entry.depth);
        if let Some(reason) = reason {
            refused.push((url, reason));
        }
        Ok(reason.is_some())
    })?;
    let mut done = Rescoped::default();
    for (entry, (url, reason)) in taken.iter().zip(refused) {
        mark_skipped(w, id, entry.page, entry.gen, reason)?;
        done.skipped.push(CrawlEvent::Skipped {
            page: entry.page,
            url,
            reason,
        });
    }

    let mut skipped: Vec<(PageId, u32, SkipReason)> = Vec::new();
    w.for_each_point_mark(id, |page, mark| {
        if let Decision::Skipped(reason) = mark.decision {
            if reason != SkipReason::Robots {
                skipped.push((page, mark.gen, reason));
            }
        }
        Ok(())
    })?;
    for (page, old_gen, old) in skipped {
        // A skipped URL has no depth of its own: it is one below the
        // shallowest fetched page that links to it.
        let mut depth = None;
        for parent in w.parents(page)? {
            if let Some(p) = w.page(parent)? {
                depth = Some(depth.map_or(p.depth + 1, |d: u32| d.min(p.depth + 1)));
            }
        }
        let Some(depth) = depth else { continue };
        match policy::refusal(&run, &url_of(w, page)?, depth) {
            None => {
                let entry = FrontierEntry {
                    page,
                    depth,
                    point: id,
                    gen,
                    hops: 0,
                };
                w.enqueue(page, entry)?;
                done.queued += 1;
            }
            Some(reason) if reason != old => mark_skipped(w, id, page, old_gen, reason)?,
            Some(_) => {}
        }
    }
    rec.dirty = false;
    w.put_point(id, rec)?;
    Ok(done)
}

/// Records point `id`'s skip of `page` in its run `gen`: its mark, and
/// the URL's state unless that is a fetch result or another point's.
fn mark_skipped(
    w: &mut Writer<'_>,
    id: PointId,
    page: PageId,
    gen: u32,
    reason: SkipReason,
) -> Result<(), StoreError> {
    let decision = Decision::Skipped(reason);
    let mark = PointMark {
        gen,
        decision,
        depth: 0,
    };
    w.put_point_mark(id, page, mark)?;
    let state = w.url_state(page)?;
    if state.as_ref().is_some_and(|s| s.run().0 != id) || policy::fetch_result(state.as_ref()) {
        return Ok(());
    }
    match state.as_ref().and_then(|s| s.fact()) {
        Some(fact) if policy::fetch_result(Some(fact)) => w.set_state(page, &fact.clone()),
        _ => w.set_state(
            page,
            &UrlState::Skipped {
                point: id,
                gen,
                reason,
            },
        ),
    }
}

fn url_of(w: &Writer<'_>, page: PageId) -> Result<String, StoreError> {
    w.url_of(page)?
        .ok_or_else(|| StoreError::corrupt(format!("page {page} has a state but no URL")))
}

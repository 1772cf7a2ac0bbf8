//! The URLs a batch finds, followed or not: a page's links and a
//! redirect's target queued for their point's run, or recorded as that
//! run's skip with the reason its rules give.

use std::borrow::Cow;

use url::Url;

use super::Applier;
use crate::crawl::event::CrawlEvent;
use crate::crawl::policy;
use crate::crawl::writer::link_id::link_id;
use crate::store::prelude::*;
use crate::store::{
    Decision, FrontierEntry, OutLink, PageId, PageRecord, PointId, PointMark, SkipReason,
    StoreError, UrlState, Writer,
};

impl Applier {
    /// Queues a link of a fetched page, or records it skipped as nofollow
    /// when the link or its page says so (unless the point follows those).
    pub(super) fn follow(
        &mut self,
        w: &mut Writer<'_>,
        page: &PageRecord,
        link: &OutLink,
        url: &str,
        from: FrontierEntry,
    ) -> Result<u64, StoreError> {
        let Some(run) = self.runs.get(&from.point) else {
            return Ok(0);
        };
        let gen = run.gen;
        if policy::held_as_nofollow(run, link.rel.nofollow(), page.nofollow.is_some()) {
            if policy::record_nofollow(w.point_mark(from.point, link.child)?, gen) {
                self.skip(w, link.child, url, from.point, gen, SkipReason::Nofollow)?;
            }
            return Ok(0);
        }
        self.consider_link(w, link.child, url, from.depth + 1, from.point, false)
    }

    /// Queues a redirect's target for the point of the redirect's entry
    /// `e`, or records why its scope refuses it; returns 1 when queued.
    pub(super) fn follow_redirect(
        &mut self,
        w: &mut Writer<'_>,
        e: FrontierEntry,
        to: PageId,
        target: &Url,
    ) -> Result<u64, StoreError> {
        let Some(run) = self.runs.get(&e.point) else {
            return Ok(0);
        };
        let gen = run.gen;
        if policy::visited(w.point_mark(e.point, to)?, gen) {
            return Ok(0);
        }
        match policy::scope_refusal(run, target.as_str()) {
            None => {
                let entry = policy::redirected(e, to, gen);
                self.frontier.enqueue(w, target.as_str(), entry, false)?;
                Ok(1)
            }
            Some(reason) => {
                self.skip(w, to, target.as_str(), e.point, gen, reason)?;
                Ok(0)
            }
        }
    }

    /// The page id of a URL `point` found, and the URL as stored (see
    /// [`link_id`]).
    pub(super) fn link_id<'u>(
        &self,
        w: &mut Writer<'_>,
        point: PointId,
        url: &'u Url,
    ) -> Result<(PageId, Cow<'u, Url>), StoreError> {
        match self.runs.get(&point) {
            Some(run) => link_id(run, w, url),
            None => Ok((w.page_id_for(url)?, Cow::Borrowed(url))),
        }
    }

    /// Queues a newly found link (among the first claimed when `first`) or
    /// records why it is not crawled; returns 1 when it was queued.
    pub(super) fn consider_link(
        &mut self,
        w: &mut Writer<'_>,
        id: PageId,
        link: &str,
        depth: u32,
        point: PointId,
        first: bool,
    ) -> Result<u64, StoreError> {
        let Some(run) = self.runs.get(&point) else {
            return Ok(0);
        };
        let gen = run.gen;
        if policy::visited(w.point_mark(point, id)?, gen) {
            return Ok(0);
        }
        if let Some(reason) = policy::refusal(run, link, depth) {
            self.skip(w, id, link, point, gen, reason)?;
            return Ok(0);
        }
        let entry = FrontierEntry {
            page: id,
            depth,
            point,
            gen,
            hops: 0,
        };
        self.frontier.enqueue(w, link, entry, first)?;
        Ok(1)
    }

    /// Records a URL that will not be fetched, as this run's decision (its
    /// point's mark, its counts, its event after the commit). A URL fetched
    /// before keeps its fetch result (its state), and one another point
    /// has queued or claimed keeps that: the decision is this run's alone.
    pub(super) fn skip(
        &mut self,
        w: &mut Writer<'_>,
        id: PageId,
        url: &str,
        point: PointId,
        gen: u32,
        reason: SkipReason,
    ) -> Result<(), StoreError> {
        w.put_point_mark(
            point,
            id,
            PointMark {
                gen,
                decision: Decision::Skipped(reason),
                depth: 0,
            },
        )?;
        match w.url_state(id)? {
            Some(UrlState::Queued { .. } | UrlState::Claimed { .. }) => {}
            state if policy::fetch_result(state.as_ref()) => {}
            _ => w.set_state(id, &UrlState::Skipped { point, gen, reason })?,
        }
        let event = CrawlEvent::Skipped {
            page: id,
            url: url.to_string(),
            reason,
        };
        self.tally(point, &event);
        self.skipped.push(event);
        Ok(())
    }
}

//! The requests a batch may end with, answered from its transaction:
//! claims (and the queued entries settled by reusing a fetch of this
//! crawl), whether the crawl is settled, a point added mid-crawl.

use url::Url;

use super::{Answer, Applier, Done};
use crate::crawl::event::{CrawlEvent, FetchedPage};
use crate::crawl::history;
use crate::crawl::msg::{Request, Settle};
use crate::crawl::policy;
use crate::crawl::writer::liveness::{instance_dead, live_instances};
use crate::crawl::writer::runs::{begin_run, Overrides};
use crate::crawl::Part;
use crate::store::prelude::*;
use crate::store::{
    Claim, Decision, FrontierEntry, PointId, QueuedWork, StoreError, UrlState, Writer,
};

impl Applier {
    pub(super) fn request(
        &mut self,
        w: &mut Writer<'_>,
        r: &Request,
        done: &mut Vec<Done>,
    ) -> Result<Answer, StoreError> {
        Ok(match r {
            Request::Claim { n, points, .. } => {
                let (fetched, fetching) = (&self.fetched, &self.fetching);
                let taken =
                    self.frontier
                        .claim(w, *n, self.instance, points, &self.runs, |page| {
                            fetched.contains(&page) || fetching.contains(&page)
                        })?;
                for entry in taken.reused {
                    let (event, queued) = self.reuse(w, entry)?;
                    done.push(event);
                    done.push(Done::Queued(queued));
                }
                let mut claims = Vec::with_capacity(taken.claims.len());
                for claim in taken.claims {
                    if self.refused_now(w, &claim)? {
                        self.frontier.refused(&claim);
                    } else {
                        claims.push(claim);
                    }
                }
                Answer::Claimed(claims)
            }
            Request::Settle { points, .. } => Answer::Settled(self.settle(w, points)?),
            Request::AddPoint { point, .. } => {
                let id = w.add_point(point)?;
                let instances = live_instances(w)?;
                // A point added mid-crawl keeps its own depth (as it
                // always did); the crawl's page limit applies to it.
                let overrides = Overrides {
                    depth: None,
                    ..self.overrides
                };
                let point = (**point).clone();
                let (url, limit) = (point.url.clone(), overrides.max_pages.or(point.max_pages));
                let (run, rescoped) =
                    begin_run(w, id, point, &instances, self.instance, overrides)?;
                self.frontier.add_point(w, id, &url, limit)?;
                done.push(Done::Queued(rescoped.queued));
                done.extend(rescoped.skipped.into_iter().map(Done::Event));
                Answer::Added(id, run)
            }
        })
    }

    fn settle(&mut self, w: &mut Writer<'_>, points: &[PointId]) -> Result<Settle, StoreError> {
        if let Some(remote) = self.frontier.remote() {
            return remote.settle(points);
        }
        let instances = live_instances(w)?;
        let me = self.instance;
        if w.recover_claims(|by| by != me && instance_dead(&instances, by))? > 0 {
            return Ok(Settle::More);
        }
        // An entry whose URL another crawler holds waits for it, as does
        // a point whose own claims are out.
        let others_busy = match w.queued_work(points, |by| by != me)? {
            QueuedWork::Claimable => return Ok(Settle::More),
            QueuedWork::Waiting => true,
            QueuedWork::None => w.claims()?.into_iter().any(|(_, s)| match s {
                UrlState::Claimed { point, by, .. } => by != me && points.contains(&point),
                _ => false,
            }),
        };
        Ok(if others_busy {
            Settle::Wait
        } else {
            Settle::Done
        })
    }

    /// Whether a claimed URL is one its run's rules refuse now (a resumed
    /// run with a smaller `--depth`, say, or a point re-scoped since the
    /// URL was queued): it is that run's skip, not fetched, and the URL
    /// keeps what was known of it.
    fn refused_now(&mut self, w: &mut Writer<'_>, claim: &Claim) -> Result<bool, StoreError> {
        let e = claim.entry;
        let Some(run) = self.runs.get(&e.point) else {
            return Ok(false);
        };
        // A redirect's target is judged by scope alone, at its source's depth.
        let reason = if e.hops > 0 {
            policy::scope_refusal(run, &claim.url)
        } else {
            policy::refusal(run, &claim.url, e.depth)
        };
        let Some(reason) = reason else {
            return Ok(false);
        };
        let gen = run.gen;
        let fact = w.url_state(claim.page)?.and_then(|s| s.fact().cloned());
        match fact {
            Some(fact) => w.set_state(claim.page, &fact)?,
            None => w.set_state(
                claim.page,
                &UrlState::Skipped {
                    point: e.point,
                    gen,
                    reason,
                },
            )?,
        }
        self.skip(w, claim.page, &claim.url, e.point, gen, reason)?;
        Ok(true)
    }

    /// Settles a queued entry of a URL this crawl already fetched for
    /// another point: its point's run takes that fetch as its own (its
    /// history entry, its count, its event) and walks the page's links,
    /// or the redirect's target, by its own rules.
    fn reuse(&mut self, w: &mut Writer<'_>, e: FrontierEntry) -> Result<(Done, u64), StoreError> {
        let Some(url) = w.url_of(e.page)? else {
            return Err(StoreError::corrupt(format!(
                "queued page {} has no URL",
                e.page
            )));
        };
        let claim = Claim {
            page: e.page,
            url,
            entry: e,
        };
        // The entry's own queueing made the state `Queued` over the fact
        // the fetch left: with the entry gone, the fact is the state again.
        let state = w.url_state(e.page)?;
        let fact = state.as_ref().and_then(|s| s.fact()).cloned();
        if let (Some(UrlState::Queued { point, .. }), Some(fact)) = (&state, &fact) {
            if *point == e.point {
                w.set_state(e.page, fact)?;
            }
        }
        let record = w.page(e.page)?;
        let (event, queued) = match (fact, record) {
            (Some(UrlState::Skipped { reason, .. }), _) => {
                self.mark(w, &claim, Decision::Skipped(reason))?;
                let event = CrawlEvent::Skipped {
                    page: e.page,
                    url: claim.url.clone(),
                    reason,
                };
                (event, 0)
            }
            (Some(UrlState::Redirected { to, status, .. }), _) => {
                self.mark(w, &claim, Decision::Settled)?;
                let target = w.url_of(to)?.unwrap_or_default();
                let queued = match Url::parse(&target) {
                    Ok(target) => self.follow_redirect(w, e, to, &target)?,
                    Err(_) => 0,
                };
                let event = CrawlEvent::Redirected {
                    page: e.page,
                    url: claim.url.clone(),
                    to: target,
                    status,
                };
                (event, queued)
            }
            (Some(fact @ (UrlState::Done { .. } | UrlState::Failed { .. })), Some(rec)) => {
                self.mark(w, &claim, Decision::Settled)?;
                let mut queued = 0;
                if (200..300).contains(&rec.status) {
                    for link in w.links(e.page)? {
                        if let Some(url) = w.url_of(link.child)? {
                            queued += self.follow(w, &rec, &link, &url, e)?;
                        }
                    }
                }
                let event = CrawlEvent::Fetched(FetchedPage {
                    page: e.page,
                    url: claim.url.clone(),
                    status: rec.status,
                    bytes: rec.size,
                    elapsed: std::time::Duration::ZERO,
                    title: rec.title.clone(),
                    reason: fact.reason(),
                    depth: e.depth,
                    render: Default::default(),
                });
                (event, queued)
            }
            (Some(UrlState::Failed { reason, .. }), None) => {
                self.mark(w, &claim, Decision::Settled)?;
                let event = CrawlEvent::Failed {
                    page: e.page,
                    url: claim.url.clone(),
                    reason,
                };
                (event, 0)
            }
            // Not settled after all (its fetch was put back): queued again.
            _ => {
                self.frontier.enqueue(w, &claim.url, e, false)?;
                return Ok((Done::Nothing, 0));
            }
        };
        if !self.parts_off.off(Part::History) {
            history::record_reused(w, e.point, e.gen, e.page)?;
        }
        self.tally(e.point, &event);
        Ok((Done::Event(event), queued))
    }
}

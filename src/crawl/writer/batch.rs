//! Applying one batch inside the writer's transaction: each outcome
//! becomes the URL's new state, the page and its links, and the history
//! entry; each link found is queued or recorded skipped as the frontier
//! policy decides; a request ending the batch is answered from the same
//! transaction. Nothing here is announced: the events and answers wait
//! for the commit, which the writer thread makes.

use std::borrow::Cow;
use std::collections::HashMap;

use rustc_hash::FxHashSet;

use url::Url;

use super::counters::count_run;
use super::fragments;
use super::frontier::Frontier;
use super::liveness::{instance_dead, live_instances};
use super::runs::{begin_run, Overrides};
use crate::crawl::event::{CrawlEvent, FetchedPage};
use crate::crawl::history;
use crate::crawl::msg::{Outcome, Request, Settle};
use crate::crawl::policy::{self, PointRun, Runs, SITEMAP_DEPTH};
use crate::crawl::{Part, PartsOff};
use crate::html::resources::Element;
use crate::store::prelude::*;
use crate::store::ResourceLink;
use crate::store::{
    Claim, Decision, FrontierEntry, InstanceId, OriginFigures, OutLink, PageId, PageRecord,
    PointId, PointMark, QueuedWork, RunCounts, RunId, SkipReason, StoreError, UrlState, Writer,
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

    fn request(
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

    /// Marks what `claim`'s point decided of its URL; a fetch's result is
    /// this crawl's to reuse for every other point.
    fn mark(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        decision: Decision,
    ) -> Result<(), StoreError> {
        let e = claim.entry;
        self.fetching.insert(claim.page);
        w.put_point_mark(
            e.point,
            claim.page,
            PointMark {
                gen: e.gen,
                decision,
                depth: e.depth,
            },
        )
    }

    /// Applies one result; returns its event and how many URLs it queued.
    fn outcome(&mut self, w: &mut Writer<'_>, o: &Outcome) -> Result<(Done, u64), StoreError> {
        let done = match o {
            Outcome::Fetched {
                claim,
                page,
                elapsed,
            } => {
                let e = claim.entry;
                let write = &page.write;
                let mut queued = 0;
                let check_fragments = self.runs.get(&e.point).is_some_and(|r| r.check_fragments);
                let graph = !self.parts_off.off(Part::Links);
                let mut children = Vec::with_capacity(page.links.len());
                for link in &page.links {
                    let (child, url) = self.link_id(w, e.point, &link.url)?;
                    children.push(child);
                    if (200..300).contains(&write.record.status) {
                        let out = OutLink {
                            child,
                            rel: link.rel,
                            ..OutLink::default()
                        };
                        queued += self.follow(w, &write.record, &out, url.as_str(), e)?;
                    }
                }
                let links: Vec<OutLink> = if graph {
                    page.occurrences
                        .iter()
                        .filter_map(|o| {
                            Some(OutLink {
                                child: *children.get(o.link)?,
                                anchor: o.anchor.clone(),
                                rel: o.rel,
                                element: o.element,
                                position: o.position,
                                fragment: o.fragment.clone(),
                            })
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                w.put_page(claim.page, write, &links)?;
                w.put_page_text(claim.page, &page.text)?;
                if check_fragments {
                    fragments::keep(
                        w,
                        claim.page,
                        write.record.status,
                        &page.fragments,
                        &children,
                    )?;
                }
                let mut resources = Vec::with_capacity(page.resources.len());
                for r in &page.resources {
                    resources.push(ResourceLink {
                        target: self.link_id(w, e.point, &r.url)?.0,
                        element: r.element,
                        alt: r.alt.clone(),
                    });
                }
                w.put_resources(claim.page, &resources)?;
                if let Some(facts) = &page.render {
                    w.put_page_render(claim.page, facts)?;
                }
                let status = write.record.status;
                let state = match &page.reason {
                    None => UrlState::Done {
                        point: e.point,
                        gen: e.gen,
                    },
                    Some(reason) => UrlState::Failed {
                        point: e.point,
                        gen: e.gen,
                        reason: reason.clone(),
                        status: Some(status),
                    },
                };
                w.set_state(claim.page, &state)?;
                self.mark(w, claim, Decision::Settled)?;
                return Ok((
                    Done::Event(CrawlEvent::Fetched(FetchedPage {
                        page: claim.page,
                        url: claim.url.clone(),
                        status,
                        bytes: write.record.size,
                        elapsed: *elapsed,
                        title: write.record.title.clone(),
                        reason: page.reason.clone(),
                        depth: e.depth,
                        render: page.render.as_deref().map(|r| r.mark()).unwrap_or_default(),
                    })),
                    queued,
                ));
            }
            Outcome::NotModified { claim, fetched_at } => {
                let queued = self.revisit(w, claim, *fetched_at, None)?;
                return Ok((
                    Done::Event(CrawlEvent::NotModified {
                        page: claim.page,
                        url: claim.url.clone(),
                    }),
                    queued,
                ));
            }
            Outcome::Unchanged {
                claim,
                fetched_at,
                response_ms,
            } => {
                let queued = self.revisit(w, claim, *fetched_at, Some(*response_ms))?;
                return Ok((
                    Done::Event(CrawlEvent::Unchanged {
                        page: claim.page,
                        url: claim.url.clone(),
                    }),
                    queued,
                ));
            }
            Outcome::Failed { claim, reason } => {
                fail(w, claim, reason)?;
                self.mark(w, claim, Decision::Settled)?;
                Ok(Done::Event(CrawlEvent::Failed {
                    page: claim.page,
                    url: claim.url.clone(),
                    reason: reason.clone(),
                }))
            }
            Outcome::Skipped { claim, reason } => {
                self.mark(w, claim, Decision::Skipped(*reason))?;
                w.set_state(
                    claim.page,
                    &UrlState::Skipped {
                        point: claim.entry.point,
                        gen: claim.entry.gen,
                        reason: *reason,
                    },
                )?;
                Ok(Done::Event(CrawlEvent::Skipped {
                    page: claim.page,
                    url: claim.url.clone(),
                    reason: *reason,
                }))
            }
            Outcome::Redirect {
                claim,
                target,
                status,
            } => return self.redirect(w, claim, target, *status),
            Outcome::Robots { origin, record } => {
                let id = w.origin_id_for(origin)?;
                w.put_robots(id, record)?;
                Ok(Done::Nothing)
            }
            Outcome::Exchanged {
                origin,
                point,
                how,
                response_ms,
                throttle,
            } => {
                self.figures
                    .entry((origin.clone(), self.run_asking(*point)))
                    .or_default()
                    .record(*how, *response_ms);
                Ok(match *throttle {
                    Some((status, wait)) => Done::Event(CrawlEvent::OriginThrottled {
                        origin: origin.clone(),
                        status,
                        wait,
                    }),
                    None => Done::Nothing,
                })
            }
            Outcome::Sitemap { point, found } => {
                let mut queued = 0;
                for listed in &found.urls {
                    let (id, url) = self.link_id(w, *point, &listed.url)?;
                    w.put_listed_by_sitemap(id, &listed.sitemap)?;
                    if let Some(run) = self.runs.get(point) {
                        w.put_sitemap_listing(id, *point, run.gen, &listed.sitemap)?;
                    }
                    let fetched_at = w.page(id)?.map(|p| p.fetched_at);
                    // Changed since we fetched it: among the first claimed.
                    let changed = policy::listed_changed(listed.lastmod, fetched_at);
                    let url = url.as_str();
                    queued += self.consider_link(w, id, url, SITEMAP_DEPTH, *point, changed)?;
                }
                return Ok((Done::Nothing, queued));
            }
            Outcome::External { url, page, check } => {
                w.put_external_check(*page, check)?;
                // Not asked: nothing to count or tell.
                if check.not_checked.is_some() {
                    return Ok((Done::Nothing, 0));
                }
                Ok(Done::Event(CrawlEvent::ExternalChecked {
                    page: *page,
                    url: url.clone(),
                    status: check.status,
                    reason: check.reason.clone(),
                }))
            }
            Outcome::Resource {
                url,
                page,
                check,
                css,
            } => {
                w.put_resource_check(*page, check)?;
                if !css.is_empty() {
                    let mut found = Vec::with_capacity(css.len());
                    for u in css {
                        found.push(ResourceLink {
                            target: self.link_id(w, check.point, u)?.0,
                            element: Element::CssUrl,
                            alt: None,
                        });
                    }
                    w.put_resources(*page, &found)?;
                }
                // Not asked: nothing to count or tell.
                if check.not_checked.is_some() {
                    return Ok((Done::Nothing, 0));
                }
                Ok(Done::Event(CrawlEvent::ResourceChecked {
                    page: *page,
                    url: url.clone(),
                    status: check.status,
                    reason: check.reason.clone(),
                }))
            }
            Outcome::HttpsTwin { page, check } => {
                w.put_https_twin(*page, check)?;
                Ok(Done::Nothing)
            }
            Outcome::Requeue(claims) => {
                for cl in claims {
                    self.frontier.put_back(w, cl)?;
                }
                Ok(Done::Nothing)
            }
        };
        done.map(|d| (d, 0))
    }

    /// A page found as stored (304, or a 200 with the same body): only its
    /// fetch time (and response time) change, and it still leads to its
    /// children, which may have changed: they are revisited in this run too.
    fn revisit(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        fetched_at: i64,
        response_ms: Option<u32>,
    ) -> Result<u64, StoreError> {
        let mut queued = 0;
        if let Some(mut rec) = w.page(claim.page)? {
            rec.fetched_at = fetched_at;
            if let Some(ms) = response_ms {
                rec.response_ms = ms;
            }
            w.put_page_record(claim.page, &rec)?;
            for link in w.links(claim.page)? {
                if let Some(url) = w.url_of(link.child)? {
                    queued += self.follow(w, &rec, &link, &url, claim.entry)?;
                }
            }
        }
        w.set_state(
            claim.page,
            &UrlState::Done {
                point: claim.entry.point,
                gen: claim.entry.gen,
            },
        )?;
        self.mark(w, claim, Decision::Settled)?;
        Ok(queued)
    }

    /// Queues a link of a fetched page, or records it skipped as nofollow
    /// when the link or its page says so (unless the point follows those).
    fn follow(
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

    fn redirect(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        target: &Url,
        status: u16,
    ) -> Result<(Done, u64), StoreError> {
        let e = claim.entry;
        let to = w.page_id_for(target)?;
        let event = Done::Event(CrawlEvent::Redirected {
            page: claim.page,
            url: claim.url.clone(),
            to: target.to_string(),
            status,
        });
        let max = self
            .runs
            .get(&e.point)
            .map_or(policy::MAX_REDIRECTS, |run| run.rules.max_redirects);
        let failure =
            policy::redirect_failure(max, e.hops, status, target, claim.page, to, |at| {
                Ok::<_, StoreError>(match w.url_state(at)? {
                    Some(UrlState::Redirected { to: next, .. }) => Some(next),
                    _ => None,
                })
            })?;
        if let Some(reason) = failure {
            fail(w, claim, &reason)?;
            self.mark(w, claim, Decision::Settled)?;
            let failed = CrawlEvent::Failed {
                page: claim.page,
                url: claim.url.clone(),
                reason,
            };
            return Ok((Done::Event(failed), 0));
        }
        w.set_state(
            claim.page,
            &UrlState::Redirected {
                point: e.point,
                gen: e.gen,
                to,
                status,
            },
        )?;
        self.mark(w, claim, Decision::Settled)?;
        let queued = self.follow_redirect(w, e, to, target)?;
        Ok((event, queued))
    }

    /// Queues a redirect's target for the point of the redirect's entry
    /// `e`, or records why its scope refuses it; returns 1 when queued.
    fn follow_redirect(
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
    fn link_id<'u>(
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
    fn consider_link(
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
    fn skip(
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

fn fail(w: &mut Writer<'_>, claim: &Claim, reason: &str) -> Result<(), StoreError> {
    w.set_state(
        claim.page,
        &UrlState::Failed {
            point: claim.entry.point,
            gen: claim.entry.gen,
            reason: reason.to_string(),
            status: None,
        },
    )
}

/// The page id of a URL `run`'s point found, and the URL as stored: on
/// the site's first-seen form when www twins are one site.
pub(super) fn link_id<'u>(
    run: &PointRun,
    w: &mut Writer<'_>,
    url: &'u Url,
) -> Result<(PageId, Cow<'u, Url>), StoreError> {
    let url = if run.one_site {
        w.on_first_seen_site_once(url)?
    } else {
        Cow::Borrowed(url)
    };
    // Only a point with a user needs the link's origin.
    let user = run
        .user
        .as_ref()
        .filter(|(_, origins)| origins.contains(&crate::url::origin(&url)))
        .map(|(u, _)| u.as_str());
    Ok((w.page_id_as(&url, user)?, url))
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

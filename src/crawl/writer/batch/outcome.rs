//! Each outcome of a fetch worker applied, one method per kind: the URL's
//! new state and its point's mark, the page and what it links to and
//! loads, the checks, the figures of an exchange; and the event each
//! leaves for after the commit.

use std::time::Duration;

use url::Url;

use super::{Applier, Done};
use crate::crawl::event::{CrawlEvent, FetchedPage};
use crate::crawl::msg::{Found, Outcome};
use crate::crawl::parse::ParsedPage;
use crate::crawl::policy::{self, SITEMAP_DEPTH};
use crate::crawl::writer::fragments;
use crate::crawl::Part;
use crate::html::resources::Element;
use crate::store::prelude::*;
use crate::store::{
    Claim, Decision, ExternalCheck, OutLink, PageId, PointId, PointMark, ResourceCheck,
    ResourceLink, SkipReason, StoreError, UrlState, Writer,
};

impl Applier {
    /// Marks what `claim`'s point decided of its URL; a fetch's result is
    /// this crawl's to reuse for every other point.
    pub(super) fn mark(
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
    pub(super) fn outcome(
        &mut self,
        w: &mut Writer<'_>,
        o: &Outcome,
    ) -> Result<(Done, u64), StoreError> {
        match o {
            Outcome::Fetched {
                claim,
                page,
                elapsed,
            } => self.fetched(w, claim, page, *elapsed),
            Outcome::NotModified { claim, fetched_at } => {
                let queued = self.revisit(w, claim, *fetched_at, None)?;
                let event = CrawlEvent::NotModified {
                    page: claim.page,
                    url: claim.url.clone(),
                };
                Ok((Done::Event(event), queued))
            }
            Outcome::Unchanged {
                claim,
                fetched_at,
                response_ms,
            } => {
                let queued = self.revisit(w, claim, *fetched_at, Some(*response_ms))?;
                let event = CrawlEvent::Unchanged {
                    page: claim.page,
                    url: claim.url.clone(),
                };
                Ok((Done::Event(event), queued))
            }
            Outcome::Failed { claim, reason } => self.failed(w, claim, reason),
            Outcome::Skipped { claim, reason } => self.skipped_claim(w, claim, *reason),
            Outcome::Redirect {
                claim,
                target,
                status,
            } => self.redirect(w, claim, target, *status),
            Outcome::Robots { origin, record } => {
                let id = w.origin_id_for(origin)?;
                w.put_robots(id, record)?;
                Ok((Done::Nothing, 0))
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
                let throttled = throttle.map(|(status, wait)| CrawlEvent::OriginThrottled {
                    origin: origin.clone(),
                    status,
                    wait,
                });
                Ok((throttled.map_or(Done::Nothing, Done::Event), 0))
            }
            Outcome::Sitemap { point, found } => self.sitemap(w, *point, found),
            Outcome::External { url, page, check } => external(w, url, *page, check),
            Outcome::Resource {
                url,
                page,
                check,
                css,
            } => self.resource(w, url, *page, check, css),
            Outcome::HttpsTwin { page, check } => {
                w.put_https_twin(*page, check)?;
                Ok((Done::Nothing, 0))
            }
            Outcome::Requeue(claims) => {
                for cl in claims {
                    self.frontier.put_back(w, cl)?;
                }
                Ok((Done::Nothing, 0))
            }
        }
    }

    /// A fetched page: its record, text, links, fragments, resources and
    /// render facts, its state, and its links followed.
    fn fetched(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        page: &ParsedPage,
        elapsed: Duration,
    ) -> Result<(Done, u64), StoreError> {
        let e = claim.entry;
        let write = &page.write;
        let (children, queued) = self.page_children(w, claim, page)?;
        let links = match self.parts_off.off(Part::Links) {
            true => Vec::new(),
            false => out_links(page, &children),
        };
        w.put_page(claim.page, write, &links)?;
        w.put_page_text(claim.page, &page.text)?;
        if self.runs.get(&e.point).is_some_and(|r| r.check_fragments) {
            let status = write.record.status;
            fragments::keep(w, claim.page, status, &page.fragments, &children)?;
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
        let event = CrawlEvent::Fetched(FetchedPage {
            page: claim.page,
            url: claim.url.clone(),
            status,
            bytes: write.record.size,
            elapsed,
            title: write.record.title.clone(),
            reason: page.reason.clone(),
            depth: e.depth,
            render: page.render.as_deref().map(|r| r.mark()).unwrap_or_default(),
        });
        Ok((Done::Event(event), queued))
    }

    /// The page ids of a fetched page's links, in its order, each followed
    /// when the page answered 2xx; and how many that queued.
    fn page_children(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        page: &ParsedPage,
    ) -> Result<(Vec<PageId>, u64), StoreError> {
        let e = claim.entry;
        let record = &page.write.record;
        let mut queued = 0;
        let mut children = Vec::with_capacity(page.links.len());
        for link in &page.links {
            let (child, url) = self.link_id(w, e.point, &link.url)?;
            children.push(child);
            if (200..300).contains(&record.status) {
                let out = OutLink {
                    child,
                    rel: link.rel,
                    ..OutLink::default()
                };
                queued += self.follow(w, record, &out, url.as_str(), e)?;
            }
        }
        Ok((children, queued))
    }

    fn failed(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        reason: &str,
    ) -> Result<(Done, u64), StoreError> {
        fail(w, claim, reason)?;
        self.mark(w, claim, Decision::Settled)?;
        let event = CrawlEvent::Failed {
            page: claim.page,
            url: claim.url.clone(),
            reason: reason.to_string(),
        };
        Ok((Done::Event(event), 0))
    }

    /// A claimed URL the fetcher refused (robots.txt, say).
    fn skipped_claim(
        &mut self,
        w: &mut Writer<'_>,
        claim: &Claim,
        reason: SkipReason,
    ) -> Result<(Done, u64), StoreError> {
        self.mark(w, claim, Decision::Skipped(reason))?;
        let state = UrlState::Skipped {
            point: claim.entry.point,
            gen: claim.entry.gen,
            reason,
        };
        w.set_state(claim.page, &state)?;
        let event = CrawlEvent::Skipped {
            page: claim.page,
            url: claim.url.clone(),
            reason,
        };
        Ok((Done::Event(event), 0))
    }

    /// A sitemap's URLs: each noted as listed and considered for the queue
    /// at the sitemap's depth, one changed since its fetch among the first.
    fn sitemap(
        &mut self,
        w: &mut Writer<'_>,
        point: PointId,
        found: &Found,
    ) -> Result<(Done, u64), StoreError> {
        let mut queued = 0;
        for listed in &found.urls {
            let (id, url) = self.link_id(w, point, &listed.url)?;
            w.put_listed_by_sitemap(id, &listed.sitemap)?;
            if let Some(run) = self.runs.get(&point) {
                w.put_sitemap_listing(id, point, run.gen, &listed.sitemap)?;
            }
            let fetched_at = w.page(id)?.map(|p| p.fetched_at);
            // Changed since we fetched it: among the first claimed.
            let changed = policy::listed_changed(listed.lastmod, fetched_at);
            let url = url.as_str();
            queued += self.consider_link(w, id, url, SITEMAP_DEPTH, point, changed)?;
        }
        Ok((Done::Nothing, queued))
    }

    /// A resource's check, and the URLs a stylesheet loads as its own
    /// resources.
    fn resource(
        &mut self,
        w: &mut Writer<'_>,
        url: &str,
        page: PageId,
        check: &ResourceCheck,
        css: &[Url],
    ) -> Result<(Done, u64), StoreError> {
        w.put_resource_check(page, check)?;
        if !css.is_empty() {
            let mut found = Vec::with_capacity(css.len());
            for u in css {
                found.push(ResourceLink {
                    target: self.link_id(w, check.point, u)?.0,
                    element: Element::CssUrl,
                    alt: None,
                });
            }
            w.put_resources(page, &found)?;
        }
        // Not asked: nothing to count or tell.
        if check.not_checked.is_some() {
            return Ok((Done::Nothing, 0));
        }
        let event = CrawlEvent::ResourceChecked {
            page,
            url: url.to_string(),
            status: check.status,
            reason: check.reason.clone(),
        };
        Ok((Done::Event(event), 0))
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
}

/// A fetched page's links as stored: one per occurrence, with its anchor,
/// rel, element and place.
fn out_links(page: &ParsedPage, children: &[PageId]) -> Vec<OutLink> {
    (page.occurrences.iter())
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
}

/// An external link's check.
fn external(
    w: &mut Writer<'_>,
    url: &str,
    page: PageId,
    check: &ExternalCheck,
) -> Result<(Done, u64), StoreError> {
    w.put_external_check(page, check)?;
    // Not asked: nothing to count or tell.
    if check.not_checked.is_some() {
        return Ok((Done::Nothing, 0));
    }
    let event = CrawlEvent::ExternalChecked {
        page,
        url: url.to_string(),
        status: check.status,
        reason: check.reason.clone(),
    };
    Ok((Done::Event(event), 0))
}

/// A claimed URL that got no answer.
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

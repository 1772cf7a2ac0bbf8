//! Rendering inside the crawl: which points render and how
//! ([`RenderPlans`]), the crawl's rules applied to every request a
//! rendered page makes ([`PageGate`]: robots, scope and excludes,
//! politeness slots and `Retry-After` on the page's origin, other origins
//! only with `--check-external`, credentials only for the point's own),
//! and a fetched page read from its rendered DOM with what rendering
//! changed beside it ([`parse`]). With no point rendering, a page costs
//! one branch here.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::future::BoxFuture;
use url::Url;

use super::asking;
use super::ctx::Ctx;
use super::fetch::{Response, Validators};
use super::msg::Outcome;
use super::parse::{body_kind, BodyKind};
use super::policy::{self};
use super::render_plans::Plan;
use crate::render::{self, shell, Gate, PageRender, Renderer, Reply, Served};
use crate::store::{Claim, PointId};
use crate::time::unix_now;

/// Parses a page on the parser pool, off the reactor.
pub(super) async fn parse_page(ctx: &Ctx, claim: Claim, site: &Url, resp: Response) -> Outcome {
    let url = site.clone();
    let depth = claim.entry.depth;
    let fetched_at = unix_now();
    let elapsed = resp.elapsed;
    let agent = ctx.agent.clone();
    let from_store = super::parse::FromStore::of(&ctx.store);
    let own = ctx.parsing.analyzers.of(claim.entry.point);
    let custom = ctx.parsing.custom.of(claim.entry.point);
    let keep_body = !ctx.cfg.parts_off.off(super::Part::Bodies);
    let parsed = ctx
        .parsers
        .run(move || {
            let at = super::parse::At {
                url: &url,
                depth,
                fetched_at,
                analyzer: own.as_deref().unwrap_or(crate::index::Analyzer::global()),
                keep_body,
                custom: custom.as_deref(),
            };
            super::parse::parse(&resp, at, &agent, &from_store)
        })
        .await;
    match parsed {
        Some(page) => Outcome::Fetched {
            claim,
            page: Box::new(page),
            elapsed,
        },
        _ => Outcome::Failed {
            claim,
            reason: "the page could not be parsed".into(),
        },
    }
}

/// Parses a fetched page: as served, or, for a rendering point's HTML
/// page, from its rendered DOM, with the rendering's facts beside it.
pub(super) async fn parse(ctx: &Ctx, claim: Claim, site: &Url, resp: Response) -> Outcome {
    let plan = match ctx.render.points.get(&claim.entry.point) {
        Some(plan)
            if (200..300).contains(&resp.status)
                && body_kind(resp.content_type.as_deref()) == BodyKind::Html =>
        {
            plan
        }
        _ => return parse_page(ctx, claim, site, resp).await,
    };
    let served_doc = {
        let (body, ct, url) = (resp.body.clone(), resp.content_type.clone(), site.clone());
        ctx.parsers
            .run(move || crate::html::parse_html(&body, ct.as_deref(), &url))
            .await
            .unwrap_or_default()
    };
    let mut facts = PageRender {
        served: render::facts::seen(&served_doc, &ctx.agent),
        ..Default::default()
    };
    if plan.auto && !shell::looks_like_shell(&served_doc) {
        return with_facts(parse_page(ctx, claim, site, resp).await, facts);
    }
    let renderer = ctx
        .render
        .renderer
        .get_or_init(|| Renderer::new(ctx.render.tabs));
    let gate = PageGate {
        ctx,
        point: claim.entry.point,
        plan,
        origin: crate::url::origin(site),
    };
    let served = Served {
        status: resp.status,
        headers: &resp.headers,
        body: &resp.body,
    };
    let rendering = renderer.render(site, &served, plan.wait, &gate).await;
    facts.render_ms = u32::try_from(rendering.elapsed.as_millis()).unwrap_or(u32::MAX);
    let dom = match rendering.dom {
        Ok(dom) => dom,
        Err(why) => {
            tracing::debug!(url = %site, %why, "rendering failed");
            facts.error = Some(why);
            return with_facts(parse_page(ctx, claim, site, resp).await, facts);
        }
    };
    facts.rendered = true;
    let served_links: HashSet<String> =
        served_doc.links.iter().map(|l| l.url.to_string()).collect();
    // The DOM is read as the page; the body kept is the one served.
    let served_body = resp.body.clone();
    let served_type = resp.content_type.clone();
    let served_size = resp.content_length.unwrap_or(served_body.len() as u64);
    let mut dom_resp = resp;
    dom_resp.body = dom.into_bytes();
    dom_resp.content_type = Some("text/html; charset=utf-8".into());
    let dom_doc = {
        let (body, url) = (dom_resp.body.clone(), site.clone());
        ctx.parsers
            .run(move || crate::html::parse_html(&body, Some("text/html; charset=utf-8"), &url))
            .await
            .unwrap_or_default()
    };
    facts.dom = Some(render::facts::seen(&dom_doc, &ctx.agent));
    facts.links_rendered_only = dom_doc
        .links
        .iter()
        .map(|l| l.url.to_string())
        .filter(|u| !served_links.contains(u))
        .collect::<Vec<_>>();
    facts.links_rendered_only.sort();
    facts.links_rendered_only.dedup();
    let mut outcome = parse_page(ctx, claim, site, dom_resp).await;
    if let Outcome::Fetched { page, .. } = &mut outcome {
        let w = &mut page.write;
        w.record.content_hash = xxhash_rust::xxh3::xxh3_64(&served_body);
        w.record.size = served_size;
        w.content_type = served_type.unwrap_or_default();
        if !ctx.cfg.parts_off.off(super::Part::Bodies) {
            w.compressed_body = ctx
                .store
                .dictionaries()
                .compress(crate::store::DictionaryKind::Body, &served_body);
        }
    }
    with_facts(outcome, facts)
}

fn with_facts(mut outcome: Outcome, facts: PageRender) -> Outcome {
    if let Outcome::Fetched { page, .. } = &mut outcome {
        page.render = Some(Box::new(facts));
    }
    outcome
}

/// The crawl's rules for one rendered page's requests.
struct PageGate<'a> {
    ctx: &'a Ctx,
    point: PointId,
    plan: &'a Plan,
    /// The page's origin: its requests there are the crawl's own.
    origin: String,
}

impl Gate for PageGate<'_> {
    fn request(&self, url: Url) -> BoxFuture<'_, Reply> {
        Box::pin(async move {
            let origin = crate::url::origin(&url);
            let own = origin == self.origin;
            if !own && !self.plan.check_external {
                return Reply::Refuse;
            }
            if own && policy::scope_refusal(&self.plan.run, url.as_str()).is_some() {
                return Reply::Refuse;
            }
            let creds = asking::point_credentials(self.ctx, self.point);
            let creds = creds.filter(|_| own);
            let Ok((asked, rules)) =
                asking::admit(self.ctx, self.point, &url, creds.as_ref()).await
            else {
                return Reply::Refuse;
            };
            let origin = crate::url::origin(&asked);
            let crawl_delay = rules.as_ref().and_then(|r| r.crawl_delay());
            self.fetch(&asked, &origin, crawl_delay, creds.as_ref())
                .await
        })
    }
}

impl PageGate<'_> {
    /// One request through the origin's politeness slot; a throttle pauses
    /// the origin and the request is not made again for the page.
    async fn fetch(
        &self,
        url: &Url,
        origin: &str,
        crawl_delay: Option<Duration>,
        creds: Option<&super::fetch::Credentials>,
    ) -> Reply {
        let ctx = self.ctx;
        let Some(permit) = ctx
            .stop
            .unless(ctx.origins.acquire(origin, crawl_delay))
            .await
        else {
            return Reply::Refuse;
        };
        if ctx.origins.down(origin).is_some() {
            return Reply::Refuse;
        }
        let r = ctx.fetcher.get(url, &Validators::default(), creds).await;
        let throttle = r.as_ref().ok().and_then(asking::throttle_asked);
        if let Some((_, wait)) = throttle {
            ctx.origins.throttled(origin, wait);
        }
        drop(permit);
        let _ = ctx
            .writer
            .send(asking::exchanged(origin, self.point, &r, throttle).into());
        match r {
            Ok(resp) if throttle.is_none() => Reply::Serve {
                status: resp.status,
                headers: resp.headers,
                body: resp.body,
            },
            _ => Reply::Refuse,
        }
    }
}

#[cfg(test)]
mod tests;

//! A request of a crawl point, asked as the crawl asks every one: let
//! through by the point's request rules and its origin's robots.txt
//! ([`gate`], [`admit`]), then asked through the origin's slot until the
//! answer is final, throttles waited out and failures retried ([`fetch`]),
//! each request counted in its origin's figures ([`exchanged`]). A claim's
//! page, a rendered page's subrequest and a resource check all come here.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use url::Url;

use super::ctx::Ctx;
use super::event::CrawlEvent;
use super::fetch::{Credentials, FetchError, Response, Validators};
use super::msg::Outcome;
use super::retry::{self, Retries};
use super::robots::{self, Rules, ROBOTS_TTL_S};
use super::shared::Known;
use super::throttle;
use crate::store::prelude::*;
use crate::store::{Claim, Exchange, PageId, PointId, SkipReason};
use crate::time::unix_now;

/// Where a claim's way ends short of a page to parse.
pub(super) enum End {
    Failed(String),
    Skipped(SkipReason),
    NotModified {
        fetched_at: i64,
    },
    Redirect {
        target: Url,
        status: u16,
    },
    /// The crawl stopped while the claim waited: back to the queue.
    Stopped,
}

impl End {
    pub(super) fn outcome(self, claim: Claim) -> Outcome {
        match self {
            End::Failed(reason) => Outcome::Failed { claim, reason },
            End::Skipped(reason) => Outcome::Skipped { claim, reason },
            End::NotModified { fetched_at } => Outcome::NotModified { claim, fetched_at },
            End::Redirect { target, status } => Outcome::Redirect {
                claim,
                target,
                status,
            },
            End::Stopped => Outcome::Requeue(vec![claim]),
        }
    }
}

/// What the gate says of one request.
pub(super) enum Gate {
    /// Ask for `url` (the remapped one); `robots` are its origin's rules
    /// (none when the crawl ignores robots.txt).
    Ask {
        url: Url,
        robots: Option<Arc<Rules>>,
    },
    /// Never requested: `Excluded` or `Robots`.
    NotChecked(SkipReason),
    /// robots.txt could not be had (`robots` says why): a page fails
    /// with that reason; a check asks `url` (remapped) all the same.
    Unavailable(Url, Arc<Rules>),
}

/// Judges one request of `point` for `url`: the point's rules first, then
/// the remapped URL's robots.txt (loaded once per origin, asked for with
/// `creds`). None when the crawl stopped while robots.txt was loading.
pub(super) async fn gate(
    ctx: &Ctx,
    point: PointId,
    url: &Url,
    creds: Option<&Credentials>,
) -> Option<Gate> {
    let rules = ctx.request_rules(point);
    if rules.as_ref().is_some_and(|r| r.excluded(url.as_str())) {
        return Some(Gate::NotChecked(SkipReason::Excluded));
    }
    let url = rules.map_or_else(|| url.clone(), |r| r.remapped(url));
    let origin = crate::url::origin(&url);
    let robots = ctx
        .stop
        .unless(rules_for(ctx, &url, &origin, creds))
        .await?;
    if let Some(rules) = robots.as_ref().filter(|r| r.unavailable_reason().is_some()) {
        return Some(Gate::Unavailable(url, rules.clone()));
    }
    if robots.as_ref().is_some_and(|r| !r.allowed(url.as_str())) {
        return Some(Gate::NotChecked(SkipReason::Robots));
    }
    Some(Gate::Ask { url, robots })
}

/// Lets a request of `point` for `url` through when its origin is up and
/// the point's request rules and robots.txt allow it
/// ([`gate`]); returns the URL to ask (remapped) and its
/// origin's robots rules (none when robots is ignored).
pub(super) async fn admit(
    ctx: &Ctx,
    point: PointId,
    url: &Url,
    creds: Option<&Credentials>,
) -> Result<(Url, Option<Arc<Rules>>), End> {
    let up = |url: &Url| match ctx.origins.down(&crate::url::origin(url)) {
        Some(why) => Err(End::Failed(why)),
        None => Ok(()),
    };
    up(url)?;
    match gate(ctx, point, url, creds).await.ok_or(End::Stopped)? {
        Gate::Ask { url: asked, robots } => up(&asked).map(|()| (asked, robots)),
        Gate::NotChecked(why) => Err(End::Skipped(why)),
        Gate::Unavailable(_, robots) => Err(End::Failed(
            robots.unavailable_reason().unwrap_or_default().to_string(),
        )),
    }
}

/// How a claim's URL is asked for.
pub(super) struct Asking<'a> {
    pub(super) claim: &'a Claim,
    pub(super) url: &'a Url,
    pub(super) origin: &'a str,
    pub(super) crawl_delay: Option<Duration>,
    pub(super) validators: &'a Validators,
    pub(super) creds: Option<&'a Credentials>,
}

/// Asks for a URL through its origin's gate until the answer is final:
/// a throttle is waited out (at most [`throttle::MAX_THROTTLES`] times),
/// a server error or a dropped connection retried; every request counts
/// in its origin's figures. A stop ends any of these waits.
pub(super) async fn fetch(ctx: &Ctx, a: &Asking<'_>) -> Result<Response, End> {
    let point = a.claim.entry.point;
    let max = ctx
        .request_rules(point)
        .map_or(ctx.cfg.retries, |r| r.max_retries);
    let mut retries = Retries::new(max);
    let mut throttles = 0;
    let result = loop {
        let permit = ctx
            .stop
            .unless(ctx.origins.acquire(a.origin, a.crawl_delay))
            .await
            .ok_or(End::Stopped)?;
        // The origin may have gone down while this fetch waited its turn.
        if let Some(why) = ctx.origins.down(a.origin) {
            return Err(End::Failed(why));
        }
        let wire = OnWire::new(ctx, a.claim);
        let r = ctx.fetcher.get(a.url, a.validators, a.creds).await;
        let throttle = r.as_ref().ok().and_then(throttle_asked);
        // Paused before the slot frees, so no request of ours slips in.
        if let Some((_, wait)) = throttle {
            ctx.origins.throttled(a.origin, wait);
        }
        drop(wire);
        drop(permit);
        let _ = ctx
            .writer
            .send(exchanged(a.origin, a.claim.entry.point, &r, throttle).into());
        if let Some((status, _)) = throttle {
            if throttles >= throttle::MAX_THROTTLES {
                return Err(End::Failed(throttle::still_throttled(status)));
            }
            throttles += 1;
            continue;
        }
        if !worth_again(ctx, a.origin, &r) {
            break r;
        }
        match ctx.stop.unless(retries.again()).await {
            Some(true) => {}
            Some(false) => break r,
            None => return Err(End::Stopped),
        }
    };
    result.map_err(|e| End::Failed(e.reason))
}

/// One page request on the wire, from when its politeness slot is held
/// until its answer is in: `Started` and `Answered` bracket it, so faces
/// count and time requests, never the wait for a slot.
struct OnWire<'a> {
    ctx: &'a Ctx,
    page: PageId,
}

impl<'a> OnWire<'a> {
    fn new(ctx: &'a Ctx, claim: &Claim) -> Self {
        ctx.counters.on_wire.fetch_add(1, Ordering::Relaxed);
        let _ = ctx.events.send(CrawlEvent::Started {
            page: claim.page,
            url: claim.url.clone(),
        });
        OnWire {
            ctx,
            page: claim.page,
        }
    }
}

impl Drop for OnWire<'_> {
    fn drop(&mut self) {
        self.ctx.counters.on_wire.fetch_sub(1, Ordering::Relaxed);
        let _ = self
            .ctx
            .events
            .send(CrawlEvent::Answered { page: self.page });
    }
}

/// The status and the pause, when a response asks us to slow down.
pub(super) fn throttle_asked(resp: &Response) -> Option<(u16, Duration)> {
    throttle::asked(
        resp.status,
        resp.header_values("retry-after").next(),
        std::time::SystemTime::now(),
    )
    .map(|wait| (resp.status, wait))
}

/// One request to `origin` for crawl point `point`, for its figures.
pub(super) fn exchanged(
    origin: &str,
    point: PointId,
    r: &Result<Response, FetchError>,
    throttle: Option<(u16, Duration)>,
) -> Outcome {
    Outcome::Exchanged {
        origin: origin.to_string(),
        point: Some(point),
        how: match (r, throttle) {
            (_, Some(_)) => Exchange::Throttled,
            (Ok(resp), None) if resp.status < 400 => Exchange::Ok,
            _ => Exchange::Failed,
        },
        response_ms: r.as_ref().ok().map(|resp| millis(resp.elapsed)),
        throttle,
    }
}

/// Tells the origin's state what a request got (a connection that failed
/// may take the origin down), and says whether asking again is worth it.
fn worth_again(ctx: &Ctx, origin: &str, r: &Result<Response, FetchError>) -> bool {
    match r {
        Err(e) => {
            if let Some(reason) = ctx.origins.failed(origin, e) {
                let _ = ctx.events.send(CrawlEvent::OriginUnreachable {
                    origin: origin.to_string(),
                    reason,
                });
            }
            e.retryable && ctx.origins.down(origin).is_none()
        }
        Ok(resp) => {
            ctx.origins.answered(origin, resp.status);
            retry::worth_retrying(resp.status)
        }
    }
}

pub(super) fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

/// A crawl point's credentials, if it has any.
pub(super) fn point_credentials(ctx: &Ctx, point: PointId) -> Option<Credentials> {
    ctx.creds
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(&point)
        .cloned()
}

/// The origin's robots rules, loaded once per run; none when the crawl
/// ignores robots.txt.
pub(super) async fn rules_for(
    ctx: &Ctx,
    url: &Url,
    origin: &str,
    creds: Option<&Credentials>,
) -> Option<Arc<Rules>> {
    // A file system has no robots.txt to ask.
    if ctx.cfg.ignore_robots || crate::url::is_local(url) {
        return None;
    }
    Some(
        ctx.robots
            .get_or_load(origin, || load_robots(ctx, url, origin, creds))
            .await,
    )
}

/// The rules for an origin: from the store when fresh, else fetched with
/// the asking point's `creds` (and a file, or its absence, handed to the
/// writer to keep). A throttle (429, or 503 with `Retry-After`) pauses the
/// origin and asks again, and a 5xx or a dropped connection is retried,
/// as for a page; an answer that still says the file cannot be had (see
/// [`robots::unreachable`]) disallows the origin for this run, for the
/// reason given, and is not kept. With a shared frontier, the cluster's
/// answer is read first and this crawler's kept for the others.
async fn load_robots(ctx: &Ctx, url: &Url, origin: &str, creds: Option<&Credentials>) -> Rules {
    let agent = ctx.cfg.robots_agent();
    let now = unix_now();
    let kept = ctx.store.read().ok().and_then(|r| {
        let id = r.origin_id(origin).ok().flatten()?;
        r.robots(id).ok().flatten()
    });
    // Older builds kept unreachable answers too: those are asked again.
    if let Some(rec) =
        kept.filter(|r| now - r.fetched_at < ROBOTS_TTL_S && !robots::unreachable(r.status))
    {
        return Rules::from_record(agent, &rec);
    }
    let shared = ctx.shared_robots.as_ref();
    if let Some(shared) = shared {
        if let Known::Kept(record) = shared.known(origin).await {
            let rules = Rules::from_record(agent, &record);
            // This shard keeps it as if fetched here.
            let origin = origin.to_string();
            let _ = ctx.writer.send(Outcome::Robots { origin, record }.into());
            return rules;
        }
    }
    let (mut throttles, mut retries) = (0, Retries::new(ctx.cfg.retries));
    let fetched = loop {
        let slot = ctx.origins.acquire(origin, None).await;
        let fetched = robots::fetch(ctx.fetcher.client(), url, creds, now).await;
        let throttle = fetched.as_ref().ok().and_then(|f| {
            let status = f.record.status;
            throttle::asked(
                status,
                f.retry_after.as_deref(),
                std::time::SystemTime::now(),
            )
            .map(|wait| (status, wait))
        });
        if let Some((status, wait)) = throttle.filter(|_| throttles < throttle::MAX_THROTTLES) {
            throttle::wait_out(&ctx.origins, &ctx.writer, origin, status, wait);
            drop(slot);
            throttles += 1;
            continue;
        }
        drop(slot);
        // A server error or a dropped connection is retried as a page's
        // is: one bad answer must not close the origin for the run.
        let retry = throttle.is_none()
            && match &fetched {
                Ok(f) => retry::worth_retrying(f.record.status),
                Err(e) => e.retryable,
            };
        if !retry || !retries.again().await {
            break fetched;
        }
    };
    let keep = fetched
        .as_ref()
        .ok()
        .filter(|f| !robots::unreachable(f.record.status));
    match (shared, keep) {
        (Some(shared), Some(f)) => shared.keep(origin, &f.record).await,
        (Some(shared), None) => shared.pass(origin).await,
        (None, _) => {}
    }
    match fetched {
        Ok(f) if !robots::unreachable(f.record.status) => {
            let rules = Rules::from_record(agent, &f.record);
            let _ = ctx.writer.send(
                Outcome::Robots {
                    origin: origin.to_string(),
                    record: f.record,
                }
                .into(),
            );
            rules
        }
        Ok(f) => Rules::unavailable(&crate::crawl::status_text(f.record.status)),
        Err(e) => Rules::unavailable(&e.reason),
    }
}

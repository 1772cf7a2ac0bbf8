//! One claimed URL's way through the crawl, as a fetch worker walks it:
//! announced; let through by its origin (up) and robots.txt (loaded once
//! per origin); fetched through the origin's gate, throttles waited out
//! and failures retried (a stop cuts any of those waits short and sends
//! the claim back to the queue); its answer read (304, redirect, page);
//! the page parsed off the reactor; and the outcome handed to the writer.
//! The first visit of a point to an origin then offers the origin's
//! sitemaps.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Sender;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use url::Url;

use super::analyzers::PointParsing;
use super::config::CrawlConfig;
use super::cookie_jar::CookieJar;
use super::event::CrawlEvent;
use super::fetch::{Credentials, FetchError, Fetcher, Response, Validators};
use super::link_auth::{self, LinkAuth};
use super::msg::{Outcome, WriterMsg};
use super::origins::Origins;
use super::parse;
use super::pool::ParsePool;
use super::request_rules::{self, Gate, RequestRules};
use super::retry::{self, Retries};
use super::robots::{self, RobotsCache, Rules, ROBOTS_TTL_S};
use super::shared::{Known, SharedRobots};
use super::sitemaps::{self, Sitemaps};
use super::stop::Stop;
use super::throttle;
use super::CrawlError;
use crate::store::prelude::*;
use crate::store::{Claim, Exchange, PageId, PointId, PointRecord, SkipReason, Store};
use crate::time::unix_now;

/// What every fetch worker of a crawl shares.
pub(super) struct Ctx {
    pub store: Arc<Store>,
    pub cfg: CrawlConfig,
    pub fetcher: Fetcher,
    pub robots: RobotsCache,
    pub origins: Origins,
    pub sitemaps: Sitemaps,
    /// Our robots.txt product token in lower case, for robots directives.
    pub agent: Arc<str>,
    pub creds: RwLock<HashMap<PointId, Credentials>>,
    /// Each point's request rules, which every request of it passes.
    pub request_rules: RwLock<HashMap<PointId, Arc<RequestRules>>>,
    pub writer: Sender<WriterMsg>,
    pub events: UnboundedSender<CrawlEvent>,
    pub parsers: ParsePool,
    pub stop: Stop,
    /// The console's pause: requests wait it out at their origin's slot.
    pub pause: Arc<super::pause::Pause>,
    /// Credentials links of this run carried for their own origin.
    pub link_auth: LinkAuth,
    /// What the crawl counted, and the page requests on the wire now.
    pub counters: Arc<super::writer::Counters>,
    /// The analyzers and rules of points with their own.
    pub parsing: PointParsing,
    /// The points that render pages in a browser, and the browser.
    pub render: super::render_gate::RenderPlans,
    /// With a shared frontier: the robots.txt answers of the cluster.
    pub shared_robots: Option<Arc<SharedRobots>>,
}

impl Ctx {
    /// `point`'s request rules (none for a point this crawl does not know).
    pub fn request_rules(&self, point: PointId) -> Option<Arc<RequestRules>> {
        let rules = self.request_rules.read().unwrap_or_else(|p| p.into_inner());
        rules.get(&point).cloned()
    }

    /// Keeps `rec`'s request rules for `point`, with its documents'
    /// excludes as the store has them.
    pub fn set_request_rules(&self, point: PointId, rec: &PointRecord, doc: Vec<String>) {
        let rules = Arc::new(RequestRules::of(rec, doc));
        let mut all = self
            .request_rules
            .write()
            .unwrap_or_else(|p| p.into_inner());
        all.insert(point, rules);
    }
}

/// What a crawl point sends with its requests; its cookie jar read, or
/// why it cannot be.
pub(super) fn credentials(rec: &PointRecord) -> Result<Credentials, CrawlError> {
    let cookies = match &rec.cookie_jar {
        Some(path) => Some(Arc::new(
            CookieJar::load(std::path::Path::new(path)).map_err(CrawlError::CookieJar)?,
        )),
        None => None,
    };
    Ok(Credentials {
        origins: crate::points::site_origins(rec),
        user: rec.user.clone(),
        password: rec.password.clone(),
        headers: rec.headers.clone(),
        append_query: rec.append_query.clone(),
        cookies,
    })
}

impl Ctx {
    /// Writes back the cookie jars of the crawl's points.
    pub fn save_cookie_jars(&self) -> Result<(), CrawlError> {
        let creds = self.creds.read().unwrap_or_else(|p| p.into_inner());
        for jar in creds.values().filter_map(|c| c.cookies.as_ref()) {
            jar.save().map_err(CrawlError::CookieJar)?;
        }
        Ok(())
    }
}

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
    fn outcome(self, claim: Claim) -> Outcome {
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

/// Fetches one claimed URL and sends the outcome to the writer; true when
/// it was a 2xx (counts toward max pages).
pub(super) async fn work(ctx: &Ctx, claim: Claim) -> bool {
    let point = claim.entry.point;
    // Parsed once here for the fetch, the parser and the sitemaps.
    let site = match Url::parse(&claim.url) {
        Ok(u) => u,
        Err(e) => {
            let reason = format!("invalid URL: {e}");
            let _ = ctx.writer.send(Outcome::Failed { claim, reason }.into());
            return false;
        }
    };
    let outcome = match fetch_page(ctx, &claim, &site).await {
        Err(end) => end.outcome(claim),
        // The same bytes as stored: nothing to parse or re-index (unless
        // a link's credentials are to be read again).
        Ok((resp, Some(stored)))
            if resp.status == 200
                && xxhash_rust::xxh3::xxh3_64(&resp.body) == stored
                && !link_auth::may_hold_userinfo(&resp.body) =>
        {
            Outcome::Unchanged {
                claim,
                fetched_at: unix_now(),
                response_ms: millis(resp.elapsed),
            }
        }
        Ok((resp, _)) => super::render_gate::parse(ctx, claim, &site, resp).await,
    };
    let ok = outcome.counts_as_page();
    // Known before the writer can queue the links, so before they are
    // claimed.
    match &outcome {
        Outcome::Fetched { page, .. } => ctx.link_auth.learn(&site, &page.links),
        Outcome::NotModified { claim, .. } => {
            let (store, parsers) = (&ctx.store, &ctx.parsers);
            ctx.link_auth
                .learn_stored(store, parsers, claim.page, &site)
                .await;
        }
        _ => {}
    }
    let _ = ctx.writer.send(outcome.into());
    // Before this worker ends, so the crawl cannot settle without them.
    if !crate::url::is_local(&site) && ctx.sitemaps.first_visit(point, &crate::url::origin(&site)) {
        ctx.stop.unless(offer_sitemaps(ctx, point, &site)).await;
    }
    ok
}

/// A claim's way to a page: let through, fetched (each request announced
/// as it goes, see [`OnWire`]), and its answer read. Returns the response
/// to parse, with the hash of the body stored for the URL (a complete 2xx
/// one), if any.
async fn fetch_page(ctx: &Ctx, claim: &Claim, url: &Url) -> Result<(Response, Option<u64>), End> {
    let creds = point_credentials(ctx, claim.entry.point);
    let (asked, rules) = admit(ctx, claim.entry.point, url, creds.as_ref()).await?;
    let origin = crate::url::origin(&asked);
    let (stored_hash, validators) = stored(ctx, claim.page);
    let crawl_delay = rules.as_ref().and_then(|r| r.crawl_delay());
    // robots.txt was asked for with the point's own; the page may have a
    // link's.
    let creds = ctx.link_auth.for_request(&asked, &origin, creds);
    let asking = Asking {
        claim,
        url: &asked,
        origin: &origin,
        crawl_delay,
        validators: &validators,
        creds: creds.as_ref(),
    };
    let resp = fetch(ctx, &asking).await?;
    // Read as the URL found, which the store keeps (a `--remap` only
    // changes where it is asked).
    read_answer(url, resp).map(|resp| (resp, stored_hash))
}

/// Lets a request of `point` for `url` through when its origin is up and
/// the point's request rules and robots.txt allow it
/// ([`request_rules::gate`]); returns the URL to ask (remapped) and its
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
    match request_rules::gate(ctx, point, url, creds)
        .await
        .ok_or(End::Stopped)?
    {
        Gate::Ask { url: asked, robots } => up(&asked).map(|()| (asked, robots)),
        Gate::NotChecked(why) => Err(End::Skipped(why)),
        Gate::Unavailable(_, robots) => Err(End::Failed(
            robots.unavailable_reason().unwrap_or_default().to_string(),
        )),
    }
}

/// What the store holds of a page for its next fetch: the hash of its
/// body when that is a complete 2xx one, and the validators for a
/// conditional GET.
fn stored(ctx: &Ctx, page: PageId) -> (Option<u64>, Validators) {
    let stored = ctx
        .store
        .read()
        .ok()
        .and_then(|r| r.page(page).ok().flatten());
    let stored_hash = stored
        .as_ref()
        .filter(|p| (200..300).contains(&p.status) && !p.truncated)
        .map(|p| p.content_hash);
    let validators = stored
        .map(|p| Validators {
            last_modified: p.last_modified_header,
            etag: p.etag,
        })
        .unwrap_or_default();
    (stored_hash, validators)
}

/// How a claim's URL is asked for.
struct Asking<'a> {
    claim: &'a Claim,
    url: &'a Url,
    origin: &'a str,
    crawl_delay: Option<Duration>,
    validators: &'a Validators,
    creds: Option<&'a Credentials>,
}

/// Asks for a URL through its origin's gate until the answer is final:
/// a throttle is waited out (at most [`throttle::MAX_THROTTLES`] times),
/// a server error or a dropped connection retried; every request counts
/// in its origin's figures. A stop ends any of these waits.
async fn fetch(ctx: &Ctx, a: &Asking<'_>) -> Result<Response, End> {
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

/// What a final response is: not modified, a redirect (or one that
/// cannot be followed), or a page to parse.
fn read_answer(url: &Url, resp: Response) -> Result<Response, End> {
    if resp.status == 304 {
        return Err(End::NotModified {
            fetched_at: unix_now(),
        });
    }
    if (300..400).contains(&resp.status) {
        let target = resp
            .location
            .as_deref()
            .map(|loc| crate::url::resolve(url, loc));
        return Err(match target {
            Some(Ok(target)) => End::Redirect {
                target,
                status: resp.status,
            },
            Some(Err(e)) => {
                End::Failed(format!("HTTP {} to an unusable location: {e}", resp.status))
            }
            None => End::Failed(format!("HTTP {} without a Location", resp.status)),
        });
    }
    Ok(resp)
}

/// Parses a page on the parser pool, off the reactor.
pub(super) async fn parse_page(ctx: &Ctx, claim: Claim, site: &Url, resp: Response) -> Outcome {
    let url = site.clone();
    let depth = claim.entry.depth;
    let fetched_at = unix_now();
    let elapsed = resp.elapsed;
    let agent = ctx.agent.clone();
    let from_store = parse::FromStore::of(&ctx.store);
    let own = ctx.parsing.analyzers.of(claim.entry.point);
    let custom = ctx.parsing.custom.of(claim.entry.point);
    let keep_body = !ctx.cfg.parts_off.off(super::Part::Bodies);
    let parsed = ctx
        .parsers
        .run(move || {
            let at = parse::At {
                url: &url,
                depth,
                fetched_at,
                analyzer: own.as_deref().unwrap_or(crate::index::Analyzer::global()),
                keep_body,
                custom: custom.as_deref(),
            };
            parse::parse(&resp, at, &agent, &from_store)
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

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

/// Reads the origin's sitemaps (once per run) and hands their page URLs
/// to the writer for `point`.
async fn offer_sitemaps(ctx: &Ctx, point: PointId, site: &Url) {
    let origin = crate::url::origin(site);
    let creds = point_credentials(ctx, point);
    let rules = rules_for(ctx, site, &origin, creds.as_ref()).await;
    if ctx.origins.down(&origin).is_some()
        || rules
            .as_ref()
            .is_some_and(|r| r.unavailable_reason().is_some())
    {
        // The origin's URLs fail for that reason already.
        return;
    }
    let found = ctx
        .sitemaps
        .found(&origin, || async {
            let named = rules.as_ref().map_or(&[][..], |r| r.sitemaps());
            let crawl_delay = rules.as_ref().and_then(|r| r.crawl_delay());
            let allowed = |u: &Url| {
                crate::url::origin(u) != origin
                    || rules.as_ref().is_none_or(|r| r.allowed(u.as_str()))
            };
            let asking = sitemaps::Asking {
                client: ctx.fetcher.client(),
                creds: creds.as_ref(),
                origins: &ctx.origins,
                writer: &ctx.writer,
                crawl_delay,
                retries: ctx.cfg.retries,
            };
            let found = sitemaps::read(&asking, site, named, allowed).await;
            for (url, result) in &found.notes {
                let _ = ctx.events.send(CrawlEvent::Sitemap {
                    url: url.clone(),
                    result: result.clone().map(|n| n as u64),
                });
            }
            found
        })
        .await;
    if !found.urls.is_empty() {
        let _ = ctx.writer.send(Outcome::Sitemap { point, found }.into());
    }
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

//! One claimed URL's way through the crawl, as a fetch worker walks it:
//! announced; let through by its origin (up) and robots.txt (loaded once
//! per origin); fetched through the origin's gate, throttles waited out
//! and failures retried (a stop cuts any of those waits short and sends
//! the claim back to the queue); its answer read (304, redirect, page);
//! the page parsed off the reactor; and the outcome handed to the writer.
//! The first visit of a point to an origin then offers the origin's
//! sitemaps.

use url::Url;

use super::asking::{admit, fetch, millis, point_credentials, rules_for, Asking, End};
use super::ctx::Ctx;
use super::event::CrawlEvent;
use super::fetch::{Response, Validators};
use super::link_auth;
use super::msg::Outcome;
use super::sitemaps;
use crate::store::prelude::*;
use crate::store::{Claim, PageId, PointId};
use crate::time::unix_now;

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

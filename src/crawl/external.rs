//! `--check-external`: once a point's crawl has nothing left to fetch, each
//! link target it recorded out of scope is checked once in the run (HEAD;
//! GET where HEAD is refused), through the point's request rules and the
//! target's robots.txt, the same per-origin gate and unreachable breaker
//! as crawling, and never crawled. The answers go to the
//! writer, which keeps them for `report external`.

use url::Url;

use super::asking::{self, Gate};
use super::ctx::Ctx;
use super::fetch::{FetchError, Probed};
use super::origins::Origins;
use super::result_cache::ResultCache;
use super::retry::{self, Retries};
use super::stop::Stop;
use crate::accept::Accept;
use crate::store::prelude::*;
use crate::store::{ExternalCheck, PageId, PointId, Reader, SkipReason, StoreError, UrlState};
use crate::time::unix_now;

/// One link target to check, for the run that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub page: PageId,
    pub url: String,
    pub point: PointId,
    pub gen: u32,
    /// The point's `--accept` list: which answers are not broken.
    pub accept: Vec<(u16, u16)>,
}

/// The out-of-scope targets of `points` (those that ask for checks) that
/// this run of theirs has not checked yet, nor has a fresh result of
/// (`--cache`).
pub fn todo(r: &Reader<'_>, points: &[PointId]) -> Result<Vec<Target>, StoreError> {
    let mut runs = Vec::new();
    for &id in points {
        if let Some(p) = r.point(id)?.filter(|p| p.check_external) {
            runs.push((id, p.gen, ResultCache::of(&p), p.accept));
        }
    }
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    r.for_each_state(|page, state| {
        if let UrlState::Skipped {
            point,
            gen,
            reason: SkipReason::OutOfScope,
        } = state
        {
            if let Some(i) = runs.iter().position(|r| (r.0, r.1) == (point, gen)) {
                found.push((page, i));
            }
        }
        Ok(true)
    })?;
    let now = unix_now();
    let mut out = Vec::with_capacity(found.len());
    for (page, i) in found {
        let (point, gen, cache, accept) = &runs[i];
        let (point, gen) = (*point, *gen);
        let done = r.external_check(page)?.is_some_and(|c| {
            (c.point == point && c.gen == gen) || cache.fresh(point, c.point, c.checked_at, now)
        });
        if let (false, Some(url)) = (done, r.url_of(page)?) {
            out.push(Target {
                page,
                url,
                point,
                gen,
                accept: accept.clone(),
            });
        }
    }
    Ok(out)
}

/// Checks one target politely, once the point's request rules and the
/// target's robots.txt let it through ([`asking::gate`]); a link
/// that answers below 400, or with a status its point accepts, works. None
/// when the crawl stopped while the check waited for its origin.
pub async fn check(ctx: &Ctx, t: &Target) -> Option<ExternalCheck> {
    let mut not_checked = None;
    let answer = match Url::parse(&t.url) {
        Err(e) => Err(format!("invalid URL: {e}")),
        Ok(url) => match asking::gate(ctx, t.point, &url, None).await? {
            // A robots.txt that cannot be had says no rule: the check's
            // own answer decides (a page is not crawled through it).
            Gate::Ask { url, .. } | Gate::Unavailable(url, _) => {
                let retries = ctx.request_rules(t.point).map_or(0, |r| r.max_retries);
                // Its credentials go to its own origins only; its cookies
                // wherever they match.
                let creds = asking::point_credentials(ctx, t.point);
                let ask = || ctx.fetcher.check(&url, creds.as_ref(), false);
                polite(&ctx.origins, &ctx.stop, &url, retries, ask).await?
            }
            Gate::NotChecked(why) => {
                not_checked = Some(why);
                Ok(Probed::default())
            }
        },
    };
    let (status, reason) = match not_checked {
        Some(_) => (None, None),
        None => verdict(answer.as_ref(), &t.accept),
    };
    Some(ExternalCheck {
        point: t.point,
        gen: t.gen,
        status,
        reason,
        checked_at: unix_now(),
        not_checked,
    })
}

/// Asks `url` through its origin's gate and unreachable breaker, as a
/// fetch is asked: `ask` once the origin lets it through, its answer
/// counted in the origin's state; a network error, 5xx or 429 asked again
/// up to `retries` times ([`Retries`]). None when the crawl stopped while
/// the check waited.
pub async fn polite<F, Fut>(
    origins: &Origins,
    stop: &Stop,
    url: &Url,
    retries: u32,
    ask: F,
) -> Option<Result<Probed, String>>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<Probed, FetchError>>,
{
    let origin = crate::url::origin(url);
    let mut retries = Retries::new(retries);
    loop {
        if let Some(why) = origins.down(&origin) {
            return Some(Err(why));
        }
        let slot = stop.unless(origins.acquire(&origin, None)).await?;
        let r = ask().await;
        drop(slot);
        let again = match &r {
            Ok(answer) => {
                origins.answered(&origin, answer.status);
                retry::worth_retrying(answer.status)
            }
            Err(e) => {
                origins.failed(&origin, e);
                e.retryable
            }
        };
        if !again || !stop.unless(retries.again()).await? {
            return Some(r.map_err(|e| e.reason));
        }
    }
}

/// A checked target's status and, when it is broken, why: no answer, or
/// the reason phrase of a 4xx/5xx.
pub fn verdict(
    answer: Result<&Probed, &String>,
    accept: &[(u16, u16)],
) -> (Option<u16>, Option<String>) {
    match answer {
        Ok(p) if Accept(accept).is_broken(Some(p.status)) => (
            Some(p.status),
            Some(super::reason::phrase(p.status, p.reason.as_deref())),
        ),
        Ok(p) => (Some(p.status), None),
        Err(why) => (None, Some(why.clone())),
    }
}

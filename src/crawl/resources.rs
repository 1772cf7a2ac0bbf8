//! Resource checks: once a point's crawl has nothing left to fetch, each
//! resource its pages load (and each `url()` of the stylesheets it
//! fetched, and each canonical, hreflang or pagination target no page
//! fetch answered) is checked once in the run, after the external links: the
//! point's own origins' unless `--no-resources`, other origins' only with
//! `--check-external`. HEAD, GET where HEAD is refused or a stylesheet is
//! to be scanned; through the point's request rules and robots.txt
//! ([`asking::gate`]: an excluded resource is never asked) and the
//! same per-origin gate and breaker as the crawl ([`external::polite`]);
//! never parsed as a page. The answers go to the writer.

use rustc_hash::FxHashSet;
use url::Url;

use super::asking::{self, Gate};
use super::ctx::Ctx;
use super::external;
use super::fetch::Probed;
use super::msg::Outcome;
use super::result_cache::ResultCache;
use crate::html::css::css_urls;
use crate::html::resources::Element;
use crate::html::MAX_LINKS_PER_PAGE;
use crate::store::prelude::*;
use crate::store::{PointId, Reader, ResourceCheck, StoreError, UrlState};
use crate::time::unix_now;

/// One resource to check, for the run whose page loads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub of: external::Target,
    /// A stylesheet: fetched whole to find its `url()`s.
    pub scan: bool,
}

/// A point whose run checks resources.
struct Run {
    point: PointId,
    gen: u32,
    /// Its own origins (the `www.` twin's too when they are one site).
    own: Vec<String>,
    check_external: bool,
    /// The point's `--accept` list: which answers are not broken.
    accept: Vec<(u16, u16)>,
    cache: ResultCache,
}

/// The resources of `points`' runs not checked in those runs yet, nor
/// with a fresh result (`--cache`): those of the pages each fetched, and
/// of the stylesheets each checked.
pub fn todo(r: &Reader<'_>, points: &[PointId]) -> Result<Vec<Target>, StoreError> {
    let mut runs = Vec::new();
    for &id in points {
        if let Some(p) = r.point(id)?.filter(|p| !p.no_resources) {
            runs.push(Run {
                point: id,
                gen: p.gen,
                own: crate::points::site_origins(&p),
                check_external: p.check_external,
                accept: p.accept.clone(),
                cache: ResultCache::of(&p),
            });
        }
    }
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    let of_run =
        |point: PointId, gen: u32| runs.iter().position(|x| (x.point, x.gen) == (point, gen));
    let mut sources = Vec::new();
    r.for_each_state(|page, state| {
        if let UrlState::Done { point, gen } = state {
            sources.extend(of_run(point, gen).map(|run| (page, run)));
        }
        Ok(true)
    })?;
    let now = unix_now();
    let fresh_for = |c: &ResourceCheck| {
        (runs.iter()).position(|x| x.cache.fresh(x.point, c.point, c.checked_at, now))
    };
    let mut checked = FxHashSet::default();
    for (page, c) in r.resource_checks()? {
        // A stylesheet checked in this run, or whose kept result stands:
        // its url()s are the run's to check.
        if let Some(run) = of_run(c.point, c.gen).or_else(|| fresh_for(&c)) {
            checked.insert(page);
            sources.push((page, run));
        }
    }
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    for (page, run) in sources {
        let run = &runs[run];
        for res in r.resources(page)? {
            if checked.contains(&res.target) || !seen.insert(res.target) {
                continue;
            }
            // A canonical, hreflang or pagination target the crawl fetched
            // (or will) as a page is answered by that fetch.
            if res.element.is_target()
                && !matches!(
                    r.url_state(res.target)?,
                    None | Some(UrlState::Skipped { .. })
                )
            {
                continue;
            }
            let Some(url) = r.url_of(res.target)? else {
                continue;
            };
            let own = Url::parse(&url).is_ok_and(|u| run.own.contains(&crate::url::origin(&u)));
            if own || run.check_external {
                out.push(Target {
                    of: external::Target {
                        page: res.target,
                        url,
                        point: run.point,
                        gen: run.gen,
                        accept: run.accept.clone(),
                    },
                    scan: res.element == Element::Stylesheet,
                });
            }
        }
    }
    Ok(out)
}

/// Checks one resource; a stylesheet's `url()`s go with the answer. None
/// when the crawl stopped while the check waited.
pub async fn check(ctx: &Ctx, target: &Target) -> Option<Outcome> {
    let t = &target.of;
    let mut css = Vec::new();
    let mut not_checked = None;
    let answer = match Url::parse(&t.url) {
        Err(e) => Err(format!("invalid URL: {e}")),
        Ok(url) => {
            let creds = asking::point_credentials(ctx, t.point);
            match asking::gate(ctx, t.point, &url, creds.as_ref()).await? {
                // A robots.txt that cannot be had says no rule: the
                // check's own answer decides.
                Gate::Ask { url: asked, .. } | Gate::Unavailable(asked, _) => {
                    let retries = ctx.request_rules(t.point).map_or(0, |r| r.max_retries);
                    let ask = || ctx.fetcher.check(&asked, creds.as_ref(), target.scan);
                    let (origins, stop) = (&ctx.origins, &ctx.stop);
                    let answer = external::polite(origins, stop, &asked, retries, ask).await?;
                    if let Ok(p) = &answer {
                        // Resolved against the URL found, which the store keeps.
                        css = stylesheet_urls(&url, p);
                    }
                    answer
                }
                Gate::NotChecked(why) => {
                    not_checked = Some(why);
                    Ok(Probed::default())
                }
            }
        }
    };
    let probed = answer.as_ref().ok();
    let (status, reason) = match not_checked {
        Some(_) => (None, None),
        None => external::verdict(answer.as_ref(), &t.accept),
    };
    Some(Outcome::Resource {
        url: t.url.clone(),
        page: t.page,
        check: ResourceCheck {
            point: t.point,
            gen: t.gen,
            status,
            reason,
            size: probed.and_then(|p| p.size),
            mime: probed.and_then(|p| p.mime.clone()),
            checked_at: unix_now(),
            not_checked,
        },
        css,
    })
}

/// The URLs a fetched stylesheet loads, resolved against it, once each.
fn stylesheet_urls(url: &Url, p: &Probed) -> Vec<Url> {
    let Some(body) = p
        .body
        .as_ref()
        .filter(|_| p.mime.as_deref() == Some("text/css"))
    else {
        return Vec::new();
    };
    let text = crate::html::decode(body, Some("text/css"));
    let mut out: Vec<Url> = Vec::new();
    let mut seen = FxHashSet::default();
    css_urls(&text, |href| {
        if out.len() < MAX_LINKS_PER_PAGE {
            if let Ok(u) = crate::url::resolve(url, href) {
                if seen.insert(u.as_str().to_owned()) {
                    out.push(u);
                }
            }
        }
    });
    out
}

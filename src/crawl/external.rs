//! `--check-external`: once a point's crawl has nothing left to fetch, each
//! link target it recorded out of scope is checked once in the run (HEAD;
//! GET where HEAD is refused), through the same per-origin gate and
//! unreachable breaker as crawling, and never crawled. The answers go to the
//! writer, which keeps them for `report external`.

use url::Url;

use super::fetch::Fetcher;
use super::origins::Origins;
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
/// this run of theirs has not checked yet.
pub fn todo(r: &Reader<'_>, points: &[PointId]) -> Result<Vec<Target>, StoreError> {
    let mut runs = Vec::new();
    for &id in points {
        if let Some(p) = r.point(id)?.filter(|p| p.check_external) {
            runs.push((id, p.gen, p.accept));
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
    let mut out = Vec::with_capacity(found.len());
    for (page, i) in found {
        let (point, gen, accept) = &runs[i];
        let (point, gen) = (*point, *gen);
        let done = r
            .external_check(page)?
            .is_some_and(|c| c.point == point && c.gen == gen);
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

/// Checks one target politely; a link that answers below 400, or with a
/// status its point accepts, works. None
/// when the crawl stopped while the check waited for its origin.
pub async fn check(
    fetcher: &Fetcher,
    origins: &Origins,
    stop: &Stop,
    t: &Target,
) -> Option<ExternalCheck> {
    let answer = match Url::parse(&t.url) {
        Err(e) => Err(format!("invalid URL: {e}")),
        Ok(url) => {
            let origin = crate::url::origin(&url);
            match origins.down(&origin) {
                Some(why) => Err(why),
                None => {
                    let slot = stop.unless(origins.acquire(&origin, None)).await?;
                    let r = fetcher.probe(&url).await;
                    drop(slot);
                    match r {
                        Ok(status) => {
                            origins.answered(&origin, status);
                            Ok(status)
                        }
                        Err(e) => {
                            origins.failed(&origin, &e);
                            Err(e.reason)
                        }
                    }
                }
            }
        }
    };
    let (status, reason) = match answer {
        Ok(s) if Accept(&t.accept).is_broken(Some(s)) => (Some(s), Some(super::status_text(s))),
        Ok(s) => (Some(s), None),
        Err(why) => (None, Some(why)),
    };
    Some(ExternalCheck {
        point: t.point,
        gen: t.gen,
        status,
        reason,
        checked_at: unix_now(),
    })
}

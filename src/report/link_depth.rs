//! Link depth, as Screaming Frog counts it: the fewest links from a crawl
//! point's start URL to a URL, over the report's scope (a redirect hop
//! keeps its depth). It is read from the link graph when a report asks,
//! not taken from the crawl: the crawl's own depth is when the frontier
//! met a URL, so a URL a sitemap listed before any link reached it, or
//! one queued deep while a shorter link was still being fetched, keeps
//! the depth it was queued at. That depth stays what `--depth` limits; a
//! URL no link reaches (only a sitemap lists it) has no link depth.
//!
//! The walk follows what the crawl follows: links that are not
//! `rel=nofollow` on pages without a nofollow directive, unless a point
//! of the scope follows nofollow links (`--follow-nofollow`).

use std::collections::VecDeque;

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::kept_lists::{packed, read_named};
use super::{Ctx, ReportError, Result};
use crate::store::prelude::*;
use crate::store::{codec, PageId, Reader, StoreError, UrlState};

/// The link walk's kept record ([`Kept`]).
const LINK_DEPTHS: &str = "found:link-depths";

/// The record [`LINK_DEPTHS`] keeps, made afresh.
pub(super) fn kept_record(ctx: &Ctx<'_, '_>) -> Result<(&'static str, Vec<u8>)> {
    let ((), depths) = packed(|w| Ok(codec::encode_to(&ctx.link_depths()?.kept(), w)?))?;
    Ok((LINK_DEPTHS, depths))
}

const NONE: u32 = u32::MAX;

/// [`LinkDepths`] as the `kept` table holds it.
#[derive(Serialize, Deserialize)]
pub struct Kept {
    reached: Vec<(PageId, u32)>,
    starts: Vec<PageId>,
    redirected: Vec<PageId>,
}

impl From<Kept> for LinkDepths {
    fn from(k: Kept) -> LinkDepths {
        let mut depth = vec![NONE; k.reached.last().map_or(0, |&(id, _)| id as usize + 1)];
        for (id, d) in k.reached {
            depth[id as usize] = d;
        }
        LinkDepths {
            depth,
            starts: k.starts.into_iter().collect(),
            redirected: k.redirected.into_iter().collect(),
        }
    }
}

/// Each URL's link depth, by page id, and the URLs the walk began at or
/// reached through a redirect (for [`LinkDepths::found_in`]).
pub struct LinkDepths {
    depth: Vec<u32>,
    starts: FxHashSet<PageId>,
    redirected: FxHashSet<PageId>,
}

impl LinkDepths {
    /// A breadth-first walk from the start URLs of the scope's points
    /// over the scope's URLs; a redirect's target is at its own depth
    /// (a 0-weight edge, taken first).
    pub fn read(ctx: &Ctx<'_, '_>) -> Result<LinkDepths> {
        let states = ctx.states()?;
        let pages = ctx.pages()?;
        let mut depth = vec![NONE; states.last().map_or(0, |&(id, _)| id as usize + 1)];
        let state = |id: PageId| {
            states
                .binary_search_by_key(&id, |(at, _)| *at)
                .ok()
                .map(|i| &states[i].1)
                .filter(|s| !matches!(s, UrlState::Skipped { .. }))
        };
        let mut follow_nofollow = false;
        let mut starts = FxHashSet::default();
        let mut queue = VecDeque::new();
        for (point, rec) in ctx.r.points()? {
            if !ctx.covers_point(point) {
                continue;
            }
            follow_nofollow |= rec.follow_nofollow;
            // A point whose URL no longer parses has no start to walk from.
            let Ok(url) = crate::url::Url::parse(&rec.url) else {
                continue;
            };
            if let Some(start) = ctx.r.site_page_id(&url)?.filter(|&s| state(s).is_some()) {
                depth[start as usize] = 0;
                starts.insert(start);
                queue.push_back(start);
            }
        }
        let mut redirected = FxHashSet::default();
        while let Some(at) = queue.pop_front() {
            let d = depth[at as usize];
            match state(at) {
                Some(UrlState::Redirected { to, .. }) => {
                    redirected.insert(*to);
                    if state(*to).is_some() && d < depth[*to as usize] {
                        depth[*to as usize] = d;
                        queue.push_front(*to);
                    }
                }
                // Only a page that answered 2xx has its links followed.
                Some(UrlState::Done { .. }) => {
                    let Ok(i) = pages.binary_search_by_key(&at, |(id, _)| *id) else {
                        continue;
                    };
                    if pages[i].1.nofollow.is_some() && !follow_nofollow {
                        continue;
                    }
                    for (child, nofollow) in ctx.r.link_marks(at)? {
                        if child == at || (nofollow && !follow_nofollow) || state(child).is_none() {
                            continue;
                        }
                        if d + 1 < depth[child as usize] {
                            depth[child as usize] = d + 1;
                            queue.push_back(child);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(LinkDepths {
            depth,
            starts,
            redirected,
        })
    }

    /// Every URL's link depth as of each point's latest runs: what `page`
    /// and the exports show (kept at a crawl's end: a million pages'
    /// walk takes seconds), for callers that speak the store's errors.
    pub fn latest(r: &Reader<'_>) -> std::result::Result<LinkDepths, StoreError> {
        let read = |ctx: Ctx<'_, '_>| match read_named(&ctx, LINK_DEPTHS, codec::decode::<Kept>)? {
            Some(kept) => Ok(LinkDepths::from(kept)),
            None => LinkDepths::read(&ctx),
        };
        Ctx::new(r, None)
            .and_then(read)
            .map_err(ReportError::into_store)
    }

    /// The walk as kept: the URLs it reached with their depths, and the
    /// starts and redirect targets (ids ascending).
    pub fn kept(&self) -> Kept {
        let mut starts: Vec<PageId> = self.starts.iter().copied().collect();
        let mut redirected: Vec<PageId> = self.redirected.iter().copied().collect();
        starts.sort_unstable();
        redirected.sort_unstable();
        Kept {
            reached: (self.depth.iter().enumerate())
                .filter(|&(_, &d)| d != NONE)
                .map(|(id, &d)| (id as PageId, d))
                .collect(),
            starts,
            redirected,
        }
    }

    /// `page`'s link depth; None when no link reaches it.
    pub fn of(&self, page: PageId) -> Option<u32> {
        self.depth
            .get(page as usize)
            .copied()
            .filter(|&d| d != NONE)
    }

    /// How the crawl can have found `page`: `start` (a point's start
    /// URL), `link` (a fetched page links to it, `linked`), `redirect` (a
    /// redirect the walk took leads to it), `sitemap` (a sitemap lists it,
    /// `listed`).
    pub fn found_in(&self, page: PageId, linked: bool, listed: bool) -> Vec<&'static str> {
        [
            (self.starts.contains(&page), "start"),
            (linked, "link"),
            (self.redirected.contains(&page), "redirect"),
            (listed, "sitemap"),
        ]
        .into_iter()
        .filter_map(|(is, name)| is.then_some(name))
        .collect()
    }
}

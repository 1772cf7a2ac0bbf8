//! `report sitemaps`: what the sitemaps say against what the crawl found,
//! for the pages of the report's scope (see
//! [`indexability`](super::indexability) for which URLs are pages):
//! `orphan` (in a sitemap, linked from no fetched page of the scope, nor
//! reached through redirects from a URL one links to),
//! `non_indexable` (in a sitemap but noindex, canonicalised elsewhere or
//! blocked by robots.txt), `non_200` (in a sitemap but failed, redirected
//! or answering other than 2xx), `not_in_sitemap` (an indexable page no
//! sitemap lists). A page is in a sitemap when one listed it in the runs
//! the report names (each point's latest, or `--run`'s; any run with
//! `--all-runs`), read from `sitemap_listings`; the sitemap shown is the
//! first that did. Pages of a point whose latest run read no sitemaps
//! (`--no-sitemaps`) have no findings, nor does a scope where no sitemap
//! listed any page: there is nothing to hold the pages to.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::indexability::{of_scope, Indexability};
use super::kept_lists::{Keeper, Pass};
use super::links::{graph, PageSet};
use super::redirects::MAX_HOPS;
use super::{Ctx, ListKind, Result, Row, Scope};
use crate::store::prelude::*;
use crate::store::{PageId, PointId, SitemapListing, UrlState};

pub struct Sitemaps;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    Orphan,
    NonIndexable,
    /// snake_case would write `non200`.
    #[serde(rename = "non_200")]
    Non200,
    NotInSitemap,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::Orphan => "orphan",
            Issue::NonIndexable => "non_indexable",
            Issue::Non200 => "non_200",
            Issue::NotInSitemap => "not_in_sitemap",
        }
    }
}

#[derive(Serialize, Deserialize)]
pub struct Item {
    page: PageId,
    issue: Issue,
    sitemap: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SitemapRow {
    pub url: String,
    pub issue: Issue,
    /// The sitemap that listed the URL (null for `not_in_sitemap`).
    pub sitemap: Option<String>,
}

/// The runs a report's sitemap listings must come from (None: any, with
/// `--all-runs`), and the points whose latest run read no sitemaps.
struct Runs {
    listing: Option<FxHashSet<(PointId, u32)>>,
    without_sitemaps: FxHashSet<PointId>,
}

impl Runs {
    fn of(ctx: &Ctx<'_, '_>) -> Result<Runs> {
        let mut runs = Runs {
            listing: (ctx.scope() != Scope::AllRuns).then(FxHashSet::default),
            without_sitemaps: FxHashSet::default(),
        };
        for named in ctx.named_runs() {
            let Some(run) = ctx.r.run(named.id)? else {
                continue;
            };
            if run.flags.no_sitemaps {
                runs.without_sitemaps.insert(run.point);
            }
            if let Some(listing) = &mut runs.listing {
                listing.insert((run.point, run.gen));
            }
        }
        Ok(runs)
    }

    /// The first sitemap of `listings` that one of the runs read.
    fn sitemap(&self, listings: Vec<SitemapListing>) -> Option<String> {
        (listings.into_iter())
            .find(|l| (self.listing.as_ref()).is_none_or(|runs| runs.contains(&(l.point, l.gen))))
            .map(|l| l.sitemap)
    }
}

/// The URLs a linked URL's redirects lead to, hop by hop: a page that a
/// link reaches only through `/old` -> `/new` is linked, not an orphan.
fn through_redirects(ctx: &Ctx<'_, '_>, linked: &PageSet) -> Result<FxHashSet<PageId>> {
    let hop: FxHashMap<PageId, PageId> = (ctx.states()?.iter())
        .filter_map(|(id, state)| match state {
            UrlState::Redirected { to, .. } => Some((*id, *to)),
            _ => None,
        })
        .collect();
    let mut reached = FxHashSet::default();
    for &from in hop.keys().filter(|p| linked.contains(p)) {
        let mut at = from;
        // A loop ends where it closes; a chain at the crawler's bound.
        for _ in 0..MAX_HOPS {
            let Some(&to) = hop.get(&at) else { break };
            if !reached.insert(to) {
                break;
            }
            at = to;
        }
    }
    Ok(reached)
}

impl ListKind for Sitemaps {
    type Item = Item;
    type Row = SitemapRow;

    /// By issue, then page id.
    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let runs = Runs::of(ctx)?;
        let skipped = &runs.without_sitemaps;
        let of_point: FxHashMap<PageId, PointId> = (ctx.states()?.iter())
            .map(|(id, state)| (*id, state.run().0))
            .collect();
        let mut listed: FxHashMap<PageId, String> = FxHashMap::default();
        ctx.r.for_each_sitemap_listing(|page, listings| {
            if of_point.get(&page).is_some_and(|p| !skipped.contains(p)) {
                listed.extend(runs.sitemap(listings).map(|s| (page, s)));
            }
        })?;
        if listed.is_empty() {
            return Ok(Vec::new());
        }
        let linked = &graph(ctx)?.linked;
        let through = through_redirects(ctx, linked)?;
        let mut items = Vec::new();
        for (page, indexability) in of_scope(ctx)? {
            if of_point.get(&page).is_none_or(|p| skipped.contains(p)) {
                continue;
            }
            let sitemap = listed.get(&page);
            let mut push = |issue, sitemap: Option<&String>| {
                items.push(Item {
                    page,
                    issue,
                    sitemap: sitemap.cloned(),
                })
            };
            let Some(sitemap) = sitemap else {
                if indexability == Indexability::Indexable {
                    push(Issue::NotInSitemap, None);
                }
                continue;
            };
            if !linked.contains(&page) && !through.contains(&page) {
                push(Issue::Orphan, Some(sitemap));
            }
            match indexability {
                Indexability::Indexable => {}
                Indexability::Non200 | Indexability::Redirected => {
                    push(Issue::Non200, Some(sitemap))
                }
                Indexability::Noindex
                | Indexability::Canonicalised
                | Indexability::BlockedByRobots => push(Issue::NonIndexable, Some(sitemap)),
            }
        }
        items.sort_by_key(|i| (i.issue, i.page));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<SitemapRow> {
        Ok(SitemapRow {
            url: ctx.url(item.page)?,
            issue: item.issue,
            sitemap: item.sitemap,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:sitemaps").in_pass(Pass::Links))
    }
}

impl Row for SitemapRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "sitemap"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.as_str().to_string(),
            self.sitemap.clone().unwrap_or_default(),
        ]
    }
}

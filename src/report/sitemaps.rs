//! `report sitemaps`: what the sitemaps say against what the crawl found,
//! for the pages of the report's scope (see
//! [`indexability`](super::indexability) for which URLs are pages):
//! `orphan` (in a sitemap, linked from no fetched page of the scope),
//! `non_indexable` (in a sitemap but noindex, canonicalised elsewhere or
//! blocked by robots.txt), `non_200` (in a sitemap but failed, redirected
//! or answering other than 2xx), `not_in_sitemap` (an indexable page no
//! sitemap lists). A sitemap is the one that listed the page first (the
//! store keeps that one). Pages of a point whose latest run read no
//! sitemaps (`--no-sitemaps`) have no findings, nor does a scope where no
//! sitemap listed any page: there is nothing to hold the pages to.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::indexability::{of_scope, Indexability};
use super::links::Graph;
use super::{Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::{PageId, PointId};

pub struct Sitemaps;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
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

/// The points whose latest run read no sitemaps.
fn without_sitemaps(ctx: &Ctx<'_, '_>) -> Result<FxHashSet<PointId>> {
    let mut out = FxHashSet::default();
    for named in ctx.named_runs() {
        if ctx
            .r
            .run(named.id)?
            .is_some_and(|run| run.flags.no_sitemaps)
        {
            out.insert(named.point);
        }
    }
    Ok(out)
}

impl ListKind for Sitemaps {
    type Item = Item;
    type Row = SitemapRow;

    /// By issue, then page id.
    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let skipped = without_sitemaps(ctx)?;
        let of_point: FxHashMap<PageId, PointId> = (ctx.states()?.iter())
            .map(|(id, state)| (*id, state.run().0))
            .collect();
        let mut listed: FxHashMap<PageId, String> = FxHashMap::default();
        ctx.r.for_each_listed(|page, sitemap| {
            if of_point.get(&page).is_some_and(|p| !skipped.contains(p)) {
                listed.insert(page, sitemap);
            }
        })?;
        if listed.is_empty() {
            return Ok(Vec::new());
        }
        let linked = Graph::read(ctx)?.linked;
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
            if !linked.contains(&page) {
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

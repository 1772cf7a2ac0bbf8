//! `report resources`: every resource the reported pages load (and the
//! `url()`s of the stylesheets they load), one row per URL and element,
//! with what its check answered (status, reason, size, type) and the pages
//! using it: broken first, then the largest. Broken resources are also
//! `report broken` rows (with their element) and the Findings count;
//! [`uses`] is what every resource report reads, once.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::kept_lists::{Keeper, Pass};
use super::{opt_cell, Ctx, ListKind, Result, Row};
use crate::html::resources::Element;
use crate::store::prelude::*;
use crate::store::{PageId, ResourceCheck, ResourceLink};

/// What the report's pages load: each (source page, resource), and the
/// checks of the resources loaded.
pub struct Uses {
    pub links: Vec<(PageId, ResourceLink)>,
    pub checks: FxHashMap<PageId, ResourceCheck>,
}

/// Reads `page_resources` and `resource_checks` once per report: the
/// resources of the pages the report covers, and of the stylesheets those
/// load (a stylesheet is no page of the report, its `url()`s are the
/// page's).
pub fn uses<'c>(ctx: &'c Ctx<'_, '_>) -> Result<&'c Uses> {
    if let Some(u) = ctx.resource_uses.get() {
        return Ok(u);
    }
    let read = read_uses(ctx)?;
    Ok(ctx.resource_uses.get_or_init(|| read))
}

fn read_uses(ctx: &Ctx<'_, '_>) -> Result<Uses> {
    let mut all = Vec::new();
    ctx.r.for_each_resources(|page, links| {
        all.push((page, links));
        Ok(true)
    })?;
    let mut links = Vec::new();
    let mut loaded = FxHashSet::default();
    let mut others = Vec::new();
    for (page, mut list) in all {
        // What a page names (canonical, hreflang, pagination) has its own
        // reports.
        list.retain(|l| !l.element.is_target());
        if ctx.includes(page)? {
            loaded.extend(list.iter().map(|l| l.target));
            links.extend(list.into_iter().map(|l| (page, l)));
        } else {
            others.push((page, list));
        }
    }
    for (page, list) in others {
        if loaded.contains(&page) {
            links.extend(list.into_iter().map(|l| (page, l)));
        }
    }
    let wanted: FxHashSet<PageId> = links.iter().map(|(_, l)| l.target).collect();
    let checks = ctx
        .r
        .resource_checks()?
        .into_iter()
        .filter(|(id, _)| wanted.contains(id))
        .collect();
    Ok(Uses { links, checks })
}

/// One resource as found: ids, what loads it, its check.
#[derive(Serialize, Deserialize)]
pub struct Item {
    pub page: PageId,
    pub element: Element,
    pub sources: Vec<PageId>,
    pub check: Option<ResourceCheck>,
}

impl Item {
    pub fn broken(&self) -> bool {
        self.check.as_ref().is_some_and(ResourceCheck::broken)
    }

    fn size(&self) -> u64 {
        self.check.as_ref().and_then(|c| c.size).unwrap_or(0)
    }
}

/// Every resource of `uses` (one per URL and element, its sources in page
/// order), broken first, then the largest, then by page id.
pub fn items(uses: &Uses) -> Vec<Item> {
    let mut by: FxHashMap<(PageId, Element), Vec<PageId>> = FxHashMap::default();
    for (source, l) in &uses.links {
        let sources = by.entry((l.target, l.element)).or_default();
        if sources.last() != Some(source) {
            sources.push(*source);
        }
    }
    let mut items: Vec<Item> = by
        .into_iter()
        .map(|((page, element), mut sources)| {
            sources.sort_unstable();
            sources.dedup();
            Item {
                page,
                element,
                sources,
                check: uses.checks.get(&page).cloned(),
            }
        })
        .collect();
    items.sort_by(|a, b| {
        (b.broken(), b.size(), a.page, a.element).cmp(&(a.broken(), a.size(), b.page, b.element))
    });
    items
}

pub struct Resources;

/// Broken resources only: what the Findings pane counts and lists.
pub struct BrokenResources;

#[derive(Debug, Serialize)]
pub struct ResourceRow {
    pub url: String,
    pub element: &'static str,
    /// None: no answer, or not checked.
    pub status: Option<u16>,
    pub reason: Option<String>,
    pub size: Option<u64>,
    pub mime: Option<String>,
    /// The first `--sources` pages using it, in page order.
    pub sources: Vec<SourceUrl>,
    /// How many pages use it, listed or not.
    pub source_count: usize,
    /// Whether it is a finding (JUnit passes the others).
    #[serde(skip)]
    pub broken: bool,
}

/// A page that loads a resource.
#[derive(Debug, Serialize)]
pub struct SourceUrl {
    pub url: String,
}

impl ListKind for Resources {
    type Item = Item;
    type Row = ResourceRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        Ok(items(uses(ctx)?))
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<ResourceRow> {
        let broken = item.broken();
        let check = item.check;
        Ok(ResourceRow {
            broken,
            url: ctx.url(item.page)?,
            element: item.element.as_str(),
            status: check.as_ref().and_then(|c| c.status),
            reason: check.as_ref().and_then(|c| c.reason.clone()),
            size: check.as_ref().and_then(|c| c.size),
            mime: check.and_then(|c| c.mime),
            source_count: item.sources.len(),
            sources: ctx
                .urls(ctx.listed(&item.sources, 0))?
                .into_iter()
                .map(|url| SourceUrl { url })
                .collect(),
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:resources").in_pass(Pass::Resources))
    }
}

impl ListKind for BrokenResources {
    type Item = Item;
    type Row = ResourceRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut items = Resources::find(ctx)?;
        items.retain(Item::broken);
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<ResourceRow> {
        Resources::row(ctx, item)
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:broken-resources").in_pass(Pass::Resources))
    }
}

impl Row for ResourceRow {
    const COLUMNS: &'static [&'static str] = &[
        "url", "element", "status", "reason", "size", "mime", "sources",
    ];
    fn is_finding(&self) -> bool {
        self.broken
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.element.to_string(),
            opt_cell(self.status),
            self.reason.clone().unwrap_or_default(),
            opt_cell(self.size),
            self.mime.clone().unwrap_or_default(),
            self.source_urls().join(" "),
        ]
    }
    // Not led by "url": the Findings pane then opens the pages using a
    // resource (the details), not the resource.
    fn table_columns() -> &'static [&'static str] {
        &["resource", "element", "status", "size", "mime"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.element.to_string(),
            self.reason
                .clone()
                .or_else(|| self.status.map(|s| s.to_string()))
                .unwrap_or_else(|| "not asked".into()),
            opt_cell(self.size),
            self.mime.clone().unwrap_or_default(),
        ]
    }
    fn details(&self) -> Vec<String> {
        self.source_urls()
    }
}

impl ResourceRow {
    fn source_urls(&self) -> Vec<String> {
        self.sources.iter().map(|s| s.url.clone()).collect()
    }
}

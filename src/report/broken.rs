//! `report broken`: every URL that failed or answered 4xx/5xx, with every
//! page that links to it and the link's text there ("found on ... as
//! ..."), the most linked first.

use serde::Serialize;

use super::{failed_status, opt_cell, Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::{PageId, UrlState};

pub struct Broken;

/// A broken link target: also what `report external` lists.
pub struct Item {
    pub page: PageId,
    pub status: Option<u16>,
    pub reason: String,
    pub parents: Vec<PageId>,
}

#[derive(Debug, Serialize)]
pub struct BrokenRow {
    pub url: String,
    /// The status answered; null when none was (refused, timeout, ...).
    pub status: Option<u16>,
    pub reason: String,
    pub sources: Vec<Source>,
}

/// A page linking to a broken URL, and the link's text there.
#[derive(Debug, Serialize)]
pub struct Source {
    pub url: String,
    pub anchor: String,
}

impl ListKind for Broken {
    type Item = Item;
    type Row = BrokenRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut items = Vec::new();
        for (id, state) in ctx.states()? {
            if let UrlState::Failed { reason, .. } = state {
                items.push(Item {
                    page: *id,
                    status: failed_status(ctx.r, *id, reason)?,
                    reason: reason.clone(),
                    parents: ctx.r.parents(*id)?,
                });
            }
        }
        most_linked_first(&mut items);
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<BrokenRow> {
        row(ctx, item)
    }
}

pub fn most_linked_first(items: &mut [Item]) {
    items.sort_by(|a, b| {
        b.parents
            .len()
            .cmp(&a.parents.len())
            .then(a.page.cmp(&b.page))
    });
}

/// A broken target with every page linking to it.
pub fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<BrokenRow> {
    let sources = sources(ctx, item.page, &item.parents)?;
    Ok(BrokenRow {
        url: ctx.url(item.page)?,
        status: item.status,
        reason: item.reason,
        sources,
    })
}

/// Each page of `parents` with the text of its link to `target`.
pub fn sources(ctx: &Ctx<'_, '_>, target: PageId, parents: &[PageId]) -> Result<Vec<Source>> {
    let mut out = Vec::with_capacity(parents.len());
    for &p in parents {
        let anchor = ctx
            .r
            .links(p)?
            .into_iter()
            .find(|l| l.child == target)
            .map(|l| l.anchor)
            .unwrap_or_default();
        out.push(Source {
            url: ctx.url(p)?,
            anchor,
        });
    }
    Ok(out)
}

/// "found on URL as "anchor"", a line each.
pub fn source_lines(sources: &[Source]) -> Vec<String> {
    sources
        .iter()
        .map(|s| format!("found on {} as {:?}", s.url, s.anchor))
        .collect()
}

/// Source URLs joined with a space, their anchors with ` | `.
pub fn source_cells(sources: &[Source]) -> [String; 2] {
    [
        sources
            .iter()
            .map(|s| s.url.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        sources
            .iter()
            .map(|s| s.anchor.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
    ]
}

impl Row for BrokenRow {
    const COLUMNS: &'static [&'static str] = &["url", "status", "reason", "sources", "anchors"];
    fn cells(&self) -> Vec<String> {
        let [sources, anchors] = source_cells(&self.sources);
        vec![
            self.url.clone(),
            opt_cell(self.status),
            self.reason.clone(),
            sources,
            anchors,
        ]
    }
    fn table_columns() -> &'static [&'static str] {
        &["url", "status", "reason", "linked from"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            opt_cell(self.status),
            self.reason.clone(),
            self.sources.len().to_string(),
        ]
    }
    fn details(&self) -> Vec<String> {
        source_lines(&self.sources)
    }
}

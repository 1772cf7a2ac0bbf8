//! `report depth`: pages by link depth from their crawl point's start URL,
//! and the deepest pages.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Ctx, Result, Row};
use crate::store::PageId;

#[derive(Debug, Serialize)]
pub struct DepthReport {
    pub by_depth: BTreeMap<u32, u64>,
    pub deepest: Vec<Deepest>,
    /// The runs the pages come from when some are older than the runs
    /// named ([`Ctx::rows_from_runs`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rows_from_runs: Vec<crate::store::RunId>,
    /// How many pages `deepest` was taken from (not in the JSON: the
    /// distribution already says).
    #[serde(skip)]
    pub total: usize,
}

#[derive(Debug, Serialize)]
pub struct Deepest {
    pub url: String,
    pub depth: u32,
}

/// One depth and its page count: a CSV row.
#[derive(Debug, Serialize)]
pub struct DepthRow {
    pub depth: u32,
    pub pages: u64,
}

pub fn depth(ctx: &Ctx<'_, '_>, limit: usize) -> Result<DepthReport> {
    let order = match super::kept_lists::depth_order(ctx)? {
        Some(order) => order,
        None => order(ctx)?,
    };
    let mut by_depth = BTreeMap::new();
    for (depth, _) in &order {
        *by_depth.entry(*depth).or_insert(0u64) += 1;
    }
    let total = order.len();
    let deepest = order
        .into_iter()
        .take(limit)
        .map(|(depth, id)| {
            Ok(Deepest {
                url: ctx.url(id)?,
                depth,
            })
        })
        .collect::<Result<_>>()?;
    Ok(DepthReport {
        by_depth,
        deepest,
        rows_from_runs: ctx.rows_from_runs(),
        total,
    })
}

/// Every page of the view as (depth, page), the deepest first (ties by
/// page id).
pub fn order(ctx: &Ctx<'_, '_>) -> Result<Vec<(u32, PageId)>> {
    let mut order: Vec<(u32, PageId)> = (ctx.pages()?.iter())
        .map(|(id, rec)| (rec.depth, *id))
        .collect();
    order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(order)
}

impl DepthReport {
    pub fn rows(&self) -> Vec<DepthRow> {
        self.by_depth
            .iter()
            .map(|(&depth, &pages)| DepthRow { depth, pages })
            .collect()
    }
}

impl Row for DepthRow {
    const COLUMNS: &'static [&'static str] = &["depth", "pages"];
    fn cells(&self) -> Vec<String> {
        vec![self.depth.to_string(), self.pages.to_string()]
    }
}

impl Row for Deepest {
    const COLUMNS: &'static [&'static str] = &["url", "depth"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.depth.to_string()]
    }
}

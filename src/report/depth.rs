//! `report depth`: pages by link depth from their crawl point's start URL
//! ([`super::link_depth`]), the deepest pages, and how many pages no link
//! reaches.

use std::collections::BTreeMap;

use serde::Serialize;

use super::kept_lists::{packed, read_named};
use super::{Ctx, Result, Row};
use crate::store::{codec, PageId};

#[derive(Debug, Serialize)]
pub struct DepthReport {
    pub by_depth: BTreeMap<u32, u64>,
    /// Pages no link reaches (only a sitemap lists them).
    pub no_link_depth: u64,
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

/// `depth`'s kept record: every page as (depth, page), deepest first,
/// kept whatever the store's size; its presence marks the kept figures
/// current.
pub(super) const DEPTH_ORDER: &str = "found:depth";

/// The record [`DEPTH_ORDER`] keeps, made afresh.
pub(super) fn kept_record(ctx: &Ctx<'_, '_>) -> Result<(&'static str, Vec<u8>)> {
    let ((), order) = packed(|w| Ok(codec::encode_to(&order(ctx)?, w)?))?;
    Ok((DEPTH_ORDER, order))
}

/// Every page as (depth, page) deepest first, as kept when current.
pub fn kept_order(ctx: &Ctx<'_, '_>) -> Result<Option<Vec<(u32, PageId)>>> {
    read_named(ctx, DEPTH_ORDER, codec::decode)
}

pub fn depth(ctx: &Ctx<'_, '_>, limit: usize) -> Result<DepthReport> {
    let order = match kept_order(ctx)? {
        Some(order) => order,
        None => order(ctx)?,
    };
    let mut by_depth = BTreeMap::new();
    let mut no_link_depth = 0;
    for &(depth, _) in &order {
        match depth {
            NO_DEPTH => no_link_depth += 1,
            d => *by_depth.entry(d).or_insert(0u64) += 1,
        }
    }
    let total = order.len() - no_link_depth as usize;
    let deepest = order
        .into_iter()
        .take(limit.min(total))
        .map(|(depth, id)| {
            Ok(Deepest {
                url: ctx.url(id)?,
                depth,
            })
        })
        .collect::<Result<_>>()?;
    Ok(DepthReport {
        by_depth,
        no_link_depth,
        deepest,
        rows_from_runs: ctx.rows_from_runs(),
        total,
    })
}

/// The depth in [`order`] of a page no link reaches.
pub const NO_DEPTH: u32 = u32::MAX;

/// Every page of the view as (link depth, page), the deepest first (ties
/// by page id), then the pages no link reaches ([`NO_DEPTH`]).
pub fn order(ctx: &Ctx<'_, '_>) -> Result<Vec<(u32, PageId)>> {
    let depths = ctx.link_depths()?;
    let mut order: Vec<(u32, PageId)> = (ctx.pages()?.iter())
        .map(|(id, _)| (depths.of(*id).unwrap_or(NO_DEPTH), *id))
        .collect();
    // NO_DEPTH + 1 wraps to 0: last when the deepest come first.
    order.sort_unstable_by(|a, b| {
        (b.0.wrapping_add(1).cmp(&a.0.wrapping_add(1))).then(a.1.cmp(&b.1))
    });
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

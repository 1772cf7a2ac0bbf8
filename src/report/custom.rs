//! `report extract` and `report search`: what the points' own rules
//! (`--extract`, `--search`) found, page by page, in page order; `--name`
//! keeps one rule. `search` lists the pages a rule asks for (those with
//! its text, or with `!` those without) and is a finding kind: a CI run
//! can fail on a page that still says "lorem ipsum". `extract` lists
//! values, a table.

use serde::Serialize;

use super::{Ctx, ListKind, ReportError, Result, Row};
use crate::custom::rule_name;
use crate::store::prelude::*;
use crate::store::PageId;

pub struct Extract;
pub struct Search;

#[derive(Debug, Serialize)]
pub struct ExtractRow {
    pub url: String,
    pub name: String,
    pub values: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct SearchRow {
    pub url: String,
    pub name: String,
    pub count: u32,
}

/// Refuses a `--name` that no point of the report has a rule of.
fn known_rule(
    ctx: &Ctx<'_, '_>,
    kind: &'static str,
    rules: fn(&crate::store::PointRecord) -> &[String],
) -> Result<()> {
    let Some(name) = &ctx.rule else {
        return Ok(());
    };
    let mut known: Vec<&str> = Vec::new();
    let points = ctx.r.points()?;
    for (_, p) in &points {
        known.extend(rules(p).iter().map(|r| rule_name(r)));
    }
    if known.contains(&name.as_str()) {
        return Ok(());
    }
    known.sort_unstable();
    known.dedup();
    Err(ReportError::NoRule {
        kind,
        name: name.clone(),
        known: if known.is_empty() {
            "none".into()
        } else {
            known.join(", ")
        },
    })
}

/// Each page of the view with a record, in page order.
fn each(ctx: &Ctx<'_, '_>, mut f: impl FnMut(PageId, crate::store::CustomFound)) -> Result<()> {
    let mut pages = Vec::new();
    ctx.r
        .for_each_page_custom(|page, found| pages.push((page, found)))?;
    for (page, found) in pages {
        if ctx.includes(page)? {
            f(page, found);
        }
    }
    Ok(())
}

impl ListKind for Extract {
    type Item = (PageId, String, Vec<String>);
    type Row = ExtractRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>> {
        known_rule(ctx, "extract", |p| &p.extract)?;
        let mut out = Vec::new();
        each(ctx, |page, found| {
            for (name, values) in found.extract {
                if !values.is_empty() && ctx.lists_rule(&name) {
                    out.push((page, name, values));
                }
            }
        })?;
        Ok(out)
    }

    fn row(ctx: &Ctx<'_, '_>, (page, name, values): Self::Item) -> Result<ExtractRow> {
        Ok(ExtractRow {
            url: ctx.url(page)?,
            name,
            values,
        })
    }
}

impl ListKind for Search {
    type Item = (PageId, String, u32);
    type Row = SearchRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>> {
        known_rule(ctx, "search", |p| &p.search)?;
        let mut out = Vec::new();
        each(ctx, |page, found| {
            for hit in found.search {
                if hit.found() && ctx.lists_rule(&hit.name) {
                    out.push((page, hit.name, hit.count));
                }
            }
        })?;
        Ok(out)
    }

    fn row(ctx: &Ctx<'_, '_>, (page, name, count): Self::Item) -> Result<SearchRow> {
        Ok(SearchRow {
            url: ctx.url(page)?,
            name,
            count,
        })
    }
}

impl Row for ExtractRow {
    const COLUMNS: &'static [&'static str] = &["url", "name", "values"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.name.clone(), self.values.join(" | ")]
    }
}

impl Row for SearchRow {
    const COLUMNS: &'static [&'static str] = &["url", "name", "count"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.name.clone(), self.count.to_string()]
    }
}

//! `report headings`: HTML pages (2xx) without an `<h1>`, then those with
//! several (the most first).

use serde::Serialize;

use super::{Ctx, ListKind, Result, Row};
use crate::store::PageId;

pub struct Headings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    MissingH1,
    MultipleH1,
}

pub struct Item {
    page: PageId,
    issue: Issue,
    h1: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct HeadingRow {
    pub url: String,
    pub issue: Issue,
    pub h1: Vec<String>,
}

impl ListKind for Headings {
    type Item = Item;
    type Row = HeadingRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut items = Vec::new();
        for (id, rec) in ctx.pages()? {
            if !ctx.is_html_ok(rec)? || rec.h1.len() == 1 {
                continue;
            }
            let issue = if rec.h1.is_empty() {
                Issue::MissingH1
            } else {
                Issue::MultipleH1
            };
            items.push(Item {
                page: *id,
                issue,
                h1: rec.h1.clone(),
            });
        }
        items.sort_by(|a, b| {
            let rank = |i: &Item| (i.issue == Issue::MultipleH1, std::cmp::Reverse(i.h1.len()));
            rank(a).cmp(&rank(b)).then(a.page.cmp(&b.page))
        });
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<HeadingRow> {
        Ok(HeadingRow {
            url: ctx.url(item.page)?,
            issue: item.issue,
            h1: item.h1,
        })
    }
}

impl Row for HeadingRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "h1"];
    fn cells(&self) -> Vec<String> {
        let issue = match self.issue {
            Issue::MissingH1 => "missing_h1",
            Issue::MultipleH1 => "multiple_h1",
        };
        vec![self.url.clone(), issue.to_string(), self.h1.join(" | ")]
    }
}

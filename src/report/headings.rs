//! `report headings`: HTML pages (2xx) without an `<h1>`, then those with
//! several (the most first), those without an `<h2>` (known only for
//! pages crawled since the `<h2>` count is kept, see `PageAudit`), then
//! pages whose first `<h1>` is another page's too (`duplicate_h1`, the
//! largest groups first).

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::kept_lists::{decode_grouped, encode_grouped, Group, Keeper, Pass};
use super::{Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::{PageId, StoreError};

pub struct Headings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    MissingH1,
    MultipleH1,
    MissingH2,
    DuplicateH1,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::MissingH1 => "missing_h1",
            Issue::MultipleH1 => "multiple_h1",
            Issue::MissingH2 => "missing_h2",
            Issue::DuplicateH1 => "duplicate_h1",
        }
    }
}

pub struct Item {
    page: PageId,
    issue: Issue,
    h1: Vec<String>,
    /// Every page sharing the first h1 (this one included), for duplicates.
    group: Option<Rc<Vec<PageId>>>,
}

#[derive(Debug, Serialize)]
pub struct HeadingRow {
    pub url: String,
    pub issue: Issue,
    pub h1: Vec<String>,
    /// The other pages with the same first h1 (`duplicate_h1` only).
    pub others: Vec<String>,
}

impl ListKind for Headings {
    type Item = Item;
    type Row = HeadingRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        Ok((found(ctx)?.into_iter())
            .map(|f| Item {
                page: f.page,
                issue: f.issue,
                h1: f.h1.to_vec(),
                group: f.group,
            })
            .collect())
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<HeadingRow> {
        let others = super::titles::others(ctx, item.group.as_ref(), item.page)?;
        Ok(HeadingRow {
            url: ctx.url(item.page)?,
            issue: item.issue,
            h1: item.h1,
            others,
        })
    }

    fn keeper() -> Option<Keeper<Item>> {
        Some(Keeper::found_by("found:headings", keep, decode).in_pass(Pass::Headings))
    }
}

/// An item as found, its h1s borrowed from the context's page.
struct Found<'c> {
    page: PageId,
    issue: Issue,
    h1: &'c [String],
    group: Option<Group>,
}

fn found<'c>(ctx: &'c Ctx<'_, '_>) -> Result<Vec<Found<'c>>> {
    // In page id order, searched: a map of a million pages is 20 MB.
    let mut h2 = Vec::new();
    ctx.r
        .for_each_page_audit(|page, audit| h2.push((page, audit.h2)))?;
    let pages = ctx.pages()?;
    // Most pages of a large site have one issue or none (a million items
    // are 32 MB; grown by doubling they would hold twice that).
    let mut items = Vec::with_capacity(pages.len());
    let mut firsts = Vec::new();
    for (id, rec) in pages {
        if !ctx.is_html_ok(rec)? {
            continue;
        }
        let item = |issue| Found {
            page: *id,
            issue,
            h1: &rec.h1,
            group: None,
        };
        match rec.h1.len() {
            0 => items.push(item(Issue::MissingH1)),
            1 => {}
            _ => items.push(item(Issue::MultipleH1)),
        }
        if h2
            .binary_search_by_key(id, |&(page, _)| page)
            .is_ok_and(|i| h2[i].1 == 0)
        {
            items.push(item(Issue::MissingH2));
        }
        if let Some(first) = rec.h1.first() {
            firsts.push(super::shared::keyed(*id, first));
        }
    }
    items.sort_by(|a, b| {
        let rank = |i: &Found| (i.issue, std::cmp::Reverse(i.h1.len()));
        rank(a).cmp(&rank(b)).then(a.page.cmp(&b.page))
    });
    let dups = super::shared::groups(firsts);
    // The pages come in id order: searched, not mapped.
    let h1_of = |page: PageId| match pages.binary_search_by_key(&page, |(id, _)| *id) {
        Ok(i) => &pages[i].1.h1[..],
        Err(_) => &[],
    };
    for (_, group) in dups {
        for &page in group.iter() {
            items.push(Found {
                page,
                issue: Issue::DuplicateH1,
                h1: h1_of(page),
                group: Some(Rc::clone(&group)),
            });
        }
    }
    Ok(items)
}

/// Heading issues found and written as kept: each group once, an item as
/// (page, issue, h1s), the h1s borrowed from the context's pages.
fn keep(ctx: &Ctx<'_, '_>, w: &mut dyn std::io::Write) -> Result<usize> {
    let found = found(ctx)?;
    encode_grouped(&found, |f| ((f.page, f.issue, f.h1), f.group.as_ref()), w)?;
    Ok(found.len())
}

fn decode(bytes: &[u8]) -> Result<Vec<Item>, StoreError> {
    decode_grouped(bytes, |(page, issue, h1), group| Item {
        page,
        issue,
        h1,
        group,
    })
}

impl Row for HeadingRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "h1", "others"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.as_str().to_string(),
            self.h1.join(" | "),
            self.others.join(" "),
        ]
    }
    fn table_columns() -> &'static [&'static str] {
        &["url", "issue", "h1"]
    }
    fn table_cells(&self) -> Vec<String> {
        let mut cells = self.cells();
        cells.pop();
        cells
    }
    fn details(&self) -> Vec<String> {
        self.others.iter().map(|u| format!("also on {u}")).collect()
    }
}

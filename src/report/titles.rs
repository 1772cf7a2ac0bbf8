//! `report titles`: HTML pages (2xx) whose title is missing, shared with
//! other pages, or longer than 60 characters. The check itself is shared
//! with `report descriptions` ([`text_issues`]).

use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{Ctx, ListKind, Result, Row};
use crate::store::{PageId, PageRecord};

/// Titles longer than this many characters are cut in search results.
pub const TITLE_MAX: usize = 60;

pub struct Titles;

/// What is wrong with a page's title or description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    Missing,
    Duplicate,
    TooLong,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::Missing => "missing",
            Issue::Duplicate => "duplicate",
            Issue::TooLong => "too_long",
        }
    }
}

pub struct Item {
    page: PageId,
    issue: Issue,
    value: Option<String>,
    /// Every page sharing the value (this one included), for duplicates.
    group: Option<Rc<Vec<PageId>>>,
}

#[derive(Debug, Serialize)]
pub struct TextRow {
    pub url: String,
    pub issue: Issue,
    pub value: Option<String>,
    /// The other pages with the same value (duplicates only).
    pub others: Vec<String>,
}

impl ListKind for Titles {
    type Item = Item;
    type Row = TextRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        text_issues(ctx, |rec| rec.title.as_deref(), TITLE_MAX)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<TextRow> {
        text_row(ctx, item)
    }
}

/// Missing (absent or blank), duplicate and too-long values of one text
/// field of HTML 2xx pages: missing first, then duplicates (the largest
/// groups first), then too long (the longest first). A page can have two
/// issues.
pub fn text_issues(
    ctx: &Ctx<'_, '_>,
    field: impl Fn(&PageRecord) -> Option<&str>,
    max_chars: usize,
) -> Result<Vec<Item>> {
    let mut missing = Vec::new();
    let mut groups: FxHashMap<&str, Vec<PageId>> = FxHashMap::default();
    let mut long = Vec::new();
    for (id, rec) in ctx.pages()? {
        if !ctx.is_html_ok(rec)? {
            continue;
        }
        match field(rec).filter(|v| !v.trim().is_empty()) {
            None => missing.push(Item {
                page: *id,
                issue: Issue::Missing,
                value: None,
                group: None,
            }),
            Some(v) => {
                groups.entry(v).or_default().push(*id);
                let chars = v.chars().count();
                if chars > max_chars {
                    long.push((chars, *id, v));
                }
            }
        }
    }
    let mut dups: Vec<(&str, Rc<Vec<PageId>>)> = groups
        .into_iter()
        .filter(|(_, pages)| pages.len() > 1)
        .map(|(v, pages)| (v, Rc::new(pages)))
        .collect();
    dups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1[0].cmp(&b.1[0])));
    long.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut items = missing;
    for (v, group) in dups {
        for &page in group.iter() {
            items.push(Item {
                page,
                issue: Issue::Duplicate,
                value: Some(v.to_string()),
                group: Some(Rc::clone(&group)),
            });
        }
    }
    items.extend(long.into_iter().map(|(_, page, v)| Item {
        page,
        issue: Issue::TooLong,
        value: Some(v.to_string()),
        group: None,
    }));
    Ok(items)
}

pub fn text_row(ctx: &Ctx<'_, '_>, item: Item) -> Result<TextRow> {
    let others = match &item.group {
        Some(group) => {
            let rest: Vec<PageId> = group.iter().copied().filter(|&p| p != item.page).collect();
            ctx.urls(&rest)?
        }
        None => Vec::new(),
    };
    Ok(TextRow {
        url: ctx.url(item.page)?,
        issue: item.issue,
        value: item.value,
        others,
    })
}

impl Row for TextRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "value", "others"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.as_str().to_string(),
            self.value.clone().unwrap_or_default(),
            self.others.join(" "),
        ]
    }
    fn table_columns() -> &'static [&'static str] {
        &["url", "issue", "value"]
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

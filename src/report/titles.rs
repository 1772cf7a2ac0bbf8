//! `report titles`: HTML pages (2xx) whose title is missing, shared with
//! other pages, longer than 60 characters, shorter than 30, wider than
//! 561 px at 20 px (see [`pixels`](super::pixels)), or the same as the
//! page's first `<h1>`. The check itself is shared with `report
//! descriptions` ([`text_issues`]), which gives it other [`Limits`].

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::kept_lists::{decode_grouped, encode_grouped, Group, Keeper, Pass};
use super::pixels::{width_px, TITLE_FONT_PX};
use super::PageFacts;
use super::{Ctx, ListKind, Result, Row};
use crate::store::PageId;
use crate::store::StoreError;

/// Titles longer than this many characters are cut in search results.
pub const TITLE_MAX: usize = 60;
/// Titles shorter than this say too little (Screaming Frog's default).
pub const TITLE_MIN: usize = 30;
/// Titles wider than this, at [`TITLE_FONT_PX`], are cut in results.
pub const TITLE_MAX_PX: u32 = 561;

pub struct Titles;

/// What a text field is held to.
pub struct Limits {
    pub min_chars: usize,
    pub max_chars: usize,
    pub font_px: u32,
    pub max_px: u32,
    /// Whether a value equal to the page's first `<h1>` is an issue.
    pub same_as_h1: bool,
}

const TITLE_LIMITS: Limits = Limits {
    min_chars: TITLE_MIN,
    max_chars: TITLE_MAX,
    font_px: TITLE_FONT_PX,
    max_px: TITLE_MAX_PX,
    same_as_h1: true,
};

/// What is wrong with a page's title or description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    Missing,
    Duplicate,
    TooLong,
    TooShort,
    TooWide,
    SameAsH1,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::Missing => "missing",
            Issue::Duplicate => "duplicate",
            Issue::TooLong => "too_long",
            Issue::TooShort => "too_short",
            Issue::TooWide => "too_wide",
            Issue::SameAsH1 => "same_as_h1",
        }
    }
}

pub struct Item {
    page: PageId,
    issue: Issue,
    value: Option<String>,
    /// Every page sharing the value (this one included), for duplicates.
    group: Option<Rc<Vec<PageId>>>,
    font_px: u32,
}

#[derive(Debug, Serialize)]
pub struct TextRow {
    pub url: String,
    pub issue: Issue,
    pub value: Option<String>,
    /// The other pages with the same value (duplicates only).
    pub others: Vec<String>,
    /// The value's length in characters and its width in pixels (null
    /// when it is missing).
    pub chars: Option<usize>,
    pub px: Option<u32>,
}

impl ListKind for Titles {
    type Item = Item;
    type Row = TextRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        text_issues(ctx, |rec| rec.title.as_deref(), &TITLE_LIMITS)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<TextRow> {
        text_row(ctx, item)
    }

    fn keeper() -> Option<Keeper<Item>> {
        Some(
            Keeper::found_by(
                "found:titles",
                |ctx, w| keep_text(ctx, |rec| rec.title.as_deref(), &TITLE_LIMITS, w),
                decode,
            )
            .in_pass(Pass::Titles),
        )
    }
}

/// Text issues found and written as kept (titles', descriptions'): each
/// group once, an item as (page, issue, value, font size), the values
/// borrowed from the context's pages. Returns how many items.
pub fn keep_text(
    ctx: &Ctx<'_, '_>,
    field: impl Fn(&PageFacts) -> Option<&str>,
    limits: &Limits,
    w: &mut dyn std::io::Write,
) -> Result<usize> {
    let found = text_found(ctx, field, limits)?;
    encode_grouped(
        &found,
        |f| ((f.page, f.issue, f.value, limits.font_px), f.group.as_ref()),
        w,
    )?;
    Ok(found.len())
}

pub fn decode(bytes: &[u8]) -> Result<Vec<Item>, StoreError> {
    decode_grouped(bytes, |(page, issue, value, font_px), group| Item {
        page,
        issue,
        value,
        group,
        font_px,
    })
}

/// Issues of one text field of HTML 2xx pages: missing (absent or blank)
/// first, then duplicates (the largest groups first), too long (the
/// longest first), too short (the shortest first), too wide (the widest
/// first), the same as the h1 (by page). A page can have several issues.
pub fn text_issues(
    ctx: &Ctx<'_, '_>,
    field: impl Fn(&PageFacts) -> Option<&str>,
    limits: &Limits,
) -> Result<Vec<Item>> {
    let found = text_found(ctx, field, limits)?;
    Ok((found.into_iter())
        .map(|f| Item {
            page: f.page,
            issue: f.issue,
            value: f.value.map(str::to_string),
            group: f.group,
            font_px: limits.font_px,
        })
        .collect())
}

/// An item as found, its value borrowed from the context's page.
struct Found<'c> {
    page: PageId,
    issue: Issue,
    value: Option<&'c str>,
    group: Option<Group>,
}

/// [`text_issues`]' items, their values borrowed.
fn text_found<'c>(
    ctx: &'c Ctx<'_, '_>,
    field: impl Fn(&'c PageFacts) -> Option<&'c str>,
    limits: &Limits,
) -> Result<Vec<Found<'c>>> {
    let mut missing = Vec::new();
    let mut valued = Vec::new();
    // (sort key, smallest first; page; value) for each measured issue.
    let mut long = Vec::new();
    let mut short = Vec::new();
    let mut wide = Vec::new();
    let mut same = Vec::new();
    for (id, rec) in ctx.pages()? {
        if !ctx.is_html_ok(rec)? {
            continue;
        }
        let Some(v) = field(rec).filter(|v| !v.trim().is_empty()) else {
            missing.push(*id);
            continue;
        };
        valued.push(super::shared::keyed(*id, v));
        let chars = v.chars().count() as i64;
        if chars > limits.max_chars as i64 {
            long.push((-chars, *id, v));
        }
        if chars < limits.min_chars as i64 {
            short.push((chars, *id, v));
        }
        let px = i64::from(width_px(v, limits.font_px));
        if px > i64::from(limits.max_px) {
            wide.push((-px, *id, v));
        }
        if limits.same_as_h1 && rec.h1.first().is_some_and(|h| h.trim() == v.trim()) {
            same.push((0, *id, v));
        }
    }
    let dups = super::shared::groups(valued);
    let item = |issue, page, value, group| Found {
        page,
        issue,
        value,
        group,
    };
    // Sized once: a million items are tens of MB, and a vector growing
    // by doubling holds three times that while it copies.
    let n = missing.len()
        + dups.iter().map(|(_, g)| g.len()).sum::<usize>()
        + [&long, &short, &wide, &same]
            .map(Vec::len)
            .iter()
            .sum::<usize>();
    let mut items: Vec<Found> = Vec::with_capacity(n);
    items.extend((missing.into_iter()).map(|page| item(Issue::Missing, page, None, None)));
    for (v, group) in dups {
        for &page in group.iter() {
            items.push(item(
                Issue::Duplicate,
                page,
                Some(v),
                Some(Rc::clone(&group)),
            ));
        }
    }
    for (issue, mut found) in [
        (Issue::TooLong, long),
        (Issue::TooShort, short),
        (Issue::TooWide, wide),
        (Issue::SameAsH1, same),
    ] {
        found.sort_unstable();
        let found = found.into_iter();
        items.extend(found.map(|(_, page, v)| item(issue, page, Some(v), None)));
    }
    Ok(items)
}

/// The URLs of a group's pages other than `page` (none without a group).
pub fn others(
    ctx: &Ctx<'_, '_>,
    group: Option<&Rc<Vec<PageId>>>,
    page: PageId,
) -> Result<Vec<String>> {
    let rest: Vec<PageId> = group
        .map(|g| g.iter().copied().filter(|&p| p != page).collect())
        .unwrap_or_default();
    ctx.urls(&rest)
}

pub fn text_row(ctx: &Ctx<'_, '_>, item: Item) -> Result<TextRow> {
    let others = others(ctx, item.group.as_ref(), item.page)?;
    Ok(TextRow {
        url: ctx.url(item.page)?,
        issue: item.issue,
        chars: item.value.as_deref().map(|v| v.chars().count()),
        px: item.value.as_deref().map(|v| width_px(v, item.font_px)),
        value: item.value,
        others,
    })
}

impl Row for TextRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "value", "others", "chars", "px"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.as_str().to_string(),
            self.value.clone().unwrap_or_default(),
            self.others.join(" "),
            super::opt_cell(self.chars),
            super::opt_cell(self.px),
        ]
    }
    fn table_columns() -> &'static [&'static str] {
        &["url", "issue", "value", "chars", "px"]
    }
    fn table_cells(&self) -> Vec<String> {
        let mut cells = self.cells();
        cells.remove(3);
        cells
    }
    fn details(&self) -> Vec<String> {
        self.others.iter().map(|u| format!("also on {u}")).collect()
    }
}

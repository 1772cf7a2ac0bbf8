//! `report images`: images (`<img>`, a `<picture>`'s `<source>`s, by
//! size only) of the reported pages
//! without alt text (`missing_alt`, per page: the attribute is absent; an
//! empty `alt=""` marks a decorative image and is fine), with alt text
//! over [`LONG_ALT_CHARS`] characters (`long_alt`, per page), and images
//! over [`LARGE_BYTES`] by their checked size (`large`, once, with the
//! first page using it).

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::kept_lists::{Keeper, Pass};
use super::resources::uses;
use super::{opt_cell, Ctx, ListKind, Result, Row};
use crate::html::resources::Element;
use crate::store::PageId;

/// Alt text longer than this many characters is a finding, as the audit
/// tools people know count it.
pub const LONG_ALT_CHARS: usize = 100;

/// An image over this many bytes (100 KB) is a finding.
pub const LARGE_BYTES: u64 = 100 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Issue {
    MissingAlt,
    LongAlt,
    Large,
}

impl Issue {
    pub fn as_str(self) -> &'static str {
        match self {
            Issue::MissingAlt => "missing_alt",
            Issue::LongAlt => "long_alt",
            Issue::Large => "large",
        }
    }
}

#[derive(Serialize, Deserialize)]
pub struct Item {
    pub image: PageId,
    pub issue: Issue,
    pub page: PageId,
    pub alt: Option<String>,
    pub size: Option<u64>,
}

pub struct Images;

#[derive(Debug, Serialize)]
pub struct ImageRow {
    pub url: String,
    pub issue: &'static str,
    pub page: String,
    pub alt: Option<String>,
    pub size: Option<u64>,
}

impl ListKind for Images {
    type Item = Item;
    type Row = ImageRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let uses = uses(ctx)?;
        let size = |image: PageId| uses.checks.get(&image).and_then(|c| c.size);
        let mut items = Vec::new();
        let mut large = FxHashSet::default();
        for (page, l) in &uses.links {
            if !matches!(l.element, Element::Img | Element::Source) {
                continue;
            }
            // A `<picture>`'s `<source>` has no alt of its own: its `<img>`'s counts.
            let alt_issue = match &l.alt {
                _ if l.element == Element::Source => None,
                None => Some(Issue::MissingAlt),
                Some(a) if a.chars().count() > LONG_ALT_CHARS => Some(Issue::LongAlt),
                Some(_) => None,
            };
            let mut push = |issue| {
                items.push(Item {
                    image: l.target,
                    issue,
                    page: *page,
                    alt: l.alt.clone(),
                    size: size(l.target),
                })
            };
            if let Some(issue) = alt_issue {
                push(issue);
            }
            if size(l.target).is_some_and(|s| s > LARGE_BYTES) && large.insert(l.target) {
                push(Issue::Large);
            }
        }
        items.sort_by_key(|a| (a.issue, a.page, a.image));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<ImageRow> {
        Ok(ImageRow {
            url: ctx.url(item.image)?,
            issue: item.issue.as_str(),
            page: ctx.url(item.page)?,
            alt: item.alt,
            size: item.size,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:images").in_pass(Pass::Resources))
    }
}

impl Row for ImageRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "page", "alt", "size"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.to_string(),
            self.page.clone(),
            self.alt.clone().unwrap_or_default(),
            opt_cell(self.size),
        ]
    }
    // Not led by "url": the Findings pane then opens the page using the
    // image (the details), not the image.
    fn table_columns() -> &'static [&'static str] {
        &["image", "issue", "size"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.to_string(),
            opt_cell(self.size),
        ]
    }
    fn details(&self) -> Vec<String> {
        vec![self.page.clone()]
    }
}

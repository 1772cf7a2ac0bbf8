//! `report duplicates`: groups of 2xx pages with identical bodies (the
//! same content hash), the largest groups first.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::kept_lists::Keeper;
use super::{is_ok, Ctx, ListKind, Result, Row};
use crate::store::PageId;

pub struct Duplicates;

#[derive(Serialize, Deserialize)]
pub struct Item {
    hash: u64,
    pages: Vec<PageId>,
}

#[derive(Debug, Serialize)]
pub struct DuplicateRow {
    /// The body's xxh3 as 16 hex digits (a JSON number would lose bits).
    pub content_hash: String,
    pub urls: Vec<String>,
}

impl ListKind for Duplicates {
    type Item = Item;
    type Row = DuplicateRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut groups: FxHashMap<u64, Vec<PageId>> = FxHashMap::default();
        for (id, rec) in ctx.pages()? {
            if is_ok(rec.status) {
                groups.entry(rec.content_hash).or_default().push(*id);
            }
        }
        let mut items: Vec<Item> = groups
            .into_iter()
            .filter(|(_, pages)| pages.len() > 1)
            .map(|(hash, pages)| Item { hash, pages })
            .collect();
        items.sort_by(|a, b| {
            b.pages
                .len()
                .cmp(&a.pages.len())
                .then(a.pages[0].cmp(&b.pages[0]))
        });
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<DuplicateRow> {
        Ok(DuplicateRow {
            content_hash: format!("{:016x}", item.hash),
            urls: ctx.urls(&item.pages)?,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:duplicates"))
    }
}

impl Row for DuplicateRow {
    const COLUMNS: &'static [&'static str] = &["content_hash", "urls"];
    fn cells(&self) -> Vec<String> {
        vec![self.content_hash.clone(), self.urls.join(" ")]
    }
    fn table_columns() -> &'static [&'static str] {
        &["content_hash", "pages"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![self.content_hash.clone(), self.urls.len().to_string()]
    }
    fn details(&self) -> Vec<String> {
        self.urls.clone()
    }
}

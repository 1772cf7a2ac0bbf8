//! `report large`: pages by size (Content-Length, else the body's
//! length), largest first.

use serde::Serialize;

use super::kept_lists::Keeper;
use super::{top_pages, Ctx, ListKind, Result, Row};
use crate::store::PageId;

pub struct Large;

#[derive(Debug, Serialize)]
pub struct LargeRow {
    pub url: String,
    pub size: u64,
}

impl ListKind for Large {
    type Item = (PageId, u64);
    type Row = LargeRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<(PageId, u64)>> {
        top_pages(ctx, |rec| rec.size)
    }

    fn row(ctx: &Ctx<'_, '_>, (page, size): (PageId, u64)) -> Result<LargeRow> {
        Ok(LargeRow {
            url: ctx.url(page)?,
            size,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:large"))
    }
}

impl Row for LargeRow {
    const COLUMNS: &'static [&'static str] = &["url", "size"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.size.to_string()]
    }
}

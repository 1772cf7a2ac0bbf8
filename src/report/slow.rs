//! `report slow`: pages by response time (request sent to whole body
//! received), slowest first.

use serde::Serialize;

use super::kept_lists::Keeper;
use super::{top_pages, Ctx, ListKind, Result, Row};
use crate::store::PageId;

pub struct Slow;

#[derive(Debug, Serialize)]
pub struct SlowRow {
    pub url: String,
    pub response_ms: u64,
}

impl ListKind for Slow {
    type Item = (PageId, u64);
    type Row = SlowRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<(PageId, u64)>> {
        top_pages(ctx, |rec| u64::from(rec.response_ms))
    }

    fn row(ctx: &Ctx<'_, '_>, (page, ms): (PageId, u64)) -> Result<SlowRow> {
        Ok(SlowRow {
            url: ctx.url(page)?,
            response_ms: ms,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:slow"))
    }
}

impl Row for SlowRow {
    const COLUMNS: &'static [&'static str] = &["url", "response_ms"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.response_ms.to_string()]
    }
}

//! `report descriptions`: HTML pages (2xx) whose meta description is
//! missing, shared with other pages, or longer than 160 characters (the
//! check is the titles' one, on another field).

use super::titles::{text_issues, text_row, Item, TextRow};
use super::{Ctx, ListKind, Result};

/// Descriptions longer than this many characters are cut in search results.
pub const DESCRIPTION_MAX: usize = 160;

pub struct Descriptions;

impl ListKind for Descriptions {
    type Item = Item;
    type Row = TextRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        text_issues(ctx, |rec| rec.description.as_deref(), DESCRIPTION_MAX)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<TextRow> {
        text_row(ctx, item)
    }
}

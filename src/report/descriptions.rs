//! `report descriptions`: HTML pages (2xx) whose meta description is
//! missing, shared with other pages, longer than 160 characters, shorter
//! than 70, or wider than 985 px at 14 px (the titles' check, on another
//! field with other [`Limits`]).

use super::kept_lists::{Keeper, Pass};
use super::pixels::DESCRIPTION_FONT_PX;
use super::titles::{decode, keep_text, text_issues, text_row, Item, Limits, TextRow};
use super::{Ctx, ListKind, Result};

/// Descriptions longer than this many characters are cut in search results.
pub const DESCRIPTION_MAX: usize = 160;
/// Descriptions shorter than this say too little (Screaming Frog's default).
pub const DESCRIPTION_MIN: usize = 70;
/// Descriptions wider than this, at [`DESCRIPTION_FONT_PX`], are cut.
pub const DESCRIPTION_MAX_PX: u32 = 985;

const DESCRIPTION_LIMITS: Limits = Limits {
    min_chars: DESCRIPTION_MIN,
    max_chars: DESCRIPTION_MAX,
    font_px: DESCRIPTION_FONT_PX,
    max_px: DESCRIPTION_MAX_PX,
    same_as_h1: false,
};

pub struct Descriptions;

impl ListKind for Descriptions {
    type Item = Item;
    type Row = TextRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        text_issues(ctx, |rec| rec.description.as_deref(), &DESCRIPTION_LIMITS)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<TextRow> {
        text_row(ctx, item)
    }

    fn keeper() -> Option<Keeper<Item>> {
        Some(
            Keeper::found_by(
                "found:descriptions",
                |ctx, w| {
                    keep_text(
                        ctx,
                        |rec| rec.description.as_deref(),
                        &DESCRIPTION_LIMITS,
                        w,
                    )
                },
                decode,
            )
            .in_pass(Pass::Descriptions),
        )
    }
}

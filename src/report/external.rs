//! `report external`: out-of-scope link targets that were checked and
//! found broken, with the pages linking to them. Nothing checks external
//! links yet (`--check-external` is still to come), so the list is empty
//! and the faces say why ([`NOT_CHECKED`]).

use super::broken::BrokenRow;
use super::{Ctx, ListKind, Result};

/// Why the list is empty, for the faces to say.
pub const NOT_CHECKED: &str =
    "no external link has been checked: this crawlscope does not check out-of-scope links yet";

pub struct External;

impl ListKind for External {
    type Item = std::convert::Infallible;
    type Row = BrokenRow;

    fn find(_ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>> {
        Ok(Vec::new())
    }

    fn row(_ctx: &Ctx<'_, '_>, item: Self::Item) -> Result<BrokenRow> {
        match item {}
    }
}

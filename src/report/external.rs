//! `report external`: out-of-scope link targets that `--check-external`
//! checked and found broken (no answer, or 4xx/5xx less `--accept`), with every page
//! linking to them, straight or through redirects (an in-scope URL that
//! redirects out), the most linked first. With a point: the links its
//! runs checked.

use super::accepted::Accepted;
use super::broken::{chains_to, most_linked_first, redirects_into, row, BrokenRow, Item};
use super::kept_lists::Keeper;
use super::{Ctx, ListKind, Result};
use crate::store::prelude::*;

/// What the faces say when no link was ever checked, so an empty list is
/// not read as "all external links work".
pub const NOT_CHECKED: &str =
    "no external link has been checked: crawl with --check-external to check them";

/// What they say when the crawl checks external links but found none to
/// check, so that is not read as "not checked".
pub const NONE_FOUND: &str =
    "no external link found: the crawl checks them (--check-external) and none was linked";

pub struct External;

/// Whether any external link was checked (for the point, with one).
pub fn any_checked(ctx: &Ctx<'_, '_>) -> Result<bool> {
    Ok(ctx
        .r
        .external_checks()?
        .iter()
        .any(|(_, c)| ctx.covers_point(c.point)))
}

/// Why nothing was checked: the note to give when [`any_checked`] says no
/// link was. A crawl point of the report that checks external links and
/// has crawled found none; otherwise none was asked to.
pub fn nothing_checked(ctx: &Ctx<'_, '_>) -> Result<&'static str> {
    let checks = ctx
        .r
        .points()?
        .into_iter()
        .any(|(id, p)| ctx.covers_point(id) && !p.deleted && p.check_external && p.gen > 0);
    Ok(if checks { NONE_FOUND } else { NOT_CHECKED })
}

impl ListKind for External {
    type Item = Item;
    type Row = BrokenRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let accepted = Accepted::read(ctx.r)?;
        let into = redirects_into(ctx)?;
        let mut items = Vec::new();
        for (page, check) in ctx.r.external_checks()? {
            if !ctx.covers_point(check.point) {
                continue;
            }
            // Not asked (robots.txt said no): neither working nor broken.
            let asked = check.not_checked.is_none();
            if asked && accepted.is_broken(check.point, check.gen, check.status) {
                let reason = match (check.reason, check.status) {
                    (Some(reason), _) => reason,
                    (None, Some(s)) => crate::crawl::reason::phrase(s, None),
                    (None, None) => String::new(),
                };
                items.push(Item {
                    page,
                    status: check.status,
                    reason,
                    parents: ctx.r.parents(page)?,
                    chains: chains_to(ctx, &into, page)?,
                    element: None,
                });
            }
        }
        most_linked_first(&mut items);
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<BrokenRow> {
        row(ctx, item)
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:external"))
    }
}

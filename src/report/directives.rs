//! `report directives`: pages that ask not to be indexed or followed
//! (`<meta name=robots>` or `X-Robots-Tag`), noindex first.

use serde::{Deserialize, Serialize};

use super::kept_lists::Keeper;
use super::{Ctx, ListKind, Result, Row};
use crate::store::{DirectiveSource, PageId};

pub struct Directives;

#[derive(Serialize, Deserialize)]
pub struct Item {
    page: PageId,
    noindex: Option<DirectiveSource>,
    nofollow: Option<DirectiveSource>,
}

#[derive(Debug, Serialize)]
pub struct DirectiveRow {
    pub url: String,
    pub noindex: bool,
    pub nofollow: bool,
    /// Where the directive was found: `meta` or `header` (noindex's when
    /// both are given in different places).
    pub source: &'static str,
}

impl ListKind for Directives {
    type Item = Item;
    type Row = DirectiveRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut items: Vec<Item> = ctx
            .pages()?
            .iter()
            .filter(|(_, rec)| rec.noindex.is_some() || rec.nofollow.is_some())
            .map(|(id, rec)| Item {
                page: *id,
                noindex: rec.noindex,
                nofollow: rec.nofollow,
            })
            .collect();
        items.sort_by(|a, b| {
            b.noindex
                .is_some()
                .cmp(&a.noindex.is_some())
                .then(a.page.cmp(&b.page))
        });
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<DirectiveRow> {
        let source = item
            .noindex
            .or(item.nofollow)
            .map_or("", DirectiveSource::as_str);
        Ok(DirectiveRow {
            url: ctx.url(item.page)?,
            noindex: item.noindex.is_some(),
            nofollow: item.nofollow.is_some(),
            source,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:directives"))
    }
}

impl Row for DirectiveRow {
    const COLUMNS: &'static [&'static str] = &["url", "noindex", "nofollow", "source"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.noindex.to_string(),
            self.nofollow.to_string(),
            self.source.to_string(),
        ]
    }
}

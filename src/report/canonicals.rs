//! `report canonicals`: pages whose canonical URL is another page
//! (`non_self`), worst first those whose canonical answered other than 200
//! or nothing (`to_error`): fetched as a page, or else requested like a
//! resource (see [`crate::html::audit_facts::target_resources`]).

use serde::{Deserialize, Serialize};

use super::audit_pages::Target;
use super::indexability::canonical_is_other;
use super::kept_lists::Keeper;
use super::{Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::PageId;
use crate::url::Url;

pub struct Canonicals;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    ToError,
    NonSelf,
}

#[derive(Serialize, Deserialize)]
pub struct Item {
    page: PageId,
    canonical: String,
    issue: Issue,
}

#[derive(Debug, Serialize)]
pub struct CanonicalRow {
    pub url: String,
    pub canonical: String,
    pub issue: Issue,
}

impl ListKind for Canonicals {
    type Item = Item;
    type Row = CanonicalRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut items = Vec::new();
        for (id, rec) in ctx.pages()? {
            let Some(canonical) = &rec.canonical else {
                continue;
            };
            if !canonical_is_other(canonical, &ctx.url_once(*id)?) {
                continue;
            }
            let issue = match Url::parse(canonical).ok() {
                Some(t) if is_error(ctx, &t)? => Issue::ToError,
                _ => Issue::NonSelf,
            };
            items.push(Item {
                page: *id,
                canonical: canonical.to_string(),
                issue,
            });
        }
        items.sort_by(|a, b| a.issue.cmp(&b.issue).then(a.page.cmp(&b.page)));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<CanonicalRow> {
        Ok(CanonicalRow {
            url: ctx.url(item.page)?,
            canonical: item.canonical,
            issue: item.issue,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:canonicals"))
    }
}

/// Whether the canonical URL answered other than 200 (or nothing), as a
/// page or as the check the crawl makes of a canonical target it does not
/// fetch as a page.
fn is_error(ctx: &Ctx<'_, '_>, target: &Url) -> Result<bool> {
    let Some(page) = ctx.r.page_id(target)? else {
        return Ok(false);
    };
    Ok(super::audit_pages::target(ctx, page)? == Target::Not200)
}

impl Row for CanonicalRow {
    const COLUMNS: &'static [&'static str] = &["url", "canonical", "issue"];
    fn cells(&self) -> Vec<String> {
        let issue = match self.issue {
            Issue::ToError => "to_error",
            Issue::NonSelf => "non_self",
        };
        vec![self.url.clone(), self.canonical.clone(), issue.to_string()]
    }
}

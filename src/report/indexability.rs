//! Indexability: whether a search engine may index a page, else the one
//! reason it may not, computed by [`classify`] from what the store has
//! (the URL's fact, its page record), for `page`, the CSV export and
//! `report indexability` (every non-indexable page of the report's
//! scope). Only pages count: HTML documents fetched, and URLs that would
//! have been pages had they been fetched or answered (failed, redirected,
//! blocked by robots.txt); an image, a PDF or a URL skipped for the scope
//! has no indexability.
//!
//! When several reasons hold, the first of this order wins:
//! `blocked_by_robots` (never fetched), `redirected`, `non_200` (a failure
//! or a status other than 2xx), `noindex`, `canonicalised` (a directive
//! is read only on a page that answered).

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::kept_lists::Keeper;
use super::{is_ok, Ctx, ListKind, Result, Row};
use crate::store::{MimeRecord, PageId, PageRecord, SkipReason, UrlState};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Indexability {
    Indexable,
    BlockedByRobots,
    Redirected,
    /// snake_case would write `non200`.
    #[serde(rename = "non_200")]
    Non200,
    Noindex,
    Canonicalised,
}

impl Indexability {
    pub fn as_str(self) -> &'static str {
        match self {
            Indexability::Indexable => "indexable",
            Indexability::BlockedByRobots => "blocked_by_robots",
            Indexability::Redirected => "redirected",
            Indexability::Non200 => "non_200",
            Indexability::Noindex => "noindex",
            Indexability::Canonicalised => "canonicalised",
        }
    }
}

/// Whether a mimetype is an HTML document's.
pub fn is_html(mime: Option<&MimeRecord>) -> bool {
    mime.is_some_and(|m| m.essence == "text/html" || m.essence == "application/xhtml+xml")
}

/// Whether a canonical URL names another URL than the page's own.
pub fn canonical_is_other(canonical: &str, own: &str) -> bool {
    canonical != own && crate::url::Url::parse(canonical).map_or(true, |t| t.as_str() != own)
}

/// What one URL is, for [`classify`]: its fact, its page record, and the
/// look-ups only some URLs need (its type, its own URL).
pub struct Facts<'a, H, U> {
    pub state: &'a UrlState,
    pub page: Option<&'a PageRecord>,
    /// Whether the page record's mimetype is HTML.
    pub is_html: H,
    pub own_url: U,
}

/// The URL's indexability; None when it is not a page (see the module's
/// doc).
pub fn classify<H, U, E>(facts: Facts<'_, H, U>) -> std::result::Result<Option<Indexability>, E>
where
    H: FnOnce(&PageRecord) -> std::result::Result<bool, E>,
    U: FnOnce() -> std::result::Result<String, E>,
{
    Ok(Some(match facts.state {
        UrlState::Skipped {
            reason: SkipReason::Robots,
            ..
        } => Indexability::BlockedByRobots,
        UrlState::Redirected { .. } => Indexability::Redirected,
        UrlState::Failed { .. } => Indexability::Non200,
        UrlState::Done { .. } => {
            let Some(page) = facts.page else {
                return Ok(None);
            };
            if !(facts.is_html)(page)? {
                return Ok(None);
            }
            if !is_ok(page.status) {
                Indexability::Non200
            } else if page.noindex.is_some() {
                Indexability::Noindex
            } else if let Some(canonical) = &page.canonical {
                match canonical_is_other(canonical, &(facts.own_url)()?) {
                    true => Indexability::Canonicalised,
                    false => Indexability::Indexable,
                }
            } else {
                Indexability::Indexable
            }
        }
        _ => return Ok(None),
    }))
}

/// The indexability of every page of the report's scope.
pub fn of_scope(ctx: &Ctx<'_, '_>) -> Result<Vec<(PageId, Indexability)>> {
    let records: FxHashMap<PageId, &PageRecord> =
        ctx.pages()?.iter().map(|(id, rec)| (*id, rec)).collect();
    let mut out = Vec::new();
    for (id, state) in ctx.states()? {
        let facts = Facts {
            state,
            page: records.get(id).copied(),
            is_html: |rec: &PageRecord| Ok(is_html(ctx.mime(rec.mime)?.as_ref())),
            own_url: || ctx.url(*id),
        };
        if let Some(i) = classify(facts)? {
            out.push((*id, i));
        }
    }
    Ok(out)
}

/// `report indexability`: every non-indexable page, by reason (in the
/// order above), then page id.
pub struct NonIndexable;

#[derive(Debug, Serialize)]
pub struct IndexabilityRow {
    pub url: String,
    pub indexability: Indexability,
}

impl ListKind for NonIndexable {
    type Item = (PageId, Indexability);
    type Row = IndexabilityRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>> {
        let mut items = of_scope(ctx)?;
        items.retain(|(_, i)| *i != Indexability::Indexable);
        items.sort_unstable_by_key(|&(page, i)| (i, page));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, (page, indexability): Self::Item) -> Result<IndexabilityRow> {
        Ok(IndexabilityRow {
            url: ctx.url(page)?,
            indexability,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:indexability"))
    }
}

impl Row for IndexabilityRow {
    const COLUMNS: &'static [&'static str] = &["url", "indexability"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.indexability.as_str().to_string()]
    }
}

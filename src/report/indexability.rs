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

use serde::{Deserialize, Serialize};

use super::kept_lists::Keeper;
use super::PageFacts;
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

/// What [`classify`] reads of a fetched page: its stored record, or what
/// a report context holds of it.
pub trait PageFields {
    fn status(&self) -> u16;
    fn noindex(&self) -> bool;
    fn canonical(&self) -> Option<&str>;
}

/// A stored record and a context's facts name these fields alike.
macro_rules! page_fields {
    ($($t:ty),*) => {$(
        impl PageFields for $t {
            fn status(&self) -> u16 {
                self.status
            }
            fn noindex(&self) -> bool {
                self.noindex.is_some()
            }
            fn canonical(&self) -> Option<&str> {
                self.canonical.as_deref()
            }
        }
    )*};
}

page_fields!(PageRecord, PageFacts);

/// What one URL is, for [`classify`]: its fact, its page record, and the
/// look-ups only some URLs need (its type, its own URL).
pub struct Facts<'a, P, H, U> {
    pub state: &'a UrlState,
    pub page: Option<&'a P>,
    /// Whether the page record's mimetype is HTML.
    pub is_html: H,
    pub own_url: U,
}

/// The URL's indexability; None when it is not a page (see the module's
/// doc).
pub fn classify<P, H, U, E>(
    facts: Facts<'_, P, H, U>,
) -> std::result::Result<Option<Indexability>, E>
where
    P: PageFields,
    H: FnOnce(&P) -> std::result::Result<bool, E>,
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
            if !is_ok(page.status()) {
                Indexability::Non200
            } else if page.noindex() {
                Indexability::Noindex
            } else if let Some(canonical) = page.canonical() {
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
    // The pages come in id order: searched, not mapped.
    let pages = ctx.pages()?;
    let page = |id: &PageId| match pages.binary_search_by_key(id, |(p, _)| *p) {
        Ok(i) => Some(&pages[i].1),
        Err(_) => None,
    };
    let mut out = Vec::new();
    for (id, state) in ctx.states()? {
        let facts = Facts {
            state,
            page: page(id),
            is_html: |rec: &PageFacts| Ok(is_html(ctx.mime(rec.mime)?.as_ref())),
            own_url: || ctx.url_once(*id),
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

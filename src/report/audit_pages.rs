//! What the markup audits (`hreflang`, `pagination`, `structured-data`,
//! `security`) read: the HTML pages of the report that answered 2xx, each
//! with the facts its markup gave ([`AuditFacts`]), and what the crawl
//! knows of a URL such a page names without linking to it (an alternate,
//! a next page): its answer, from its fetch as a page or else its check
//! as a resource, and whether it may be indexed.

use super::indexability::{classify, is_html, Facts, Indexability};
use super::{Ctx, Result};
use crate::html::audit_facts::AuditFacts;
use crate::store::prelude::*;
use crate::store::{PageId, PageRecord, UrlState};
use crate::url::Url;

/// Each audited page of the report and its facts, in page id order.
/// The facts of `page` among `audited`'s pages (in page id order).
pub fn facts_of(pages: &[(PageId, AuditFacts)], page: PageId) -> Option<&AuditFacts> {
    (pages.binary_search_by_key(&page, |(p, _)| *p).ok()).map(|i| &pages[i].1)
}

pub fn audited(ctx: &Ctx<'_, '_>) -> Result<Vec<(PageId, AuditFacts)>> {
    let pages = ctx.pages()?;
    let mut out = Vec::new();
    let mut err = None;
    ctx.r.for_each_page_audit(|page, audit| {
        let Ok(i) = pages.binary_search_by_key(&page, |(p, _)| *p) else {
            return;
        };
        match ctx.is_html_ok(&pages[i].1) {
            Ok(true) => out.push((page, audit.facts)),
            Ok(false) => {}
            Err(e) => err = Some(e),
        }
    })?;
    err.map_or(Ok(out), Err)
}

/// What became of a URL a page names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Never requested (out of the crawl's reach, or blocked by robots).
    Unknown,
    /// Answered 200 as a page that may not be indexed.
    NotIndexable,
    /// Answered something else than 200, or nothing.
    Not200,
    /// Answered 200 (and may be indexed, when fetched as a page).
    Ok,
}

/// The page id of `url` when the store knows it.
pub fn id_of(ctx: &Ctx<'_, '_>, url: &str) -> Result<Option<PageId>> {
    match Url::parse(url) {
        Ok(u) => Ok(ctx.r.page_id(&u)?),
        Err(_) => Ok(None),
    }
}

/// What the crawl knows of target `id`.
pub fn target(ctx: &Ctx<'_, '_>, id: PageId) -> Result<Target> {
    let state = ctx.r.url_state(id)?;
    match &state {
        Some(UrlState::Failed { .. } | UrlState::Redirected { .. }) => return Ok(Target::Not200),
        Some(state @ UrlState::Done { .. }) => {
            let page = ctx.r.page(id)?;
            if page.as_ref().is_some_and(|p| p.status != 200) {
                return Ok(Target::Not200);
            }
            let facts = Facts {
                state,
                page: page.as_ref(),
                is_html: |rec: &PageRecord| Ok(is_html(ctx.mime(rec.mime)?.as_ref())),
                own_url: || ctx.url_once(id),
            };
            return Ok(match classify(facts)? {
                Some(Indexability::Indexable) | None => Target::Ok,
                Some(_) => Target::NotIndexable,
            });
        }
        _ => {}
    }
    Ok(match ctx.r.resource_check(id)? {
        Some(c) if c.not_checked.is_some() => Target::Unknown,
        Some(c) if c.status == Some(200) => Target::Ok,
        Some(_) => Target::Not200,
        None => Target::Unknown,
    })
}

//! What the markup audits (`hreflang`, `pagination`, `structured-data`,
//! `security`) read: the HTML pages of the report that answered 2xx, each
//! with the facts its markup gave ([`AuditFacts`]), and what the crawl
//! knows of a URL such a page names without linking to it (an alternate,
//! a next page): its answer, from its fetch as a page or else its check
//! as a resource, and whether it may be indexed.

use super::indexability::{classify, is_html, Facts, Indexability};
use super::links::PageSet;
use super::{Ctx, Result};
use crate::html::audit_facts::AuditFacts;
use crate::store::prelude::*;
use crate::store::{PageId, PageRecord, UrlState};
use crate::url::Url;

/// Calls `f` with each audited page of the report and its facts, in page
/// id order, one at a time: every page's facts held at once were the
/// largest thing the crawl-end count held (240 bytes a page).
pub fn for_each_audited(
    ctx: &Ctx<'_, '_>,
    mut f: impl FnMut(PageId, AuditFacts) -> Result<()>,
) -> Result<()> {
    let pages = ctx.pages()?;
    let mut err = None;
    ctx.r.for_each_page_audit(|page, audit| {
        if err.is_some() {
            return;
        }
        let Ok(i) = pages.binary_search_by_key(&page, |(p, _)| *p) else {
            return;
        };
        let step = match ctx.is_html_ok(&pages[i].1) {
            Ok(true) => f(page, audit.facts),
            Ok(false) => Ok(()),
            Err(e) => Err(e),
        };
        err = step.err();
    })?;
    err.map_or(Ok(()), Err)
}

/// The audited pages of a kind that looks facts up across pages (an
/// alternate's own alternates, the next page's prev): the facts of the
/// pages `keep` selects, in page id order, and which pages are audited at
/// all. `keep` must select every page whose facts the kind reads differ
/// from none: an audited page not kept reads as having none.
pub struct Audited {
    kept: Vec<(PageId, AuditFacts)>,
    audited: PageSet,
    none: AuditFacts,
}

impl Audited {
    pub fn read(ctx: &Ctx<'_, '_>, keep: impl Fn(&AuditFacts) -> bool) -> Result<Audited> {
        let mut out = Audited {
            kept: Vec::new(),
            audited: PageSet::default(),
            none: AuditFacts::default(),
        };
        for_each_audited(ctx, |page, facts| {
            out.audited.insert(page);
            if keep(&facts) {
                out.kept.push((page, facts));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The pages kept and their facts, in page id order.
    pub fn kept(&self) -> &[(PageId, AuditFacts)] {
        &self.kept
    }

    /// The facts of `page` when it is audited.
    pub fn facts_of(&self, page: PageId) -> Option<&AuditFacts> {
        match self.kept.binary_search_by_key(&page, |(p, _)| *p) {
            Ok(i) => Some(&self.kept[i].1),
            Err(_) => self.audited.contains(&page).then_some(&self.none),
        }
    }
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

//! What the crawl found of a URL that a page links to or loads: its
//! status, why it failed, and its state as the exports name it. The links
//! and CSV exports and the page object read it.

use crate::store::prelude::*;
use crate::store::{PageId, PageRecord, Reader, ResourceCheck, StoreError, UrlState};

/// What the crawl found of a URL that is linked or loaded: its status,
/// its reason when it failed, and its state as the exports name it:
/// `checked`, `broken`, `redirected`, `not checked: REASON` (robots,
/// excluded, out_of_scope, ..., `queued`), or `not checked` when nothing
/// decided on it.
pub struct Target {
    pub status: Option<u16>,
    pub reason: Option<String>,
    pub state: String,
}

impl Target {
    pub(super) fn checked(status: Option<u16>, reason: Option<String>) -> Target {
        let state = if reason.is_some() {
            "broken"
        } else {
            "checked"
        };
        Target {
            status,
            reason,
            state: state.to_string(),
        }
    }

    pub(super) fn not_checked(why: Option<&str>) -> Target {
        Target {
            status: None,
            reason: None,
            state: why.map_or_else(
                || "not checked".to_string(),
                |w| format!("not checked: {w}"),
            ),
        }
    }
}

/// A link target: a fetched page's answer, else its external check, else
/// why it was not fetched.
pub fn target(r: &Reader<'_>, page: PageId) -> Result<Target, StoreError> {
    let state = r.url_state(page)?.map(UrlState::known);
    let record = r.page(page)?;
    let status = record.as_ref().map(|p| p.status);
    Ok(match &state {
        Some(UrlState::Done { .. }) => Target::checked(status, None),
        Some(UrlState::Failed { status: s, .. }) => {
            Target::checked(s.or(status), reason(state.as_ref(), record.as_ref()))
        }
        Some(UrlState::Redirected { status, .. }) => Target {
            status: Some(*status),
            reason: None,
            state: "redirected".to_string(),
        },
        _ => match r.external_check(page)? {
            Some(c) => Target::checked(c.status, c.reason),
            None => match r.resource_check(page)? {
                Some(c) => resource(Some(&c)),
                None => Target::not_checked(match &state {
                    Some(UrlState::Skipped { reason, .. }) => Some(reason.as_str()),
                    Some(UrlState::Queued { .. } | UrlState::Claimed { .. }) => Some("queued"),
                    _ => None,
                }),
            },
        },
    })
}

/// What a check found of a URL the crawl did not fetch as a page (a
/// resource, an out-of-scope URL): None for a fetched, failed or
/// redirected one, whose own facts say more.
pub fn unfetched(
    r: &Reader<'_>,
    page: PageId,
    state: Option<&UrlState>,
    fetched: bool,
) -> Result<Option<Target>, StoreError> {
    if fetched || !matches!(state, None | Some(UrlState::Skipped { .. })) {
        return Ok(None);
    }
    target(r, page).map(Some)
}

/// A resource, by its check: one a rule refused (robots.txt, an exclude)
/// is not checked, and says which rule.
pub fn resource(check: Option<&ResourceCheck>) -> Target {
    match check {
        Some(c) if c.not_checked.is_some() => {
            Target::not_checked(c.not_checked.map(|r| r.as_str()))
        }
        Some(c) => Target::checked(c.status, c.reason.clone()),
        None => Target::not_checked(None),
    }
}

/// Why a URL failed or was skipped: a 4xx/5xx's reason phrase, or what
/// went wrong when nothing answered.
pub fn reason(state: Option<&UrlState>, record: Option<&PageRecord>) -> Option<String> {
    state.and_then(UrlState::reason).or_else(|| {
        record
            .filter(|p| p.status >= 400)
            .map(|p| crate::crawl::reason::phrase(p.status, None))
    })
}

//! `export --format links`: every link occurrence of every fetched page,
//! one CSV row each in page order (Screaming Frog's "All Inlinks"): where
//! it is, where it points, its anchor text, its rel (`nofollow` is the one
//! the store keeps), the element it is written in, its position on the
//! page and fragment, which occurrence of that target it is, and what the
//! crawl found of its target ([`target`]); then a row per resource
//! (`img`, `script`, ...) with its check. Streamed page by page, in page
//! id order.

use std::io::Write;

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::csv::csv_error;
use super::page::reason;
use super::{each_page, ExportResult};
use crate::store::prelude::*;
use crate::store::{PageId, Reader, ResourceCheck, StoreError, UrlState};

/// The columns, in order (docs/CLI.md, export).
pub const COLUMNS: [&str; 11] = [
    "source",
    "target",
    "anchor",
    "rel",
    "element",
    "nofollow",
    "target_status",
    "target_state",
    "position",
    "fragment",
    "occurrence",
];

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
    fn checked(status: Option<u16>, reason: Option<String>) -> Target {
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

    fn not_checked(why: Option<&str>) -> Target {
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

pub fn write(r: &Reader<'_>, w: &mut impl Write) -> ExportResult {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(COLUMNS).map_err(csv_error)?;
    each_page(r, |id, _| {
        let Some(source) = r.url_of(id)? else {
            return Ok(());
        };
        let mut nth: FxHashMap<PageId, u32> = FxHashMap::default();
        let mut targets: FxHashMap<PageId, Option<(String, Target)>> = FxHashMap::default();
        for link in r.occurrences(id)? {
            let known = match targets.entry(link.child) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(match r.url_of(link.child)? {
                    Some(url) => Some((url, target(r, link.child)?)),
                    None => None,
                }),
            };
            let Some((url, facts)) = known else {
                continue;
            };
            let n = nth.entry(link.child).or_default();
            *n += 1;
            let row = [
                source.as_str(),
                url,
                &link.anchor,
                &link.rel.to_string(),
                link.element.as_str(),
                if link.rel.nofollow() { "true" } else { "false" },
                &opt(facts.status),
                &facts.state,
                link.position.as_str(),
                link.fragment.as_deref().unwrap_or(""),
                &n.to_string(),
            ];
            out.write_record(row).map_err(csv_error)?;
        }
        // What the page loads: a row per resource, its element named, an
        // image's alt as its anchor, what its check answered.
        for res in r
            .resources(id)?
            .into_iter()
            .filter(|l| !l.element.is_target())
        {
            let Some(url) = r.url_of(res.target)? else {
                continue;
            };
            let facts = resource(r.resource_check(res.target)?.as_ref());
            let n = nth.entry(res.target).or_default();
            *n += 1;
            let row = [
                source.as_str(),
                &url,
                res.alt.as_deref().unwrap_or(""),
                "",
                res.element.as_str(),
                "false",
                &opt(facts.status),
                &facts.state,
                "",
                "",
                &n.to_string(),
            ];
            out.write_record(row).map_err(csv_error)?;
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

fn opt(v: Option<u16>) -> String {
    v.map(|s| s.to_string()).unwrap_or_default()
}

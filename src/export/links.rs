//! `export --format links`: every link of every fetched page, one CSV row
//! each (Screaming Frog's "All Inlinks"): where it is, where it points,
//! its anchor text, its rel (`nofollow` is the one the store keeps), the
//! element it is written in, and what the crawl found of its target; a
//! resource (`img`, `script`, ...) has its check's status and `checked`,
//! `broken` or `not checked` as its state.
//! Streamed page by page, in page id order.

use std::io::Write;

use super::csv::csv_error;
use super::{each_page, ExportResult};
use crate::report::status_of;
use crate::store::prelude::*;
use crate::store::{PageId, Reader, UrlState};

/// The columns, in order (docs/CLI.md, export).
pub const COLUMNS: [&str; 8] = [
    "source",
    "target",
    "anchor",
    "rel",
    "element",
    "nofollow",
    "target_status",
    "target_state",
];

pub fn write(r: &Reader<'_>, w: &mut impl Write) -> ExportResult {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(COLUMNS).map_err(csv_error)?;
    each_page(r, |id, _| {
        let Some(source) = r.url_of(id)? else {
            return Ok(());
        };
        for link in r.links(id)? {
            let Some(target) = r.url_of(link.child)? else {
                continue;
            };
            let rel = if link.nofollow { "nofollow" } else { "" };
            let (status, state) = target_facts(r, link.child)?;
            let row = [
                source.as_str(),
                &target,
                &link.anchor,
                rel,
                "a",
                if link.nofollow { "true" } else { "false" },
                &status,
                &state,
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
            let Some(target) = r.url_of(res.target)? else {
                continue;
            };
            let (status, state) = match r.resource_check(res.target)? {
                Some(c) => (
                    c.status.map(|s| s.to_string()).unwrap_or_default(),
                    if c.reason.is_some() {
                        "broken"
                    } else {
                        "checked"
                    },
                ),
                None => (String::new(), "not checked"),
            };
            let row = [
                source.as_str(),
                &target,
                res.alt.as_deref().unwrap_or(""),
                "",
                res.element.as_str(),
                "false",
                &status,
                state,
            ];
            out.write_record(row).map_err(csv_error)?;
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

/// A link target's status (empty when it answered none) and state label
/// (`seen` when the crawl never decided on it).
fn target_facts(r: &Reader<'_>, page: PageId) -> Result<(String, String), super::ExportError> {
    let status = status_of(r, page).map_err(|e| match e {
        crate::report::ReportError::Store(e) => super::ExportError::Store(e),
        other => std::io::Error::other(other.to_string()).into(),
    })?;
    let state = r.url_state(page)?.map(UrlState::known);
    Ok((
        status.map(|s| s.to_string()).unwrap_or_default(),
        state.map_or_else(|| "seen".to_string(), |s| s.label()),
    ))
}

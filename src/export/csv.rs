//! CSV: a header row, then one row per URL seen (fetched or not), with its
//! state, why it failed or was skipped, where it redirects, and what its
//! fetch found (a cut body marked so); a resource or external URL with
//! what its check answered and the pages linking to or loading it. RFC 4180
//! quoting (the `csv` crate), list fields joined with a space, times
//! RFC 3339, empty cells for what a URL does not have.

use std::io::Write;

use super::inlinks::Inlinks;
use super::page::{body_size, mime_string};
use super::target::reason;
use super::{each_url, ExportResult};
use crate::custom::rule_name;
use crate::report::indexability::{classify, is_html, Facts};
use crate::report::link_depth::LinkDepths;
use crate::report::links::latest_link_scores;
use crate::store::prelude::*;
use crate::store::{DirectiveSource, PageRecord, Reader, StoreError, UrlState};
use crate::time::rfc3339;

/// The columns, in order (docs/CLI.md, export).
pub const COLUMNS: [&str; 24] = [
    "url",
    "state",
    "status",
    "reason",
    "mime",
    "size",
    "depth",
    "title",
    "description",
    "h1",
    "canonical",
    "noindex",
    "nofollow",
    "last_modified",
    "fetched_at",
    "response_ms",
    "inlinks",
    "outlinks",
    "redirect_status",
    "redirect_to",
    "truncated",
    "indexability",
    "link_score",
    "self_links",
];

pub fn write(r: &Reader<'_>, w: &mut impl Write) -> ExportResult {
    let scores = latest_link_scores(r)?;
    let mut out = csv::Writer::from_writer(w);
    // Then a column `extract:NAME` per `--extract` rule of any point.
    let mut rules: Vec<String> = Vec::new();
    for (_, p) in r.points()? {
        rules.extend(p.extract.iter().map(|rule| rule_name(rule).to_string()));
    }
    rules.sort_unstable();
    rules.dedup();
    let extract_columns = rules.iter().map(|n| format!("extract:{n}"));
    (out.write_record(COLUMNS.iter().map(|c| c.to_string()).chain(extract_columns)))
        .map_err(csv_error)?;
    let depths = LinkDepths::latest(r)?;
    let loaders = Inlinks::read(r)?;
    each_url(r, |id, url| {
        let state = r.url_state(id)?;
        let page = r.page(id)?;
        // Not fetched as a page: what a resource or external check found.
        let checked = super::target::unfetched(r, id, state.as_ref(), page.is_some())?;
        let mime_record = match &page {
            Some(p) => r.mime(p.mime)?,
            None => None,
        };
        let mime = mime_record.as_ref().map(mime_string);
        let of_page = |f: &dyn Fn(&PageRecord) -> String| page.as_ref().map(f).unwrap_or_default();
        let redirect = match &state {
            Some(UrlState::Redirected { to, status, .. }) => Some((*status, r.url_of(*to)?)),
            _ => None,
        };
        let depth = match (&page, &redirect) {
            (None, None) => None,
            _ => depths.of(id),
        };
        let size = match &page {
            Some(p) => body_size(r, id, p)?.size.to_string(),
            None => String::new(),
        };
        let indexability: Result<_, StoreError> = match &state {
            Some(state) => classify(Facts {
                state: &state.clone().known(),
                page: page.as_ref(),
                is_html: |_: &PageRecord| Ok(is_html(mime_record.as_ref())),
                own_url: || Ok(url.to_string()),
            }),
            None => Ok(None),
        };
        let row: [String; 24] = [
            url.to_string(),
            match (&state, &checked) {
                (Some(s), _) => s.label(),
                (None, Some(c)) if c.state != "not checked" => c.state.clone(),
                (None, _) => "seen".to_string(),
            },
            match &checked {
                Some(c) => text(c.status.map(|s| s.to_string())),
                None => of_page(&|p| p.status.to_string()),
            },
            // A check's answer says more than why the URL was not crawled.
            text(
                checked
                    .and_then(|c| c.reason)
                    .or_else(|| reason(state.as_ref(), page.as_ref())),
            ),
            text(mime),
            size,
            depth.map(|d| d.to_string()).unwrap_or_default(),
            of_page(&|p| text(p.title.clone())),
            of_page(&|p| text(p.description.clone())),
            of_page(&|p| p.h1.join(" ")),
            of_page(&|p| text(p.canonical.clone())),
            of_page(&|p| directive(p.noindex)),
            of_page(&|p| directive(p.nofollow)),
            of_page(&|p| rfc3339(p.last_modified)),
            of_page(&|p| rfc3339(p.fetched_at)),
            of_page(&|p| p.response_ms.to_string()),
            loaders.of(r, id)?.len().to_string(),
            r.children(id)?.len().to_string(),
            redirect
                .as_ref()
                .map(|r| r.0.to_string())
                .unwrap_or_default(),
            text(redirect.and_then(|r| r.1)),
            of_page(&|p| p.truncated.to_string()),
            text(indexability?.map(|i| i.as_str().to_string())),
            text(scores.get(&id).map(f64::to_string)),
            r.self_links(id)?.to_string(),
        ];
        let extracted = match rules.is_empty() {
            true => Vec::new(),
            false => r.page_custom(id)?.map(|c| c.extract).unwrap_or_default(),
        };
        let values = rules.iter().map(|name| {
            (extracted.iter().find(|(n, _)| n == name))
                .map(|(_, v)| v.join(" | "))
                .unwrap_or_default()
        });
        (out.write_record(row.into_iter().chain(values))).map_err(csv_error)?;
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

fn text(v: Option<String>) -> String {
    v.unwrap_or_default()
}

/// Where a directive was found (`meta`, `header`), empty when absent.
fn directive(d: Option<DirectiveSource>) -> String {
    d.map(|d| d.as_str().to_string()).unwrap_or_default()
}

/// The csv writer's errors are I/O errors of the sink (the rows are
/// strings); keep them as such so a closed stdout stays quiet.
pub(super) fn csv_error(e: csv::Error) -> super::ExportError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io.into(),
        other => std::io::Error::other(format!("{other:?}")).into(),
    }
}

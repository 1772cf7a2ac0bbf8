//! `report summary`: the crawl at a glance: pages and URLs, URLs by status
//! class, skips by reason, pages by link depth and by mimetype, and how many
//! findings each list kind has.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Ctx, NamedRun, Result, Scope};
use crate::store::{RunId, UrlState};

#[derive(Debug, Serialize)]
pub struct Summary {
    pub pages: u64,
    pub urls: u64,
    pub by_status: ByStatus,
    pub skipped: BTreeMap<&'static str, u64>,
    /// Pages by link depth ([`super::link_depth`]).
    pub by_depth: BTreeMap<u32, u64>,
    /// Pages no link reaches (only a sitemap lists them): in no depth.
    pub no_link_depth: u64,
    pub by_mime: BTreeMap<String, u64>,
    pub findings: BTreeMap<&'static str, usize>,
    /// The run the figures are as of (one point), or each point's latest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<NamedRun>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<NamedRun>,
    /// `--all-runs`: every URL any run reached.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub all_runs: bool,
    /// The runs the figures come from when some are older than the runs
    /// named ([`Ctx::rows_from_runs`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rows_from_runs: Vec<RunId>,
    /// False when no crawl of the report's points checked external links
    /// (`findings.external` is then 0 for want of checks); left out
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_checked: Option<bool>,
}

/// URLs by how they were answered.
#[derive(Debug, Default, Serialize)]
pub struct ByStatus {
    #[serde(rename = "2xx")]
    pub ok: u64,
    #[serde(rename = "3xx")]
    pub redirect: u64,
    #[serde(rename = "4xx")]
    pub client_error: u64,
    #[serde(rename = "5xx")]
    pub server_error: u64,
    /// No answer: refused, timed out, DNS, a redirect loop...
    pub failed: u64,
}

pub fn summary(ctx: &Ctx<'_, '_>) -> Result<Summary> {
    let counted = match super::kept::summary(ctx)? {
        Some(s) => s,
        None => counted(ctx)?,
    };
    let named = ctx.named_runs();
    Ok(Summary {
        run: (named.len() == 1).then(|| named[0].clone()),
        runs: if named.len() > 1 {
            named.to_vec()
        } else {
            Vec::new()
        },
        all_runs: ctx.scope() == Scope::AllRuns,
        rows_from_runs: ctx.rows_from_runs(),
        external_checked: external_unchecked(ctx)?.then_some(false),
        ..counted
    })
}

/// Whether no external link was checked because no crawl asked to (as
/// `report external` and the console's Findings pane say).
fn external_unchecked(ctx: &Ctx<'_, '_>) -> Result<bool> {
    use super::external::{any_checked, nothing_checked, NOT_CHECKED};
    Ok(!any_checked(ctx)? && nothing_checked(ctx)? == NOT_CHECKED)
}

/// The summary's counts, read from every page and state of the view (its
/// runs left for [`summary`] to name).
pub fn counted(ctx: &Ctx<'_, '_>) -> Result<Summary> {
    let mut by_status = ByStatus::default();
    let mut skipped = BTreeMap::new();
    for (_, state) in ctx.states()? {
        match state {
            UrlState::Done { .. } => by_status.ok += 1,
            UrlState::Redirected { .. } => by_status.redirect += 1,
            UrlState::Failed { status, .. } => match status {
                Some(s) if *s >= 500 => by_status.server_error += 1,
                Some(_) => by_status.client_error += 1,
                None => by_status.failed += 1,
            },
            UrlState::Skipped { reason, .. } => *skipped.entry(reason.as_str()).or_default() += 1,
            UrlState::Queued { .. } | UrlState::Claimed { .. } => {}
        }
    }
    let mut by_depth = BTreeMap::new();
    let mut no_link_depth = 0;
    let mut by_mime_id = BTreeMap::new();
    let depths = ctx.link_depths()?;
    for (id, rec) in ctx.pages()? {
        match depths.of(*id) {
            Some(d) => *by_depth.entry(d).or_default() += 1,
            None => no_link_depth += 1,
        }
        *by_mime_id.entry(rec.mime).or_insert(0u64) += 1;
    }
    let mut by_mime = BTreeMap::new();
    for (id, n) in by_mime_id {
        let essence = ctx
            .mime(id)?
            .map(|m| m.essence)
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| "(none)".to_string());
        *by_mime.entry(essence).or_default() += n;
    }
    let findings = super::kinds::count_findings(ctx)?;
    Ok(Summary {
        pages: ctx.pages()?.len() as u64,
        // The URLs the report covers, as `--point` counts them: the
        // store's every URL would count links no run of the view reached.
        urls: ctx.states()?.len() as u64,
        by_status,
        skipped,
        by_depth,
        no_link_depth,
        by_mime,
        findings,
        run: None,
        runs: Vec::new(),
        all_runs: false,
        rows_from_runs: Vec::new(),
        external_checked: None,
    })
}

//! `report summary`: the crawl at a glance: pages and URLs, URLs by status
//! class, skips by reason, pages by link depth and by mimetype, and how many
//! findings each list kind has.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Ctx, NamedRun, Result, Scope};
use crate::store::prelude::*;
use crate::store::{codec, RunId, SkipReason, UrlState};

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
    let counted = match kept(ctx)? {
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

/// `report summary`'s kept record.
pub(super) const SUMMARY: &str = "summary";

const SKIP_REASONS: [SkipReason; 5] = [
    SkipReason::OutOfScope,
    SkipReason::Excluded,
    SkipReason::Robots,
    SkipReason::TooDeep,
    SkipReason::Nofollow,
];

/// A summary's counts as stored: names as strings.
#[derive(Serialize, Deserialize)]
struct Counts {
    pages: u64,
    urls: u64,
    /// 2xx, 3xx, 4xx, 5xx, failed.
    by_status: [u64; 5],
    skipped: Vec<(String, u64)>,
    by_depth: Vec<(u32, u64)>,
    no_link_depth: u64,
    by_mime: Vec<(String, u64)>,
    findings: Vec<(String, u64)>,
}

/// The record [`SUMMARY`] keeps, counted afresh.
pub(super) fn kept_record(ctx: &Ctx<'_, '_>) -> Result<(&'static str, Vec<u8>)> {
    Ok((SUMMARY, codec::encode(&Counts::of(&counted(ctx)?))?))
}

/// `report summary` of the default view from the kept counts, when they
/// are current; None: count.
pub fn kept(ctx: &Ctx<'_, '_>) -> Result<Option<Summary>> {
    if !super::kept_lists::default_view(ctx) {
        return Ok(None);
    }
    let Some(bytes) = ctx.r.kept(SUMMARY)? else {
        return Ok(None);
    };
    let counts: Counts = codec::decode(bytes)?;
    Ok(counts.summary())
}

impl Counts {
    fn of(s: &Summary) -> Counts {
        let b = &s.by_status;
        let owned = |m: &BTreeMap<&'static str, u64>| -> Vec<(String, u64)> {
            m.iter().map(|(k, &n)| (k.to_string(), n)).collect()
        };
        Counts {
            pages: s.pages,
            urls: s.urls,
            by_status: [b.ok, b.redirect, b.client_error, b.server_error, b.failed],
            skipped: owned(&s.skipped),
            by_depth: s.by_depth.iter().map(|(&d, &n)| (d, n)).collect(),
            no_link_depth: s.no_link_depth,
            by_mime: s.by_mime.iter().map(|(m, &n)| (m.clone(), n)).collect(),
            findings: (s.findings.iter())
                .map(|(k, &n)| (k.to_string(), n as u64))
                .collect(),
        }
    }

    /// The summary these counts were made from, without its runs; None
    /// when a name is not one this build counts.
    fn summary(self) -> Option<Summary> {
        let reasons = SKIP_REASONS.map(SkipReason::as_str);
        let mut skipped = BTreeMap::new();
        for (name, n) in self.skipped {
            skipped.insert(known(&reasons, &name)?, n);
        }
        let mut findings = BTreeMap::new();
        for (name, n) in self.findings {
            // A kept summary naming a kind no longer counted is stale.
            let kind = super::Kind::FINDINGS.iter().find(|k| k.name() == name)?;
            findings.insert(kind.name(), usize::try_from(n).ok()?);
        }
        let [ok, redirect, client_error, server_error, failed] = self.by_status;
        Some(Summary {
            pages: self.pages,
            urls: self.urls,
            by_status: ByStatus {
                ok,
                redirect,
                client_error,
                server_error,
                failed,
            },
            skipped,
            by_depth: self.by_depth.into_iter().collect(),
            no_link_depth: self.no_link_depth,
            by_mime: self.by_mime.into_iter().collect(),
            findings,
            run: None,
            runs: Vec::new(),
            all_runs: false,
            rows_from_runs: Vec::new(),
            external_checked: None,
        })
    }
}

/// `name` as the static name it equals in `names`.
fn known(names: &[&'static str], name: &str) -> Option<&'static str> {
    names.iter().copied().find(|&n| n == name)
}

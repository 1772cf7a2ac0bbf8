//! `runs`: every crawl of a point is a run; this lists them, newest
//! first, with how each ended (a run whose crawlers died reads as
//! `interrupted`), the flags it had and what it counted. The text lines
//! are [`crate::runs::line`]'s, the ones the console draws; `--json` adds
//! each run's findings.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{print_json, CliError, CliResult};
use crate::report::summary::summary;
use crate::report::{Ctx, Scope};
use crate::runs::{self, Run};
use crate::store::{Reader, RunFlags, RunId, Store};
use crate::time::rfc3339;

#[derive(Serialize)]
pub(crate) struct RunJson {
    id: RunId,
    point: u32,
    started_at: String,
    ended_at: Option<String>,
    ended: &'static str,
    /// Seconds the run ran, pauses excluded.
    running_s: f64,
    /// Finished with its point's own scope and limits.
    complete: bool,
    flags: RunFlags,
    fetched: u64,
    not_modified: u64,
    unchanged: u64,
    failed: u64,
    redirected: u64,
    skipped: u64,
    /// Skipped URLs by reason (`out_of_scope`, `too_deep`, ...).
    skipped_by: BTreeMap<&'static str, u64>,
    external_checked: u64,
    external_broken: u64,
    /// Rows of each finding kind, as `report --run ID` lists them.
    findings: BTreeMap<&'static str, usize>,
    resources_checked: u64,
    resources_broken: u64,
}

impl RunJson {
    fn of(run: Run, findings: BTreeMap<&'static str, usize>) -> RunJson {
        let c = &run.record.counts;
        let skipped_by = [
            ("robots", c.skipped_robots),
            ("out_of_scope", c.out_of_scope),
            ("excluded", c.excluded),
            ("too_deep", c.too_deep),
            ("nofollow", c.nofollow),
        ]
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .collect();
        RunJson {
            id: run.id,
            point: run.record.point,
            started_at: rfc3339(run.record.started_at),
            ended_at: run.record.ended_at.map(rfc3339),
            ended: run.ended.as_str(),
            running_s: run.record.running_ms as f64 / 1000.0,
            complete: run.record.complete(run.ended),
            fetched: c.fetched,
            not_modified: c.not_modified,
            unchanged: c.unchanged,
            failed: c.failed,
            redirected: c.redirected,
            skipped: c.skipped(),
            skipped_by,
            external_checked: c.external_checked,
            external_broken: c.external_broken,
            findings,
            flags: run.record.flags,
            resources_checked: c.resources_checked,
            resources_broken: c.resources_broken,
        }
    }
}

/// What `runs --json` prints: each run with its findings, a report over
/// what it reached.
pub(crate) fn json_rows(
    r: &Reader<'_>,
    all: Vec<Run>,
    limit: Option<usize>,
) -> Result<Vec<RunJson>, CliError> {
    let mut rows = Vec::new();
    for run in all.into_iter().take(limit.unwrap_or(usize::MAX)) {
        let ctx = Ctx::with_scope(r, Some(run.record.point), Scope::Run(run.id))?;
        let findings = summary(&ctx)?.findings;
        rows.push(RunJson::of(run, findings));
    }
    Ok(rows)
}

/// `runs --frontier URL`: the points' runs on the shared frontier, as
/// the cluster holds them (no store needed: each crawler has its own).
pub fn cluster(url: &str, limit: Option<usize>, json: bool) -> CliResult {
    let mut points = crate::crawl::shared::cluster::points(url)?;
    points.truncate(limit.unwrap_or(usize::MAX));
    if json {
        return print_json(&points);
    }
    if points.is_empty() {
        outln!("no runs on the frontier");
        return Ok(());
    }
    outln!("{}", crate::crawl::shared::cluster::heading());
    for p in &points {
        outln!("{}", p.line());
    }
    Ok(())
}

/// `doc`: only the runs of that document's points.
pub fn run(
    store: &Store,
    point: Option<u32>,
    limit: Option<usize>,
    json: bool,
    doc: Option<&str>,
) -> CliResult {
    let r = store.read()?;
    let mut all = runs::newest_first(&r, point)?;
    if let Some(doc) = doc {
        let points = crate::documents::points_of(&r, doc)?;
        all.retain(|run| points.contains(&run.record.point));
    }
    if json {
        return print_json(&json_rows(&r, all, limit)?);
    }
    if all.is_empty() {
        outln!("no runs yet");
        return Ok(());
    }
    outln!("{}", runs::heading());
    for run in all.iter().take(limit.unwrap_or(usize::MAX)) {
        outln!("{}", runs::line(run));
    }
    Ok(())
}

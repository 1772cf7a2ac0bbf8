//! `runs`: every crawl of a point is a run; this lists them, newest
//! first, with how each ended (a run whose crawlers died reads as
//! `interrupted`), the flags it had and what it counted.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{print_json, CliResult};
use crate::crawl::run_ended;
use crate::report::summary::summary;
use crate::report::{Ctx, Scope};
use crate::store::prelude::*;
use crate::store::{RunEnd, RunFlags, RunId, RunRecord, Store};
use crate::time::rfc3339;

#[derive(Serialize)]
struct RunJson {
    id: RunId,
    point: u32,
    started_at: Option<String>,
    ended_at: Option<String>,
    ended: &'static str,
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
}

impl RunJson {
    fn of(
        id: RunId,
        run: RunRecord,
        ended: RunEnd,
        findings: BTreeMap<&'static str, usize>,
    ) -> RunJson {
        let c = &run.counts;
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
            id,
            point: run.point,
            started_at: run.started_at.map(rfc3339),
            ended_at: run.ended_at.map(rfc3339),
            ended: ended.as_str(),
            complete: run.complete(ended),
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
            flags: run.flags,
        }
    }
}

pub fn run(store: &Store, point: Option<u32>, limit: Option<usize>, json: bool) -> CliResult {
    let r = store.read()?;
    let instances: HashMap<_, _> = r.instances()?.into_iter().collect();
    let mut rows = Vec::new();
    for (id, run) in (r.runs(point)?.into_iter().rev()).take(limit.unwrap_or(usize::MAX)) {
        let ended = run_ended(&run, &instances);
        // A run's findings are a report over what it reached: only the
        // JSON, which carries them, pays for it.
        let findings = if json {
            let ctx = Ctx::with_scope(&r, Some(run.point), Scope::Run(id))?;
            summary(&ctx)?.findings
        } else {
            BTreeMap::new()
        };
        rows.push(RunJson::of(id, run, ended, findings));
    }
    if json {
        return print_json(&rows);
    }
    if rows.is_empty() {
        outln!("no runs yet");
        return Ok(());
    }
    outln!(
        "{:>5} {:>5}  {:<20}  {:<11} {:>8} {:>7} {:>7} {:>8}  flags",
        "run",
        "point",
        "started",
        "ended",
        "fetched",
        "304/=",
        "failed",
        "skipped"
    );
    for row in &rows {
        outln!(
            "{:>5} {:>5}  {:<20}  {:<11} {:>8} {:>7} {:>7} {:>8}  {}",
            row.id,
            row.point,
            row.started_at.as_deref().unwrap_or("-"),
            row.ended,
            row.fetched,
            row.not_modified + row.unchanged,
            row.failed,
            row.skipped,
            flags_text(&row.flags)
        );
    }
    Ok(())
}

/// The flags that shape a run, as a person reads them.
fn flags_text(f: &RunFlags) -> String {
    let mut out = Vec::new();
    if let Some(d) = f.depth {
        let o = if f.depth_override { " (this run)" } else { "" };
        out.push(format!("depth {d}{o}"));
    }
    if let Some(m) = f.max_pages {
        let o = if f.max_pages_override {
            " (this run)"
        } else {
            ""
        };
        out.push(format!("max-pages {m}{o}"));
    }
    for (on, name) in [
        (f.check_external, "check-external"),
        (f.follow_nofollow, "follow-nofollow"),
        (f.no_sitemaps, "no-sitemaps"),
        (f.distinct_www, "distinct-www"),
    ] {
        if on {
            out.push(name.to_string());
        }
    }
    out.join(", ")
}

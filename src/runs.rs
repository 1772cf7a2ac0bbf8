//! Runs as a person reads them: the runs of the store (or of one point),
//! newest first, each with how it ended; and the one line of figures that
//! both `crawlscope runs` and the console's Points pane print for a run,
//! so the two cannot tell a run differently.

use std::collections::HashMap;

use crate::crawl::run_ended;
use crate::store::prelude::*;
use crate::store::{PointId, Reader, Result, RunEnd, RunFlags, RunId, RunRecord};
use crate::time::rfc3339;

/// A run with how it ended: a `Running` run whose crawlers all died
/// reads as interrupted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub id: RunId,
    pub record: RunRecord,
    pub ended: RunEnd,
}

/// The runs of `point` (every point's when None), newest first.
pub fn newest_first(r: &Reader<'_>, point: Option<PointId>) -> Result<Vec<Run>> {
    let instances: HashMap<_, _> = r.instances()?.into_iter().collect();
    Ok(r.runs(point)?
        .into_iter()
        .rev()
        .map(|(id, record)| Run {
            id,
            ended: run_ended(&record, &instances),
            record,
        })
        .collect())
}

/// The column names over [`line`]'s figures.
pub fn heading() -> String {
    format!(
        "{:>5} {:>5} {:<20} {:<11} {:>8} {:>7} {:>7} {:>8} flags",
        "run", "point", "started", "ended", "fetched", "304/=", "failed", "skipped"
    )
}

/// A run's figures on one line: id, point, when it started, how it ended,
/// fetched, not modified or unchanged, failed, skipped, and its flags. All
/// but the flags take 78 columns, the Points pane's width in an 80-column
/// terminal, so no figure is cut there.
pub fn line(run: &Run) -> String {
    let c = &run.record.counts;
    format!(
        "{:>5} {:>5} {:<20} {:<11} {:>8} {:>7} {:>7} {:>8} {}",
        run.id,
        run.record.point,
        rfc3339(run.record.started_at),
        run.ended.as_str(),
        c.fetched,
        c.not_modified + c.unchanged,
        c.failed,
        c.skipped(),
        flags_text(&run.record.flags)
    )
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
        (f.no_resources, "no-resources"),
    ] {
        if on {
            out.push(name.to_string());
        }
    }
    out.join(", ")
}

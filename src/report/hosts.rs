//! `report hosts`: per origin, the page requests sent, answered ok, failed
//! and throttled, and the median and 90th-percentile response times (each
//! the upper bound of its histogram bucket), the busiest origin first. The
//! crawl writer keeps these figures per run (`store::origin_figures`):
//! a report adds up those of the runs it answers for (`--run ID`: that
//! run's requests alone; `--point`: its runs'), every run's with
//! `--all-runs`.

use serde::Serialize;

use super::{opt_cell, Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::OriginFigures;

pub struct Hosts;

#[derive(Debug, Serialize)]
pub struct HostRow {
    pub origin: String,
    pub requests: u64,
    pub ok: u64,
    pub failed: u64,
    pub throttled: u64,
    pub p50_ms: Option<u32>,
    pub p90_ms: Option<u32>,
}

impl ListKind for Hosts {
    type Item = (String, OriginFigures);
    type Row = HostRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<(String, OriginFigures)>> {
        let mut items = ctx.r.origin_figures_of(|run| ctx.counts_run(run))?;
        items.sort_by(|a, b| b.1.requests.cmp(&a.1.requests).then(a.0.cmp(&b.0)));
        Ok(items)
    }

    fn row(_ctx: &Ctx<'_, '_>, (origin, f): (String, OriginFigures)) -> Result<HostRow> {
        Ok(HostRow {
            p50_ms: f.p50_ms(),
            p90_ms: f.p90_ms(),
            origin,
            requests: f.requests,
            ok: f.ok,
            failed: f.failed,
            throttled: f.throttled,
        })
    }
}

impl Row for HostRow {
    const COLUMNS: &'static [&'static str] = &[
        "origin",
        "requests",
        "ok",
        "failed",
        "throttled",
        "p50_ms",
        "p90_ms",
    ];
    fn cells(&self) -> Vec<String> {
        vec![
            self.origin.clone(),
            self.requests.to_string(),
            self.ok.to_string(),
            self.failed.to_string(),
            self.throttled.to_string(),
            opt_cell(self.p50_ms),
            opt_cell(self.p90_ms),
        ]
    }
}

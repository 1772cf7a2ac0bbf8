//! `report changes`: what changed between two runs of a crawl point (by
//! default its last two complete runs, so a partial run's unreached URLs
//! are not "gone"; `--from`/`--to` name runs by the ids `runs` lists):
//! URLs new in the later run, gone from it (not reached again), answering
//! another status, and 2xx pages whose title or body changed. Each run
//! keeps what this needs (the writer records it, see `store::history`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Ctx, ReportError, Result, Row};
use crate::store::prelude::*;
use crate::store::{Kept, PageId, PointId, RunId};

#[derive(Debug, Serialize)]
pub struct Changes {
    /// The runs compared, by the ids `runs` lists.
    pub from_run: Option<RunId>,
    pub to_run: Option<RunId>,
    pub new: Vec<String>,
    pub gone: Vec<String>,
    pub status_changed: Vec<Change<Option<u16>>>,
    pub title_changed: Vec<Change<Option<String>>>,
    pub content_changed: Vec<String>,
    /// Why there is nothing to compare, or why the lists may mislead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Each list's length before `--limit` (the JSON lists say the rest).
    #[serde(skip)]
    pub totals: [usize; 5],
}

#[derive(Debug, Serialize)]
pub struct Change<T> {
    pub url: String,
    pub from: T,
    pub to: T,
}

/// A change as a CSV or table row.
#[derive(Debug, Serialize)]
pub struct ChangeRow {
    pub change: &'static str,
    pub url: String,
    pub from: String,
    pub to: String,
}

impl Row for ChangeRow {
    const COLUMNS: &'static [&'static str] = &["change", "url", "from", "to"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.change.to_string(),
            self.url.clone(),
            self.from.clone(),
            self.to.clone(),
        ]
    }
}

impl Changes {
    fn nothing(to_run: Option<RunId>, note: String) -> Changes {
        Changes {
            from_run: None,
            to_run,
            new: Vec::new(),
            gone: Vec::new(),
            status_changed: Vec::new(),
            title_changed: Vec::new(),
            content_changed: Vec::new(),
            note: Some(note),
            totals: [0; 5],
        }
    }

    /// Every change as a row, list by list.
    pub fn rows(&self) -> Vec<ChangeRow> {
        let plain = |change, urls: &[String]| {
            urls.iter()
                .map(|u| ChangeRow {
                    change,
                    url: u.clone(),
                    from: String::new(),
                    to: String::new(),
                })
                .collect::<Vec<_>>()
        };
        let mut rows = plain("new", &self.new);
        rows.extend(plain("gone", &self.gone));
        rows.extend(self.status_changed.iter().map(|c| ChangeRow {
            change: "status",
            url: c.url.clone(),
            from: super::opt_cell(c.from),
            to: super::opt_cell(c.to),
        }));
        rows.extend(self.title_changed.iter().map(|c| ChangeRow {
            change: "title",
            url: c.url.clone(),
            from: c.from.clone().unwrap_or_default(),
            to: c.to.clone().unwrap_or_default(),
        }));
        rows.extend(plain("content", &self.content_changed));
        rows
    }
}

/// The point to compare: the one given, else the only one with runs.
fn pick_point(ctx: &Ctx<'_, '_>) -> Result<Option<PointId>> {
    if let Some(p) = ctx.point() {
        return Ok(Some(p));
    }
    let mut points = ctx.r.points_with_history()?;
    points.retain(|&p| ctx.covers_point(p));
    match points.as_slice() {
        [] => Ok(None),
        [p] => Ok(Some(*p)),
        many => Err(ReportError::PointNeeded(
            many.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        )),
    }
}

/// The runs `--from` and `--to` name, by their ids; either left out is
/// taken from the point's complete runs (the last, and the one before
/// `to`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Between {
    pub from: Option<RunId>,
    pub to: Option<RunId>,
}

/// The point `between` names through its runs (checked against
/// `--point`), if it names any.
fn point_named(ctx: &Ctx<'_, '_>, between: Between) -> Result<Option<PointId>> {
    let mut point = ctx.point();
    for id in [between.from, between.to].into_iter().flatten() {
        let run = ctx.r.run(id)?.ok_or(ReportError::NoRun(id))?;
        match point {
            Some(p) if p != run.point => {
                return Err(ReportError::RunOfAnotherPoint { run: id, point: p })
            }
            _ => point = Some(run.point),
        }
    }
    Ok(point)
}

pub fn changes(ctx: &Ctx<'_, '_>, limit: usize, between: Between) -> Result<Changes> {
    let named = between.from.is_some() || between.to.is_some();
    let point = match named {
        true => point_named(ctx, between)?,
        false => pick_point(ctx)?,
    };
    let Some(point) = point else {
        return Ok(Changes::nothing(
            None,
            "nothing to compare: no crawl point has run yet".into(),
        ));
    };
    // Oldest first.
    let mut runs = crate::runs::newest_first(ctx.r, Some(point))?;
    runs.reverse();
    let complete: Vec<RunId> = (runs.iter())
        .filter(|run| run.record.complete(run.ended))
        .map(|run| run.id)
        .collect();
    // A `--from` newer than the last complete run is compared with the
    // point's latest run, never with an older one.
    let after = |id: &RunId| between.from.is_none_or(|f| f < *id);
    let to = between.to.or_else(|| {
        (complete.last().copied().filter(after))
            .or_else(|| runs.last().map(|run| run.id).filter(after))
    });
    let from = between.from.or_else(|| {
        let to = to?;
        complete.iter().rev().copied().find(|&id| id < to)
    });
    let (Some(from), Some(to)) = (from, to) else {
        let note = match (named, complete.as_slice(), runs.len()) {
            (true, _, _) => match (from, to) {
                (Some(from), _) => {
                    format!("nothing to compare: crawl point {point} has no run after run {from}")
                }
                _ => format!(
                    "nothing to compare: crawl point {point} has no complete run before the one named"
                ),
            },
            (false, _, 0) => format!("nothing to compare: crawl point {point} has not run yet"),
            (false, [only], 1) => format!(
                "nothing to compare: crawl point {point} has one run (run {only}); crawl it again"
            ),
            (false, [only], _) => format!(
                "nothing to compare: crawl point {point} has one complete run (run {only}); crawl it again"
            ),
            (false, _, _) => format!(
                "nothing to compare: crawl point {point} has no complete run (see crawlscope runs)"
            ),
        };
        return Ok(Changes::nothing(to, note));
    };
    let gen_of = |id: RunId| {
        (runs.iter())
            .find(|run| run.id == id)
            .map(|run| (run.record.gen, run))
            .ok_or(ReportError::NoRun(id))
    };
    let ((from_gen, _), (to_gen, to_run)) = (gen_of(from)?, gen_of(to)?);
    let mut c = compare(ctx, limit, point, from_gen, to_gen)?;
    c.from_run = Some(from);
    c.to_run = Some(to);
    if !to_run.record.complete(to_run.ended) {
        c.note = Some(format!(
            "run {to} is {}, not complete: a URL listed as gone may only be not reached by it",
            to_run.ended.as_str()
        ));
    }
    Ok(c)
}

/// What changed from `point`'s run number `from_gen` to its `to_gen`
/// (the history's keys); the caller names the runs.
fn compare(
    ctx: &Ctx<'_, '_>,
    limit: usize,
    point: PointId,
    from_gen: u32,
    to_gen: u32,
) -> Result<Changes> {
    let from: BTreeMap<PageId, Kept> = ctx.r.kept_entries(point, from_gen)?.into_iter().collect();
    let to: BTreeMap<PageId, Kept> = ctx.r.kept_entries(point, to_gen)?.into_iter().collect();

    let mut new = Vec::new();
    let mut status_changed = Vec::new();
    let mut title_changed = Vec::new();
    let mut content_changed = Vec::new();
    for (&page, now) in &to {
        let Some(was) = from.get(&page) else {
            new.push(ctx.url(page)?);
            continue;
        };
        if was.status() != now.status() {
            status_changed.push(Change {
                url: ctx.url(page)?,
                from: was.status(),
                to: now.status(),
            });
            continue;
        }
        // Both lean on the page record: the same title and body.
        if matches!((was, now), (Kept::AsPage { .. }, Kept::AsPage { .. })) {
            continue;
        }
        let was = ctx.r.resolve_entry(page, was.clone())?;
        let now = ctx.r.resolve_entry(page, now.clone())?;
        // Title and body are compared between two 2xx answers only: a page
        // that now fails is a status change, not a new title.
        if let (Some(a), Some(b)) = (was.content_hash, now.content_hash) {
            if was.title != now.title {
                title_changed.push(Change {
                    url: ctx.url(page)?,
                    from: was.title.clone(),
                    to: now.title.clone(),
                });
            }
            if a != b {
                content_changed.push(ctx.url(page)?);
            }
        }
    }
    let mut gone = Vec::new();
    for &page in from.keys().filter(|p| !to.contains_key(p)) {
        gone.push(ctx.url(page)?);
    }
    new.sort();
    gone.sort();
    content_changed.sort();
    status_changed.sort_by(|a, b| a.url.cmp(&b.url));
    title_changed.sort_by(|a, b| a.url.cmp(&b.url));
    let totals = [
        new.len(),
        gone.len(),
        status_changed.len(),
        title_changed.len(),
        content_changed.len(),
    ];
    new.truncate(limit);
    gone.truncate(limit);
    status_changed.truncate(limit);
    title_changed.truncate(limit);
    content_changed.truncate(limit);
    Ok(Changes {
        from_run: None,
        to_run: None,
        new,
        gone,
        status_changed,
        title_changed,
        content_changed,
        note: None,
        totals,
    })
}

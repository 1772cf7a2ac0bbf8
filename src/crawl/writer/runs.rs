//! A run's record through its life: begun (or joined, by a second
//! crawler of the point while its queue is not empty) when a crawler
//! starts on a point, its counts added by every batch, its running time
//! by every heartbeat ([`add_running`]), and ended when
//! its last crawler leaves: `finished` when nothing is left queued,
//! `stopped` when something is. A run whose crawlers all died stays
//! `running` in its record and reads as interrupted ([`run_ended`]); the
//! next crawl of its point marks it so when it starts a new one.

use std::collections::HashMap;
use std::time::Duration;

use url::Url;

use super::counters::count_run;
use super::link_id::link_id;
use super::liveness::{instance_dead, live_instances};
use crate::crawl::policy::{PointRun, Runs};
use crate::crawl::rescope::{self, Rescoped};
use crate::store::prelude::*;
use crate::store::{
    FrontierEntry, InstanceId, InstanceRecord, PointId, PointRecord, RunCounts, RunEnd, RunFlags,
    RunRecord, StoreError, UrlState, Writer,
};
use crate::time::{unix_now, unix_now_ms};

/// The limits a crawl's command line puts over its points' own.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overrides {
    pub depth: Option<u32>,
    pub max_pages: Option<u64>,
}

/// Starts a new run of a point (bumping its generation and queueing its
/// URL) unless one is under way (queued entries or live claims), in which
/// case crawler `me` joins it. Returns the run and how many URLs it queued.
pub(super) fn begin_run(
    w: &mut Writer<'_>,
    id: PointId,
    mut rec: PointRecord,
    instances: &HashMap<InstanceId, InstanceRecord>,
    me: InstanceId,
    overrides: Overrides,
) -> Result<(PointRun, Rescoped), StoreError> {
    let live_claims = w.claims()?.into_iter().any(|(_, s)| match s {
        UrlState::Claimed { point, by, .. } => point == id && !instance_dead(instances, by),
        _ => false,
    });
    let joining = w.has_queued(&[id])? || live_claims;
    let mut rescoped = Rescoped::default();
    if rec.dirty {
        let gen = if joining { rec.gen } else { rec.gen + 1 };
        rescoped = rescope::rescope(w, id, &mut rec, gen)?;
    }
    let current = w.run_of_gen(id, rec.gen)?;
    let (run_id, mut run) = match current {
        Some((run_id, mut run)) if joining => {
            run.ended = RunEnd::Running;
            run.ended_at = None;
            run.crawlers.retain(|&c| !instance_dead(instances, c));
            run.crawlers.push(me);
            // A resumed run's flags govern what it fetches from now on,
            // queued URLs included: its record says so (a run stopped by
            // `--max-pages` and resumed without it may end complete).
            run.flags = run_flags(&rec, overrides);
            (run_id, run)
        }
        _ => {
            if let Some((old_id, mut old)) = current.filter(|(_, r)| r.ended == RunEnd::Running) {
                old.ended = RunEnd::Interrupted;
                w.put_run(old_id, &old)?;
            }
            if !joining {
                rec.gen += 1;
                w.put_point(id, &rec)?;
                queue_start(w, id, &rec)?;
                rescoped.queued += 1;
            }
            let run = new_run(id, &rec, me, overrides);
            (w.add_run(&run)?, run)
        }
    };
    for e in &rescoped.skipped {
        count_run(&mut run.counts, e);
    }
    w.put_run(run_id, &run)?;
    let doc_excludes = crate::documents::excludes_for(w, &rec)?;
    let mut point_run = PointRun::of(&rec).and_doc_excludes(&rec, doc_excludes);
    point_run.depth = overrides.depth.or(point_run.depth);
    point_run.run = run_id;
    Ok((point_run, rescoped))
}

fn new_run(point: PointId, rec: &PointRecord, me: InstanceId, o: Overrides) -> RunRecord {
    RunRecord {
        point,
        gen: rec.gen,
        started_at: unix_now(),
        ended_at: None,
        ended: RunEnd::Running,
        crawlers: vec![me],
        flags: run_flags(rec, o),
        counts: RunCounts::default(),
        running_ms: 0,
        ran_to_ms: unix_now_ms(),
    }
}

/// A run's flags: the point's own, with this crawl's overrides.
fn run_flags(rec: &PointRecord, o: Overrides) -> RunFlags {
    let own = RunFlags::of(rec);
    RunFlags {
        depth: o.depth.or(own.depth),
        max_pages: o.max_pages.or(own.max_pages),
        depth_override: o.depth.is_some(),
        max_pages_override: o.max_pages.is_some(),
        ..own
    }
}

/// Adds to each run of `runs` the `ran` this crawler ran (pauses
/// excluded) since it last added, as a stretch ending now; the part of
/// it another crawler of the run already counted, or from before a run
/// added since began, is not added again.
pub(super) fn add_running(
    w: &mut Writer<'_>,
    runs: &Runs,
    ran: Duration,
) -> Result<(), StoreError> {
    let now = unix_now_ms();
    let ran = i64::try_from(ran.as_millis()).unwrap_or(i64::MAX);
    for point_run in runs.values() {
        let Some(mut run) = w.run(point_run.run)? else {
            continue;
        };
        let new = ran.min(now - run.ran_to_ms);
        if new <= 0 {
            continue;
        }
        run.running_ms += new.unsigned_abs();
        run.ran_to_ms = now;
        w.put_run(point_run.run, &run)?;
    }
    Ok(())
}

/// Queues a point's start URL for its new run.
fn queue_start(w: &mut Writer<'_>, id: PointId, rec: &PointRecord) -> Result<(), StoreError> {
    let url = Url::parse(&rec.url)
        .map_err(|e| StoreError::corrupt(format!("crawl point {id} URL {}: {e}", rec.url)))?;
    let (page, _) = link_id(&PointRun::of(rec), w, &url)?;
    w.enqueue(
        page,
        FrontierEntry {
            page,
            depth: 0,
            point: id,
            gen: rec.gen,
            hops: 0,
        },
    )
}

/// Crawler `me` leaves the runs of `runs`: each one it was the last live
/// crawler of ends, `stopped` if its point still has URLs queued (its
/// claims went back to the queue before), else `finished`.
pub(super) fn end_runs(w: &mut Writer<'_>, runs: &Runs, me: InstanceId) -> Result<(), StoreError> {
    let instances = live_instances(w)?;
    for (&point, point_run) in runs {
        let Some(mut run) = w.run(point_run.run)? else {
            continue;
        };
        run.crawlers
            .retain(|&c| c != me && !instance_dead(&instances, c));
        if run.crawlers.is_empty() {
            run.ended = if w.has_queued(&[point])? {
                RunEnd::Stopped
            } else {
                RunEnd::Finished
            };
            run.ended_at = Some(unix_now());
        }
        w.put_run(point_run.run, &run)?;
    }
    Ok(())
}

/// How a run ended, as it reads now: a run still `running` whose crawlers
/// are all dead (as the queue's dead-crawler rule has it) was interrupted.
pub fn run_ended(run: &RunRecord, instances: &HashMap<InstanceId, InstanceRecord>) -> RunEnd {
    match run.ended {
        RunEnd::Running if run.crawlers.iter().all(|&c| instance_dead(instances, c)) => {
            RunEnd::Interrupted
        }
        ended => ended,
    }
}

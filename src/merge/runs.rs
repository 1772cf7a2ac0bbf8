//! A shard's crawl points and runs in the merged store. Points are one by
//! URL (the newer record's rules, the higher generation); runs are one
//! by point and generation: what every shard's crawler counted of a run
//! is added up, from its earliest start to its latest end, and so are
//! its requests' figures per origin. Each shard run is kept as last
//! merged (`store::merged`) and the merged run folded again from all of
//! them, so a shard merged twice counts once.

use std::collections::BTreeMap;

use crate::store::prelude::*;
use crate::store::{
    MergedPart, OriginFigures, PointId, Reader, RunEnd, RunRecord, StoreError, StoreId, Writer,
};

use super::ids::Ids;

/// Merges `r`'s points and runs; returns what became of their ids.
pub fn points_and_runs(
    w: &mut Writer<'_>,
    r: &Reader<'_>,
    shard: &StoreId,
) -> Result<Ids, StoreError> {
    let mut ids = Ids::default();
    for (id, rec) in r.points()? {
        let merged = match w.point_by_url(&rec.url)? {
            Some((merged, have)) => {
                if (rec.gen, rec.updated_at) > (have.gen, have.updated_at) {
                    let mut newer = rec.clone();
                    newer.gen = rec.gen.max(have.gen);
                    w.put_point(merged, &newer)?;
                } else if rec.gen > have.gen {
                    w.put_point(
                        merged,
                        &crate::store::PointRecord {
                            gen: rec.gen,
                            ..have
                        },
                    )?;
                }
                merged
            }
            None => w.add_point(&rec)?,
        };
        ids.points.insert(id, (merged, rec));
    }
    for (id, rec) in r.runs(None)? {
        let point = ids.point(rec.point)?;
        let merged = match w.merged_run_of(shard, id)? {
            Some(merged) => merged,
            None => match w.run_of_gen(point, rec.gen)? {
                Some((merged, _)) => merged,
                None => w.add_run(&RunRecord {
                    point,
                    ..rec.clone()
                })?,
            },
        };
        let part = MergedPart {
            origins: r.origin_figures_of(|run| run == id)?,
            run: rec,
        };
        w.put_merged_run(shard, id, merged, &part)?;
        let parts = w.merged_into(merged)?;
        w.put_run(merged, &fold(point, &parts)?)?;
        let mut origins: BTreeMap<&str, OriginFigures> = BTreeMap::new();
        for (origin, figures) in parts.iter().flat_map(|p| &p.origins) {
            origins.entry(origin).or_default().add(figures);
        }
        for (origin, figures) in origins {
            w.put_origin_figures(origin, merged, &figures)?;
        }
        ids.runs.insert(id, merged);
    }
    Ok(ids)
}

/// One run of `point` from the shard runs it was crawled in.
fn fold(point: PointId, parts: &[MergedPart]) -> Result<RunRecord, StoreError> {
    let (first, rest) = parts
        .split_first()
        .ok_or_else(|| StoreError::corrupt("a merged run without a shard run"))?;
    let first = &first.run;
    let mut run = RunRecord {
        point,
        // The shards' crawler ids mean nothing here; a run without
        // crawlers that did not end reads as interrupted.
        crawlers: Vec::new(),
        ..first.clone()
    };
    for part in rest.iter().map(|p| &p.run) {
        run.started_at = run.started_at.min(part.started_at);
        run.ended_at = run.ended_at.max(part.ended_at);
        run.counts.add(&part.counts);
        run.running_ms = run.running_ms.max(part.running_ms);
        run.ran_to_ms = run.ran_to_ms.max(part.ran_to_ms);
        // Finished only when every shard's crawler finished it.
        if run.ended == RunEnd::Finished {
            run.ended = part.ended;
        }
    }
    Ok(run)
}

//! The one upgrade path: a store of schema 17 to 18. Schema 17 kept a
//! point's last two runs as history alone; 18 records each run in the
//! `runs` table. The upgrade gives every run with history a record: its
//! flags are its point's, its counts those of the URL states it left, and
//! it ended `finished`, or `stopped` where its point still has URLs
//! queued (17 kept no times: they stay unknown). The rest of the layout is
//! 17's, so nothing else is rewritten.

use std::collections::{BTreeSet, HashMap};

use heed::RwTxn;

use super::codec::{self, read_u32, u32_key};
use super::history::split_key;
use super::schema::{
    meta_keys, Dbs, FrontierEntry, PointId, PointRecord, RunCounts, RunEnd, RunFlags, RunRecord,
    UrlState,
};
use super::Result;

/// The schema this module upgrades from.
pub(super) const FROM: u32 = 17;

/// Writes the records schema 18 adds to a store of schema 17, in the
/// transaction that opens it.
pub(super) fn from_17(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    let mut runs = BTreeSet::new();
    for item in dbs.run_history.iter(txn)? {
        let (point, gen, _) = split_key(item?.0)?;
        runs.insert((point, gen));
    }
    let mut points: HashMap<PointId, PointRecord> = HashMap::new();
    for item in dbs.crawl_points.iter(txn)? {
        let (k, v) = item?;
        points.insert(read_u32(k)?, codec::decode(v)?);
    }
    let mut queued = BTreeSet::new();
    for item in dbs.frontier.iter(txn)? {
        let e: FrontierEntry = codec::decode(item?.1)?;
        queued.insert(e.point);
    }
    let mut counts: HashMap<(PointId, u32), RunCounts> = HashMap::new();
    for item in dbs.url_state.iter(txn)? {
        let state: UrlState = codec::decode(item?.1)?;
        let c = counts.entry(state.run()).or_default();
        match state {
            UrlState::Done { .. } => c.fetched += 1,
            UrlState::Failed { .. } => c.failed += 1,
            UrlState::Redirected { .. } => c.redirected += 1,
            UrlState::Skipped { reason, .. } => *c.skipped_mut(reason) += 1,
            UrlState::Queued { .. } | UrlState::Claimed { .. } => {}
        }
    }
    let mut id: u32 = 1;
    for (point, gen) in runs {
        let flags = points.get(&point).map(RunFlags::of).unwrap_or_default();
        let current = points.get(&point).is_some_and(|p| p.gen == gen);
        let rec = RunRecord {
            point,
            gen,
            started_at: None,
            ended_at: None,
            ended: if current && queued.contains(&point) {
                RunEnd::Stopped
            } else {
                RunEnd::Finished
            },
            crawlers: Vec::new(),
            flags,
            counts: counts.remove(&(point, gen)).unwrap_or_default(),
        };
        dbs.runs.put(txn, &u32_key(id), &codec::encode(&rec)?)?;
        id += 1;
    }
    dbs.meta
        .put(txn, meta_keys::NEXT_RUN, &u64::from(id).to_be_bytes())?;
    Ok(())
}

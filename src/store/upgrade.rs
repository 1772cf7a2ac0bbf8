//! The upgrade paths: a store of schema 17 to 18, and 18 to 19; a store
//! of 17 takes both. Schema 17 kept a point's last two runs as history
//! alone; 18 records each run in the `runs` table. The upgrade gives every
//! run with history a record: its flags are its point's, its counts those
//! of the URL states it left, and it ended `finished`, or `stopped` where
//! its point still has URLs queued (17 kept no times: they stay unknown).
//! 19 lets a queued or claimed URL keep an earlier run's fact: the queued
//! and claimed states of 18 are rewritten with none (18 had overwritten
//! it). 20 adds settings at the end of a point record, each one zero byte
//! when unset, so a point of 17 to 19 takes those bytes; a run record of
//! 18 or 19 is decoded in its own layout and written in 20's. 21 appends
//! the rendering settings to a point record the same way. 22 keeps each
//! stem once (`stem_layout`). 23 codes `doc_freq` entries, near
//! signatures and `word_ids` entries smaller and drops the kept figures
//! (`upgrade_23`). 24 lets a repack put page records in shared frames
//! (`record_blocks`), which a store of 23 has none of: it only takes the
//! new number. The rest of the layout is 17's, so nothing else is
//! rewritten.

use std::collections::{BTreeSet, HashMap};

use heed::RwTxn;

use super::codec::{self, read_u32, u32_key};
use super::history::split_key;
use super::schema::{
    meta_keys, Db, Dbs, FrontierEntry, InstanceId, PointId, PointRecord, RunCounts, RunEnd,
    RunFlags, RunRecord, UrlState,
};
use super::Result;

/// The oldest schema this module upgrades from.
pub(super) const FROM: u32 = 17;

/// Schema 18's (and 17's) queued or claimed state, None for the others,
/// whose encoding 19 keeps. Postcard writes a variant as its tag (one
/// byte for these) and then its fields, as it writes a tuple; neither
/// carried an earlier fact.
fn queue_state_of_18(bytes: &[u8]) -> Result<Option<UrlState>> {
    Ok(match bytes.first() {
        Some(0) => {
            let (_, point, gen): (u8, PointId, u32) = codec::decode(bytes)?;
            Some(UrlState::Queued {
                point,
                gen,
                had: None,
            })
        }
        Some(1) => {
            let (_, point, gen, by, depth, hops): (u8, PointId, u32, InstanceId, u32, u8) =
                codec::decode(bytes)?;
            Some(UrlState::Claimed {
                point,
                gen,
                by,
                depth,
                hops,
                had: None,
            })
        }
        _ => None,
    })
}

/// Brings a store of schema `from` (17 to 23) to the current one, in the
/// transaction that opens it.
pub(super) fn upgrade(txn: &mut RwTxn<'_>, dbs: &Dbs, from: u32) -> Result<()> {
    // Points first: 17's runs are made from them in the current layout.
    pad_points(txn, dbs, point_fields_added_after(from))?;
    if from == FROM {
        from_17(txn, dbs)?;
    } else if from < 20 {
        runs_to_20(txn, dbs)?;
    }
    if from < 19 {
        from_18(txn, dbs)?;
    }
    if from < 23 {
        super::upgrade_23::stem_entries(txn, dbs)?;
        super::stem_layout::bring(txn, dbs)?;
        super::upgrade_23::bring(txn, dbs)?;
    }
    Ok(())
}

/// The settings appended to a point record since schema `from`, each one
/// zero byte when unset (false, an empty list, None, the first variant):
/// six in 20, three in 21, none since.
fn point_fields_added_after(from: u32) -> usize {
    match from {
        ..=19 => 9,
        20 => 3,
        _ => 0,
    }
}

/// Writes each record of `db` that `anew` gives a new value (from its key
/// and old value) again with it; the others stay as they are.
pub(super) fn rewrite(
    txn: &mut RwTxn<'_>,
    db: Db,
    mut anew: impl FnMut(&[u8], &[u8]) -> Result<Option<Vec<u8>>>,
) -> Result<()> {
    let mut rewrite = Vec::new();
    for item in db.iter(txn)? {
        let (k, v) = item?;
        if let Some(new) = anew(k, v)? {
            rewrite.push((k.to_vec(), new));
        }
    }
    for (k, v) in rewrite {
        db.put(txn, &k, &v)?;
    }
    Ok(())
}

/// Gives each point the unset settings appended after its schema.
fn pad_points(txn: &mut RwTxn<'_>, dbs: &Dbs, fields: usize) -> Result<()> {
    rewrite(txn, dbs.crawl_points, |_, v| {
        let mut v = v.to_vec();
        v.resize(v.len() + fields, 0);
        Ok(Some(v))
    })
}

/// A run's flags as 18 and 19 wrote them: depth, max pages, the two
/// overrides, check external, follow nofollow, no sitemaps, distinct www.
type Flags19 = (Option<u32>, Option<u64>, bool, bool, bool, bool, bool, bool);
/// A run record as 18 and 19 wrote it; its counts lack 20's last two.
type Run19 = (
    PointId,
    u32,
    Option<i64>,
    Option<i64>,
    RunEnd,
    Vec<InstanceId>,
    Flags19,
    [u64; 12],
);

/// Rewrites each run of 18 or 19 in 20's layout (new settings unset, no
/// resources counted).
fn runs_to_20(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    rewrite(txn, dbs.runs, |_, v| {
        let (point, gen, started_at, ended_at, ended, crawlers, f, c): Run19 = codec::decode(v)?;
        let flags = RunFlags {
            depth: f.0,
            max_pages: f.1,
            depth_override: f.2,
            max_pages_override: f.3,
            check_external: f.4,
            follow_nofollow: f.5,
            no_sitemaps: f.6,
            distinct_www: f.7,
            ..RunFlags::default()
        };
        let counts = RunCounts {
            fetched: c[0],
            failed: c[1],
            redirected: c[2],
            not_modified: c[3],
            unchanged: c[4],
            skipped_robots: c[5],
            out_of_scope: c[6],
            excluded: c[7],
            too_deep: c[8],
            nofollow: c[9],
            external_checked: c[10],
            external_broken: c[11],
            ..RunCounts::default()
        };
        let rec = RunRecord {
            point,
            gen,
            started_at,
            ended_at,
            ended,
            crawlers,
            flags,
            counts,
            running_ms: 0,
            ran_to_ms: 0,
        };
        Ok(Some(codec::encode(&rec)?))
    })
}

/// Rewrites 18's queued and claimed states in 19's encoding, with no
/// earlier fact.
fn from_18(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    rewrite(txn, dbs.url_state, |_, v| {
        queue_state_of_18(v)?
            .map(|state| codec::encode(&state))
            .transpose()
    })
}

/// Writes the records schema 18 adds to a store of schema 17.
fn from_17(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
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
        let v = item?.1;
        let state = match queue_state_of_18(v)? {
            Some(queued) => queued,
            None => codec::decode(v)?,
        };
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
            running_ms: 0,
            ran_to_ms: 0,
        };
        dbs.runs.put(txn, &u32_key(id), &codec::encode(&rec)?)?;
        id += 1;
    }
    dbs.meta
        .put(txn, meta_keys::NEXT_RUN, &u64::from(id).to_be_bytes())?;
    Ok(())
}

//! `check` of the crawl's own tables: the frontier against the URL
//! states and each point's marks, a state for every URL the crawl decided on, crawl points of
//! queued URLs, claims of dead processes, and the run history and run
//! records of known points and URLs, and the documents points name.

use std::collections::{HashMap, HashSet};

use crate::codec::{self, read_u32, read_u64, split_pair_key, u32_key};
use crate::history::{self, Kept};
use crate::page_records::{self, Part};
use crate::schema::{FrontierEntry, InstanceId, PageId, PointId, UrlState};
use crate::sealed::View;
use crate::{
    Decision, DocumentRead, FrontierRead, LinkRead, PageRead, PointMark, PointMarkRead, PointRead,
    Result, RunRead,
};

use super::{InUse, Problems};

/// Run history names a crawl point that exists (removing one drops its
/// history), a URL the store knows, and runs no newer than the point's
/// current run, each of which has its record in `runs`; every run record
/// names a point that exists.
pub(super) fn check_history<V: View + ?Sized>(
    v: &V,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let points: HashMap<PointId, u32> = v
        .points()?
        .into_iter()
        .map(|(id, rec)| (id, rec.gen))
        .collect();
    let mut runs: HashMap<PointId, HashSet<u32>> = HashMap::new();
    for item in d.run_history.iter(t)? {
        let (k, val) = item?;
        let (point, gen, block) = history::split_key(k)?;
        for entry in history::block_entries(block, val) {
            let (page, kept) = entry?;
            if let Kept::AsPage { .. } = kept {
                if d.pages.get(t, &u32_key(page))?.is_none() {
                    p.add(format!(
                        "run history of page {page} leans on a page record it lacks"
                    ));
                }
            }
            if d.urls.get(t, &u32_key(page))?.is_none() {
                p.add(format!("run history of page {page}, which has no URL"));
            }
        }
        in_use.point = in_use.point.max(u64::from(point));
        match points.get(&point) {
            None => p.add(format!(
                "run history of crawl point {point}, which does not exist"
            )),
            Some(&current) if gen > current => p.add(format!(
                "run history of crawl point {point} run {gen}, past its current run {current}"
            )),
            Some(_) => {}
        }
        runs.entry(point).or_default().insert(gen);
    }
    let recorded: HashSet<(PointId, u32)> = (v.runs(None)?.into_iter())
        .map(|(_, run)| (run.point, run.gen))
        .collect();
    for &(point, _) in recorded.iter().filter(|(pt, _)| !points.contains_key(pt)) {
        p.add(format!(
            "a run of crawl point {point}, which does not exist"
        ));
    }
    for (point, gens) in runs {
        for gen in gens
            .into_iter()
            .filter(|&g| !recorded.contains(&(point, g)))
        {
            p.add(format!(
                "run history of crawl point {point} run {gen}, which has no run record"
            ));
        }
    }
    Ok(())
}

pub(super) fn check_frontier<V: View + ?Sized>(
    v: &V,
    is_dead: &dyn Fn(InstanceId) -> bool,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let points = point_ids(v)?;
    // Removing a point drops its queued URLs, frontier entries and states
    // alike; a queued URL of a missing point is a lost point record.
    let no_point = |page: PageId, point: PointId, p: &mut Problems| {
        if !points.contains(&point) {
            p.add(format!(
                "page {page} is queued for crawl point {point}, which does not exist"
            ));
        }
    };
    let mut entered: HashSet<PageId> = HashSet::new();
    for item in d.frontier.iter(t)? {
        let (k, val) = item?;
        match k.get(4..12) {
            Some(seq) => in_use.frontier_seq = in_use.frontier_seq.max(read_u64(seq)?),
            None => p.add("frontier key is not 12 bytes".to_string()),
        }
        let e: FrontierEntry = codec::decode(val)?;
        entered.insert(e.page);
        in_use.point = in_use.point.max(u64::from(e.point));
        no_point(e.page, e.point, p);
        // Queued, or claimed by another point's crawl: the entry waits.
        match d.url_state.get(t, &u32_key(e.page))? {
            Some(s) => {
                let state = codec::decode::<UrlState>(s)?;
                if !matches!(state, UrlState::Queued { .. } | UrlState::Claimed { .. }) {
                    p.add(format!("page {} is in the frontier but not queued", e.page));
                }
            }
            None => p.add(format!(
                "page {} is in the frontier without a state",
                e.page
            )),
        }
        let queued = PointMark {
            gen: e.gen,
            decision: Decision::Queued,
            depth: e.depth,
        };
        if v.point_mark(e.point, e.page)? != Some(queued) {
            p.add(format!(
                "page {} is in crawl point {}'s frontier without its mark",
                e.page, e.point
            ));
        }
    }
    for item in d.url_state.iter(t)? {
        let (k, val) = item?;
        let page = read_u32(k)?;
        let state = codec::decode::<UrlState>(val)?;
        let (point, gen) = state.run();
        in_use.point = in_use.point.max(u64::from(point));
        match state {
            UrlState::Queued { point, .. } => {
                no_point(page, point, p);
                if !entered.contains(&page) {
                    p.add(format!("page {page} is queued but not in the frontier"));
                }
            }
            UrlState::Claimed { by, .. } => {
                in_use.instance = in_use.instance.max(u64::from(by));
                if is_dead(by) {
                    p.add(format!(
                        "page {page} is claimed by crawler {by}, which is gone"
                    ));
                }
            }
            _ => {}
        }
        // The run that wrote a state decided on the URL: its point marked
        // it then (a later run of the point may have marked it since).
        if points.contains(&point) && v.point_mark(point, page)?.is_none_or(|m| m.gen < gen) {
            p.add(format!(
                "page {page}'s state was written by crawl point {point} run {gen}, which has no mark of it"
            ));
        }
        if d.urls.get(t, &u32_key(page))?.is_none() {
            p.add(format!("page {page} has a state but no URL"));
        }
    }
    for item in d.point_urls.iter(t)? {
        let (k, _) = item?;
        let point = read_u32(k.get(..4).unwrap_or(k))?;
        if !points.contains(&point) {
            p.add(format!(
                "a frontier mark of crawl point {point}, which does not exist"
            ));
        }
    }
    Ok(())
}

fn point_ids<V: View + ?Sized>(v: &V) -> Result<HashSet<PointId>> {
    Ok(v.points()?.into_iter().map(|(id, _)| id).collect())
}

/// Every URL the crawl decided on has a state: each start URL of a crawl
/// point, and each link of a page followed (done) for a point that still
/// exists, since following a page queues, skips or leaves to its owner
/// every link. Links of pages not followed (an error status) are recorded
/// without a state, and removing a point drops the states of its queued
/// URLs: those are the only URLs seen without one. A shard of a shared
/// frontier (`crawl --frontier`) hands the URLs it finds to the frontier:
/// such a URL has its point's queued mark and no state (another crawler
/// may have fetched it, into its own shard).
pub(super) fn check_seen_urls<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let has_state =
        |page: PageId| -> Result<bool> { Ok(d.url_state.get(t, &u32_key(page))?.is_some()) };
    let decided = |point: PointId, page: PageId| -> Result<bool> {
        Ok(has_state(page)?
            || v.point_mark(point, page)?
                .is_some_and(|m| m.decision == Decision::Queued))
    };
    let points = point_ids(v)?;
    for (point, rec) in v.points()? {
        let Ok(url) = url::Url::parse(&rec.url) else {
            p.add(format!("crawl point {point}: start URL does not parse"));
            continue;
        };
        // A corrupt URL record (one whose origin is gone) is named where
        // the URL records are checked.
        if let Ok(Some(page)) = v.page_id(&url) {
            if !decided(point, page)? {
                p.add(format!(
                    "page {page}: start URL of crawl point {point} without a state"
                ));
            }
        }
    }
    for item in d.forward.iter(t)? {
        let (k, record) = item?;
        if page_records::part(record, Part::Links)?.is_empty() {
            continue;
        }
        let parent = split_pair_key(k)?.1;
        let followed = match v.url_state(parent)? {
            Some(UrlState::Done { point, .. }) if points.contains(&point) => point,
            _ => continue,
        };
        for child in v.children(parent)? {
            if !decided(followed, child)? {
                p.add(format!(
                    "page {child}: linked from page {parent}, which was followed, but without a state"
                ));
            }
        }
    }
    Ok(())
}

/// A crawl point names documents that exist: purging a document takes
/// its name off every point in the same transaction, so a missing one is
/// a lost record (and its excludes with it).
pub(super) fn check_documents<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    for (id, point) in v.points()? {
        for name in point.docs {
            if v.document(&name)?.is_some() {
                continue;
            }
            p.add(format!(
                "crawl point {id} is in document {name:?}, which does not exist"
            ));
        }
    }
    Ok(())
}

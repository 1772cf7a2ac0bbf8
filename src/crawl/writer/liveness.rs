//! Which crawlers are alive: each registers with its pid and beats a
//! heartbeat into the store (with its requests on the wire); one whose
//! process is gone, or that has been silent too long, is dead and its
//! claims go back to the queue. From that, the work at hand as another
//! process reads it ([`work_at_hand`]).

use std::collections::HashMap;

use crate::store::prelude::*;
use crate::store::{InstanceId, InstanceRecord, StoreError, UrlState, Writer};
use crate::time::unix_now_ms;

/// A crawler silent this long is taken for dead even if its pid lives on.
const STALE_HEARTBEAT_MS: i64 = 30_000;

pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether crawler `id` is gone, given the registry of live crawlers.
pub fn instance_dead(instances: &HashMap<InstanceId, InstanceRecord>, id: InstanceId) -> bool {
    match instances.get(&id) {
        None => true,
        Some(r) => !pid_alive(r.pid) || unix_now_ms() - r.heartbeat_ms > STALE_HEARTBEAT_MS,
    }
}

/// The registry of crawlers, as [`instance_dead`] reads it.
pub(super) fn live_instances<R: FrontierRead>(
    r: &R,
) -> Result<HashMap<InstanceId, InstanceRecord>, StoreError> {
    Ok(r.instances()?.into_iter().collect())
}

/// The record that says process `pid` is alive, now, with `in_flight`
/// requests on the wire: the one place it is built, for registering and
/// for every heartbeat.
pub(super) fn heartbeat(pid: u32, in_flight: u64) -> InstanceRecord {
    InstanceRecord {
        pid,
        heartbeat_ms: unix_now_ms(),
        in_flight: u32::try_from(in_flight).unwrap_or(u32::MAX),
    }
}

/// Records in `w` that crawler `instance`, process `pid`, is alive, now,
/// with `in_flight` requests on the wire.
pub(super) fn beat(
    w: &mut Writer<'_>,
    instance: InstanceId,
    pid: u32,
    in_flight: u64,
) -> Result<(), StoreError> {
    w.heartbeat(instance, heartbeat(pid, in_flight))
}

/// What waits and what is under way, as one snapshot of the store tells
/// it: the queue (a dead crawler's claims with it: the next crawl takes
/// them first), the live crawlers' claims not on the wire, and their page
/// requests on the wire at their last heartbeat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkAtHand {
    pub queued: u64,
    pub claimed: u64,
    pub in_flight: u64,
}

pub fn work_at_hand<R: FrontierRead>(r: &R) -> Result<WorkAtHand, StoreError> {
    let instances = live_instances(r)?;
    let (mut live, mut dead) = (0u64, 0u64);
    for (_, state) in r.claims()? {
        if let UrlState::Claimed { by, .. } = state {
            if instance_dead(&instances, by) {
                dead += 1;
            } else {
                live += 1;
            }
        }
    }
    let in_flight: u64 = instances
        .iter()
        .filter(|(&id, _)| !instance_dead(&instances, id))
        .map(|(_, rec)| u64::from(rec.in_flight))
        .sum();
    let in_flight = in_flight.min(live);
    Ok(WorkAtHand {
        queued: r.frontier_len()? + dead,
        claimed: live - in_flight,
        in_flight,
    })
}

//! Which crawlers are alive: each registers with its pid and beats a
//! heartbeat into the store; one whose process is gone, or that has been
//! silent too long, is dead and its claims go back to the queue.

use std::collections::HashMap;

use crate::store::prelude::*;
use crate::store::{InstanceId, InstanceRecord, StoreError, Writer};
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

/// The record that says process `pid` is alive, now: the one place it is
/// built, for registering and for every heartbeat.
pub(super) fn heartbeat(pid: u32) -> InstanceRecord {
    InstanceRecord {
        pid,
        heartbeat_ms: unix_now_ms(),
    }
}

/// Records in `w` that crawler `instance`, process `pid`, is alive, now.
pub(super) fn beat(w: &mut Writer<'_>, instance: InstanceId, pid: u32) -> Result<(), StoreError> {
    w.heartbeat(instance, heartbeat(pid))
}

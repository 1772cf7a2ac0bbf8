//! The politeness gate of one origin: how many requests may be in flight
//! to it (a limit that halves when the site asks us to slow down and grows
//! back slowly, never above `--per-host`, never below 1), the minimum gap
//! between request starts (the larger of `--delay-ms` and robots'
//! Crawl-delay), and a pause during which nothing starts (Retry-After).
//! [`super::origins`] keeps one gate per origin beside its health.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Successful answers in a row that earn one more slot after a throttle.
pub const GROW_AFTER: u32 = 20;

struct Slots {
    in_flight: usize,
    limit: usize,
    max: usize,
    good_in_a_row: u32,
    paused_until: Option<Instant>,
}

pub struct Gate {
    slots: Mutex<Slots>,
    /// Woken when a slot frees, the limit grows or a pause is set.
    changed: Notify,
    next_start: tokio::sync::Mutex<Instant>,
}

/// A slot on one origin, freed on drop.
pub struct Slot(Arc<Gate>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.with(|s| s.in_flight = s.in_flight.saturating_sub(1));
        self.0.changed.notify_waiters();
    }
}

impl Gate {
    pub fn new(per_host: usize) -> Gate {
        let max = per_host.max(1);
        Gate {
            slots: Mutex::new(Slots {
                in_flight: 0,
                limit: max,
                max,
                good_in_a_row: 0,
                paused_until: None,
            }),
            changed: Notify::new(),
            next_start: tokio::sync::Mutex::new(Instant::now()),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Slots) -> T) -> T {
        f(&mut self.slots.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Waits for a slot, for the end of any pause and for the gap since the
    /// last request start; the slot is freed when dropped.
    pub async fn acquire(self: &Arc<Self>, gap: Duration) -> Slot {
        loop {
            let slot = self.slot().await;
            if !gap.is_zero() {
                let mut next = self.next_start.lock().await;
                // A timer is not ready on its first poll even when due.
                if *next > Instant::now() {
                    tokio::time::sleep_until(*next).await;
                }
                *next = Instant::now() + gap;
            }
            // A throttle answered while this request waited its gap pauses
            // it too: the site asked for no new requests.
            if self.paused_until().is_none() {
                return slot;
            }
            drop(slot);
        }
    }

    async fn slot(self: &Arc<Self>) -> Slot {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before looking, so a release between the look and
            // the wait is not missed.
            changed.as_mut().enable();
            let now = Instant::now();
            let wait = self.with(|s| {
                match s.paused_until {
                    Some(until) if until > now => return Err(Some(until)),
                    _ => s.paused_until = None,
                }
                if s.in_flight < s.limit {
                    s.in_flight += 1;
                    Ok(())
                } else {
                    Err(None)
                }
            });
            match wait {
                Ok(()) => return Slot(self.clone()),
                Err(Some(until)) => tokio::select! {
                    _ = tokio::time::sleep_until(until) => {}
                    _ = changed => {}
                },
                Err(None) => changed.await,
            }
        }
    }

    /// When the pause asked by the site ends, while one is on.
    pub fn paused_until(&self) -> Option<Instant> {
        let now = Instant::now();
        self.with(|s| s.paused_until.filter(|&u| u > now))
    }

    /// The site asked us to slow down: nothing starts before `until`, and
    /// half as many requests may be in flight from now on.
    pub fn throttle(&self, until: Instant) {
        self.with(|s| {
            s.paused_until = Some(s.paused_until.map_or(until, |u| u.max(until)));
            s.limit = (s.limit / 2).max(1);
            s.good_in_a_row = 0;
        });
        self.changed.notify_waiters();
    }

    /// A good answer (not a throttle, not a 5xx): after [`GROW_AFTER`] of
    /// them in a row the limit grows by one, back up to `--per-host`.
    pub fn answered(&self) {
        let grew = self.with(|s| {
            if s.limit >= s.max {
                return false;
            }
            s.good_in_a_row += 1;
            if s.good_in_a_row < GROW_AFTER {
                return false;
            }
            s.good_in_a_row = 0;
            s.limit += 1;
            true
        });
        if grew {
            self.changed.notify_waiters();
        }
    }

    /// How many requests may be in flight now.
    #[cfg(test)]
    fn limit(&self) -> usize {
        self.with(|s| s.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    // Only lower bounds on time are asserted: a loaded machine can make any
    // wait longer, never shorter. "Not waiting" is asserted as "ready on the
    // first poll" (`now_or_never`), which no load can change.

    fn gate(per_host: usize) -> Arc<Gate> {
        Arc::new(Gate::new(per_host))
    }

    #[tokio::test]
    async fn requests_keep_their_gap() {
        let g = gate(4);
        let start = Instant::now();
        for _ in 0..3 {
            drop(g.acquire(Duration::from_millis(40)).await);
        }
        assert!(start.elapsed() >= Duration::from_millis(80));
        // A gap no test run outlasts: the next start cannot be ready on its
        // first poll however slowly this test runs.
        let g = gate(4);
        let hour = Duration::from_secs(3600);
        drop(g.acquire(hour).await);
        assert!(g.acquire(hour).now_or_never().is_none());
    }

    #[tokio::test]
    async fn per_host_cap_holds_and_a_freed_slot_is_granted() {
        let g = gate(2);
        let a = g.acquire(Duration::ZERO).await;
        let _b = g.acquire(Duration::ZERO).await;
        assert!(
            g.acquire(Duration::ZERO).now_or_never().is_none(),
            "a third slot was granted"
        );
        drop(a);
        assert!(
            g.acquire(Duration::ZERO).now_or_never().is_some(),
            "a freed slot was not granted"
        );
    }

    #[tokio::test]
    async fn a_throttle_pauses_halves_and_grows_back_slowly() {
        let g = gate(8);
        g.throttle(Instant::now() + Duration::from_secs(3600));
        assert!(g.paused_until().is_some());
        assert!(
            g.acquire(Duration::ZERO).now_or_never().is_none(),
            "a request started during the pause"
        );
        assert_eq!(g.limit(), 4);
        g.throttle(Instant::now());
        g.throttle(Instant::now());
        g.throttle(Instant::now());
        assert_eq!(g.limit(), 1, "never below one");
        for _ in 0..GROW_AFTER - 1 {
            g.answered();
        }
        assert_eq!(g.limit(), 1, "grew before {GROW_AFTER} answers");
        g.answered();
        assert_eq!(g.limit(), 2);
        for _ in 0..GROW_AFTER * 20 {
            g.answered();
        }
        assert_eq!(g.limit(), 8, "never above --per-host");
    }

    #[tokio::test]
    async fn the_pause_ends_when_asked() {
        let g = gate(2);
        let start = Instant::now();
        g.throttle(start + Duration::from_millis(150));
        drop(g.acquire(Duration::ZERO).await);
        assert!(start.elapsed() >= Duration::from_millis(150));
        assert!(g.paused_until().is_none());
        // Halved from 2 to 1: a second slot waits for the first.
        let _a = g.acquire(Duration::ZERO).await;
        assert!(g.acquire(Duration::ZERO).now_or_never().is_none());
    }
}

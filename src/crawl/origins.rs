//! Per-origin state, in one place: each origin is `ok`, `throttled` (the
//! site asked for a pause, until when) or `unreachable` (no connection
//! could be made [`UNREACHABLE_AFTER`] times in a row: its URLs fail at
//! once as `host unreachable` for the rest of the run, to be tried again by
//! the next run, instead of each waiting out its own timeouts and
//! retries), and it has its politeness [`Gate`] (slots, gap, pause).
//! Every request of the crawl takes its slot here, so the crawl's own
//! [`Pause`] (the console's `p`) holds here too; with a shared frontier,
//! also the cluster's slot ([`SharedSlots`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::fetch::FetchError;
use super::pause::Pause;
use super::politeness::{Gate, Slot};
use super::shared::{Held, SharedSlots};

/// Consecutive connection failures that take an origin down.
pub const UNREACHABLE_AFTER: u32 = 5;

/// Where an origin stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginState {
    Ok,
    /// Nothing is sent to it before `until` (Retry-After).
    Throttled {
        until: Instant,
    },
    /// Given up on for this run, with the reason.
    Unreachable(String),
}

struct Origin {
    gate: Arc<Gate>,
    failures_in_a_row: u32,
    down: Option<String>,
}

/// A request's right to start: its slot at the origin's gate and, with a
/// shared frontier, its hold on the cluster's; both end when it drops.
pub struct Permit {
    _slot: Slot,
    /// The cluster's hold, and the gate whose pause it carries back.
    held: Option<(Held, Arc<Gate>)>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Some((held, gate)) = self.held.take() {
            // Throttled before the permit drops (see `Origins::throttled`):
            // the pause goes to the cluster with the hold's end.
            let now = Instant::now();
            held.release(
                gate.paused_until()
                    .map(|u| u.saturating_duration_since(now)),
            );
        }
    }
}

pub struct Origins {
    per_host: usize,
    delay: Duration,
    map: Mutex<HashMap<String, Origin>>,
    pause: Arc<Pause>,
    /// With a shared frontier: the gap holds across its crawlers.
    shared: Option<Arc<SharedSlots>>,
}

impl Origins {
    pub fn new(per_host: usize, delay: Duration, pause: Arc<Pause>) -> Origins {
        Origins {
            per_host,
            delay,
            map: Mutex::new(HashMap::new()),
            pause,
            shared: None,
        }
    }

    /// The gaps kept across the crawlers sharing a frontier, too.
    pub fn sharing(mut self, shared: Option<Arc<SharedSlots>>) -> Origins {
        self.shared = shared;
        self
    }

    fn with<T>(&self, origin: &str, f: impl FnOnce(&mut Origin) -> T) -> T {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let o = map.entry(origin.to_string()).or_insert_with(|| Origin {
            gate: Arc::new(Gate::new(self.per_host)),
            failures_in_a_row: 0,
            down: None,
        });
        f(o)
    }

    pub fn state(&self, origin: &str) -> OriginState {
        self.with(origin, |o| match (&o.down, o.gate.paused_until()) {
            (Some(why), _) => OriginState::Unreachable(why.clone()),
            (None, Some(until)) => OriginState::Throttled { until },
            (None, None) => OriginState::Ok,
        })
    }

    /// Whether any origin is paused now (a cheap test before looking at
    /// each URL's origin).
    pub fn any_throttled(&self) -> bool {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.values().any(|o| o.gate.paused_until().is_some())
    }

    /// Why the origin is down, if it is.
    pub fn down(&self, origin: &str) -> Option<String> {
        match self.state(origin) {
            OriginState::Unreachable(why) => Some(why),
            OriginState::Ok | OriginState::Throttled { .. } => None,
        }
    }

    /// Waits for a slot on `origin`, the end of any pause (the site's and
    /// the crawl's) and the gap (the larger of `--delay-ms` and robots'
    /// Crawl-delay).
    pub async fn acquire(&self, origin: &str, crawl_delay: Option<Duration>) -> Permit {
        let gate = self.with(origin, |o| o.gate.clone());
        // Files are read, not asked of a server: no gap to keep.
        let file = origin.starts_with("file:");
        let gap = if file {
            Duration::ZERO
        } else {
            self.delay.max(crawl_delay.unwrap_or_default())
        };
        loop {
            self.pause.released().await;
            let slot = gate.acquire(gap).await;
            let held = match self.shared.as_ref().filter(|_| !file) {
                Some(shared) => shared.take(origin, gap).await,
                None => None,
            };
            let permit = Permit {
                _slot: slot,
                held: held.map(|h| (h, gate.clone())),
            };
            // Paused while this request waited for its slot or its gap:
            // it must not start now, though its turn came.
            if !self.pause.held() {
                return permit;
            }
        }
    }

    /// An answer that was not a throttle: the origin is reachable, and,
    /// unless it is a 5xx, its concurrency may grow back.
    pub fn answered(&self, origin: &str, status: u16) {
        self.with(origin, |o| {
            o.failures_in_a_row = 0;
            if status < 500 {
                o.gate.answered();
            }
        });
    }

    /// The origin answered 429 or 503 with Retry-After: pause it for
    /// `wait` and halve its concurrency. Called before the request's
    /// permit drops, which tells the other crawlers.
    pub fn throttled(&self, origin: &str, wait: Duration) {
        self.with(origin, |o| {
            o.failures_in_a_row = 0;
            o.gate.throttle(Instant::now() + wait);
        });
    }

    /// Counts a failed fetch; returns the reason the origin is now down
    /// when this failure is the one that takes it down (once per origin).
    pub fn failed(&self, origin: &str, e: &FetchError) -> Option<String> {
        if !e.is_unreachable() {
            return None;
        }
        self.with(origin, |o| {
            o.failures_in_a_row += 1;
            if o.down.is_some() || o.failures_in_a_row < UNREACHABLE_AFTER {
                return None;
            }
            let why = format!("host unreachable: {}", e.reason);
            o.down = Some(why.clone());
            Some(why)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::fetch::FailKind;
    use futures_util::FutureExt;

    fn err(kind: FailKind, reason: &str) -> FetchError {
        FetchError {
            kind,
            reason: reason.into(),
            retryable: true,
        }
    }

    fn origins() -> Origins {
        Origins::new(8, Duration::ZERO, Arc::default())
    }

    #[test]
    fn consecutive_connection_failures_take_an_origin_down_once() {
        let o = origins();
        let refused = err(FailKind::Refused, "connection refused");
        for _ in 1..UNREACHABLE_AFTER {
            assert_eq!(o.failed("http://a", &refused), None);
        }
        assert_eq!(
            o.failed("http://a", &refused).as_deref(),
            Some("host unreachable: connection refused")
        );
        assert_eq!(o.failed("http://a", &refused), None, "said once");
        assert_eq!(
            o.state("http://a"),
            OriginState::Unreachable("host unreachable: connection refused".into())
        );
        assert_eq!(o.down("http://b"), None, "per origin");
        assert_eq!(o.state("http://b"), OriginState::Ok);
    }

    #[test]
    fn an_answer_or_a_slow_page_does_not_count() {
        let o = origins();
        let refused = err(FailKind::Refused, "connection refused");
        for _ in 0..10 {
            for _ in 1..UNREACHABLE_AFTER {
                o.failed("http://a", &refused);
            }
            o.answered("http://a", 503);
            o.failed("http://a", &err(FailKind::Timeout, "timeout"));
        }
        assert_eq!(o.down("http://a"), None);
    }

    #[tokio::test]
    async fn only_good_answers_grow_a_throttled_origin_back() {
        let o = Origins::new(2, Duration::ZERO, Arc::default());
        o.throttled("http://a", Duration::ZERO);
        for _ in 0..crate::crawl::politeness::GROW_AFTER * 2 {
            o.answered("http://a", 503);
        }
        let _one = o.acquire("http://a", None).await;
        assert!(
            o.acquire("http://a", None).now_or_never().is_none(),
            "5xx answers gave a slot back"
        );
        for _ in 0..crate::crawl::politeness::GROW_AFTER {
            o.answered("http://a", 200);
        }
        assert!(o.acquire("http://a", None).now_or_never().is_some());
    }

    #[tokio::test]
    async fn a_throttled_origin_holds_back_only_itself() {
        let o = origins();
        o.throttled("http://a", Duration::from_secs(3600));
        assert!(matches!(o.state("http://a"), OriginState::Throttled { .. }));
        assert!(o.acquire("http://a", None).now_or_never().is_none());
        assert!(o.acquire("http://b", None).now_or_never().is_some());
        // Robots' Crawl-delay widens a zero --delay-ms, per origin.
        let hour = Some(Duration::from_secs(3600));
        drop(o.acquire("http://c", hour).await);
        assert!(o.acquire("http://c", hour).now_or_never().is_none());
        assert!(o.acquire("http://d", hour).now_or_never().is_some());
    }

    #[tokio::test]
    async fn the_crawl_s_pause_holds_every_origin_until_released() {
        let pause = Arc::new(Pause::default());
        let o = Origins::new(8, Duration::ZERO, pause.clone());
        pause.hold();
        assert!(o.acquire("http://a", None).now_or_never().is_none());
        assert!(o.acquire("http://b", None).now_or_never().is_none());
        pause.release();
        assert!(o.acquire("http://a", None).now_or_never().is_some());
    }
}

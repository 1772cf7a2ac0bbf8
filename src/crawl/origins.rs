//! Per-origin health: the breaker that stops dispatching to an origin no
//! connection can be made to. After [`UNREACHABLE_AFTER`] connection
//! failures in a row (refused, DNS, connect timeout) the origin is down for
//! the rest of the run: its URLs fail at once as `host unreachable`, to be
//! tried again by the next run, instead of each waiting out its own
//! timeouts and retries.

use std::collections::HashMap;
use std::sync::Mutex;

use super::fetch::FetchError;

/// Consecutive connection failures that take an origin down.
pub const UNREACHABLE_AFTER: u32 = 5;

#[derive(Default)]
struct Health {
    failures_in_a_row: u32,
    down: Option<String>,
}

#[derive(Default)]
pub struct Origins {
    health: Mutex<HashMap<String, Health>>,
}

impl Origins {
    fn with<T>(&self, origin: &str, f: impl FnOnce(&mut Health) -> T) -> T {
        let mut map = self.health.lock().unwrap_or_else(|p| p.into_inner());
        f(map.entry(origin.to_string()).or_default())
    }

    /// Why the origin is down, if it is.
    pub fn down(&self, origin: &str) -> Option<String> {
        let map = self.health.lock().unwrap_or_else(|p| p.into_inner());
        map.get(origin).and_then(|h| h.down.clone())
    }

    /// Any answer proves the origin reachable.
    pub fn answered(&self, origin: &str) {
        self.with(origin, |h| h.failures_in_a_row = 0);
    }

    /// Counts a failed fetch; returns the reason the origin is now down
    /// when this failure is the one that takes it down (once per origin).
    pub fn failed(&self, origin: &str, e: &FetchError) -> Option<String> {
        if !e.is_unreachable() {
            return None;
        }
        self.with(origin, |h| {
            h.failures_in_a_row += 1;
            if h.down.is_some() || h.failures_in_a_row < UNREACHABLE_AFTER {
                return None;
            }
            let why = format!("host unreachable: {}", e.reason);
            h.down = Some(why.clone());
            Some(why)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::fetch::FailKind;

    fn err(kind: FailKind, reason: &str) -> FetchError {
        FetchError {
            kind,
            reason: reason.into(),
            retryable: true,
        }
    }

    #[test]
    fn consecutive_connection_failures_take_an_origin_down_once() {
        let o = Origins::default();
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
            o.down("http://a").as_deref(),
            Some("host unreachable: connection refused")
        );
        assert_eq!(o.down("http://b"), None, "per origin");
    }

    #[test]
    fn an_answer_or_a_slow_page_does_not_count() {
        let o = Origins::default();
        let refused = err(FailKind::Refused, "connection refused");
        for _ in 0..10 {
            for _ in 1..UNREACHABLE_AFTER {
                o.failed("http://a", &refused);
            }
            o.answered("http://a");
            o.failed("http://a", &err(FailKind::Timeout, "timeout"));
        }
        assert_eq!(o.down("http://a"), None);
    }
}

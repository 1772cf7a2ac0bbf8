//! Per-host politeness: at most `per_host` requests in flight to one origin
//! and a minimum gap between request starts (the larger of `--delay-ms` and
//! robots' Crawl-delay).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

struct Gate {
    slots: Arc<Semaphore>,
    next_start: tokio::sync::Mutex<Instant>,
}

pub struct Politeness {
    per_host: usize,
    delay: Duration,
    gates: Mutex<HashMap<String, Arc<Gate>>>,
}

impl Politeness {
    pub fn new(per_host: usize, delay: Duration) -> Self {
        Politeness {
            per_host: per_host.max(1),
            delay,
            gates: Mutex::new(HashMap::new()),
        }
    }

    /// Waits for a slot on `origin` and for its gap; the permit frees the
    /// slot when dropped.
    pub async fn acquire(
        &self,
        origin: &str,
        crawl_delay: Option<Duration>,
    ) -> OwnedSemaphorePermit {
        let gate = {
            let mut gates = self.gates.lock().unwrap_or_else(|p| p.into_inner());
            gates
                .entry(origin.to_string())
                .or_insert_with(|| {
                    Arc::new(Gate {
                        slots: Arc::new(Semaphore::new(self.per_host)),
                        next_start: tokio::sync::Mutex::new(Instant::now()),
                    })
                })
                .clone()
        };
        let permit = gate
            .slots
            .clone()
            .acquire_owned()
            .await
            .expect("politeness semaphores are never closed");
        let gap = self.delay.max(crawl_delay.unwrap_or_default());
        if !gap.is_zero() {
            let mut next = gate.next_start.lock().await;
            let now = Instant::now();
            if *next > now {
                tokio::time::sleep_until(*next).await;
            }
            *next = Instant::now() + gap;
        }
        permit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    // Only lower bounds on time are asserted: a loaded machine can make any
    // wait longer, never shorter. "Not waiting" is asserted as "ready on the
    // first poll" (`now_or_never`), which no load can change.

    #[tokio::test]
    async fn requests_to_one_host_keep_their_gap() {
        let p = Politeness::new(4, Duration::from_millis(40));
        let start = Instant::now();
        for _ in 0..3 {
            drop(p.acquire("http://h:80", None).await);
        }
        assert!(start.elapsed() >= Duration::from_millis(80));
    }

    #[tokio::test]
    async fn another_host_is_not_held_up_by_the_first() {
        // A gap no test run outlasts: the second request to `h` cannot be
        // ready on its first poll however slowly this test runs.
        let p = Politeness::new(4, Duration::from_secs(3600));
        drop(p.acquire("http://h:80", None).await);
        assert!(
            p.acquire("http://h:80", None).now_or_never().is_none(),
            "the gap to the same host was not kept"
        );
        assert!(
            p.acquire("http://other:80", None).now_or_never().is_some(),
            "another host waited for the first one's gap"
        );
        // Robots' Crawl-delay widens a zero --delay-ms the same way.
        let p = Politeness::new(4, Duration::ZERO);
        let hour = Some(Duration::from_secs(3600));
        drop(p.acquire("http://h:80", hour).await);
        assert!(p.acquire("http://h:80", hour).now_or_never().is_none());
        assert!(p.acquire("http://other:80", hour).now_or_never().is_some());
    }

    #[tokio::test]
    async fn per_host_cap_holds() {
        let p = Politeness::new(2, Duration::ZERO);
        let a = p.acquire("http://h:80", None).await;
        let _b = p.acquire("http://h:80", None).await;
        assert!(
            p.acquire("http://h:80", None).now_or_never().is_none(),
            "a third slot was granted"
        );
        // The cap is per host.
        assert!(p.acquire("http://other:80", None).now_or_never().is_some());
        drop(a);
        assert!(
            p.acquire("http://h:80", None).now_or_never().is_some(),
            "a freed slot was not granted"
        );
    }
}

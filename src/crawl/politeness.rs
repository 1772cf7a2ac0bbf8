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

    #[tokio::test]
    async fn requests_to_one_host_keep_their_gap() {
        let p = Politeness::new(4, Duration::from_millis(40));
        let start = Instant::now();
        for _ in 0..3 {
            drop(p.acquire("http://h:80", None).await);
        }
        assert!(start.elapsed() >= Duration::from_millis(80));
        // Another host is not held up by the first.
        let other = Instant::now();
        drop(p.acquire("http://other:80", None).await);
        assert!(other.elapsed() < Duration::from_millis(40));
    }

    #[tokio::test]
    async fn per_host_cap_holds() {
        let p = Politeness::new(2, Duration::ZERO);
        let a = p.acquire("http://h:80", None).await;
        let _b = p.acquire("http://h:80", None).await;
        let third =
            tokio::time::timeout(Duration::from_millis(50), p.acquire("http://h:80", None)).await;
        assert!(third.is_err(), "a third slot was granted");
        drop(a);
        let third =
            tokio::time::timeout(Duration::from_millis(500), p.acquire("http://h:80", None)).await;
        assert!(third.is_ok());
    }
}

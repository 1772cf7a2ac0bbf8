//! The crawl's pause, as its requests and its clocks see it: held by the
//! dispatcher when a face asks to pause (the console's `p`), released on
//! resume. Every request of the crawl (a page, a retry, a redirect's next
//! hop, robots.txt, a sitemap, an external or resource check) takes its
//! origin's slot through [`super::origins::Origins::acquire`], which
//! waits the pause out before and after the slot: so nothing starts
//! while paused, and what is on the wire finishes. It also keeps the
//! running clock: the time the crawl spent not paused, which its
//! durations, rates and run records count.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::watch;

pub struct Pause {
    held: watch::Sender<bool>,
    clock: Mutex<RunningClock>,
}

impl Default for Pause {
    fn default() -> Self {
        Pause {
            held: watch::Sender::new(false),
            clock: Mutex::new(RunningClock::default()),
        }
    }
}

impl Pause {
    pub fn hold(&self) {
        self.with_clock(RunningClock::pause);
        self.held.send_replace(true);
    }

    pub fn release(&self) {
        self.with_clock(RunningClock::resume);
        self.held.send_replace(false);
    }

    pub fn held(&self) -> bool {
        *self.held.borrow()
    }

    /// Returns once the crawl is not paused (at once when it is not).
    pub async fn released(&self) {
        let mut held = self.held.subscribe();
        // The sender lives as long as `self`: the wait cannot fail.
        let _ = held.wait_for(|h| !*h).await;
    }

    /// The time the crawl has run, pauses excluded.
    pub fn running(&self) -> Duration {
        self.with_clock(|c| c.elapsed())
    }

    fn with_clock<T>(&self, f: impl FnOnce(&mut RunningClock) -> T) -> T {
        f(&mut self.clock.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// A clock a pause stops, so the elapsed time and the rate a face shows
/// stand still while paused.
struct RunningClock {
    started: Instant,
    paused_at: Option<Instant>,
    paused_for: Duration,
}

impl Default for RunningClock {
    fn default() -> Self {
        RunningClock {
            started: Instant::now(),
            paused_at: None,
            paused_for: Duration::ZERO,
        }
    }
}

impl RunningClock {
    fn pause(&mut self) {
        self.paused_at.get_or_insert_with(Instant::now);
    }

    fn resume(&mut self) {
        if let Some(at) = self.paused_at.take() {
            self.paused_for += at.elapsed();
        }
    }

    fn elapsed(&self) -> Duration {
        let pausing = self.paused_at.map_or(Duration::ZERO, |at| at.elapsed());
        self.started
            .elapsed()
            .saturating_sub(self.paused_for + pausing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[test]
    fn a_paused_crawl_clock_stands_still() {
        let pause = Pause::default();
        pause.hold();
        let before = pause.running();
        std::thread::sleep(Duration::from_millis(100));
        // A running clock would have moved by the whole sleep.
        assert!(pause.running().saturating_sub(before) < Duration::from_millis(25));
        pause.release();
        std::thread::sleep(Duration::from_millis(30));
        assert!(pause.running() >= before + Duration::from_millis(30));
    }

    #[tokio::test]
    async fn a_held_pause_holds_its_waiters_until_released() {
        let pause = Pause::default();
        assert!(pause.released().now_or_never().is_some());
        pause.hold();
        assert!(pause.released().now_or_never().is_none());
        let (waited, ()) = tokio::join!(pause.released(), async { pause.release() });
        let () = waited;
        assert!(!pause.held());
    }
}

//! The crawl's stop, as its waits see it: raised once by the dispatcher
//! when a face asks to stop (Ctrl-C, the console's `s`) or every face is
//! gone. A wait for a slot, a pause (`Retry-After`), a gap (Crawl-delay)
//! or a backoff is cut short by it, so a stop never waits out what a
//! site asked; a request already on the wire is let finish.

use std::future::Future;

use tokio::sync::watch;

pub struct Stop(watch::Sender<bool>);

impl Default for Stop {
    fn default() -> Self {
        Stop(watch::Sender::new(false))
    }
}

impl Stop {
    pub fn raise(&self) {
        self.0.send_replace(true);
    }

    /// `wait`'s output, or none when the crawl stops first (or had).
    pub async fn unless<F: Future>(&self, wait: F) -> Option<F::Output> {
        let mut stopped = self.0.subscribe();
        tokio::select! {
            biased;
            _ = stopped.wait_for(|s| *s) => None,
            out = wait => Some(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_raised_stop_cuts_a_wait_short() {
        let stop = Stop::default();
        assert_eq!(stop.unless(async { 7 }).await, Some(7));
        let long = tokio::time::sleep(Duration::from_secs(3600));
        let (cut, ()) = tokio::join!(stop.unless(long), async { stop.raise() });
        assert!(cut.is_none(), "the wait outlived the stop");
        assert_eq!(stop.unless(async { 7 }).await, None, "raised stays raised");
    }
}

//! How a failed exchange is asked again — a page, robots.txt or a
//! sitemap alike: a server error or a dropped connection is retried up to
//! `--retries` times, 200 ms and then twice as long again apart.

use std::time::Duration;

/// Whether an answer with this status is worth asking for again.
pub fn worth_retrying(status: u16) -> bool {
    status >= 500
}

/// The retries one exchange has left.
pub struct Retries {
    done: u32,
    max: u32,
}

impl Retries {
    pub fn new(max: u32) -> Self {
        Retries { done: 0, max }
    }

    /// Waits out the backoff before the next try and says true, or says
    /// false when no retry is left.
    pub async fn again(&mut self) -> bool {
        if self.done >= self.max {
            return false;
        }
        self.done += 1;
        tokio::time::sleep(Duration::from_millis(100 << self.done.min(16))).await;
        true
    }
}

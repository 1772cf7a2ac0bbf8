//! How a failed exchange is asked again — a page, a resource or link
//! check, robots.txt or a sitemap alike: a server error, a 429 or a
//! dropped connection is retried up to the point's `--max-retries` times
//! (robots.txt and sitemaps: [`DEFAULT_RETRIES`]), 200 ms and then twice
//! as long again apart.

use std::time::Duration;

/// Retries when no `--max-retries` says otherwise, as in lychee.
pub const DEFAULT_RETRIES: u32 = 2;

/// Whether an answer with this status is worth asking for again.
pub fn worth_retrying(status: u16) -> bool {
    status >= 500 || status == 429
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

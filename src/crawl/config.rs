//! Run options of a crawl (politeness, limits, identity) and their
//! defaults, shared by the CLI flags and the TUI.

use std::time::Duration;

/// How a crawl behaves, whatever it crawls.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlConfig {
    /// Fetches in flight at once, over all hosts.
    pub concurrency: usize,
    /// Fetches in flight at once to one host.
    pub per_host: usize,
    /// Minimum gap between two requests to one host (robots' Crawl-delay
    /// raises it).
    pub delay: Duration,
    pub user_agent: String,
    /// Total time for one request, body included.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Bodies are cut here (decompressed bytes) and recorded as truncated.
    pub max_body_bytes: usize,
    pub ignore_robots: bool,
    /// `--insecure`: invalid TLS certificates are accepted.
    pub insecure: bool,
    /// `--require-https`: the https twin of every http link met is asked.
    pub require_https: bool,
    /// Retries of a 5xx, a 429 or a network failure for robots.txt and
    /// sitemaps (a point's requests follow its `--max-retries`).
    pub retries: u32,
    /// Commit at least this often, so a kill loses little work.
    pub batch_interval: Duration,
    /// Replaces every crawled point's depth limit for this run.
    pub depth: Option<u32>,
    /// Replaces every crawled point's page limit for this run.
    pub max_pages: Option<u64>,
    /// Parts of the work left out, for a benchmark (`bench_parts`).
    pub parts_off: super::PartsOff,
    /// `--frontier`: the frontier shared with other crawlers, on a
    /// Redis-protocol server; none: the store's own.
    pub frontier: Option<super::shared::Spec>,
}

pub const DEFAULT_USER_AGENT: &str = concat!(
    "crawlscope/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/crawlscope/crawlscope)"
);

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            concurrency: 32,
            per_host: 8,
            delay: Duration::ZERO,
            user_agent: DEFAULT_USER_AGENT.to_string(),
            timeout: Duration::from_secs(20),
            connect_timeout: Duration::from_secs(5),
            max_body_bytes: 8 << 20,
            ignore_robots: false,
            insecure: false,
            require_https: false,
            retries: super::retry::DEFAULT_RETRIES,
            batch_interval: Duration::from_millis(100),
            depth: None,
            max_pages: None,
            parts_off: super::PartsOff::default(),
            frontier: None,
        }
    }
}

impl CrawlConfig {
    /// The robots.txt product token of our user agent: its first word,
    /// before any `/version`.
    pub fn robots_agent(&self) -> &str {
        self.user_agent
            .split(|c: char| c == '/' || c.is_whitespace())
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or("crawlscope")
    }
}

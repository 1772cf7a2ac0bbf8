//! What the engine tells its faces (`CrawlEvent`) and what they tell it
//! (`CrawlCommand`), plus the run's summary. The CLI and the TUI consume
//! the same events.

use std::time::Duration;

use serde::Serialize;

use crate::store::{PageId, PointRecord, SkipReason};

/// One thing that happened in the crawl. Page events are sent after the
/// transaction that records them commits, so a face that reacts by reading
/// the store finds what the event names.
#[derive(Debug, Clone, PartialEq)]
pub enum CrawlEvent {
    /// A request for the page went on the wire (again, when retried).
    Started {
        page: PageId,
        url: String,
    },
    /// That request is done (answered or failed): the page's outcome
    /// follows once it is committed.
    Answered {
        page: PageId,
    },
    Fetched(FetchedPage),
    NotModified {
        page: PageId,
        url: String,
    },
    /// A 200 whose body is the one stored: kept as is, not re-indexed.
    Unchanged {
        page: PageId,
        url: String,
    },
    Failed {
        page: PageId,
        url: String,
        reason: String,
    },
    Skipped {
        page: PageId,
        url: String,
        reason: SkipReason,
    },
    Redirected {
        page: PageId,
        url: String,
        to: String,
        status: u16,
    },
    /// An out-of-scope link target was checked (`--check-external`);
    /// `reason` says why it is broken, None when it works.
    ExternalChecked {
        page: PageId,
        url: String,
        status: Option<u16>,
        reason: Option<String>,
    },
    /// No connection could be made to an origin several times in a row:
    /// its URLs now fail at once with `reason`, until the next run.
    OriginUnreachable {
        origin: String,
        reason: String,
    },
    /// The origin answered 429 (or 503 with Retry-After): nothing is sent
    /// to it for `wait`, its concurrency is halved, the URL is retried.
    OriginThrottled {
        origin: String,
        status: u16,
        wait: Duration,
    },
    /// A sitemap was read and gave `urls` page URLs (or indexed sitemaps),
    /// or could not be (wholly) read, and why.
    Sitemap {
        url: String,
        result: Result<u64, String>,
    },
    /// New URLs entered the frontier.
    Queued {
        count: u64,
    },
    Stats(CrawlStats),
    Paused,
    Resumed,
    Finished(Summary),
    /// A resource a page loads was checked; `reason` says why it is
    /// broken, None when it works.
    ResourceChecked {
        page: PageId,
        url: String,
        status: Option<u16>,
        reason: Option<String>,
    },
}

/// What an origin-wide or sitemap event means for the crawl, in the words
/// both faces show (the CLI as a line, the TUI's log as a row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice<'a> {
    pub kind: NoticeKind,
    /// The origin or the sitemap's URL.
    pub about: &'a str,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Unreachable,
    Throttled,
    Sitemap,
    SitemapFailed,
}

impl Notice<'_> {
    /// The whole notice as one line: "sitemap URL: 12 URLs", "ORIGIN: why".
    pub fn line(&self) -> String {
        match self.kind {
            NoticeKind::Sitemap | NoticeKind::SitemapFailed => {
                format!("sitemap {}: {}", self.about, self.text)
            }
            NoticeKind::Unreachable | NoticeKind::Throttled => {
                format!("{}: {}", self.about, self.text)
            }
        }
    }
}

impl CrawlEvent {
    /// The event as a notice, when it concerns an origin or a sitemap
    /// rather than one page.
    pub fn notice(&self) -> Option<Notice<'_>> {
        let (kind, about, text) = match self {
            CrawlEvent::OriginUnreachable { origin, reason } => (
                NoticeKind::Unreachable,
                origin,
                format!(
                    "{reason}; its queued URLs are recorded as failed (the next run tries again)"
                ),
            ),
            CrawlEvent::OriginThrottled {
                origin,
                status,
                wait,
            } => (
                NoticeKind::Throttled,
                origin,
                format!(
                    "{}; nothing sent to it for {}s, fewer requests at once",
                    super::status_text(*status),
                    wait.as_secs_f64().ceil()
                ),
            ),
            CrawlEvent::Sitemap { url, result } => match result {
                Ok(n) => (NoticeKind::Sitemap, url, format!("{n} URLs")),
                Err(why) => (NoticeKind::SitemapFailed, url, why.clone()),
            },
            _ => return None,
        };
        Some(Notice { kind, about, text })
    }
}

/// A page fetched with a response and stored.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchedPage {
    pub page: PageId,
    pub url: String,
    pub status: u16,
    pub bytes: u64,
    pub elapsed: Duration,
    pub title: Option<String>,
    /// Why a 4xx/5xx failed: its reason phrase (None for a 2xx).
    pub reason: Option<String>,
    pub depth: u32,
    /// Whether it was read from a browser's DOM (`--render`).
    pub render: crate::render::Mark,
}

/// A periodic snapshot for progress displays.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CrawlStats {
    pub fetched: u64,
    pub not_modified: u64,
    pub unchanged: u64,
    pub failed: u64,
    /// Every skip; `skipped_by` splits it by reason.
    pub skipped: u64,
    pub skipped_by: SkipCounts,
    /// The frontier's length as of the last commit.
    pub queued: u64,
    /// URLs this crawl claimed and has not settled, not on the wire now:
    /// waiting for their origin's turn, the pause, a retry, or parsed and
    /// not yet committed.
    pub claimed: u64,
    /// Page requests on the wire now: never above `--concurrency`, nor
    /// `--per-host` for one origin.
    pub in_flight: u64,
    /// 429/503 answers waited out.
    pub throttled: u64,
    pub elapsed: Duration,
    pub store_bytes: u64,
    /// Pages read from a browser's DOM, and pages whose rendering failed.
    pub rendered: u64,
    pub render_failed: u64,
    /// Crawlers sharing the frontier, this one included (None: the
    /// store's own frontier).
    pub crawlers: Option<u64>,
}

/// Skipped URLs by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SkipCounts {
    pub robots: u64,
    pub out_of_scope: u64,
    pub excluded: u64,
    pub too_deep: u64,
    pub nofollow: u64,
}

impl SkipCounts {
    pub fn total(&self) -> u64 {
        self.robots + self.out_of_scope + self.excluded + self.too_deep + self.nofollow
    }
}

/// The final report of a run (this process's work), as `crawl --json` prints it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Summary {
    pub fetched: u64,
    pub not_modified: u64,
    pub unchanged: u64,
    pub failed: u64,
    pub skipped_robots: u64,
    pub out_of_scope: u64,
    pub excluded: u64,
    pub too_deep: u64,
    pub nofollow: u64,
    /// 429/503 answers waited out (the URLs were retried, not failed).
    pub throttled: u64,
    /// Out-of-scope links checked (`--check-external`), and how many of
    /// them are broken.
    pub external_checked: u64,
    pub external_broken: u64,
    /// With a shared frontier: the most crawlers seen sharing it, this
    /// one included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawlers: Option<u64>,
    pub elapsed_s: f64,
    /// Resources checked, and how many of them are broken.
    pub resources_checked: u64,
    pub resources_broken: u64,
    pub pages_per_s: f64,
    /// Pages read from a browser's DOM, and pages whose rendering failed.
    pub rendered: u64,
    pub render_failed: u64,
}

/// What a face asks of a running engine.
#[derive(Debug, Clone, PartialEq)]
pub enum CrawlCommand {
    Pause,
    Resume,
    /// Finish in-flight fetches, return the rest to the queue, commit, end.
    Stop,
    /// Persist a crawl point and start crawling it in this run.
    AddPoint(Box<PointRecord>),
}

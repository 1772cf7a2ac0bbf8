//! The counts of a run, kept by the writer from the events it commits
//! (so the counts and the log always agree, reason by reason): this
//! crawler's, read by the dispatcher's stats tick and the summary, and
//! each run's, added to its record in the store. Beside them, the work
//! at hand: the queue's length as of the last commit, the claims this
//! crawler holds (claimed, not yet settled by a commit) and its page
//! requests on the wire, which the stats tick reads together with the
//! counts, so what is shown adds up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use crate::crawl::event::{CrawlEvent, SkipCounts, Summary};
use crate::render::Mark;
use crate::store::{RunCounts, SkipReason};

/// Counters of this run, read by the dispatcher and the stats tick.
#[derive(Default)]
pub struct Counters {
    pub fetched: AtomicU64,
    pub not_modified: AtomicU64,
    pub unchanged: AtomicU64,
    pub failed: AtomicU64,
    pub skipped_robots: AtomicU64,
    pub out_of_scope: AtomicU64,
    pub excluded: AtomicU64,
    pub too_deep: AtomicU64,
    pub nofollow: AtomicU64,
    pub external_checked: AtomicU64,
    pub external_broken: AtomicU64,
    pub throttled: AtomicU64,
    pub resources_checked: AtomicU64,
    pub resources_broken: AtomicU64,
    pub rendered: AtomicU64,
    pub render_failed: AtomicU64,
    /// The frontier's length in the last committed transaction.
    pub queued: AtomicU64,
    /// Claims committed to this crawler and not yet settled by a commit
    /// (fetched, failed, skipped, redirected or given back), those on
    /// the wire included.
    pub held: AtomicU64,
    /// Page requests on the wire now: what faces show as "in flight".
    pub on_wire: AtomicU64,
    /// Held by the writer while it counts a commit, and by the stats tick
    /// while it reads: a reader never sees half a commit's figures.
    together: Mutex<()>,
}

impl Counters {
    /// Holds back the writer's counting of its next commit while the
    /// figures are read.
    pub fn read_together(&self) -> MutexGuard<'_, ()> {
        self.together.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a commit: `count` runs while no reader can look.
    pub(super) fn commit(&self, count: impl FnOnce(&Counters)) {
        let _together = self.read_together();
        count(self);
    }

    pub fn skips(&self) -> SkipCounts {
        SkipCounts {
            robots: self.skipped_robots.load(Ordering::Relaxed),
            out_of_scope: self.out_of_scope.load(Ordering::Relaxed),
            excluded: self.excluded.load(Ordering::Relaxed),
            too_deep: self.too_deep.load(Ordering::Relaxed),
            nofollow: self.nofollow.load(Ordering::Relaxed),
        }
    }

    /// Counts one committed outcome.
    pub(super) fn count(&self, e: &CrawlEvent) {
        if let CrawlEvent::Fetched(f) = e {
            match f.render {
                Mark::Rendered => self.rendered.fetch_add(1, Ordering::Relaxed),
                Mark::Failed => self.render_failed.fetch_add(1, Ordering::Relaxed),
                Mark::Served => 0,
            };
        }
        let counter = match tally(e) {
            Some(Tally::Fetched) => &self.fetched,
            Some(Tally::Failed) => &self.failed,
            Some(Tally::NotModified) => &self.not_modified,
            Some(Tally::Unchanged) => &self.unchanged,
            Some(Tally::External { broken }) => {
                if broken {
                    self.external_broken.fetch_add(1, Ordering::Relaxed);
                }
                &self.external_checked
            }
            Some(Tally::Throttled) => &self.throttled,
            Some(Tally::Resource { broken }) => {
                if broken {
                    self.resources_broken.fetch_add(1, Ordering::Relaxed);
                }
                &self.resources_checked
            }
            Some(Tally::Skipped(reason)) => match reason {
                SkipReason::Robots => &self.skipped_robots,
                SkipReason::OutOfScope => &self.out_of_scope,
                SkipReason::Excluded => &self.excluded,
                SkipReason::TooDeep => &self.too_deep,
                SkipReason::Nofollow => &self.nofollow,
            },
            Some(Tally::Redirected) | None => return,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The run's summary, over `elapsed` of active (unpaused) time.
    pub fn summary(&self, elapsed: Duration) -> Summary {
        let elapsed_s = elapsed.as_secs_f64();
        let fetched = self.fetched.load(Ordering::Relaxed);
        Summary {
            fetched,
            not_modified: self.not_modified.load(Ordering::Relaxed),
            unchanged: self.unchanged.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            skipped_robots: self.skipped_robots.load(Ordering::Relaxed),
            out_of_scope: self.out_of_scope.load(Ordering::Relaxed),
            excluded: self.excluded.load(Ordering::Relaxed),
            too_deep: self.too_deep.load(Ordering::Relaxed),
            nofollow: self.nofollow.load(Ordering::Relaxed),
            throttled: self.throttled.load(Ordering::Relaxed),
            external_checked: self.external_checked.load(Ordering::Relaxed),
            external_broken: self.external_broken.load(Ordering::Relaxed),
            crawlers: None,
            elapsed_s,
            resources_checked: self.resources_checked.load(Ordering::Relaxed),
            resources_broken: self.resources_broken.load(Ordering::Relaxed),
            pages_per_s: if elapsed_s > 0.0 {
                fetched as f64 / elapsed_s
            } else {
                0.0
            },
            rendered: self.rendered.load(Ordering::Relaxed),
            render_failed: self.render_failed.load(Ordering::Relaxed),
        }
    }
}

/// What one committed event counts as, for this crawler and its run alike.
enum Tally {
    Fetched,
    Failed,
    NotModified,
    Unchanged,
    Redirected,
    Skipped(SkipReason),
    External { broken: bool },
    Throttled,
    Resource { broken: bool },
}

fn tally(e: &CrawlEvent) -> Option<Tally> {
    Some(match e {
        CrawlEvent::Fetched(f) if (200..300).contains(&f.status) => Tally::Fetched,
        CrawlEvent::Fetched(_) | CrawlEvent::Failed { .. } => Tally::Failed,
        CrawlEvent::NotModified { .. } => Tally::NotModified,
        CrawlEvent::Unchanged { .. } => Tally::Unchanged,
        CrawlEvent::Redirected { .. } => Tally::Redirected,
        CrawlEvent::ExternalChecked { reason, .. } => Tally::External {
            broken: reason.is_some(),
        },
        CrawlEvent::OriginThrottled { .. } => Tally::Throttled,
        CrawlEvent::Skipped { reason, .. } => Tally::Skipped(*reason),
        CrawlEvent::ResourceChecked { reason, .. } => Tally::Resource {
            broken: reason.is_some(),
        },
        _ => return None,
    })
}

/// Adds one committed event to a run's counts.
pub(super) fn count_run(counts: &mut RunCounts, e: &CrawlEvent) {
    let counter = match tally(e) {
        Some(Tally::Fetched) => &mut counts.fetched,
        Some(Tally::Failed) => &mut counts.failed,
        Some(Tally::NotModified) => &mut counts.not_modified,
        Some(Tally::Unchanged) => &mut counts.unchanged,
        Some(Tally::Redirected) => &mut counts.redirected,
        Some(Tally::Skipped(reason)) => counts.skipped_mut(reason),
        Some(Tally::External { broken }) => {
            counts.external_broken += u64::from(broken);
            &mut counts.external_checked
        }
        Some(Tally::Resource { broken }) => {
            counts.resources_broken += u64::from(broken);
            &mut counts.resources_checked
        }
        Some(Tally::Throttled) | None => return,
    };
    *counter += 1;
}

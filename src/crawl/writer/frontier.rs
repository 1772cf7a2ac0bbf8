//! Where the writer takes its claims and puts the URLs it finds: the
//! store's own frontier (the default), or the frontier shared with other
//! crawlers on a Redis-protocol server ([`crate::crawl::shared`]). For the
//! shared one this keeps what a transaction found until it commits (the
//! server hears of it only then), maps the server's URLs to this shard's
//! page ids, and confirms a batch's leases before its results commit: a
//! result whose lease another crawler took is not this shard's to write.

use url::Url;

use crate::crawl::msg::{Outcome, Request};
use crate::crawl::policy::Runs;
use crate::crawl::shared::{Offer, SharedFrontier, Taken};
use crate::store::prelude::*;
use crate::store::{
    Claim, Decision, FrontierEntry, InstanceId, PageId, PointId, PointMark, StoreError,
    Taken as LocalTaken, Writer,
};

pub(super) enum Frontier {
    /// The store's own: claims and queued URLs are LMDB records.
    Local,
    Shared(Box<Shared>),
}

pub(super) struct Shared {
    remote: SharedFrontier,
    /// URLs the server leased for the claim being applied.
    taken: Vec<Taken>,
    /// What the transaction being applied found or gave back, for the
    /// server once it commits.
    offers: Vec<Offer>,
    back: Vec<(PointId, String)>,
    /// Taken but settled without a fetch (refused by the run's rules now,
    /// or not a URL): done all the same.
    refused: Vec<(PointId, String)>,
    /// The shared queue's length at the last claim.
    queued: u64,
}

impl Frontier {
    pub fn shared(remote: SharedFrontier) -> Frontier {
        Frontier::Shared(Box::new(Shared {
            remote,
            taken: Vec::new(),
            offers: Vec::new(),
            back: Vec::new(),
            refused: Vec::new(),
            queued: 0,
        }))
    }

    /// A transaction's attempt starts afresh (a store may run one twice).
    pub fn begin_attempt(&mut self) {
        if let Frontier::Shared(s) = self {
            s.offers.clear();
            s.back.clear();
            s.refused.clear();
        }
    }

    /// Queues `url` (page `page`) as `entry` says; among the first claimed
    /// when `first` (the shared frontier keeps only the depth order). A
    /// URL offered to the shared frontier gets its point's mark and no
    /// state: whichever crawler takes it writes its state, in its shard.
    pub fn enqueue(
        &mut self,
        w: &mut Writer<'_>,
        url: &str,
        entry: FrontierEntry,
        first: bool,
    ) -> Result<(), StoreError> {
        match self {
            Frontier::Local if first => w.enqueue_first(entry.page, entry),
            Frontier::Local => w.enqueue(entry.page, entry),
            Frontier::Shared(s) => {
                s.offers.push(Offer {
                    point: entry.point,
                    url: url.to_string(),
                    depth: entry.depth,
                    hops: entry.hops,
                });
                w.put_point_mark(
                    entry.point,
                    entry.page,
                    PointMark {
                        gen: entry.gen,
                        decision: Decision::Queued,
                        depth: entry.depth,
                    },
                )
            }
        }
    }

    /// A point added mid-crawl: with a shared frontier, this crawler joins
    /// its run there (with its page limit), and the seeds its run's start
    /// queued here go to the server once this transaction commits.
    pub fn add_point(
        &mut self,
        w: &mut Writer<'_>,
        point: PointId,
        url: &str,
        limit: Option<u64>,
    ) -> Result<(), StoreError> {
        let Frontier::Shared(s) = self else {
            return Ok(());
        };
        s.remote.join_point(point, url)?;
        if let Some(max) = limit {
            s.remote.limit(point, max);
        }
        s.offers.extend(super::hand_over(w, &[point])?);
        Ok(())
    }

    /// Puts a claim back in the queue, unfetched.
    pub fn put_back(&mut self, w: &mut Writer<'_>, claim: &Claim) -> Result<(), StoreError> {
        match self {
            Frontier::Local => w.enqueue(claim.page, claim.entry),
            Frontier::Shared(s) => {
                s.back.push((claim.entry.point, claim.url.clone()));
                Ok(())
            }
        }
    }

    /// Takes up to `n` URLs of `points` for crawler `by`: from the store,
    /// or (shared) the ones the server leased before this transaction,
    /// given this shard's page ids.
    pub fn claim(
        &mut self,
        w: &mut Writer<'_>,
        n: usize,
        by: InstanceId,
        points: &[PointId],
        runs: &Runs,
        fetched: impl Fn(PageId) -> bool,
    ) -> Result<LocalTaken, StoreError> {
        let s = match self {
            Frontier::Local => return w.claim(n, by, points, fetched),
            Frontier::Shared(s) => s,
        };
        let mut out = LocalTaken::default();
        for t in &s.taken {
            let (Ok(url), Some(run)) = (Url::parse(&t.url), runs.get(&t.point)) else {
                tracing::warn!(url = %t.url, "shared frontier gave a URL this crawl cannot take");
                s.refused.push((t.point, t.url.clone()));
                continue;
            };
            let page = w.page_id_for(&url)?;
            out.claims.push(Claim {
                page,
                url: t.url.clone(),
                entry: FrontierEntry {
                    page,
                    depth: t.depth,
                    point: t.point,
                    gen: run.gen,
                    hops: t.hops,
                },
            });
        }
        Ok(out)
    }

    /// A claim its run's rules refuse now: settled without a fetch.
    pub fn refused(&mut self, claim: &Claim) {
        if let Frontier::Shared(s) = self {
            s.refused.push((claim.entry.point, claim.url.clone()));
        }
    }

    /// How many URLs wait in the queue.
    pub fn len(&self, w: &Writer<'_>) -> Result<u64, StoreError> {
        match self {
            Frontier::Local => w.frontier_len(),
            Frontier::Shared(s) => Ok(s.queued),
        }
    }

    pub fn remote(&mut self) -> Option<&mut SharedFrontier> {
        match self {
            Frontier::Local => None,
            Frontier::Shared(s) => Some(&mut s.remote),
        }
    }

    /// Before a batch (its `request` and `outcomes`) is applied: a claim
    /// is leased on the server first, and the leases of the batch's
    /// results are renewed, the results of leases lost to another crawler
    /// dropped (returns how many).
    pub fn before(
        &mut self,
        request: Option<&Request>,
        outcomes: &mut Vec<Outcome>,
    ) -> Result<u64, StoreError> {
        let Frontier::Shared(s) = self else {
            return Ok(0);
        };
        if let Some(Request::Claim { n, points, .. }) = request {
            let (taken, queued) = s.remote.claim(*n, points)?;
            s.taken = taken;
            s.queued = queued;
        }
        let held: Vec<(PointId, &str)> = outcomes
            .iter()
            .filter_map(Outcome::claim)
            .map(|c| (c.entry.point, c.url.as_str()))
            .collect();
        if held.is_empty() {
            return Ok(0);
        }
        let still = s.remote.confirm(&held)?;
        let mut keep = still.into_iter();
        let before = outcomes.len();
        outcomes.retain(|o| match o.claim() {
            None => true,
            Some(c) => {
                let mine = keep.next().unwrap_or(false);
                if !mine {
                    tracing::warn!(url = %c.url, "lease lost to another crawler: result dropped");
                }
                mine
            }
        });
        Ok((before - outcomes.len()) as u64)
    }

    /// After a batch committed: the server gets the URLs it found, then
    /// its results' URLs marked done (the pages apart, for the run's page
    /// limit) and its given-back ones queued again, then the merged log
    /// what it fetched (the batch's `outcomes`).
    pub fn after(&mut self, outcomes: &[Outcome]) -> Result<(), StoreError> {
        let Frontier::Shared(s) = self else {
            return Ok(());
        };
        s.remote.offer(&s.offers)?;
        let (mut pages, mut other) = (Vec::new(), Vec::new());
        for o in outcomes {
            if let Some(c) = o.claim() {
                let done = (c.entry.point, c.url.clone());
                if o.counts_as_page() {
                    pages.push(done);
                } else {
                    other.push(done);
                }
            }
        }
        other.append(&mut s.refused);
        s.remote.finish(&pages, &other, &s.back)?;
        s.remote.log(outcomes);
        s.offers.clear();
        s.back.clear();
        s.taken.clear();
        Ok(())
    }
}

//! The shared crawl frontier and every URL's state: queued entries ordered
//! by depth then arrival (`depth ‖ sequence`, so claiming is breadth-first),
//! claims that name the crawler process holding them, and the registry of
//! crawler processes, so that several processes can share one store and a
//! dead process's claims go back to the queue.

use super::codec::{self, read_u32, u32_key};
use super::point_urls::{Decision, PointMark};
use super::schema::{
    meta_keys, FrontierEntry, InstanceId, InstanceRecord, PageId, PointId, UrlState,
};
use super::sealed::{by_id, View};
use super::{PageRead, Result, StoreError, Writer};

/// What one claim took out of the frontier.
#[derive(Debug, Default)]
pub struct Taken {
    /// URLs to fetch.
    pub claims: Vec<Claim>,
    /// Entries whose URL this crawl already fetched for another point.
    pub reused: Vec<FrontierEntry>,
}

/// A frontier entry taken by one crawler process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub page: PageId,
    pub url: String,
    pub entry: FrontierEntry,
}

/// What the queued entries of some points leave to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueuedWork {
    None,
    /// Every entry's URL is claimed by another crawler.
    Waiting,
    Claimable,
}

/// How many URLs are in each state, a queued or claimed one counted by
/// the fact an earlier run left, if any.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateCounts {
    pub queued: u64,
    pub claimed: u64,
    pub done: u64,
    pub failed: u64,
    pub skipped: u64,
    pub redirected: u64,
}

fn frontier_key(depth: u32, seq: u64) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&depth.to_be_bytes());
    k[4..].copy_from_slice(&seq.to_be_bytes());
    k
}

/// Frontier, state and instance look-ups.
pub trait FrontierRead: View {
    fn url_state(&self, page: PageId) -> Result<Option<UrlState>> {
        by_id(self, self.dbs().url_state, page, codec::decode)
    }

    fn frontier_len(&self) -> Result<u64> {
        Ok(self.dbs().frontier.len(self.txn())?)
    }

    /// The next `n` queued entries, in claim order.
    fn frontier_peek(&self, n: usize) -> Result<Vec<FrontierEntry>> {
        let mut out = Vec::with_capacity(n);
        for item in self.dbs().frontier.iter(self.txn())?.take(n) {
            out.push(codec::decode(item?.1)?);
        }
        Ok(out)
    }

    /// Whether any queued entry belongs to one of `points`.
    fn has_queued(&self, points: &[PointId]) -> Result<bool> {
        Ok(self.queued_work(points, |_| false)? != QueuedWork::None)
    }

    /// What the queued entries of `points` leave to do: an entry whose
    /// URL another crawler holds (`held_elsewhere` of the claim's holder)
    /// waits for that claim to settle.
    fn queued_work(
        &self,
        points: &[PointId],
        held_elsewhere: impl Fn(InstanceId) -> bool,
    ) -> Result<QueuedWork> {
        let mut work = QueuedWork::None;
        for item in self.dbs().frontier.iter(self.txn())? {
            let e: FrontierEntry = codec::decode(item?.1)?;
            if !points.contains(&e.point) {
                continue;
            }
            match self.url_state(e.page)? {
                Some(UrlState::Claimed { by, .. }) if held_elsewhere(by) => {
                    work = QueuedWork::Waiting
                }
                _ => return Ok(QueuedWork::Claimable),
            }
        }
        Ok(work)
    }

    /// Every claimed URL with the claim's state.
    /// Every URL's state in page id order; `f` returns false to stop.
    fn for_each_state(&self, mut f: impl FnMut(PageId, UrlState) -> Result<bool>) -> Result<()> {
        for item in self.dbs().url_state.iter(self.txn())? {
            let (k, v) = item?;
            if !f(read_u32(k)?, codec::decode(v)?)? {
                break;
            }
        }
        Ok(())
    }

    fn claims(&self) -> Result<Vec<(PageId, UrlState)>> {
        let mut out = Vec::new();
        for item in self.dbs().url_state.iter(self.txn())? {
            let (k, v) = item?;
            let state: UrlState = codec::decode(v)?;
            if matches!(state, UrlState::Claimed { .. }) {
                out.push((read_u32(k)?, state));
            }
        }
        Ok(out)
    }

    fn state_counts(&self) -> Result<StateCounts> {
        let mut c = StateCounts::default();
        for item in self.dbs().url_state.iter(self.txn())? {
            let state: UrlState = codec::decode(item?.1)?;
            // A URL an earlier run settled counts by that fact while a
            // run has it queued or claimed.
            let slot = match state.fact().unwrap_or(&state) {
                UrlState::Queued { .. } => &mut c.queued,
                UrlState::Claimed { .. } => &mut c.claimed,
                UrlState::Done { .. } => &mut c.done,
                UrlState::Failed { .. } => &mut c.failed,
                UrlState::Skipped { .. } => &mut c.skipped,
                UrlState::Redirected { .. } => &mut c.redirected,
            };
            *slot += 1;
        }
        Ok(c)
    }

    fn instances(&self) -> Result<Vec<(InstanceId, InstanceRecord)>> {
        let mut out = Vec::new();
        for item in self.dbs().instances.iter(self.txn())? {
            let (k, v) = item?;
            out.push((read_u32(k)?, codec::decode(v)?));
        }
        Ok(out)
    }
}

impl<T: View + ?Sized> FrontierRead for T {}

/// The bytes of a claim of a page at a small depth, in a crawl point
/// and run of small ids, with no earlier fact (the tag, four varints of a
/// byte each, the hop count and `had`'s none): the width every shorter
/// state is padded to.
const STATE_WIDTH: usize = 7;

impl Writer<'_> {
    pub fn set_state(&mut self, page: PageId, state: &UrlState) -> Result<()> {
        let mut value = codec::encode(state)?;
        // Padded to the width of a claim, a state's steps in a crawl
        // (queued, claimed, done) rewrite its record in place (LMDB does
        // where the size is the same): a claim that grew the record
        // split a full leaf, and a crawl's leaves ended half full (0.47
        // on the bench sites). The decoder ignores what follows the
        // encoding.
        if value.len() < STATE_WIDTH {
            value.resize(STATE_WIDTH, 0);
        }
        self.dbs
            .url_state
            .put(&mut self.txn, &u32_key(page), &value)?;
        Ok(())
    }

    /// Queues a URL for fetching (breadth-first by depth).
    pub fn enqueue(&mut self, page: PageId, entry: FrontierEntry) -> Result<()> {
        self.enqueue_at(entry.depth, page, entry)
    }

    /// Queues a URL among the first claimed (with the depth-0 entries)
    /// while it keeps its own depth: its sitemap says it changed since it
    /// was fetched.
    pub fn enqueue_first(&mut self, page: PageId, entry: FrontierEntry) -> Result<()> {
        self.enqueue_at(0, page, entry)
    }

    fn enqueue_at(&mut self, order: u32, page: PageId, entry: FrontierEntry) -> Result<()> {
        let seq = self.next_id(meta_keys::FRONTIER_SEQ)?;
        self.dbs.frontier.put(
            &mut self.txn,
            &frontier_key(order, seq),
            &codec::encode(&entry)?,
        )?;
        self.put_point_mark(
            entry.point,
            page,
            PointMark {
                gen: entry.gen,
                decision: Decision::Queued,
                depth: entry.depth,
            },
        )?;
        // A URL another point has claimed keeps its claim: this entry
        // waits for it to settle. (A claim of the entry's own point is
        // being put back: queued again.)
        if let Some(UrlState::Claimed { point, .. }) = self.url_state(page)? {
            if point != entry.point {
                return Ok(());
            }
        }
        let had = self.fact_of(page)?;
        self.set_state(
            page,
            &UrlState::Queued {
                point: entry.point,
                gen: entry.gen,
                had,
            },
        )
    }

    /// The fact a URL's state holds, kept through its queueing and claim.
    fn fact_of(&self, page: PageId) -> Result<Option<Box<UrlState>>> {
        Ok(self
            .url_state(page)?
            .and_then(|s| s.fact().cloned())
            .map(Box::new))
    }

    /// Takes up to `n` queued entries of `points` for crawler `by`: they
    /// leave the frontier and are marked claimed in the same transaction,
    /// so no other process can take them. An entry whose URL is claimed
    /// (by any point, in any process) stays queued until that claim
    /// settles, so no URL is fetched twice at once; one whose URL
    /// `fetched` says this crawl already fetched (for another point) is
    /// taken out and returned apart, for its point to reuse that fetch.
    pub fn claim(
        &mut self,
        n: usize,
        by: InstanceId,
        points: &[PointId],
        fetched: impl Fn(PageId) -> bool,
    ) -> Result<Taken> {
        let mut taken: Vec<(Vec<u8>, FrontierEntry, bool)> = Vec::with_capacity(n);
        let mut pages = rustc_hash::FxHashSet::default();
        for item in self.dbs.frontier.iter(&self.txn)? {
            if taken.len() >= n {
                break;
            }
            let (k, v) = item?;
            let entry: FrontierEntry = codec::decode(v)?;
            if !points.contains(&entry.point) || pages.contains(&entry.page) {
                continue;
            }
            if let Some(UrlState::Claimed { .. }) = self.url_state(entry.page)? {
                continue;
            }
            pages.insert(entry.page);
            taken.push((k.to_vec(), entry, fetched(entry.page)));
        }
        let mut out = Taken::default();
        for (key, entry, reuse) in taken {
            self.dbs.frontier.delete(&mut self.txn, &key)?;
            if reuse {
                out.reused.push(entry);
                continue;
            }
            let url = self.url_of(entry.page)?.ok_or_else(|| {
                StoreError::corrupt(format!("queued page {} has no URL", entry.page))
            })?;
            let had = self.fact_of(entry.page)?;
            self.set_state(
                entry.page,
                &UrlState::Claimed {
                    point: entry.point,
                    gen: entry.gen,
                    by,
                    depth: entry.depth,
                    hops: entry.hops,
                    had,
                },
            )?;
            out.claims.push(Claim {
                page: entry.page,
                url,
                entry,
            });
        }
        Ok(out)
    }

    /// Puts claimed URLs whose holder is gone (per `is_dead`) back in the
    /// queue; returns how many.
    pub fn recover_claims(&mut self, is_dead: impl Fn(InstanceId) -> bool) -> Result<usize> {
        let mut n = 0;
        for (page, state) in self.claims()? {
            if let UrlState::Claimed {
                point,
                gen,
                by,
                depth,
                hops,
                ..
            } = state
            {
                if is_dead(by) {
                    self.enqueue(
                        page,
                        FrontierEntry {
                            page,
                            depth,
                            point,
                            gen,
                            hops,
                        },
                    )?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }

    pub fn register_instance(&mut self, rec: InstanceRecord) -> Result<InstanceId> {
        let id = self.next_id32(meta_keys::NEXT_INSTANCE)?;
        self.heartbeat(id, rec)?;
        Ok(id)
    }

    pub fn heartbeat(&mut self, id: InstanceId, rec: InstanceRecord) -> Result<()> {
        self.dbs
            .instances
            .put(&mut self.txn, &u32_key(id), &codec::encode(&rec)?)?;
        Ok(())
    }

    pub fn unregister_instance(&mut self, id: InstanceId) -> Result<()> {
        self.dbs.instances.delete(&mut self.txn, &u32_key(id))?;
        Ok(())
    }

    /// Drops frontier entries of a point (a point removed, or its queue
    /// handed to a shared frontier) and returns them; a URL an earlier run
    /// settled goes back to that fact.
    pub fn drop_queued(&mut self, point: PointId) -> Result<Vec<FrontierEntry>> {
        let dropped = self.take_queued(point, |_, _| Ok(true))?;
        for entry in &dropped {
            // Another point's queue entry or claim keeps the URL's state.
            if self
                .url_state(entry.page)?
                .is_some_and(|s| s.run().0 != point)
            {
                continue;
            }
            match self.fact_of(entry.page)? {
                Some(fact) => self.set_state(entry.page, &fact)?,
                None => {
                    self.dbs
                        .url_state
                        .delete(&mut self.txn, &u32_key(entry.page))?;
                }
            }
        }
        Ok(dropped)
    }

    /// Takes the frontier entries of `point` that `pick` chooses out of
    /// the queue and returns them; their states are the caller's to set.
    pub fn take_queued(
        &mut self,
        point: PointId,
        mut pick: impl FnMut(&Self, &FrontierEntry) -> Result<bool>,
    ) -> Result<Vec<FrontierEntry>> {
        let mut queued = Vec::new();
        for item in self.dbs.frontier.iter(&self.txn)? {
            let (k, v) = item?;
            let entry: FrontierEntry = codec::decode(v)?;
            if entry.point == point {
                queued.push((k.to_vec(), entry));
            }
        }
        let mut taken = Vec::new();
        for (k, entry) in queued {
            if pick(self, &entry)? {
                self.dbs.frontier.delete(&mut self.txn, &k)?;
                taken.push(entry);
            }
        }
        Ok(taken)
    }
}

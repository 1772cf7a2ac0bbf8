//! The one writer: a dedicated thread that owns every write of a crawl. It
//! takes results from the fetch workers and requests from the dispatcher,
//! applies them in batches (one transaction, one fsync, many pages), and
//! only then announces them as events. It also decides where each newly
//! found link goes: queued, or recorded as skipped (scope, excludes, depth).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc::UnboundedSender, oneshot};
use url::Url;

use super::event::{CrawlEvent, FetchedPage, SkipCounts};
use super::parse::ParsedPage;
use super::rescope::Rescoped;
use super::sitemaps::{Found, SITEMAP_DEPTH};
use super::CrawlConfig;
use crate::store::prelude::*;
use crate::store::{
    Claim, Exchange, ExternalCheck, FrontierEntry, InstanceId, InstanceRecord, OriginFigures,
    OutLink, PageId, PageRecord, PointId, PointRecord, RobotsRecord, SkipReason, Store, StoreError,
    UrlState, Writer,
};
use crate::time::unix_now_ms;
use crate::url::{Scope, Verdict};

/// Redirect chains longer than this end with an error.
pub const MAX_REDIRECTS: u8 = 10;
const MAX_BATCH: usize = 1024;
/// The writer stops while this much disk is still free, so that returning
/// its claims to the queue can still be committed and the store stays whole.
pub const DISK_RESERVE: u64 = 4 << 20;
const HEARTBEAT: Duration = Duration::from_secs(2);
/// A crawler silent this long is taken for dead even if its pid lives on.
const STALE_HEARTBEAT_MS: i64 = 30_000;

pub type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

/// Work for the writer.
pub enum WriterMsg {
    /// A response with a body (2xx stored and indexed; 4xx/5xx recorded).
    Fetched {
        claim: Claim,
        page: Box<ParsedPage>,
        elapsed: Duration,
    },
    NotModified {
        claim: Claim,
        fetched_at: i64,
    },
    /// A 200 whose body hashes to the stored one.
    Unchanged {
        claim: Claim,
        fetched_at: i64,
        response_ms: u32,
    },
    Failed {
        claim: Claim,
        reason: String,
    },
    Redirect {
        claim: Claim,
        target: Url,
        status: u16,
    },
    Skipped {
        claim: Claim,
        reason: SkipReason,
    },
    Robots {
        origin: String,
        record: RobotsRecord,
    },
    /// One request to an origin, for its figures; a throttle (status and
    /// the wait) is announced once committed.
    Request {
        origin: String,
        how: Exchange,
        response_ms: Option<u32>,
        throttle: Option<(u16, Duration)>,
    },
    /// The page URLs an origin's sitemaps list, offered to a point.
    Sitemap {
        point: PointId,
        found: Arc<Found>,
    },
    Requeue(Vec<Claim>),
    /// The answer to an external link check.
    External {
        url: String,
        page: PageId,
        check: ExternalCheck,
    },
    Claim {
        n: usize,
        points: Vec<PointId>,
        reply: Reply<Vec<Claim>>,
    },
    /// Nothing to claim and nothing in flight: is the crawl over?
    Settle {
        points: Vec<PointId>,
        reply: Reply<Settle>,
    },
    AddPoint {
        point: Box<PointRecord>,
        reply: Reply<PointId>,
    },
}

/// The answer to [`WriterMsg::Settle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Work appeared (queued entries, or recovered claims of a dead crawler).
    More,
    /// Another live crawler holds claims that may yield new links.
    Wait,
    Done,
}

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
}

impl Counters {
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
    fn count(&self, e: &CrawlEvent) {
        let counter = match e {
            CrawlEvent::Fetched(f) if (200..300).contains(&f.status) => &self.fetched,
            CrawlEvent::Fetched(_) | CrawlEvent::Failed { .. } => &self.failed,
            CrawlEvent::NotModified { .. } => &self.not_modified,
            CrawlEvent::Unchanged { .. } => &self.unchanged,
            CrawlEvent::ExternalChecked { reason, .. } => {
                if reason.is_some() {
                    self.external_broken.fetch_add(1, Ordering::Relaxed);
                }
                &self.external_checked
            }
            CrawlEvent::OriginThrottled { .. } => &self.throttled,
            CrawlEvent::Skipped { reason, .. } => match reason {
                SkipReason::Robots => &self.skipped_robots,
                SkipReason::OutOfScope => &self.out_of_scope,
                SkipReason::Excluded => &self.excluded,
                SkipReason::TooDeep => &self.too_deep,
                SkipReason::Nofollow => &self.nofollow,
            },
            _ => return,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// What the writer knows of each point crawled in this run.
#[derive(Debug, Clone)]
pub struct PointRun {
    pub scope: Scope,
    pub depth: Option<u32>,
    pub gen: u32,
    pub follow_nofollow: bool,
    /// `www.host` and `host` are one site (the first seen is canonical).
    pub one_site: bool,
    /// The basic-auth user and the origins it is sent to.
    pub user: Option<(String, Vec<String>)>,
}

impl PointRun {
    pub(super) fn of(rec: &PointRecord) -> PointRun {
        PointRun {
            scope: Scope::new(rec.root.clone(), rec.excludes.clone(), !rec.distinct_www),
            depth: rec.depth,
            gen: rec.gen,
            follow_nofollow: rec.follow_nofollow,
            one_site: !rec.distinct_www,
            user: rec
                .user
                .clone()
                .map(|u| (u, crate::points::site_origins(rec))),
        }
    }

    /// The page id of a URL this point found, and the URL as stored: on
    /// the site's first-seen form when www twins are one site.
    pub(super) fn link_id<'u>(
        &self,
        w: &mut Writer<'_>,
        url: &'u Url,
    ) -> Result<(PageId, std::borrow::Cow<'u, Url>), StoreError> {
        let url = if self.one_site {
            w.on_first_seen_site_once(url)?
        } else {
            std::borrow::Cow::Borrowed(url)
        };
        // Only a point with a user needs the link's origin.
        let user = self
            .user
            .as_ref()
            .filter(|(_, origins)| origins.contains(&crate::url::origin(&url)))
            .map(|(u, _)| u.as_str());
        Ok((w.page_id_as(&url, user)?, url))
    }
}

pub struct WriterThread {
    store: Arc<Store>,
    instance: InstanceId,
    pid: u32,
    runs: HashMap<PointId, PointRun>,
    events: UnboundedSender<CrawlEvent>,
    counters: Arc<Counters>,
    last_heartbeat: Instant,
    /// Whether the last transaction committed indexed pages; see
    /// [`WriterThread::space_out`].
    indexed_last: bool,
    /// Links recorded as skipped in the transaction being applied; their
    /// events go out with the batch's after the commit.
    skipped: RefCell<Vec<CrawlEvent>>,
    /// Per-origin figures of the requests in the transaction being
    /// applied: added up here and written once per origin at its end, not
    /// read and rewritten for every request.
    figures: RefCell<HashMap<String, OriginFigures>>,
}

/// Outcome of applying one message, turned into events and replies after
/// the commit.
enum Done {
    Event(CrawlEvent),
    Queued(u64),
    Nothing,
}

pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether crawler `id` is gone, given the registry of live crawlers.
pub fn instance_dead(instances: &HashMap<InstanceId, InstanceRecord>, id: InstanceId) -> bool {
    match instances.get(&id) {
        None => true,
        Some(r) => !pid_alive(r.pid) || unix_now_ms() - r.heartbeat_ms > STALE_HEARTBEAT_MS,
    }
}

fn live_instances<R: FrontierRead>(
    r: &R,
) -> Result<HashMap<InstanceId, InstanceRecord>, StoreError> {
    Ok(r.instances()?.into_iter().collect())
}

impl WriterThread {
    /// Registers this crawler, returns dead crawlers' claims to the queue
    /// and starts (or joins) a run of each point.
    pub fn start(
        store: Arc<Store>,
        points: &[PointId],
        cfg: &CrawlConfig,
        events: UnboundedSender<CrawlEvent>,
        counters: Arc<Counters>,
    ) -> Result<(WriterThread, u64), StoreError> {
        let pid = std::process::id();
        let (instance, runs, queued) = store.update(|w| {
            let instances = live_instances(w)?;
            for (&id, _) in instances
                .iter()
                .filter(|(&id, _)| instance_dead(&instances, id))
            {
                w.unregister_instance(id)?;
            }
            w.recover_claims(|by| instance_dead(&instances, by))?;
            let instance = w.register_instance(InstanceRecord {
                pid,
                heartbeat_ms: unix_now_ms(),
            })?;
            let mut runs = HashMap::new();
            let mut queued = 0;
            let mut skipped = Vec::new();
            for &id in points {
                let rec = w
                    .point(id)?
                    .ok_or_else(|| StoreError::NotFound(format!("crawl point {id}")))?;
                let (mut run, rescoped) = begin_run(w, id, rec, &instances)?;
                run.depth = cfg.depth.or(run.depth);
                queued += rescoped.queued;
                skipped.extend(rescoped.skipped);
                runs.insert(id, run);
            }
            Ok((instance, runs, (queued, skipped)))
        })?;
        let (queued, skipped) = queued;
        // Told once committed, and counted like every skip.
        for e in skipped {
            counters.count(&e);
            let _ = events.send(e);
        }
        Ok((
            WriterThread {
                store,
                instance,
                pid,
                runs,
                events,
                counters,
                last_heartbeat: Instant::now(),
                indexed_last: false,
                skipped: RefCell::default(),
                figures: RefCell::default(),
            },
            queued,
        ))
    }

    /// Serves messages until every sender is gone, then unregisters.
    pub fn run(
        mut self,
        rx: Receiver<WriterMsg>,
        batch_interval: Duration,
    ) -> Result<(), StoreError> {
        let result = self.serve(&rx, batch_interval);
        let unregister = self.store.update(|w| w.unregister_instance(self.instance));
        result.and(unregister)
    }

    fn serve(
        &mut self,
        rx: &Receiver<WriterMsg>,
        batch_interval: Duration,
    ) -> Result<(), StoreError> {
        loop {
            let first = match rx.recv_timeout(HEARTBEAT) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    self.apply(Vec::new())?;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            let mut batch = vec![first];
            let deadline = Instant::now() + batch_interval;
            // Gather results until a request needs an answer, the batch is
            // full, or the interval is over: one commit serves them all.
            while batch.len() < MAX_BATCH && !batch.last().is_some_and(needs_reply) {
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left) {
                    Ok(m) => batch.push(m),
                    Err(_) => break,
                }
            }
            if self
                .store
                .free_space()
                .is_some_and(|free| free < DISK_RESERVE)
            {
                // Results of this batch are dropped: their URLs go back to
                // the queue with every other claim of ours.
                drop(batch);
                let me = self.instance;
                self.store.update(|w| w.recover_claims(|by| by == me))?;
                return Err(StoreError::DiskFull(self.store.path().to_path_buf()));
            }
            // The dispatcher waits on a claim while its buffer drains: take
            // it in a small transaction of its own before the batch.
            if matches!(batch.last(), Some(WriterMsg::Claim { .. })) {
                let claim: Vec<WriterMsg> = batch.pop().into_iter().collect();
                self.apply(claim)?;
            }
            self.apply(batch)?;
        }
    }

    /// LMDB reuses a page a transaction frees from the next transaction
    /// but one. A transaction that indexes pages rewrites many (the last
    /// leaf of each table, the leaves of the words it counts), and one
    /// that directly follows another such cannot reuse what that one
    /// freed: when it needs more than older transactions left, the file
    /// grows. Claims usually come between; at a crawl's end they do not,
    /// and 2 of 40 crawls of the 10k small-page site grew the 21 MB file
    /// by 0.4-0.7 MB in their last batches. A heartbeat committed between
    /// the two is a transaction of a few pages. Returns whether `batch`
    /// indexes pages.
    fn space_out(&mut self, batch: &[WriterMsg]) -> bool {
        let indexes = batch.iter().any(|m| matches!(m, WriterMsg::Fetched { .. }));
        if indexes && self.indexed_last {
            // A store that cannot commit this fails the batch's own commit
            // next, which answers everyone waiting on it.
            if self.store.update(|w| self.beat(w)).is_ok() {
                self.last_heartbeat = Instant::now();
            }
        }
        indexes
    }

    /// Records in `w` that this crawler is alive, now.
    fn beat(&self, w: &mut Writer<'_>) -> Result<(), StoreError> {
        let record = InstanceRecord {
            pid: self.pid,
            heartbeat_ms: unix_now_ms(),
        };
        w.heartbeat(self.instance, record)
    }

    fn apply(&mut self, mut batch: Vec<WriterMsg>) -> Result<(), StoreError> {
        pages_in_id_order(&mut batch);
        let indexes = self.space_out(&batch);
        let heartbeat = self.last_heartbeat.elapsed() >= HEARTBEAT;
        // The message whose result could not be written, if one was.
        let mut failed_at: Option<usize> = None;
        let mut outcomes: Vec<Done> = Vec::new();
        let mut claims: Vec<Vec<Claim>> = Vec::new();
        let mut settles: Vec<Settle> = Vec::new();
        let mut added: Vec<(PointId, PointRun)> = Vec::new();
        let result = self.store.update(|w| {
            failed_at = None;
            outcomes.clear();
            self.skipped.borrow_mut().clear();
            self.figures.borrow_mut().clear();
            claims.clear();
            settles.clear();
            added.clear();
            if heartbeat {
                self.beat(w)?;
            }
            for (i, msg) in batch.iter().enumerate() {
                match msg {
                    WriterMsg::Claim { n, points, .. } => {
                        claims.push(w.claim(*n, self.instance, points)?)
                    }
                    WriterMsg::Settle { points, .. } => settles.push(self.settle(w, points)?),
                    WriterMsg::AddPoint { point, .. } => {
                        let id = w.add_point(point)?;
                        let instances = live_instances(w)?;
                        let (run, rescoped) = begin_run(w, id, (**point).clone(), &instances)?;
                        outcomes.push(Done::Queued(rescoped.queued));
                        outcomes.extend(rescoped.skipped.into_iter().map(Done::Event));
                        added.push((id, run));
                    }
                    other => {
                        let (done, queued) = self
                            .apply_result(w, other)
                            .and_then(|r| super::history::record(w, other).map(|_| r))
                            .inspect_err(|_| failed_at = Some(i))?;
                        outcomes.push(done);
                        outcomes.push(Done::Queued(queued));
                    }
                }
            }
            for (origin, delta) in self.figures.borrow().iter() {
                w.add_origin_figures(origin, delta)?;
            }
            Ok(())
        });
        if let (Err(e), Some(i)) = (&result, failed_at) {
            if let Some(WriterMsg::Fetched { claim, .. }) = batch.get(i).filter(|_| e.is_confined())
            {
                // One page's fault: roll back only that page (the batch is
                // replayed without it), record it failed, and go on.
                let reason = format!("could not be indexed: {e}");
                tracing::warn!(url = %claim.url, %reason, "page rolled back");
                batch[i] = WriterMsg::Failed {
                    claim: claim.clone(),
                    reason,
                };
                return self.apply(batch);
            }
        }
        if let Err(e) = result {
            // Everyone waiting on this batch learns the one real cause.
            let e = Arc::new(e);
            for m in batch {
                let shared = || StoreError::Batch(e.clone());
                match m {
                    WriterMsg::Claim { reply, .. } => {
                        let _ = reply.send(Err(shared()));
                    }
                    WriterMsg::Settle { reply, .. } => {
                        let _ = reply.send(Err(shared()));
                    }
                    WriterMsg::AddPoint { reply, .. } => {
                        let _ = reply.send(Err(shared()));
                    }
                    _ => {}
                }
            }
            return Err(Arc::try_unwrap(e).unwrap_or_else(StoreError::Batch));
        }
        if heartbeat {
            self.last_heartbeat = Instant::now();
        }
        self.indexed_last = indexes;
        let mut claims = claims.into_iter();
        let mut settles = settles.into_iter();
        let mut added = added.into_iter();
        for m in batch {
            match m {
                WriterMsg::Claim { reply, .. } => {
                    let _ = reply.send(Ok(claims.next().unwrap_or_default()));
                }
                WriterMsg::Settle { reply, .. } => {
                    let _ = reply.send(Ok(settles.next().unwrap_or(Settle::More)));
                }
                WriterMsg::AddPoint { reply, .. } => {
                    if let Some((id, run)) = added.next() {
                        self.runs.insert(id, run);
                        let _ = reply.send(Ok(id));
                    }
                }
                _ => {}
            }
        }
        let mut queued = 0;
        let skipped = self.skipped.take().into_iter().map(Done::Event);
        for o in outcomes.into_iter().chain(skipped) {
            match o {
                Done::Event(e) => {
                    // Counted from the committed events alone, so the
                    // counts and the log always agree, reason by reason.
                    self.counters.count(&e);
                    let _ = self.events.send(e);
                }
                Done::Queued(n) => queued += n,
                Done::Nothing => {}
            }
        }
        if queued > 0 {
            let _ = self.events.send(CrawlEvent::Queued { count: queued });
        }
        Ok(())
    }

    fn settle(&self, w: &mut Writer<'_>, points: &[PointId]) -> Result<Settle, StoreError> {
        let instances = live_instances(w)?;
        let me = self.instance;
        if w.recover_claims(|by| by != me && instance_dead(&instances, by))? > 0
            || w.has_queued(points)?
        {
            return Ok(Settle::More);
        }
        let others_busy = w.claims()?.into_iter().any(|(_, s)| match s {
            UrlState::Claimed { point, by, .. } => by != me && points.contains(&point),
            _ => false,
        });
        Ok(if others_busy {
            Settle::Wait
        } else {
            Settle::Done
        })
    }

    /// Applies one result; returns its event and how many URLs it queued.
    fn apply_result(&self, w: &mut Writer<'_>, msg: &WriterMsg) -> Result<(Done, u64), StoreError> {
        let done = match msg {
            WriterMsg::Fetched {
                claim,
                page,
                elapsed,
            } => {
                let e = claim.entry;
                let write = &page.write;
                let mut queued = 0;
                let mut links = Vec::with_capacity(page.links.len());
                for link in &page.links {
                    let (child, url) = self.link_id(w, e.point, &link.url)?;
                    let out = OutLink {
                        child,
                        anchor: link.anchor.clone(),
                        nofollow: link.nofollow,
                    };
                    if (200..300).contains(&write.record.status) {
                        queued += self.follow(w, &write.record, &out, url.as_str(), e)?;
                    }
                    links.push(out);
                }
                w.put_page(claim.page, write, &links)?;
                let status = write.record.status;
                let state = if (200..300).contains(&status) {
                    UrlState::Done {
                        point: e.point,
                        gen: e.gen,
                    }
                } else {
                    UrlState::Failed {
                        point: e.point,
                        gen: e.gen,
                        reason: super::status_text(status),
                    }
                };
                w.set_state(claim.page, &state)?;
                return Ok((
                    Done::Event(CrawlEvent::Fetched(FetchedPage {
                        page: claim.page,
                        url: claim.url.clone(),
                        status,
                        bytes: write.record.size,
                        elapsed: *elapsed,
                        title: write.record.title.clone(),
                        depth: e.depth,
                    })),
                    queued,
                ));
            }
            WriterMsg::NotModified { claim, fetched_at } => {
                let queued = self.revisit(w, claim, *fetched_at, None)?;
                return Ok((
                    Done::Event(CrawlEvent::NotModified {
                        page: claim.page,
                        url: claim.url.clone(),
                    }),
                    queued,
                ));
            }
            WriterMsg::Unchanged {
                claim,
                fetched_at,
                response_ms,
            } => {
                let queued = self.revisit(w, claim, *fetched_at, Some(*response_ms))?;
                return Ok((
                    Done::Event(CrawlEvent::Unchanged {
                        page: claim.page,
                        url: claim.url.clone(),
                    }),
                    queued,
                ));
            }
            WriterMsg::Failed { claim, reason } => {
                self.fail(w, claim, reason)?;
                Ok(Done::Event(CrawlEvent::Failed {
                    page: claim.page,
                    url: claim.url.clone(),
                    reason: reason.clone(),
                }))
            }
            WriterMsg::Skipped { claim, reason } => {
                w.set_state(
                    claim.page,
                    &UrlState::Skipped {
                        point: claim.entry.point,
                        gen: claim.entry.gen,
                        reason: *reason,
                    },
                )?;
                Ok(Done::Event(CrawlEvent::Skipped {
                    page: claim.page,
                    url: claim.url.clone(),
                    reason: *reason,
                }))
            }
            WriterMsg::Redirect {
                claim,
                target,
                status,
            } => return self.redirect(w, claim, target, *status),
            WriterMsg::Robots { origin, record } => {
                let id = w.origin_id_for(origin)?;
                w.put_robots(id, record)?;
                Ok(Done::Nothing)
            }
            WriterMsg::Request {
                origin,
                how,
                response_ms,
                throttle,
            } => {
                self.figures
                    .borrow_mut()
                    .entry(origin.clone())
                    .or_default()
                    .record(*how, *response_ms);
                Ok(match *throttle {
                    Some((status, wait)) => Done::Event(CrawlEvent::OriginThrottled {
                        origin: origin.clone(),
                        status,
                        wait,
                    }),
                    None => Done::Nothing,
                })
            }
            WriterMsg::Sitemap { point, found } => {
                let mut queued = 0;
                for listed in &found.urls {
                    let (id, url) = self.link_id(w, *point, &listed.url)?;
                    w.put_listed_by_sitemap(id, &listed.sitemap)?;
                    // Changed since we fetched it: among the first claimed.
                    let changed = match (listed.lastmod, w.page(id)?) {
                        (Some(lastmod), Some(page)) => lastmod > page.fetched_at,
                        _ => false,
                    };
                    let url = url.as_str();
                    queued += self.consider_link(w, id, url, SITEMAP_DEPTH, *point, changed)?;
                }
                return Ok((Done::Nothing, queued));
            }
            WriterMsg::External { url, page, check } => {
                w.put_external_check(*page, check)?;
                Ok(Done::Event(CrawlEvent::ExternalChecked {
                    page: *page,
                    url: url.clone(),
                    status: check.status,
                    reason: check.reason.clone(),
                }))
            }
            WriterMsg::Requeue(claims) => {
                for cl in claims {
                    w.enqueue(cl.page, cl.entry)?;
                }
                Ok(Done::Nothing)
            }
            WriterMsg::Claim { .. } | WriterMsg::Settle { .. } | WriterMsg::AddPoint { .. } => {
                Ok(Done::Nothing)
            }
        };
        done.map(|d| (d, 0))
    }

    /// A page found as stored (304, or a 200 with the same body): only its
    /// fetch time (and response time) change, and it still leads to its
    /// children, which may have changed: they are revisited in this run too.
    fn revisit(
        &self,
        w: &mut Writer<'_>,
        claim: &Claim,
        fetched_at: i64,
        response_ms: Option<u32>,
    ) -> Result<u64, StoreError> {
        let mut queued = 0;
        if let Some(mut rec) = w.page(claim.page)? {
            rec.fetched_at = fetched_at;
            if let Some(ms) = response_ms {
                rec.response_ms = ms;
            }
            w.put_page_record(claim.page, &rec)?;
            for link in w.links(claim.page)? {
                if let Some(url) = w.url_of(link.child)? {
                    queued += self.follow(w, &rec, &link, &url, claim.entry)?;
                }
            }
        }
        w.set_state(
            claim.page,
            &UrlState::Done {
                point: claim.entry.point,
                gen: claim.entry.gen,
            },
        )?;
        Ok(queued)
    }

    /// Queues a link of a fetched page, or records it skipped as nofollow
    /// when the link or its page says so (unless the point follows those).
    fn follow(
        &self,
        w: &mut Writer<'_>,
        page: &PageRecord,
        link: &OutLink,
        url: &str,
        from: FrontierEntry,
    ) -> Result<u64, StoreError> {
        let Some(run) = self.runs.get(&from.point) else {
            return Ok(0);
        };
        let nofollow = link.nofollow || page.nofollow.is_some();
        if nofollow && !run.follow_nofollow {
            let state = w.url_state(link.child)?;
            let said = matches!(state, Some(UrlState::Skipped { point, gen, reason: SkipReason::Nofollow })
                if point == from.point && gen == run.gen);
            if !said && !self.visited(&state, from.point, run.gen) {
                self.skip(
                    w,
                    link.child,
                    url,
                    from.point,
                    run.gen,
                    SkipReason::Nofollow,
                )?;
            }
            return Ok(0);
        }
        self.consider_link(w, link.child, url, from.depth + 1, from.point, false)
    }

    fn fail(&self, w: &mut Writer<'_>, claim: &Claim, reason: &str) -> Result<(), StoreError> {
        w.set_state(
            claim.page,
            &UrlState::Failed {
                point: claim.entry.point,
                gen: claim.entry.gen,
                reason: reason.to_string(),
            },
        )
    }

    fn redirect(
        &self,
        w: &mut Writer<'_>,
        claim: &Claim,
        target: &Url,
        status: u16,
    ) -> Result<(Done, u64), StoreError> {
        let e = claim.entry;
        let to = w.page_id_for(target)?;
        let event = Done::Event(CrawlEvent::Redirected {
            page: claim.page,
            url: claim.url.clone(),
            to: target.to_string(),
            status,
        });
        let failure = if e.hops >= MAX_REDIRECTS {
            Some(format!("more than {MAX_REDIRECTS} redirects"))
        } else if to == claim.page || redirects_back(w, to, claim.page)? {
            Some(format!("redirect loop ({status} to {target})"))
        } else {
            None
        };
        if let Some(reason) = failure {
            self.fail(w, claim, &reason)?;
            let failed = CrawlEvent::Failed {
                page: claim.page,
                url: claim.url.clone(),
                reason,
            };
            return Ok((Done::Event(failed), 0));
        }
        w.set_state(
            claim.page,
            &UrlState::Redirected {
                point: e.point,
                gen: e.gen,
                to,
                status,
            },
        )?;
        let mut queued = 0;
        if let Some(run) = self.runs.get(&e.point) {
            if !self.visited(&w.url_state(to)?, e.point, run.gen) {
                let verdict = run.scope.verdict(target.as_str());
                if verdict == Verdict::In {
                    queued = 1;
                    w.enqueue(
                        to,
                        FrontierEntry {
                            page: to,
                            depth: e.depth,
                            point: e.point,
                            gen: run.gen,
                            hops: e.hops + 1,
                        },
                    )?;
                } else {
                    self.skip(
                        w,
                        to,
                        target.as_str(),
                        e.point,
                        run.gen,
                        scope_skip(verdict),
                    )?;
                }
            }
        }
        Ok((event, queued))
    }

    /// The page id of a URL `point` found, and the URL as stored (see
    /// [`PointRun::link_id`]).
    fn link_id<'u>(
        &self,
        w: &mut Writer<'_>,
        point: PointId,
        url: &'u Url,
    ) -> Result<(PageId, std::borrow::Cow<'u, Url>), StoreError> {
        match self.runs.get(&point) {
            Some(run) => run.link_id(w, url),
            None => Ok((w.page_id_for(url)?, std::borrow::Cow::Borrowed(url))),
        }
    }

    /// Queues a newly found link (among the first claimed when `first`) or
    /// records why it is not crawled; returns 1 when it was queued.
    fn consider_link(
        &self,
        w: &mut Writer<'_>,
        id: PageId,
        link: &str,
        depth: u32,
        point: PointId,
        first: bool,
    ) -> Result<u64, StoreError> {
        let Some(run) = self.runs.get(&point) else {
            return Ok(0);
        };
        if self.visited(&w.url_state(id)?, point, run.gen) {
            return Ok(0);
        }
        let verdict = run.scope.verdict(link);
        if verdict != Verdict::In {
            self.skip(w, id, link, point, run.gen, scope_skip(verdict))?;
            return Ok(0);
        }
        if run.depth.is_some_and(|max| depth > max) {
            self.skip(w, id, link, point, run.gen, SkipReason::TooDeep)?;
            return Ok(0);
        }
        let entry = FrontierEntry {
            page: id,
            depth,
            point,
            gen: run.gen,
            hops: 0,
        };
        if first {
            w.enqueue_first(id, entry)?;
        } else {
            w.enqueue(id, entry)?;
        }
        Ok(1)
    }

    /// Whether a URL is dealt with for this run of `point`: done in this
    /// run, or in the hands of another point that is queued on it, has it
    /// claimed, or is crawling it in this process now. What another point
    /// left in an earlier run is this point's to crawl again (with a
    /// conditional GET), so a point always covers its own scope.
    fn visited(&self, state: &Option<UrlState>, point: PointId, gen: u32) -> bool {
        let Some(s) = state else { return false };
        // A nofollow link does not settle a URL: a followed link to it
        // later in the run still queues it.
        if matches!(
            s,
            UrlState::Skipped {
                reason: SkipReason::Nofollow,
                ..
            }
        ) {
            return false;
        }
        let (p, g) = s.run();
        if p == point {
            return g == gen;
        }
        matches!(s, UrlState::Queued { .. } | UrlState::Claimed { .. })
            || self.runs.get(&p).is_some_and(|run| run.gen == g)
    }

    /// Records a URL that will not be fetched, and tells the faces after
    /// the commit, like every other outcome.
    fn skip(
        &self,
        w: &mut Writer<'_>,
        id: PageId,
        url: &str,
        point: PointId,
        gen: u32,
        reason: SkipReason,
    ) -> Result<(), StoreError> {
        w.set_state(id, &UrlState::Skipped { point, gen, reason })?;
        self.skipped.borrow_mut().push(CrawlEvent::Skipped {
            page: id,
            url: url.to_string(),
            reason,
        });
        Ok(())
    }
}

/// Why a URL the scope refuses is skipped.
fn scope_skip(verdict: Verdict) -> SkipReason {
    if verdict == Verdict::Excluded {
        SkipReason::Excluded
    } else {
        SkipReason::OutOfScope
    }
}

/// Puts a batch's fetched pages in page id order, each in one of the
/// places pages held (other messages keep theirs): the store then adds
/// their records at the end of its tables instead of splitting leaves
/// (see the store's `page_records`). Pages finish in no particular order
/// anyway.
fn pages_in_id_order(batch: &mut Vec<WriterMsg>) {
    sort_among(batch, |m| match m {
        WriterMsg::Fetched { claim, .. } => Some(claim.page),
        _ => None,
    });
}

/// Sorts the items `key` picks by that key, each into one of the places
/// those items held; the others keep theirs.
fn sort_among<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> Option<K>) {
    let places: Vec<usize> = (0..items.len())
        .filter(|&i| key(&items[i]).is_some())
        .collect();
    let mut in_order = places.clone();
    in_order.sort_by_key(|&i| key(&items[i]));
    if in_order == places {
        return;
    }
    // The item each position takes: a permutation.
    let mut source: Vec<usize> = (0..items.len()).collect();
    for (&place, &from) in places.iter().zip(&in_order) {
        source[place] = from;
    }
    let mut taken: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(source.into_iter().filter_map(|from| taken[from].take()));
}

fn needs_reply(m: &WriterMsg) -> bool {
    matches!(
        m,
        WriterMsg::Claim { .. } | WriterMsg::Settle { .. } | WriterMsg::AddPoint { .. }
    )
}

/// Whether following redirects from `from` leads back to `to`.
fn redirects_back(w: &Writer<'_>, from: PageId, to: PageId) -> Result<bool, StoreError> {
    let mut at = from;
    for _ in 0..=MAX_REDIRECTS {
        match w.url_state(at)? {
            Some(UrlState::Redirected { to: next, .. }) => {
                if next == to {
                    return Ok(true);
                }
                at = next;
            }
            _ => return Ok(false),
        }
    }
    Ok(false)
}

/// Starts a new run of a point (bumping its generation and queueing its
/// URL) unless one is under way (queued entries or live claims), in which
/// case this crawler joins it. Returns the run and how many URLs it queued.
fn begin_run(
    w: &mut Writer<'_>,
    id: PointId,
    mut rec: PointRecord,
    instances: &HashMap<InstanceId, InstanceRecord>,
) -> Result<(PointRun, Rescoped), StoreError> {
    let live_claims = w.claims()?.into_iter().any(|(_, s)| match s {
        UrlState::Claimed { point, by, .. } => point == id && !instance_dead(instances, by),
        _ => false,
    });
    let joining = w.has_queued(&[id])? || live_claims;
    let mut rescoped = Rescoped::default();
    if rec.dirty {
        let gen = if joining { rec.gen } else { rec.gen + 1 };
        rescoped = super::rescope::rescope(w, id, &mut rec, gen)?;
    }
    if joining {
        return Ok((PointRun::of(&rec), rescoped));
    }
    rec.gen += 1;
    w.put_point(id, &rec)?;
    w.keep_last_run(id)?;
    let url = Url::parse(&rec.url)
        .map_err(|e| StoreError::corrupt(format!("crawl point {id} URL {}: {e}", rec.url)))?;
    let (page, _) = PointRun::of(&rec).link_id(w, &url)?;
    w.enqueue(
        page,
        FrontierEntry {
            page,
            depth: 0,
            point: id,
            gen: rec.gen,
            hops: 0,
        },
    )?;
    rescoped.queued += 1;
    Ok((PointRun::of(&rec), rescoped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_sorted_among_their_own_places() {
        // Negative numbers stand for other messages.
        let page = |v: &i32| (*v >= 0).then_some(*v);
        let mut v = vec![5, -1, 3, -2, 4, 1, -3];
        sort_among(&mut v, page);
        assert_eq!(v, vec![1, -1, 3, -2, 4, 5, -3]);
        let mut same = vec![-1, 1, 2, -2, 3];
        sort_among(&mut same, page);
        assert_eq!(same, vec![-1, 1, 2, -2, 3]);
        let mut none: Vec<i32> = vec![-1, -2];
        sort_among(&mut none, page);
        assert_eq!(none, vec![-1, -2]);
    }
}

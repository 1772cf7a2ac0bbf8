//! The one writer: a dedicated thread that owns every write of a crawl. It
//! takes outcomes from the fetch workers and requests from the dispatcher,
//! gathers them into batches, applies each in one transaction (one fsync,
//! many pages; see [`batch`]), and only then announces the outcomes as
//! events and answers the request. It also keeps this crawler's heartbeat
//! (with it, the running time of its runs) and stops, whole, before the
//! disk fills.

mod batch;
pub(super) mod counters;
mod fragments;
mod frontier;
mod link_id;
mod liveness;
mod runs;

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use self::batch::{pages_in_id_order, Answer, Applied, Applier, Batch, Done};
use self::frontier::Frontier;
use self::runs::{add_running, begin_run, end_runs, Overrides};
use super::event::CrawlEvent;
use super::msg::{Outcome, Request, Settle, WriterMsg};
use super::pause::Pause;
use super::policy::Runs;
use super::shared::{Offer, SharedFrontier};
use super::CrawlConfig;
use crate::store::prelude::*;
use crate::store::{PointId, Store, StoreError};

pub use self::counters::Counters;
pub use self::liveness::{instance_dead, pid_alive, work_at_hand, WorkAtHand};
pub use self::runs::run_ended;

const MAX_BATCH: usize = 1024;
/// The writer stops while this much disk is still free, so that returning
/// its claims to the queue can still be committed and the store stays whole.
pub const DISK_RESERVE: u64 = 4 << 20;
const HEARTBEAT: Duration = Duration::from_secs(2);

pub struct WriterThread {
    store: Arc<Store>,
    pid: u32,
    applier: Applier,
    events: UnboundedSender<CrawlEvent>,
    counters: Arc<Counters>,
    /// The crawl's running clock, and how much of it the runs' records
    /// hold: each heartbeat adds the rest.
    pause: Arc<Pause>,
    ran_counted: Duration,
    last_heartbeat: Instant,
    /// Whether the last transaction committed indexed pages; see
    /// [`WriterThread::space_out`].
    indexed_last: bool,
}

impl WriterThread {
    /// Registers this crawler, returns dead crawlers' claims to the queue
    /// and starts (or joins) a run of each point (see [`runs`]).
    pub fn start(
        store: Arc<Store>,
        points: &[PointId],
        cfg: &CrawlConfig,
        events: UnboundedSender<CrawlEvent>,
        counters: Arc<Counters>,
        pause: Arc<Pause>,
    ) -> Result<(WriterThread, u64), StoreError> {
        let pid = std::process::id();
        if cfg.parts_off.off(crate::crawl::Part::Pairs) {
            store.count_pairs(false);
        }
        let mut shared = match &cfg.frontier {
            Some(spec) => {
                let pulse = pulse(counters.clone(), pause.clone());
                Some(join_shared(&store, spec, cfg, points, pid, pulse)?)
            }
            None => None,
        };
        // The seeds a run's start queued, handed to the shared frontier.
        let mut seeds = Vec::new();
        let (instance, runs, queued, overrides) = store.update(|w| {
            let instances = liveness::live_instances(w)?;
            for (&id, _) in instances
                .iter()
                .filter(|(&id, _)| instance_dead(&instances, id))
            {
                w.unregister_instance(id)?;
            }
            w.recover_claims(|by| instance_dead(&instances, by))?;
            let instance = w.register_instance(liveness::heartbeat(pid, 0))?;
            let overrides = Overrides {
                depth: cfg.depth,
                max_pages: cfg.max_pages,
            };
            let mut runs = Runs::new();
            let mut queued = 0;
            let mut skipped = Vec::new();
            for &id in points {
                let rec = w
                    .point(id)?
                    .ok_or_else(|| StoreError::NotFound(format!("crawl point {id}")))?;
                let (run, rescoped) = begin_run(w, id, rec, &instances, instance, overrides)?;
                queued += rescoped.queued;
                skipped.extend(rescoped.skipped);
                runs.insert(id, run);
            }
            if shared.is_some() {
                seeds = hand_over(w, points)?;
            }
            let frontier_len = w.frontier_len()?;
            Ok((instance, runs, (queued, skipped, frontier_len), overrides))
        })?;
        let (mut queued, skipped, frontier_len) = queued;
        counters.queued.store(frontier_len, Ordering::Relaxed);
        if let Some(remote) = shared.as_mut() {
            queued = remote.offer(&seeds)?;
        }
        // Told once committed, and counted like every skip.
        for e in skipped {
            counters.count(&e);
            let _ = events.send(e);
        }
        Ok((
            WriterThread {
                store,
                pid,
                applier: Applier::new(
                    instance,
                    runs,
                    overrides,
                    cfg.parts_off,
                    shared.map_or(Frontier::Local, Frontier::shared),
                ),
                events,
                counters,
                ran_counted: pause.running(),
                pause,
                last_heartbeat: Instant::now(),
                indexed_last: false,
            },
            queued,
        ))
    }

    /// Serves messages until every sender is gone, then ends its runs
    /// and unregisters.
    pub fn run(
        mut self,
        rx: Receiver<WriterMsg>,
        batch_interval: Duration,
    ) -> Result<(), StoreError> {
        let result = self.serve(&rx, batch_interval);
        let instance = self.applier.instance;
        let runs = &self.applier.runs;
        let ran = self.pause.running().saturating_sub(self.ran_counted);
        let unregister = self.store.update(|w| {
            add_running(w, runs, ran)?;
            end_runs(w, runs, instance)?;
            w.unregister_instance(instance)
        });
        result.and(unregister)
    }

    fn serve(
        &mut self,
        rx: &Receiver<WriterMsg>,
        batch_interval: Duration,
    ) -> Result<(), StoreError> {
        loop {
            let mut msg = match rx.recv_timeout(HEARTBEAT) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    self.apply(Batch::default())?;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            let mut batch = Batch::default();
            let deadline = Instant::now() + batch_interval;
            // Gather outcomes until a request needs an answer, the batch is
            // full, or the interval is over: one commit serves them all.
            loop {
                match msg {
                    WriterMsg::Request(r) => {
                        batch.request = Some(r);
                        break;
                    }
                    WriterMsg::Outcome(o) => batch.outcomes.push(o),
                }
                if batch.outcomes.len() >= MAX_BATCH {
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left) {
                    Ok(m) => msg = m,
                    Err(_) => break,
                }
            }
            if self
                .store
                .free_space()
                .is_some_and(|free| free < DISK_RESERVE)
            {
                // Outcomes of this batch are dropped: their URLs go back to
                // the queue with every other claim of ours.
                drop(batch);
                let me = self.applier.instance;
                self.store.update(|w| w.recover_claims(|by| by == me))?;
                return Err(StoreError::DiskFull(self.store.path().to_path_buf()));
            }
            // The dispatcher waits on a claim while its buffer drains: take
            // it in a small transaction of its own before the batch.
            if matches!(batch.request, Some(Request::Claim { .. })) {
                let claim = Batch {
                    outcomes: Vec::new(),
                    request: batch.request.take(),
                };
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
    fn space_out(&mut self, batch: &Batch) -> bool {
        let indexes = batch.indexes();
        if indexes && self.indexed_last {
            // A store that cannot commit this fails the batch's own commit
            // next, which answers everyone waiting on it.
            let (instance, pid) = (self.applier.instance, self.pid);
            let on_wire = self.counters.on_wire.load(Ordering::Relaxed);
            if self
                .store
                .update(|w| liveness::beat(w, instance, pid, on_wire))
                .is_ok()
            {
                self.last_heartbeat = Instant::now();
            }
        }
        indexes
    }

    fn apply(&mut self, mut batch: Batch) -> Result<(), StoreError> {
        let lost = match self
            .applier
            .frontier
            .before(batch.request.as_ref(), &mut batch.outcomes)
        {
            Ok(lost) => lost,
            Err(e) => return Err(failed(batch.request, e)),
        };
        pages_in_id_order(&mut batch.outcomes);
        let indexes = self.space_out(&batch);
        let heartbeat = self.last_heartbeat.elapsed() >= HEARTBEAT;
        let running = self.pause.running();
        let ran = running.saturating_sub(self.ran_counted);
        let mut applied = Applied::default();
        let (instance, pid) = (self.applier.instance, self.pid);
        let on_wire = self.counters.on_wire.load(Ordering::Relaxed);
        let applier = &mut self.applier;
        let result = self.store.update(|w| {
            if heartbeat {
                liveness::beat(w, instance, pid, on_wire)?;
                add_running(w, &applier.runs, ran)?;
            }
            applier.apply(w, &batch, &mut applied)?;
            applier.frontier.len(w)
        });
        if let (Err(e), Some(i)) = (&result, applied.failed_at) {
            if let Some(Outcome::Fetched { claim, .. }) =
                batch.outcomes.get(i).filter(|_| e.is_confined())
            {
                // One page's fault: roll back only that page (the batch is
                // replayed without it), record it failed, and go on.
                let reason = format!("could not be indexed: {e}");
                tracing::warn!(url = %claim.url, %reason, "page rolled back");
                batch.outcomes[i] = Outcome::Failed {
                    claim: claim.clone(),
                    reason,
                };
                return self.apply(batch);
            }
        }
        let frontier_len = match result.and_then(|len| {
            self.applier.frontier.after(&batch.outcomes)?;
            Ok(len)
        }) {
            Ok(len) => len,
            Err(e) => return Err(failed(batch.request, e)),
        };
        if heartbeat {
            self.last_heartbeat = Instant::now();
            self.ran_counted = running;
        }
        self.indexed_last = indexes;
        let claimed = match &applied.answer {
            Some(Answer::Claimed(claims)) => claims.len() as u64,
            _ => 0,
        };
        let settled: u64 = lost
            + batch
                .outcomes
                .iter()
                .map(Outcome::claims_settled)
                .sum::<u64>();
        let skipped = self.applier.take_skipped().map(Done::Event);
        let events = &self.events;
        self.counters.commit(|c| {
            c.queued.store(frontier_len, Ordering::Relaxed);
            let held = c.held.load(Ordering::Relaxed) + claimed;
            c.held
                .store(held.saturating_sub(settled), Ordering::Relaxed);
            let mut queued = 0;
            for o in applied.done.into_iter().chain(skipped) {
                match o {
                    Done::Event(e) => {
                        // Counted from the committed events alone, so the
                        // counts and the log always agree, reason by reason.
                        c.count(&e);
                        let _ = events.send(e);
                    }
                    Done::Queued(n) => queued += n,
                    Done::Nothing => {}
                }
            }
            if queued > 0 {
                let _ = events.send(CrawlEvent::Queued { count: queued });
            }
        });
        if let Some(r) = batch.request {
            answer(r, applied.answer, &mut self.applier.runs);
        }
        Ok(())
    }
}

/// Joins the shared frontier's runs of `points` (each known there by its
/// URL) as crawler `host:pid:start-ms`.
fn join_shared(
    store: &Store,
    spec: &crate::crawl::shared::Spec,
    cfg: &CrawlConfig,
    points: &[PointId],
    pid: u32,
    pulse: crate::crawl::shared::Pulse,
) -> Result<SharedFrontier, StoreError> {
    let r = store.read()?;
    let mut named = Vec::with_capacity(points.len());
    let mut limits = Vec::new();
    for &id in points {
        let rec = r
            .point(id)?
            .ok_or_else(|| StoreError::NotFound(format!("crawl point {id}")))?;
        limits.extend(cfg.max_pages.or(rec.max_pages).map(|max| (id, max)));
        named.push((id, rec.url));
    }
    drop(r);
    let owner = format!(
        "{}:{pid}:{}",
        crate::crawl::shared::this_host(),
        crate::time::unix_now_ms()
    );
    let mut shared = SharedFrontier::join(spec, owner, cfg.delay, &named, pulse)?;
    for (id, max) in limits {
        shared.limit(id, max);
    }
    Ok(shared)
}

/// What this crawler's heartbeat on the shared frontier tells: its
/// requests on the wire and its pages a second, while not paused.
fn pulse(counters: Arc<Counters>, pause: Arc<Pause>) -> crate::crawl::shared::Pulse {
    Arc::new(move || {
        let secs = pause.running().as_secs_f64();
        let fetched = counters.fetched.load(Ordering::Relaxed) as f64;
        let rate = if secs > 0.0 { fetched / secs } else { 0.0 };
        (counters.on_wire.load(Ordering::Relaxed), rate)
    })
}

/// Takes what the store's frontier holds for `points` (the seeds a run's
/// start queued) out of it, as offers to the shared frontier.
fn hand_over(
    w: &mut crate::store::Writer<'_>,
    points: &[PointId],
) -> Result<Vec<Offer>, StoreError> {
    let mut offers = Vec::new();
    for &point in points {
        for e in w.drop_queued(point)? {
            if let Some(url) = w.url_of(e.page)? {
                offers.push(Offer {
                    point,
                    url,
                    depth: e.depth,
                    hops: e.hops,
                });
            }
        }
    }
    Ok(offers)
}

/// Answers a committed request.
fn answer(request: Request, answer: Option<Answer>, runs: &mut Runs) {
    match request {
        Request::Claim { reply, .. } => {
            let claims = match answer {
                Some(Answer::Claimed(claims)) => claims,
                _ => Vec::new(),
            };
            let _ = reply.send(Ok(claims));
        }
        Request::Settle { reply, .. } => {
            let settle = match answer {
                Some(Answer::Settled(settle)) => settle,
                _ => Settle::More,
            };
            let _ = reply.send(Ok(settle));
        }
        Request::AddPoint { reply, .. } => {
            if let Some(Answer::Added(id, run)) = answer {
                runs.insert(id, run);
                let _ = reply.send(Ok(id));
            }
        }
    }
}

/// A batch that failed with `e`: whoever waits on its request learns the
/// one real cause, which the writer then fails with.
fn failed(request: Option<Request>, e: StoreError) -> StoreError {
    let e = Arc::new(e);
    if let Some(r) = request {
        refuse(r, StoreError::Batch(e.clone()));
    }
    Arc::try_unwrap(e).unwrap_or_else(StoreError::Batch)
}

/// Tells the one waiting on a request that its batch failed, and why.
fn refuse(request: Request, e: StoreError) {
    match request {
        Request::Claim { reply, .. } => {
            let _ = reply.send(Err(e));
        }
        Request::Settle { reply, .. } => {
            let _ = reply.send(Err(e));
        }
        Request::AddPoint { reply, .. } => {
            let _ = reply.send(Err(e));
        }
    }
}

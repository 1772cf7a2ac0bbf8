//! The dispatcher: starts the writer thread and the shared context,
//! claims work from the shared frontier through the writer, keeps fetch
//! workers running within the concurrency and each point's page limit
//! (each walks one claim, see [`claim`]), holds claims for paused origins,
//! obeys the faces' commands, reports stats, and settles the crawl (then
//! checks external links). Faces drive it with commands and watch it
//! through events; it knows nothing of them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;
use url::Url;

use super::analyzers::PointParsing;
use super::claim;
use super::config::CrawlConfig;
use super::ctx::{credentials, Ctx};
use super::event::{CrawlCommand, CrawlEvent, CrawlStats, Summary};
use super::external;
use super::fetch::{Credentials, Fetcher};
use super::https_twins;
use super::link_auth::LinkAuth;
use super::msg::{Outcome, Reply, Request, Settle};
use super::origins::{OriginState, Origins};
use super::pause::Pause;
use super::pool::ParsePool;
use super::render_plans::RenderPlans;
use super::request_rules::RequestRules;
use super::resources;
use super::robots::RobotsCache;
use super::shared::control::{self, Cluster};
use super::sitemaps::Sitemaps;
use super::stop::Stop;
use super::writer::{Counters, WriterThread};
use super::CrawlError;
use crate::store::prelude::*;
use crate::store::{Claim, PointId, Resolve, Store};

const STATS_EVERY: Duration = Duration::from_millis(500);
/// When the frontier ran dry, wait this long before asking again, so a
/// sparse frontier does not turn into one commit per page.
const EMPTY_CLAIM_PAUSE: Duration = Duration::from_millis(20);
const SETTLE_WAIT: Duration = Duration::from_millis(200);
/// Claims buffered at most, per unit of `--concurrency`, when paused
/// origins hold many of them.
const MAX_HELD: usize = 64;

type ClaimReply = oneshot::Receiver<Result<Vec<Claim>, crate::store::StoreError>>;

/// A running crawl, as a face holds it.
pub struct CrawlHandle {
    pub events: UnboundedReceiver<CrawlEvent>,
    pub commands: UnboundedSender<CrawlCommand>,
    pub done: tokio::task::JoinHandle<Result<Summary, CrawlError>>,
}

/// Starts crawling `points` (ids of stored crawl points) on the current
/// tokio runtime.
pub fn start(
    store: Arc<Store>,
    cfg: CrawlConfig,
    points: Vec<PointId>,
) -> Result<CrawlHandle, CrawlError> {
    let (ev_tx, ev_rx) = unbounded_channel();
    let (cmd_tx, cmd_rx) = unbounded_channel();
    let counters = Arc::new(Counters::default());
    let pause = Arc::new(Pause::default());
    let (writer, initially_queued) = WriterThread::start(
        store.clone(),
        &points,
        &cfg,
        ev_tx.clone(),
        counters.clone(),
        pause.clone(),
    )?;
    if initially_queued > 0 {
        let _ = ev_tx.send(CrawlEvent::Queued {
            count: initially_queued,
        });
    }
    // With a shared frontier, the cluster's pause and stop too.
    let cluster = cfg
        .frontier
        .as_ref()
        .map(|spec| control::watch(&spec.url))
        .transpose()?;
    let (w_tx, w_rx) = std::sync::mpsc::channel();
    let batch_interval = cfg.batch_interval;
    let writer_thread = std::thread::Builder::new()
        .name("crawlscope-writer".into())
        .spawn(move || writer.run(w_rx, batch_interval))
        .map_err(|source| CrawlError::Spawn {
            what: "writer",
            source,
        })?;
    let settings = PointSettings::read(&store, &points)?;
    let resolves =
        crate::points::merge_resolves(&settings.resolves).map_err(CrawlError::Resolve)?;
    if let Some(spec) = &cfg.frontier {
        // Points handed to the cluster mid-crawl become this crawl's too.
        super::shared::watch_points(spec.url.clone(), settings.starts, cmd_tx.downgrade());
    }
    let ctx = Arc::new(Ctx {
        fetcher: Fetcher::new(&cfg, &resolves).map_err(CrawlError::Client)?,
        robots: RobotsCache::default(),
        origins: Origins::new(cfg.per_host, cfg.delay, pause.clone()).sharing(
            cfg.frontier.as_ref().and_then(|spec| {
                // A hold lapses after the longest a request may take.
                let hold = spec.lease.max(cfg.connect_timeout + cfg.timeout);
                super::shared::SharedSlots::new(&spec.url, cfg.per_host, hold)
            }),
        ),
        sitemaps: settings.sitemaps,
        agent: cfg.robots_agent().to_ascii_lowercase().into(),
        creds: RwLock::new(settings.creds),
        request_rules: RwLock::new(settings.request_rules),
        parsers: ParsePool::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
            .map_err(|source| CrawlError::Spawn {
                what: "parser",
                source,
            })?,
        writer: w_tx,
        events: ev_tx,
        stop: Stop::default(),
        pause,
        link_auth: LinkAuth::default(),
        counters: counters.clone(),
        parsing: settings.parsing,
        shared_robots: cfg
            .frontier
            .as_ref()
            .and_then(|spec| super::shared::SharedRobots::new(&spec.url)),
        store,
        cfg,
        render: settings.render,
    });
    let done = tokio::spawn(run_to_end(
        ctx,
        points,
        cmd_rx,
        cluster,
        writer_thread,
        counters,
    ));
    Ok(CrawlHandle {
        events: ev_rx,
        commands: cmd_tx,
        done,
    })
}

/// What the crawl's context takes from its points' records.
#[derive(Default)]
struct PointSettings {
    creds: HashMap<PointId, Credentials>,
    request_rules: HashMap<PointId, Arc<RequestRules>>,
    sitemaps: Sitemaps,
    /// Each point's `--resolve`s, merged for the one client.
    resolves: Vec<(PointId, Vec<Resolve>)>,
    /// The start URLs, which the cluster's watch knows as this crawl's.
    starts: HashSet<String>,
    parsing: PointParsing,
    render: RenderPlans,
}

impl PointSettings {
    fn read(store: &Store, points: &[PointId]) -> Result<PointSettings, CrawlError> {
        let mut s = PointSettings::default();
        let r = store.read()?;
        for &id in points {
            if let Some(rec) = r.point(id)? {
                s.parsing.set(id, &rec);
                s.creds.insert(id, credentials(&rec)?);
                let doc = crate::documents::excludes_for(&r, &rec)?;
                s.request_rules
                    .insert(id, Arc::new(RequestRules::of(&rec, doc)));
                s.sitemaps.set_enabled(id, !rec.no_sitemaps);
                s.render.add(id, &rec);
                s.starts.insert(rec.url.clone());
                s.resolves.push((id, rec.resolve));
            }
        }
        Ok(s)
    }
}

/// The crawl's task: dispatches until done or stopped, then waits for
/// the writer to commit what is left, and sums up.
async fn run_to_end(
    ctx: Arc<Ctx>,
    points: Vec<PointId>,
    commands: UnboundedReceiver<CrawlCommand>,
    cluster: Option<watch::Receiver<Cluster>>,
    writer_thread: std::thread::JoinHandle<Result<(), crate::store::StoreError>>,
    counters: Arc<Counters>,
) -> Result<Summary, CrawlError> {
    let result = Dispatcher::new(ctx.clone(), points, commands, cluster)
        .run()
        .await;
    let jars = ctx.save_cookie_jars();
    let events = ctx.events.clone();
    // Dropping the last sender ends the writer once it has committed.
    drop(ctx);
    let written = tokio::task::spawn_blocking(move || writer_thread.join())
        .await
        .map_err(CrawlError::Join)?
        .map_err(|_| CrawlError::WriterPanicked)?;
    written?;
    let (active, crawlers) = result?;
    jars?;
    // Counted by the writer, so only complete once it has committed.
    let summary = Summary {
        crawlers,
        ..counters.summary(active)
    };
    let _ = events.send(CrawlEvent::Finished(summary));
    Ok(summary)
}

struct Dispatcher {
    ctx: Arc<Ctx>,
    points: Vec<PointId>,
    max_pages: HashMap<PointId, u64>,
    ok: HashMap<PointId, u64>,
    in_flight_per_point: HashMap<PointId, u64>,
    commands: UnboundedReceiver<CrawlCommand>,
    buffer: VecDeque<Claim>,
    /// How many claims at the buffer's front wait for their origin's pause.
    held_for_pause: usize,
    workers: JoinSet<(PointId, bool)>,
    paused: bool,
    stopping: bool,
    next_claim: Instant,
    /// The cluster's pause and stop, when the frontier is shared.
    cluster: Option<watch::Receiver<Cluster>>,
    most_crawlers: Option<u64>,
}

/// What the dispatcher does when it has no work at hand.
enum Idle {
    /// Go round again at once: there is work, or a check may have made some.
    Again,
    /// The crawl is done.
    Done,
    /// Wait for something to happen.
    Wait,
}

/// The cluster's next change; never, when the frontier is not shared.
async fn cluster_changed(rx: &mut Option<watch::Receiver<Cluster>>) -> Cluster {
    if let Some(rx) = rx {
        if rx.changed().await.is_ok() {
            return *rx.borrow_and_update();
        }
    }
    std::future::pending().await
}

impl Dispatcher {
    fn new(
        ctx: Arc<Ctx>,
        points: Vec<PointId>,
        commands: UnboundedReceiver<CrawlCommand>,
        cluster: Option<watch::Receiver<Cluster>>,
    ) -> Self {
        let mut max_pages = HashMap::new();
        if let Ok(r) = ctx.store.read() {
            for &id in &points {
                if let Ok(Some(rec)) = r.point(id) {
                    if let Some(m) = ctx.cfg.max_pages.or(rec.max_pages) {
                        max_pages.insert(id, m);
                    }
                }
            }
        }
        Dispatcher {
            ctx,
            points,
            max_pages,
            ok: HashMap::new(),
            in_flight_per_point: HashMap::new(),
            commands,
            buffer: VecDeque::new(),
            held_for_pause: 0,
            workers: JoinSet::new(),
            paused: false,
            stopping: false,
            next_claim: Instant::now(),
            cluster,
            most_crawlers: None,
        }
    }

    /// Points still allowed to fetch (max pages not reached).
    fn open_points(&self) -> Vec<PointId> {
        self.points
            .iter()
            .copied()
            .filter(|p| !self.limit_reached(*p))
            .collect()
    }

    fn limit_reached(&self, p: PointId) -> bool {
        self.max_pages.get(&p).is_some_and(|&max| {
            self.ok.get(&p).copied().unwrap_or(0)
                + self.in_flight_per_point.get(&p).copied().unwrap_or(0)
                >= max
        })
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Request) -> Result<T, CrawlError> {
        let (tx, rx) = oneshot::channel();
        self.ctx
            .writer
            .send(make(tx).into())
            .map_err(|_| CrawlError::WriterGone)?;
        Ok(rx.await.map_err(|_| CrawlError::WriterGone)??)
    }

    /// Crawls until done or stopped; returns the time spent not paused,
    /// and the most crawlers seen sharing the frontier.
    async fn run(mut self) -> Result<(Duration, Option<u64>), CrawlError> {
        let mut ticker = tokio::time::interval(STATS_EVERY);
        // A claim waits for a commit; the dispatcher keeps reaping and
        // starting fetches meanwhile instead of stalling on it.
        let mut claim: Option<ClaimReply> = None;
        // A cluster paused before this crawler started holds it before
        // its first claim.
        if let Some(now) = self.cluster.as_ref().map(|rx| *rx.borrow()) {
            self.obey(now).await?;
        }
        loop {
            let active = !self.paused && !self.stopping;
            // Claims held for paused origins do not count as work at hand
            // (other origins' URLs are claimed past them), up to a bound.
            let ready = self.buffer.len().saturating_sub(self.held_for_pause);
            let room = (self.ctx.cfg.concurrency * MAX_HELD).saturating_sub(self.buffer.len());
            if active && claim.is_none() {
                claim = self.ask_claims(ready, room)?;
            }
            if active {
                self.dispatch();
            }
            if self.workers.is_empty() && claim.is_none() && (self.buffer.is_empty() || !active) {
                if self.stopping {
                    break;
                }
                if !self.paused {
                    match self.settle().await? {
                        Idle::Again => continue,
                        Idle::Done => break,
                        Idle::Wait => {}
                    }
                }
            }
            let wake = tokio::time::Instant::from_std(
                self.next_claim
                    .max(Instant::now() + Duration::from_millis(1)),
            );
            tokio::select! {
                claimed = async { claim.as_mut().expect("guarded by is_some").await }, if claim.is_some() => {
                    claim = None;
                    self.claimed(claimed.map_err(|_| CrawlError::WriterGone)??);
                }
                Some(joined) = self.workers.join_next(), if !self.workers.is_empty() => {
                    if let Ok((point, ok)) = joined {
                        self.fetched(point, ok);
                    }
                }
                cmd = self.commands.recv() => match cmd {
                    Some(c) => self.command(c).await?,
                    // Every face is gone: nobody can stop us later, so stop now.
                    None => self.stop(),
                },
                now = cluster_changed(&mut self.cluster) => self.obey(now).await?,
                _ = ticker.tick() => self.stats(),
                _ = tokio::time::sleep_until(wake), if ready < self.ctx.cfg.concurrency => {}
            }
        }
        self.requeue(claim).await;
        self.stats();
        Ok((self.ctx.pause.running(), self.most_crawlers))
    }

    /// Asks the writer for claims when the buffer runs low and the last
    /// ask is not too recent; `ready` claims are at hand, `room` more fit.
    fn ask_claims(&mut self, ready: usize, room: usize) -> Result<Option<ClaimReply>, CrawlError> {
        let concurrency = self.ctx.cfg.concurrency;
        if ready >= concurrency * 2 || room == 0 || Instant::now() < self.next_claim {
            return Ok(None);
        }
        let open = self.open_points();
        if open.is_empty() {
            return Ok(None);
        }
        let n = (concurrency * 8).saturating_sub(ready).min(room);
        let (reply, rx) = oneshot::channel();
        self.ctx
            .writer
            .send(
                Request::Claim {
                    n,
                    points: open,
                    reply,
                }
                .into(),
            )
            .map_err(|_| CrawlError::WriterGone)?;
        Ok(Some(rx))
    }

    /// With no work at hand: asks the writer whether the open points have
    /// more, and when they have none, runs the end-of-crawl checks.
    async fn settle(&mut self) -> Result<Idle, CrawlError> {
        let open = self.open_points();
        let settle = if open.is_empty() {
            Settle::Done
        } else {
            self.ask(|reply| Request::Settle {
                points: open,
                reply,
            })
            .await?
        };
        Ok(match settle {
            Settle::More => {
                self.next_claim = Instant::now();
                Idle::Again
            }
            // Checks done, settle again: a point added meanwhile may have
            // work (the next round finds none to check).
            Settle::Done if self.check_external().await? => Idle::Again,
            Settle::Done if self.check_resources().await? => Idle::Again,
            Settle::Done if self.check_https_twins().await? => Idle::Again,
            Settle::Done => Idle::Done,
            Settle::Wait => {
                self.next_claim = Instant::now() + SETTLE_WAIT;
                Idle::Wait
            }
        })
    }

    /// The writer's answer to a claim: none pauses the asking a moment.
    fn claimed(&mut self, claims: Vec<Claim>) {
        if claims.is_empty() {
            self.next_claim = Instant::now() + EMPTY_CLAIM_PAUSE;
        }
        self.buffer.extend(claims);
    }

    /// A worker ended: its point has one fetch fewer in flight, and one
    /// success more when `ok`.
    fn fetched(&mut self, point: PointId, ok: bool) {
        if let Some(n) = self.in_flight_per_point.get_mut(&point) {
            *n = n.saturating_sub(1);
        }
        if ok {
            *self.ok.entry(point).or_default() += 1;
        }
    }

    /// Whatever was claimed but not fetched goes back to the queue.
    async fn requeue(&mut self, claim: Option<ClaimReply>) {
        if let Some(rx) = claim {
            if let Ok(Ok(claims)) = rx.await {
                self.buffer.extend(claims);
            }
        }
        let rest: Vec<Claim> = self.buffer.drain(..).collect();
        if !rest.is_empty() {
            let _ = self.ctx.writer.send(Outcome::Requeue(rest).into());
        }
    }

    fn dispatch(&mut self) {
        let mut deferred = Vec::new();
        // Claims for origins that asked for a pause stay in the buffer: a
        // worker would only wait out the pause in a slot other origins
        // could use.
        let mut paused = VecDeque::new();
        let throttling = self.ctx.origins.any_throttled();
        // Paused or not, per scheme://authority, for this call.
        let mut memo: HashMap<String, bool> = HashMap::new();
        while self.workers.len() < self.ctx.cfg.concurrency {
            let Some(claim) = self.buffer.pop_front() else {
                break;
            };
            let point = claim.entry.point;
            if self.limit_reached(point) {
                deferred.push(claim);
                continue;
            }
            if throttling && self.origin_paused(&claim.url, &mut memo) {
                paused.push_back(claim);
                continue;
            }
            *self.in_flight_per_point.entry(point).or_default() += 1;
            let ctx = self.ctx.clone();
            self.workers.spawn(async move {
                let ok = claim::work(&ctx, claim).await;
                (point, ok)
            });
        }
        if !deferred.is_empty() {
            // Over a point's page limit: back to the queue for a later run.
            let _ = self.ctx.writer.send(Outcome::Requeue(deferred).into());
        }
        self.held_for_pause = paused.len();
        paused.append(&mut self.buffer);
        self.buffer = paused;
    }

    fn origin_paused(&self, url: &str, memo: &mut HashMap<String, bool>) -> bool {
        let authority_end = url
            .find("://")
            .map(|i| i + 3)
            .and_then(|start| url[start..].find('/').map(|j| start + j))
            .unwrap_or(url.len());
        let key = &url[..authority_end];
        if let Some(&paused) = memo.get(key) {
            return paused;
        }
        let paused = Url::parse(url).is_ok_and(|u| {
            matches!(
                self.ctx.origins.state(&crate::url::origin(&u)),
                OriginState::Throttled { .. }
            )
        });
        memo.insert(key.to_string(), paused);
        paused
    }

    /// The last phase of a run: out-of-scope links of the points that ask
    /// for it are checked, within the same limits as fetches; pause and
    /// stop work as they do while crawling.
    /// Returns whether there was anything to check.
    async fn check_external(&mut self) -> Result<bool, CrawlError> {
        let targets = external::todo(&self.ctx.store.read()?, &self.points)?;
        self.run_checks(targets, |ctx, t| async move {
            // Stopped before it was checked: checked by a later run.
            let Some(check) = external::check(&ctx, &t).await else {
                return;
            };
            let external = Outcome::External {
                url: t.url,
                page: t.page,
                check,
            };
            let _ = ctx.writer.send(external.into());
        })
        .await
    }

    /// Then the resources pages load (and stylesheets' `url()`s, found by
    /// checking the stylesheets: the next round checks those).
    async fn check_resources(&mut self) -> Result<bool, CrawlError> {
        let targets = resources::todo(&self.ctx.store.read()?, &self.points)?;
        self.run_checks(targets, |ctx, t| async move {
            if let Some(outcome) = resources::check(&ctx, &t).await {
                let _ = ctx.writer.send(outcome.into());
            }
        })
        .await
    }

    /// Then, with `--require-https`, the https twins of the http links
    /// met (the resources' round has found every resource by now).
    async fn check_https_twins(&mut self) -> Result<bool, CrawlError> {
        if !self.ctx.cfg.require_https {
            return Ok(false);
        }
        let targets = https_twins::todo(&self.ctx.store.read()?, &self.points)?;
        self.run_checks(targets, |ctx, t| async move {
            if let Some(check) = external::check(&ctx, &t).await {
                let twin = Outcome::HttpsTwin {
                    page: t.page,
                    check,
                };
                let _ = ctx.writer.send(twin.into());
            }
        })
        .await
    }

    /// Runs `check` on every target, at most `--concurrency` at once,
    /// obeying pause and stop; whether there was anything to check.
    async fn run_checks<T, F, Fut>(&mut self, targets: Vec<T>, check: F) -> Result<bool, CrawlError>
    where
        F: Fn(Arc<Ctx>, T) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        if targets.is_empty() {
            return Ok(false);
        }
        let mut pending = targets.into_iter();
        let mut running = JoinSet::new();
        loop {
            while !self.paused && !self.stopping && running.len() < self.ctx.cfg.concurrency {
                let Some(t) = pending.next() else { break };
                running.spawn(check(self.ctx.clone(), t));
            }
            if running.is_empty() && (self.stopping || pending.len() == 0) {
                return Ok(true);
            }
            tokio::select! {
                Some(_) = running.join_next(), if !running.is_empty() => {}
                now = cluster_changed(&mut self.cluster) => self.obey(now).await?,
                cmd = self.commands.recv() => match cmd {
                    Some(c) => self.command(c).await?,
                    None => self.stop(),
                },
            }
        }
    }

    async fn command(&mut self, cmd: CrawlCommand) -> Result<(), CrawlError> {
        match cmd {
            CrawlCommand::Pause => {
                self.paused = true;
                self.ctx.pause.hold();
                let _ = self.ctx.events.send(CrawlEvent::Paused);
            }
            CrawlCommand::Resume => {
                self.paused = false;
                self.ctx.pause.release();
                let _ = self.ctx.events.send(CrawlEvent::Resumed);
            }
            CrawlCommand::Stop => self.stop(),
            CrawlCommand::AddPoint(rec) => {
                let creds = credentials(&rec)?;
                let kept = rec.clone();
                let no_sitemaps = rec.no_sitemaps;
                let own = rec.clone();
                let max = self.ctx.cfg.max_pages.or(rec.max_pages);
                let id = self
                    .ask(|reply| Request::AddPoint { point: rec, reply })
                    .await?;
                self.ctx
                    .creds
                    .write()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(id, creds);
                let doc = match self.ctx.store.read() {
                    Ok(r) => crate::documents::excludes_for(&r, &kept)?,
                    Err(e) => return Err(e.into()),
                };
                self.ctx.set_request_rules(id, &kept, doc);
                self.ctx.sitemaps.set_enabled(id, !no_sitemaps);
                self.ctx.parsing.set(id, &own);
                if let Some(m) = max {
                    self.max_pages.insert(id, m);
                }
                self.points.push(id);
                self.next_claim = Instant::now();
            }
        }
        Ok(())
    }

    /// Does what the cluster's control says, as this console's own pause
    /// and stop would: a stop ends this crawler, a pause holds it.
    async fn obey(&mut self, cluster: Cluster) -> Result<(), CrawlError> {
        self.most_crawlers = self.most_crawlers.max(Some(cluster.crawlers));
        if cluster.stopped {
            if !self.stopping {
                tracing::info!("the cluster was stopped");
                self.stop();
            }
        } else if cluster.paused != self.paused {
            let cmd = if cluster.paused {
                CrawlCommand::Pause
            } else {
                CrawlCommand::Resume
            };
            self.command(cmd).await?;
        }
        Ok(())
    }

    /// No more claims, and every wait of the workers is cut short: a stop
    /// must not sit out a pause or a gap a site asked for.
    fn stop(&mut self) {
        self.stopping = true;
        self.ctx.stop.raise();
    }

    /// The crawl's figures, read together: the writer counts a commit's
    /// outcomes, the claims they settle and the queue it left under the
    /// same guard, so what is queued, claimed, on the wire and fetched
    /// add up.
    fn stats(&self) {
        let c = &self.ctx.counters;
        let _together = c.read_together();
        let skipped_by = c.skips();
        let queued = c.queued.load(Ordering::Relaxed);
        let in_flight = c.on_wire.load(Ordering::Relaxed);
        let _ = self.ctx.events.send(CrawlEvent::Stats(CrawlStats {
            fetched: c.fetched.load(Ordering::Relaxed),
            not_modified: c.not_modified.load(Ordering::Relaxed),
            unchanged: c.unchanged.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            skipped: skipped_by.total(),
            skipped_by,
            queued,
            claimed: c.held.load(Ordering::Relaxed).saturating_sub(in_flight),
            in_flight,
            throttled: c.throttled.load(Ordering::Relaxed),
            elapsed: self.ctx.pause.running(),
            store_bytes: self.ctx.store.disk_size(),
            rendered: c.rendered.load(Ordering::Relaxed),
            render_failed: c.render_failed.load(Ordering::Relaxed),
            crawlers: self.cluster.as_ref().map(|rx| rx.borrow().crawlers),
        }));
    }
}

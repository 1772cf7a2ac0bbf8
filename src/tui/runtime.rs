//! The event loop: one `select!` over the render tick, the terminal's
//! events, the answers of background jobs and the crawl engine's events
//! (drained in batches, so a fast crawl never floods the screen). It turns
//! each into a [`Msg`] for [`App::update`], carries out the [`Command`]s
//! that come back (store work on the blocking pool, engine commands), and
//! draws at most once a frame, only when something changed.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::Event;
use futures_util::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::Terminal;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use super::app::{App, Clock, Command, Msg};
use super::panes::cluster::LOG_TAIL;
use super::{findings_jobs, jobs, TuiError};
use crate::crawl::shared::cluster;
use crate::crawl::shared::control::{self, Order};
use crate::crawl::{self, CrawlCommand, CrawlConfig, CrawlError, CrawlEvent, CrawlHandle, Summary};
use crate::documents::{self, DocError};
use crate::points::{self, PointError};
use crate::store::{PageId, PointId, PointRecord, Store};

/// One frame: redraws are capped at about 30 a second.
const FRAME: Duration = Duration::from_millis(33);
/// Engine events handled per batch, so input keeps its turn.
const BATCH_MAX: usize = 8192;

/// What background jobs send back to the loop.
enum Report {
    Msg(Box<Msg>),
    Started(Result<CrawlHandle, String>),
    /// A job panicked: the terminal is already restored by the panic hook,
    /// so the console cannot go on.
    Fatal(tokio::task::JoinError),
}

/// A crawl still running when the console ends.
pub(crate) struct Engine {
    commands: UnboundedSender<CrawlCommand>,
    done: JoinHandle<Result<Summary, CrawlError>>,
}

impl Engine {
    /// Asks the crawl to stop and waits (at most `limit`) for in-flight
    /// fetches to finish and be committed.
    pub async fn shutdown(self, limit: Duration) -> Result<(), String> {
        let _ = self.commands.send(CrawlCommand::Stop);
        match tokio::time::timeout(limit, self.done).await {
            Ok(Ok(Ok(_))) => Ok(()),
            Ok(Ok(Err(e))) => Err(e.to_string()),
            Ok(Err(e)) => Err(format!("crawl task: {e}")),
            Err(_) => Err(format!(
                "the crawl did not stop within {}s; claimed URLs are recovered by the next crawl",
                limit.as_secs()
            )),
        }
    }
}

/// Carries out the app's commands against the store and the engine.
pub(crate) struct Runtime {
    store: Arc<Store>,
    cfg: CrawlConfig,
    tx: UnboundedSender<Report>,
    rx: UnboundedReceiver<Report>,
    /// The running crawl's three ends, apart so that the loop can wait on
    /// its events and its end at once.
    commands: Option<UnboundedSender<CrawlCommand>>,
    events: Option<UnboundedReceiver<CrawlEvent>>,
    done: Option<JoinHandle<Result<Summary, CrawlError>>>,
    starting: bool,
}

async fn next_event(events: &mut Option<UnboundedReceiver<CrawlEvent>>) -> Option<CrawlEvent> {
    match events {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn engine_done(
    done: &mut Option<JoinHandle<Result<Summary, CrawlError>>>,
) -> Result<(), String> {
    match done {
        Some(handle) => match handle.await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(e) => Err(format!("crawl task: {e}")),
        },
        None => std::future::pending().await,
    }
}

fn drain(first: Option<CrawlEvent>, rx: &mut UnboundedReceiver<CrawlEvent>) -> Vec<CrawlEvent> {
    let mut batch: Vec<CrawlEvent> = first.into_iter().collect();
    while batch.len() < BATCH_MAX {
        match rx.try_recv() {
            Ok(ev) => batch.push(ev),
            Err(_) => break,
        }
    }
    batch
}

fn to_msg(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Mouse(m) => Some(Msg::Mouse(m)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}

impl Runtime {
    pub(crate) fn new(store: Arc<Store>, cfg: CrawlConfig) -> Runtime {
        let (tx, rx) = unbounded_channel();
        Runtime {
            store,
            cfg,
            tx,
            rx,
            commands: None,
            events: None,
            done: None,
            starting: false,
        }
    }

    /// The crawl still running when the loop ended, for the caller to stop
    /// once the terminal is restored.
    pub(crate) fn take_engine(&mut self) -> Option<Engine> {
        self.events = None;
        Some(Engine {
            commands: self.commands.take()?,
            done: self.done.take()?,
        })
    }

    /// Runs the console until the user quits or `inputs` ends. `start`
    /// names crawl points to crawl at once.
    pub async fn run<B, S>(
        &mut self,
        terminal: &mut Terminal<B>,
        app: &mut App,
        mut inputs: S,
        start: Vec<PointId>,
    ) -> Result<(), TuiError>
    where
        B: Backend,
        S: Stream<Item = std::io::Result<Event>> + Unpin,
    {
        let size = terminal.size()?;
        app.update(Msg::Resize(size.width, size.height));
        app.take_dirty();
        terminal.draw(|f| app.render(f))?;
        if !start.is_empty() {
            self.exec(app, Command::StartCrawl(start))?;
        }
        let mut frame = tokio::time::interval(FRAME);
        frame.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            // Biased, tick first: a flood of engine events can delay a
            // frame by one batch at most, never starve it.
            let cmd = tokio::select! {
                biased;
                _ = frame.tick() => {
                    let cmd = app.update(Msg::Tick(Clock::system()));
                    if app.take_dirty() {
                        terminal.draw(|f| app.render(f))?;
                    }
                    cmd
                }
                input = inputs.next() => match input {
                    Some(Ok(ev)) => to_msg(ev).and_then(|m| app.update(m)),
                    Some(Err(e)) => return Err(e.into()),
                    None => Some(Command::Quit),
                },
                report = self.rx.recv() => match report {
                    Some(Report::Msg(m)) => app.update(*m),
                    Some(Report::Started(r)) => self.started(app, r),
                    Some(Report::Fatal(e)) => return Err(TuiError::Job(e)),
                    None => None,
                },
                ev = next_event(&mut self.events) => match (ev, self.events.as_mut()) {
                    (Some(first), Some(rx)) => app.update(Msg::Engine(drain(Some(first), rx))),
                    _ => {
                        self.events = None;
                        None
                    }
                },
                result = engine_done(&mut self.done) => {
                    self.done = None;
                    self.ended(app, result)
                }
            };
            if let Some(cmd) = cmd {
                if self.exec(app, cmd)? {
                    return Ok(());
                }
            }
        }
    }

    fn started(&mut self, app: &mut App, r: Result<CrawlHandle, String>) -> Option<Command> {
        self.starting = false;
        match r {
            Ok(h) => {
                tracing::info!("crawl started");
                self.commands = Some(h.commands);
                self.events = Some(h.events);
                self.done = Some(h.done);
                app.update(Msg::CrawlStarted)
            }
            Err(e) => {
                tracing::warn!(error = %e, "crawl did not start");
                app.update(Msg::Error(e))
            }
        }
    }

    fn ended(&mut self, app: &mut App, result: Result<(), String>) -> Option<Command> {
        // Events sent before the task ended are still queued: show them first.
        self.commands = None;
        let rest = self
            .events
            .take()
            .map(|mut rx| drain(None, &mut rx))
            .unwrap_or_default();
        match &result {
            Ok(()) => tracing::info!("crawl ended"),
            Err(e) => tracing::warn!(error = %e, "crawl failed"),
        }
        let first = if rest.is_empty() {
            None
        } else {
            app.update(Msg::Engine(rest))
        };
        let second = app.update(Msg::CrawlEnded(result));
        match (first, second) {
            (Some(a), Some(b)) => Some(Command::Batch(vec![a, b])),
            (a, b) => a.or(b),
        }
    }

    /// Runs `job` on the blocking pool; its message comes back to the loop.
    fn spawn(&self, job: impl FnOnce(Arc<Store>) -> Report + Send + 'static) {
        let store = self.store.clone();
        let tx = self.tx.clone();
        let handle = tokio::task::spawn_blocking(move || job(store));
        tokio::spawn(async move {
            let report = match handle.await {
                Ok(r) => r,
                Err(e) => Report::Fatal(e),
            };
            let _ = tx.send(report);
        });
    }

    /// Carries out `cmd`; true when the console should end.
    fn exec(&mut self, app: &mut App, cmd: Command) -> Result<bool, TuiError> {
        let follow = match cmd {
            Command::Quit => return Ok(true),
            Command::Batch(cmds) => {
                for c in cmds {
                    if self.exec(app, c)? {
                        return Ok(true);
                    }
                }
                None
            }
            Command::Engine(c) => self.to_engine(app, c),
            Command::StartCrawl(points) => self.start(app, points),
            job => {
                self.spawn_job(job);
                None
            }
        };
        match follow {
            Some(cmd) => self.exec(app, cmd),
            None => Ok(false),
        }
    }

    /// Hands `c` to the running crawl; the footer says when there is none.
    fn to_engine(&self, app: &mut App, c: CrawlCommand) -> Option<Command> {
        match &self.commands {
            Some(commands) => {
                if commands.send(c).is_err() {
                    app.update(Msg::Info("the crawl is ending".into()))
                } else {
                    None
                }
            }
            None => app.update(Msg::Info("no crawl is running".into())),
        }
    }

    /// Starts a crawl of `points` on the blocking pool, unless one runs.
    fn start(&mut self, app: &mut App, points: Vec<PointId>) -> Option<Command> {
        if self.commands.is_some() || self.starting {
            return app.update(Msg::Info("a crawl is already running".into()));
        }
        self.starting = true;
        let cfg = self.cfg.clone();
        self.spawn(move |store| Report::Started(start_crawl(store, cfg, points)));
        None
    }

    fn cluster_url(&self) -> Option<String> {
        self.cfg.frontier.as_ref().map(|s| s.url.clone())
    }

    /// Puts the store or cluster work `cmd` asks for on the blocking pool;
    /// its answer comes back to the loop as a message.
    fn spawn_job(&self, cmd: Command) {
        match cmd {
            Command::Search { seq, query, limit } => {
                self.spawn(move |store| search(&store, seq, query, limit))
            }
            Command::LoadDetail { page, query } => {
                self.spawn(move |store| detail(&store, page, &query))
            }
            Command::LoadPage { seq, page } => {
                self.spawn(move |store| page_view(&store, seq, page))
            }
            Command::LogSearch { seq, terms } => {
                self.spawn(move |store| log_search(&store, seq, &terms))
            }
            Command::Refresh => self.spawn(|store| snapshot(&store)),
            Command::CountFindings => {
                self.spawn(|store| msg(Msg::FindingCounts(findings_jobs::counts(&store))))
            }
            Command::ListFindings { seq, kind } => self.spawn(move |store| {
                msg(Msg::FindingRows {
                    seq,
                    result: findings_jobs::list(&store, kind),
                })
            }),
            Command::ExportFindings(kind) => self.spawn(move |store| export_findings(&store, kind)),
            Command::ReadCluster => {
                let url = self.cluster_url();
                self.spawn(move |_| read_cluster(url))
            }
            Command::Order(order) => {
                // Without a shared frontier there is no cluster to order.
                if let Some(url) = self.cluster_url() {
                    self.spawn(move |_| order_cluster(&url, order))
                }
            }
            Command::SavePoint { id, rec } => self.spawn(move |store| save_point(&store, id, &rec)),
            Command::DeletePoint(id) => self.spawn(move |store| delete_point(&store, id)),
            Command::SetActive(id, on) => self.spawn(move |store| set_active(&store, id, on)),
            Command::SaveDoc { old, name } => {
                self.spawn(move |store| doc_write(&store, |s| jobs::save_doc(s, old, &name)))
            }
            Command::DeleteDoc(name) => self.spawn(move |store| delete_doc(&store, &name)),
            // `exec` carries these out itself.
            Command::Quit | Command::Batch(_) | Command::Engine(_) | Command::StartCrawl(_) => {}
        }
    }
}

/// A job's answer for the loop.
fn msg(m: Msg) -> Report {
    Report::Msg(Box::new(m))
}

fn search(store: &Store, seq: u64, query: String, limit: usize) -> Report {
    let result = jobs::search(store, &query, limit).map_err(|e| e.to_string());
    msg(Msg::SearchDone { seq, query, result })
}

fn detail(store: &Store, page: PageId, query: &str) -> Report {
    match jobs::detail(store, page, query) {
        Ok(d) => msg(Msg::DetailDone(d)),
        Err(e) => msg(Msg::Error(format!("page details: {e}"))),
    }
}

fn page_view(store: &Store, seq: u64, page: PageId) -> Report {
    let result = jobs::page_view(store, page).map_err(|e| e.to_string());
    msg(Msg::PageLoaded { seq, result })
}

fn log_search(store: &Store, seq: u64, terms: &[String]) -> Report {
    let result = jobs::log_matches(store, terms).map_err(|e| e.to_string());
    msg(Msg::LogFound { seq, result })
}

fn snapshot(store: &Store) -> Report {
    match jobs::snapshot(store) {
        Ok(s) => msg(Msg::Snapshot(s)),
        Err(e) => msg(Msg::Error(format!("reading the store: {e}"))),
    }
}

/// Writes finding `kind` as CSV in the current directory.
fn export_findings(store: &Store, kind: &'static str) -> Report {
    let done = std::env::current_dir()
        .map_err(|e| format!("no current directory: {e}"))
        .and_then(|dir| findings_jobs::export(store, kind, &dir));
    msg(match done {
        Ok(note) => Msg::Info(note),
        Err(e) => Msg::Error(format!("export: {e}")),
    })
}

/// The cluster of the shared frontier at `url`, if the crawl has one.
fn read_cluster(url: Option<String>) -> Report {
    let view = match url {
        Some(url) => cluster::read(&url, LOG_TAIL).map_err(|e| e.to_string()),
        None => Err("no shared frontier".into()),
    };
    let read_at = crate::time::unix_now_ms();
    msg(Msg::Cluster { view, read_at })
}

fn order_cluster(url: &str, order: Order) -> Report {
    msg(match control::order(url, order) {
        Ok(()) => Msg::Info(ordered(order).into()),
        Err(e) => Msg::Error(format!("cluster: {e}")),
    })
}

fn save_point(store: &Store, id: Option<PointId>, rec: &PointRecord) -> Report {
    point_write(store, |s| {
        let saved = points::save(s, id, rec.clone())?;
        Ok(format!("crawl point {saved} saved"))
    })
}

fn delete_point(store: &Store, id: PointId) -> Report {
    point_write(store, |s| {
        points::remove(s, id)?;
        Ok(format!("crawl point {id} deleted"))
    })
}

fn set_active(store: &Store, id: PointId, on: bool) -> Report {
    point_write(store, |s| {
        points::set_active(s, id, on)?;
        Ok(format!(
            "crawl point {id} {}",
            if on { "enabled" } else { "disabled" }
        ))
    })
}

fn delete_doc(store: &Store, name: &str) -> Report {
    doc_write(store, |s| {
        documents::remove(s, name, false)?;
        Ok(format!(
            "document {name} deleted (crawlscope doc restore {name} brings it back)"
        ))
    })
}

/// What the footer says once the cluster has an order.
fn ordered(order: Order) -> &'static str {
    match order {
        Order::Pause => "cluster paused: no crawler starts a request until p again",
        Order::Resume => "cluster resumed",
        Order::Stop => "cluster stopped: every crawler finishes what it fetched and exits",
    }
}

/// A point write, then the fresh lists; the outcome is told in the footer.
fn point_write(store: &Store, write: impl FnOnce(&Store) -> Result<String, PointError>) -> Report {
    fresh_lists(store, write(store).map_err(|e| format!("crawl point: {e}")))
}

/// A document write, then the fresh lists (a rename changes points too).
fn doc_write(store: &Store, write: impl FnOnce(&Store) -> Result<String, DocError>) -> Report {
    fresh_lists(store, write(store).map_err(|e| format!("document: {e}")))
}

/// What a write did, told in the footer, with the points and documents
/// read after it; or why it failed.
fn fresh_lists(store: &Store, done: Result<String, String>) -> Report {
    let lists = || -> Result<_, String> {
        let points = points::list(store).map_err(|e| e.to_string())?;
        let docs = store
            .read()
            .and_then(|r| jobs::live_docs(&r))
            .map_err(|e| e.to_string())?;
        Ok((points, docs))
    };
    match done.and_then(|note| Ok((note, lists()?))) {
        Ok((note, (points, docs))) => {
            tracing::info!("{note}");
            Report::Msg(Box::new(Msg::Points { points, docs, note }))
        }
        Err(e) => Report::Msg(Box::new(Msg::Error(e))),
    }
}

fn start_crawl(
    store: Arc<Store>,
    cfg: CrawlConfig,
    points: Vec<PointId>,
) -> Result<CrawlHandle, String> {
    let points = points::crawl_set(&store, points).map_err(|e| match e {
        PointError::NothingToCrawl => {
            "nothing to crawl: add a crawl point (a) or enable one (6, Space)".to_string()
        }
        e => e.to_string(),
    })?;
    crawl::start(store, cfg, points).map_err(|e| format!("cannot start the crawl: {e}"))
}

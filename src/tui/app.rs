//! The console's model: one [`App`] holding every pane's state, changed
//! only by [`App::update`] with a [`Msg`] (a key, a click, a resize, a tick,
//! a batch of engine events, the answer of a job), which may ask for one
//! [`Command`] (run a search, read a page, write a crawl point, talk to the
//! engine, quit). Drawing ([`App::render`]) is a pure function of the model,
//! so tests feed messages and snapshot the screen.

use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Alignment, Position, Rect};
use ratatui::text::Line;
use ratatui::Frame;

use super::keymap::{self, Global, Keys, Verb};
use super::layout::{areas, inner, tab_label, tab_ranges, too_small, Areas, MIN_HEIGHT, MIN_WIDTH};
use super::msg::batch;
use super::msg::Flash;
pub(crate) use super::msg::{Clock, Command, Modal, Msg, Options, Snapshot};
use super::overlay;
use super::panes::status::RunState;
#[cfg(test)]
use super::panes::{graph::GraphPane, log::LogPane, lookup::LookupPane, points::PointsPane};
use super::panes::{Action, KeyCtx, Pane, PaneId, Panes, Setup, Slot};
use super::theme;
use crate::crawl::{CrawlCommand, CrawlEvent};

/// How often the queue, the store size and the points are read again.
const REFRESH_EVERY: Duration = Duration::from_secs(1);
const FLASH_FOR: Duration = Duration::from_secs(4);

pub(crate) struct App {
    focus: PaneId,
    /// Which of lookup, graph and points the lower half shows.
    explorer: PaneId,
    size: (u16, u16),
    now: Instant,
    unix: i64,
    modal: Option<Modal>,
    flash: Option<Flash>,
    dirty: bool,
    refresh_at: Instant,
    refreshing: bool,
    db_label: String,
    panes: Panes,
    /// The console shares a frontier: the Cluster pane is shown, read
    /// about once a second, and pause and stop act on the cluster.
    cluster: bool,
    cluster_at: Instant,
    cluster_reading: bool,
}

impl App {
    pub(crate) fn new(opts: Options) -> App {
        let now = opts.clock.now;
        App {
            focus: PaneId::Log,
            explorer: PaneId::Lookup,
            size: (MIN_WIDTH, MIN_HEIGHT),
            now,
            unix: opts.clock.unix,
            modal: None,
            flash: None,
            dirty: true,
            refresh_at: now,
            refreshing: false,
            db_label: opts.db_label,
            cluster: false,
            cluster_at: now,
            cluster_reading: false,
            panes: Panes::new(&Setup {
                now,
                tz_offset: opts.tz_offset,
            }),
        }
    }

    #[cfg(test)]
    pub(crate) fn focus(&self) -> PaneId {
        self.focus
    }

    #[cfg(test)]
    pub(crate) fn modal(&self) -> Option<Modal> {
        self.modal
    }

    #[cfg(test)]
    pub(crate) fn run_state(&self) -> RunState {
        self.panes.status.run_state()
    }

    #[cfg(test)]
    pub(crate) fn log(&self) -> &LogPane {
        &self.panes.log
    }

    #[cfg(test)]
    pub(crate) fn status(&self) -> &super::panes::status::StatusPane {
        &self.panes.status
    }

    #[cfg(test)]
    pub(crate) fn lookup(&self) -> &LookupPane {
        &self.panes.lookup
    }

    #[cfg(test)]
    pub(crate) fn graph(&self) -> &GraphPane {
        &self.panes.graph
    }

    #[cfg(test)]
    pub(crate) fn points(&self) -> &PointsPane {
        &self.panes.points
    }

    /// The console shares a frontier (`tui --frontier`).
    pub(crate) fn set_cluster(&mut self) {
        self.cluster = true;
    }

    /// Whether the screen needs drawing; clears the flag.
    pub(crate) fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// A crawl engine is attached (running, paused or stopping).
    pub(crate) fn crawling(&self) -> bool {
        matches!(
            self.panes.status.run_state(),
            RunState::Running | RunState::Paused | RunState::Stopping
        )
    }

    pub(crate) fn pane(&self, p: PaneId) -> &dyn Pane {
        self.panes.get(p)
    }

    fn pane_mut(&mut self, p: PaneId) -> &mut dyn Pane {
        self.panes.get_mut(p)
    }

    /// A text box has the keys.
    fn editing(&self) -> bool {
        self.pane(self.focus).editing()
    }

    pub(crate) fn update(&mut self, msg: Msg) -> Option<Command> {
        // Ticks decide for themselves; a pointer moving changes nothing.
        let quiet = match &msg {
            Msg::Tick(_) => true,
            Msg::Mouse(m) => m.kind == MouseEventKind::Moved,
            _ => false,
        };
        self.dirty |= !quiet;
        match msg {
            Msg::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Msg::Key(_) => None,
            Msg::Mouse(m) => self.on_mouse(m),
            Msg::Resize(w, h) => {
                self.size = (w, h);
                None
            }
            Msg::Tick(clock) => self.on_tick(clock),
            Msg::Engine(events) => self.on_engine(events),
            Msg::CrawlStarted => {
                self.panes.status.started();
                self.sync_work();
                None
            }
            Msg::CrawlEnded(result) => {
                if let Err(e) = result {
                    self.error(format!("crawl failed: {e}"));
                }
                // Ended without its Finished event (a failure): say how.
                match self.panes.status.run_state() {
                    RunState::Stopping => self.panes.status.set_run_state(RunState::Stopped),
                    RunState::Running | RunState::Paused => {
                        self.panes.status.set_run_state(RunState::Finished)
                    }
                    _ => {}
                }
                self.panes.queue.clear_in_flight();
                self.sync_work();
                self.panes.findings.crawl_ended();
                self.refresh_at = self.now;
                None
            }
            Msg::Snapshot(s) => {
                self.panes.queue.set_frontier(s.frontier);
                self.panes.status.set_store(s.store_bytes, s.work, s.totals);
                self.panes.log.set_store_totals(s.totals);
                self.sync_work();
                self.panes.status.set_origins(s.origins);
                self.panes.points.set_points(s.points);
                self.panes.points.set_docs(s.docs);
                self.panes.points.set_runs(s.runs);
                self.refreshing = false;
                self.refresh_at = self.now + REFRESH_EVERY;
                None
            }
            Msg::SearchDone { seq, query, result } => {
                let page = self.panes.lookup.set_results(seq, query.clone(), result)?;
                Some(Command::LoadDetail { page, query })
            }
            Msg::LogFound { seq, result } => {
                match result {
                    Ok(lines) => self.panes.log.set_store_view(seq, lines),
                    Err(e) => self.error(format!("filtering the store: {e}")),
                }
                None
            }
            Msg::DetailDone(d) => {
                self.panes.lookup.set_detail(d);
                None
            }
            Msg::PageLoaded { seq, result } => {
                self.panes.graph.set_view(seq, result);
                None
            }
            Msg::Points { points, docs, note } => {
                self.panes.points.set_points(points);
                self.panes.points.set_docs(docs);
                self.info(note);
                None
            }
            Msg::FindingCounts(counts) => {
                self.panes.findings.set_counts(counts, self.now);
                None
            }
            Msg::FindingRows { seq, result } => {
                self.panes.findings.set_rows(seq, result);
                None
            }
            Msg::Cluster { view, read_at } => {
                if let Err(e) = &view {
                    tracing::warn!(error = %e, "cluster not read");
                }
                self.panes.cluster.set_view(view, read_at);
                self.cluster_reading = false;
                self.cluster_at = self.now + REFRESH_EVERY;
                None
            }
            Msg::Info(text) => {
                self.info(text);
                None
            }
            Msg::Error(text) => {
                // A failed refresh must not stop the next one, nor retry
                // at once.
                self.refreshing = false;
                self.refresh_at = self.now + REFRESH_EVERY;
                self.error(text);
                None
            }
        }
    }

    fn info(&mut self, text: String) {
        self.flash = Some(Flash {
            text,
            error: false,
            until: self.now + FLASH_FOR,
        });
    }

    fn error(&mut self, text: String) {
        self.flash = Some(Flash {
            text,
            error: true,
            until: self.now + FLASH_FOR,
        });
    }

    fn on_tick(&mut self, clock: Clock) -> Option<Command> {
        // Fetches in flight show running times; nothing else moves by itself.
        if self.panes.queue.in_flight() > 0 {
            self.dirty = true;
        }
        self.now = clock.now;
        self.unix = clock.unix;
        self.panes.queue.set_now(clock.now);
        if self.flash.as_ref().is_some_and(|f| f.until <= self.now) {
            self.flash = None;
            self.dirty = true;
        }
        let mut cmds = Vec::new();
        let before = self.panes.lookup.hits().len();
        if let Some((seq, query, limit)) = self.panes.lookup.poll(self.now) {
            cmds.push(Command::Search { seq, query, limit });
            self.dirty = true;
        } else if before != self.panes.lookup.hits().len() {
            self.dirty = true;
        }
        if let Some((seq, terms)) = self.panes.log.store_search() {
            cmds.push(Command::LogSearch { seq, terms });
        }
        if self
            .panes
            .findings
            .poll(self.now, self.explorer == PaneId::Findings)
        {
            cmds.push(Command::CountFindings);
            self.dirty = true;
        }
        if self.cluster && !self.cluster_reading && self.now >= self.cluster_at {
            self.cluster_reading = true;
            cmds.push(Command::ReadCluster);
        }
        if !self.refreshing && self.now >= self.refresh_at {
            self.refreshing = true;
            cmds.push(Command::Refresh);
            // A shown page's links change state as the crawl goes on.
            if self.crawling() && self.explorer == PaneId::Graph {
                if let Some((seq, page)) = self.panes.graph.reload() {
                    cmds.push(Command::LoadPage { seq, page });
                }
            }
        }
        batch(cmds)
    }

    fn on_engine(&mut self, events: Vec<CrawlEvent>) -> Option<Command> {
        let mut cmd = None;
        self.panes.findings.changed();
        for ev in &events {
            self.panes.status.on_event(ev);
            self.panes.queue.on_event(ev);
            self.panes.log.on_event(ev, self.unix);
            // The first start page fetched gives an empty graph something
            // to show.
            if let CrawlEvent::Fetched(f) = ev {
                if f.depth == 0 && self.panes.graph.is_empty() {
                    let (seq, page) = self.panes.graph.show(f.page);
                    cmd = Some(Command::LoadPage { seq, page });
                }
            }
        }
        self.sync_work();
        cmd
    }

    /// The status bar and the Queue pane show the same work at hand: the
    /// requests on the wire the Queue pane lists, and the rest from the
    /// same snapshot.
    fn sync_work(&mut self) {
        let on_wire = self.panes.queue.in_flight() as u64;
        self.panes.status.set_on_wire(on_wire);
        self.panes.queue.set_work(self.panes.status.work());
    }

    fn set_focus(&mut self, p: PaneId) {
        // A search or filter box left behind stops taking keys; a half
        // filled point form stays open for when the user comes back.
        if p != self.focus {
            self.pane_mut(self.focus).stop_editing();
        }
        self.focus = p;
        if p.is_explorer() {
            self.explorer = p;
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Option<Command> {
        if let Some(modal) = self.modal {
            return self.modal_key(modal, &key);
        }
        if keymap::is_interrupt(&key) {
            return self.quit();
        }
        let editing = self.editing();
        let ctx = KeyCtx {
            now: self.now,
            height: self.pane_height(self.focus),
        };
        let action = self.pane_mut(self.focus).key(&key, &ctx);
        match action {
            Action::Unhandled if !editing => match keymap::global(&key) {
                Some(g) => self.global(g),
                None => None,
            },
            other => self.act(other),
        }
    }

    fn modal_key(&mut self, modal: Modal, key: &KeyEvent) -> Option<Command> {
        self.modal = None;
        match modal {
            Modal::Help => None,
            Modal::ConfirmQuit => {
                use crossterm::event::KeyCode::{Char, Enter};
                (matches!(key.code, Char('y') | Char('Y') | Char('q') | Enter)
                    || keymap::is_interrupt(key))
                .then_some(Command::Quit)
            }
        }
    }

    /// The inner height of a pane, for page-sized scrolling.
    fn pane_height(&self, p: PaneId) -> usize {
        let a = areas(Rect::new(0, 0, self.size.0, self.size.1), self.focus);
        inner(a.of(p)).height as usize
    }

    fn quit(&mut self) -> Option<Command> {
        if self.crawling() {
            self.modal = Some(Modal::ConfirmQuit);
            None
        } else {
            Some(Command::Quit)
        }
    }

    fn global(&mut self, g: Global) -> Option<Command> {
        match g {
            Global::Quit => return self.quit(),
            Global::Help => self.modal = Some(Modal::Help),
            Global::NextPane => self.set_focus(self.step_focus(PaneId::next)),
            Global::PrevPane => self.set_focus(self.step_focus(PaneId::prev)),
            Global::Focus(i) => {
                if let Some(&p) = PaneId::ALL.get(i).filter(|p| p.shown(self.cluster)) {
                    self.set_focus(p);
                }
            }
            Global::Search => {
                self.set_focus(PaneId::Lookup);
                self.panes.lookup.start_editing();
            }
            Global::AddPoint => {
                self.set_focus(PaneId::Points);
                self.panes.points.open_add();
            }
            Global::Crawl => return self.act(Action::Crawl(Vec::new())),
            Global::Breakdown => self.panes.status.toggle_breakdown(),
            Global::Pause | Global::Stop if self.cluster => return self.order(g),
            Global::Pause => match self.panes.status.run_state() {
                RunState::Running => return Some(Command::Engine(CrawlCommand::Pause)),
                RunState::Paused => return Some(Command::Engine(CrawlCommand::Resume)),
                _ => self.info("no crawl is running".into()),
            },
            Global::Stop => match self.panes.status.run_state() {
                RunState::Running | RunState::Paused => {
                    self.panes.status.set_run_state(RunState::Stopping);
                    return Some(Command::Engine(CrawlCommand::Stop));
                }
                RunState::Stopping => self.info("stopping: in-flight fetches finish".into()),
                _ => self.info("no crawl is running".into()),
            },
        }
        None
    }

    /// The next pane shown, one `step` at a time.
    fn step_focus(&self, step: fn(PaneId) -> PaneId) -> PaneId {
        let mut p = step(self.focus);
        while !p.shown(self.cluster) {
            p = step(p);
        }
        p
    }

    /// Pause (or resume) and stop, for the whole cluster: the control key
    /// on the server, which every crawler reads, this console's included.
    fn order(&mut self, g: Global) -> Option<Command> {
        use crate::crawl::shared::control::Order;
        let paused =
            self.panes.cluster.paused() || self.panes.status.run_state() == RunState::Paused;
        let order = match g {
            Global::Stop => {
                if matches!(
                    self.panes.status.run_state(),
                    RunState::Running | RunState::Paused
                ) {
                    self.panes.status.set_run_state(RunState::Stopping);
                }
                Order::Stop
            }
            _ if paused => Order::Resume,
            _ => Order::Pause,
        };
        // Shown at the next read, at once.
        self.cluster_at = self.now;
        Some(Command::Order(order))
    }

    fn act(&mut self, action: Action) -> Option<Command> {
        match action {
            Action::Unhandled | Action::Done => None,
            Action::Global(g) => self.global(g),
            Action::Open(page) => {
                self.set_focus(PaneId::Graph);
                let (seq, page) = self.panes.graph.open(page);
                Some(Command::LoadPage { seq, page })
            }
            Action::Load { seq, page } => Some(Command::LoadPage { seq, page }),
            Action::Detail(page) => Some(Command::LoadDetail {
                page,
                query: self.panes.lookup.results_query().to_string(),
            }),
            Action::SavePoint { id: None, rec } if self.crawling() => {
                self.info(format!("{} joins the running crawl", rec.url));
                self.refresh_at = self.now;
                Some(Command::Engine(CrawlCommand::AddPoint(rec)))
            }
            Action::SavePoint { id, rec } => Some(Command::SavePoint { id, rec }),
            Action::DeletePoint(id) => Some(Command::DeletePoint(id)),
            Action::ListFindings { seq, kind } => Some(Command::ListFindings { seq, kind }),
            Action::ExportFindings(kind) => Some(Command::ExportFindings(kind)),
            Action::SetActive(id, on) => Some(Command::SetActive(id, on)),
            Action::SaveDoc { old, name } => Some(Command::SaveDoc { old, name }),
            Action::DeleteDoc(name) => Some(Command::DeleteDoc(name)),
            Action::Crawl(points) => {
                if self.crawling() {
                    self.info("a crawl is running: stop it (s) first, or add a point (a)".into());
                    None
                } else {
                    Some(Command::StartCrawl(points))
                }
            }
        }
    }

    fn on_mouse(&mut self, m: MouseEvent) -> Option<Command> {
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        if too_small(area) {
            return None;
        }
        if self.modal == Some(Modal::Help) {
            if matches!(m.kind, MouseEventKind::Down(_)) {
                self.modal = None;
            }
            return None;
        }
        if self.modal.is_some() {
            return None;
        }
        let a = areas(area, self.focus);
        let at = Position::new(m.column, m.row);
        let pane = a.pane_at(at, self.explorer)?;
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => self.click(pane, a, at),
            MouseEventKind::ScrollUp => self.wheel(pane, -3),
            MouseEventKind::ScrollDown => self.wheel(pane, 3),
            _ => None,
        }
    }

    fn click(&mut self, pane: PaneId, a: Areas, at: Position) -> Option<Command> {
        if pane.is_explorer() && at.y == a.explorer.y {
            if let Some((p, _, _)) = tab_ranges(a.explorer.x + 1, self.cluster)
                .into_iter()
                .find(|(_, x0, x1)| (*x0..*x1).contains(&at.x))
            {
                self.set_focus(p);
            } else {
                self.set_focus(pane);
            }
            return None;
        }
        self.set_focus(pane);
        let action = self.pane_mut(pane).click(inner(a.of(pane)), at);
        self.act(action)
    }

    fn wheel(&mut self, pane: PaneId, delta: isize) -> Option<Command> {
        let ctx = KeyCtx {
            now: self.now,
            height: self.pane_height(pane),
        };
        let action = self.pane_mut(pane).run(Verb::Move(delta), &ctx);
        self.act(action)
    }

    /// Draws the whole screen; the model is not changed.
    pub(crate) fn render(&self, frame: &mut Frame) {
        let area = frame.area();
        if too_small(area) {
            overlay::too_small(frame, area);
            return;
        }
        let a = areas(area, self.focus);
        let shown = PaneId::ALL
            .into_iter()
            .filter(|&p| p.shown(self.cluster) && (!p.is_explorer() || p == self.explorer));
        for p in shown {
            let block = match p.slot() {
                Slot::Explorer => {
                    let block = overlay::explorer_block(self.focus, self.explorer, self.cluster);
                    match self.pane(p).caption() {
                        Some(c) => block.title(
                            Line::styled(format!(" {c} "), theme::dim())
                                .alignment(Alignment::Right),
                        ),
                        None => block,
                    }
                }
                // The store's path in the status bar's corner.
                Slot::Bar => overlay::pane_block(p, self.focus).title(
                    Line::styled(format!(" {} ", self.db_label), theme::dim())
                        .alignment(Alignment::Right),
                ),
                _ => overlay::pane_block(p, self.focus),
            };
            frame.render_widget(block, a.of(p));
            self.pane(p).draw(inner(a.of(p)), frame.buffer_mut());
        }
        let flash = self.flash.as_ref().map(|f| (f.text.as_str(), f.error));
        let focused = self.pane(self.focus);
        overlay::footer(frame, a.footer, &focused.footer(), focused.editing(), flash);
        match self.modal {
            Some(Modal::Help) => {
                let sections: Vec<(String, Keys)> = PaneId::ALL
                    .into_iter()
                    .filter(|p| p.shown(self.cluster))
                    .map(|p| (tab_label(p).trim().to_string(), self.pane(p).help()))
                    .collect();
                overlay::help(frame, area, &sections);
            }
            Some(Modal::ConfirmQuit) => overlay::confirm_quit(frame, area),
            None => {
                if let Some(pos) = focused.cursor(inner(a.of(self.focus))) {
                    frame.set_cursor_position(pos);
                }
            }
        }
    }
}

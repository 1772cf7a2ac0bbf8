//! The console's model: one [`App`] holding every pane's state, changed
//! only by [`App::update`] with a [`Msg`] (a key, a click, a resize, a tick,
//! a batch of engine events, the answer of a job), which may ask for one
//! [`Command`] (run a search, read a page, write a crawl point, talk to the
//! engine, quit). Drawing ([`App::render`]) is a pure function of the model,
//! so tests feed messages and snapshot the screen.

use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Alignment, Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::keymap::{self, Global};
use super::panes::graph::{GraphPane, PageView};
use super::panes::log::LogPane;
use super::panes::lookup::{Detail, LookupPane};
use super::panes::points::PointsPane;
use super::panes::queue::{QueuePane, QueueRow};
use super::panes::status::{RunState, StatusPane};
use super::panes::{Action, PaneId};
use super::theme;
use crate::crawl::{CrawlCommand, CrawlEvent};
use crate::search::Results;
use crate::store::{PageId, PointId, PointRecord};

/// Below this the layout cannot show every pane legibly.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;
/// How often the queue, the store size and the points are read again.
const REFRESH_EVERY: Duration = Duration::from_secs(1);
const FLASH_FOR: Duration = Duration::from_secs(4);

/// The time as the model sees it. Ticks bring it; tests fix it.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub now: Instant,
    /// Unix seconds, for the log's time of day.
    pub unix: i64,
}

impl Clock {
    pub fn system() -> Clock {
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        Clock {
            now: Instant::now(),
            unix,
        }
    }
}

/// What the store looks like now, read off the render path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub frontier: Vec<QueueRow>,
    pub frontier_len: u64,
    pub store_bytes: u64,
    pub points: Vec<(PointId, PointRecord)>,
}

/// Everything that can change the model.
#[derive(Debug, Clone)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    Tick(Clock),
    /// Engine events, drained in one go.
    Engine(Vec<CrawlEvent>),
    CrawlStarted,
    /// The engine's task ended (Err: why it failed).
    CrawlEnded(Result<(), String>),
    Snapshot(Snapshot),
    SearchDone {
        seq: u64,
        query: String,
        result: Result<Results, String>,
    },
    DetailDone(Detail),
    PageLoaded {
        seq: u64,
        result: Result<PageView, String>,
    },
    /// The points after a write, and what the write did.
    Points {
        points: Vec<(PointId, PointRecord)>,
        note: String,
    },
    /// Something to tell the user for a moment.
    Info(String),
    Error(String),
}

/// What the model asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Quit,
    Engine(CrawlCommand),
    /// Start a crawl of these points; empty: every active point.
    StartCrawl(Vec<PointId>),
    Search {
        seq: u64,
        query: String,
    },
    LoadDetail {
        page: PageId,
        query: String,
    },
    LoadPage {
        seq: u64,
        page: PageId,
    },
    Refresh,
    SavePoint {
        id: Option<PointId>,
        rec: PointRecord,
    },
    DeletePoint(PointId),
    SetActive(PointId, bool),
    Batch(Vec<Command>),
}

fn batch(mut cmds: Vec<Command>) -> Option<Command> {
    match cmds.len() {
        0 => None,
        1 => cmds.pop(),
        _ => Some(Command::Batch(cmds)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modal {
    Help,
    ConfirmQuit,
}

#[derive(Debug, Clone)]
struct Flash {
    text: String,
    error: bool,
    until: Instant,
}

/// How the console starts.
#[derive(Debug, Clone)]
pub struct Options {
    /// Shown in the status bar's corner (the store path).
    pub db_label: String,
    /// Seconds east of UTC for times of day and dates.
    pub tz_offset: i64,
    pub clock: Clock,
}

/// Where each pane sits for a screen size and focus.
#[derive(Debug, Clone, Copy)]
struct Areas {
    status: Rect,
    queue: Rect,
    log: Rect,
    explorer: Rect,
    footer: Rect,
}

fn areas(area: Rect, focus: PaneId) -> Areas {
    let [status, body, footer] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    // The half holding the focus gets more room.
    let top = if focus.is_explorer() { 40 } else { 55 };
    let [upper, explorer] =
        Layout::vertical([Constraint::Percentage(top), Constraint::Fill(1)]).areas(body);
    let [queue, log] =
        Layout::horizontal([Constraint::Percentage(35), Constraint::Fill(1)]).areas(upper);
    Areas {
        status,
        queue,
        log,
        explorer,
        footer,
    }
}

fn inner(area: Rect) -> Rect {
    Block::bordered().inner(area)
}

fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

const EXPLORERS: [PaneId; 3] = [PaneId::Lookup, PaneId::Graph, PaneId::Points];

/// Column ranges of the explorer's tab labels in its title, from `x0`.
fn tab_ranges(x0: u16) -> [(PaneId, u16, u16); 3] {
    let mut x = x0;
    EXPLORERS.map(|p| {
        let w = tab_label(p).chars().count() as u16;
        let r = (p, x, x + w);
        x += w + 1;
        r
    })
}

fn tab_label(p: PaneId) -> String {
    format!(" {} {} ", p.index() + 1, p.name())
}

pub struct App {
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
    status: StatusPane,
    queue: QueuePane,
    log: LogPane,
    lookup: LookupPane,
    graph: GraphPane,
    points: PointsPane,
}

impl App {
    pub fn new(opts: Options) -> App {
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
            status: StatusPane::default(),
            queue: QueuePane::new(now),
            log: LogPane::new(opts.tz_offset),
            lookup: LookupPane::new(opts.tz_offset),
            graph: GraphPane::new(opts.tz_offset),
            points: PointsPane::default(),
        }
    }

    pub fn focus(&self) -> PaneId {
        self.focus
    }

    pub fn modal(&self) -> Option<Modal> {
        self.modal
    }

    pub fn run_state(&self) -> RunState {
        self.status.run_state()
    }

    pub fn log(&self) -> &LogPane {
        &self.log
    }

    pub fn lookup(&self) -> &LookupPane {
        &self.lookup
    }

    pub fn graph(&self) -> &GraphPane {
        &self.graph
    }

    pub fn points(&self) -> &PointsPane {
        &self.points
    }

    /// Whether the screen needs drawing; clears the flag.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// A crawl engine is attached (running, paused or stopping).
    pub fn crawling(&self) -> bool {
        matches!(
            self.status.run_state(),
            RunState::Running | RunState::Paused | RunState::Stopping
        )
    }

    /// A text box has the keys.
    fn editing(&self) -> bool {
        match self.focus {
            PaneId::Log => self.log.editing(),
            PaneId::Lookup => self.lookup.editing(),
            PaneId::Points => self.points.editing(),
            _ => false,
        }
    }

    pub fn update(&mut self, msg: Msg) -> Option<Command> {
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
                self.status.started();
                None
            }
            Msg::CrawlEnded(result) => {
                if let Err(e) = result {
                    self.error(format!("crawl failed: {e}"));
                }
                if self.crawling() {
                    self.status.set_run_state(RunState::Finished);
                }
                self.queue.clear_in_flight();
                self.status.set_in_flight(0);
                self.refresh_at = self.now;
                None
            }
            Msg::Snapshot(s) => {
                self.queue.set_frontier(s.frontier, s.frontier_len);
                self.status.set_store(s.store_bytes, s.frontier_len);
                self.points.set_points(s.points);
                self.refreshing = false;
                self.refresh_at = self.now + REFRESH_EVERY;
                None
            }
            Msg::SearchDone { seq, query, result } => {
                let page = self.lookup.set_results(seq, query.clone(), result)?;
                Some(Command::LoadDetail { page, query })
            }
            Msg::DetailDone(d) => {
                self.lookup.set_detail(d);
                None
            }
            Msg::PageLoaded { seq, result } => {
                self.graph.set_view(seq, result);
                None
            }
            Msg::Points { points, note } => {
                self.points.set_points(points);
                self.info(note);
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
        if self.queue.in_flight() > 0 {
            self.dirty = true;
        }
        self.now = clock.now;
        self.unix = clock.unix;
        self.queue.set_now(clock.now);
        if self.flash.as_ref().is_some_and(|f| f.until <= self.now) {
            self.flash = None;
            self.dirty = true;
        }
        let mut cmds = Vec::new();
        let before = self.lookup.hits().len();
        if let Some((seq, query)) = self.lookup.poll(self.now) {
            cmds.push(Command::Search { seq, query });
            self.dirty = true;
        } else if before != self.lookup.hits().len() {
            self.dirty = true;
        }
        if !self.refreshing && self.now >= self.refresh_at {
            self.refreshing = true;
            cmds.push(Command::Refresh);
            // A shown page's links change state as the crawl goes on.
            if self.crawling() && self.explorer == PaneId::Graph {
                if let Some((seq, page)) = self.graph.reload() {
                    cmds.push(Command::LoadPage { seq, page });
                }
            }
        }
        batch(cmds)
    }

    fn on_engine(&mut self, events: Vec<CrawlEvent>) -> Option<Command> {
        let mut cmd = None;
        for ev in &events {
            self.status.on_event(ev);
            self.queue.on_event(ev);
            self.log.on_event(ev, self.unix);
            // The first start page fetched gives an empty graph something
            // to show.
            if let CrawlEvent::Fetched(f) = ev {
                if f.depth == 0 && self.graph.is_empty() {
                    let (seq, page) = self.graph.open(f.page);
                    cmd = Some(Command::LoadPage { seq, page });
                }
            }
        }
        self.status.set_in_flight(self.queue.in_flight());
        cmd
    }

    fn set_focus(&mut self, p: PaneId) {
        // A search or filter box left behind stops taking keys; a half
        // filled point form stays open for when the user comes back.
        if p != self.focus {
            self.lookup.stop_editing();
            self.log.stop_editing();
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
        let action = self.pane_key(&key);
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
        let r = match p {
            PaneId::Status => a.status,
            PaneId::Queue => a.queue,
            PaneId::Log => a.log,
            _ => a.explorer,
        };
        inner(r).height as usize
    }

    fn pane_key(&mut self, key: &KeyEvent) -> Action {
        match self.focus {
            PaneId::Status => Action::Unhandled,
            PaneId::Queue => self.queue.handle_key(key),
            PaneId::Log => {
                let h = self.pane_height(PaneId::Log);
                self.log.handle_key(key, h)
            }
            PaneId::Lookup => self.lookup.handle_key(key, self.now),
            PaneId::Graph => self.graph.handle_key(key),
            PaneId::Points => self.points.handle_key(key),
        }
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
            Global::NextPane => self.set_focus(self.focus.next()),
            Global::PrevPane => self.set_focus(self.focus.prev()),
            Global::Focus(p) => self.set_focus(p),
            Global::Search => {
                self.set_focus(PaneId::Lookup);
                self.lookup.start_editing();
            }
            Global::AddPoint => {
                self.set_focus(PaneId::Points);
                self.points.open_add();
            }
            Global::Crawl => return self.act(Action::Crawl(Vec::new())),
            Global::Pause => match self.status.run_state() {
                RunState::Running => return Some(Command::Engine(CrawlCommand::Pause)),
                RunState::Paused => return Some(Command::Engine(CrawlCommand::Resume)),
                _ => self.info("no crawl is running".into()),
            },
            Global::Stop => match self.status.run_state() {
                RunState::Running | RunState::Paused => {
                    self.status.set_run_state(RunState::Stopping);
                    return Some(Command::Engine(CrawlCommand::Stop));
                }
                RunState::Stopping => self.info("stopping: in-flight fetches finish".into()),
                _ => self.info("no crawl is running".into()),
            },
        }
        None
    }

    fn act(&mut self, action: Action) -> Option<Command> {
        match action {
            Action::Unhandled | Action::Done => None,
            Action::Open(page) => {
                self.set_focus(PaneId::Graph);
                let (seq, page) = self.graph.open(page);
                Some(Command::LoadPage { seq, page })
            }
            Action::Load { seq, page } => Some(Command::LoadPage { seq, page }),
            Action::Detail(page) => Some(Command::LoadDetail {
                page,
                query: self.lookup.results_query().to_string(),
            }),
            Action::SavePoint { id: None, rec } if self.crawling() => {
                self.info(format!("{} joins the running crawl", rec.url));
                self.refresh_at = self.now;
                Some(Command::Engine(CrawlCommand::AddPoint(Box::new(rec))))
            }
            Action::SavePoint { id, rec } => Some(Command::SavePoint { id, rec }),
            Action::DeletePoint(id) => Some(Command::DeletePoint(id)),
            Action::SetActive(id, on) => Some(Command::SetActive(id, on)),
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
        let pane = [
            (PaneId::Status, a.status),
            (PaneId::Queue, a.queue),
            (PaneId::Log, a.log),
            (self.explorer, a.explorer),
        ]
        .into_iter()
        .find(|(_, r)| r.contains(at))
        .map(|(p, _)| p)?;
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => self.click(pane, a, at),
            MouseEventKind::ScrollUp => self.wheel(pane, -3),
            MouseEventKind::ScrollDown => self.wheel(pane, 3),
            _ => None,
        }
    }

    fn click(&mut self, pane: PaneId, a: Areas, at: Position) -> Option<Command> {
        if pane.is_explorer() && at.y == a.explorer.y {
            if let Some((p, _, _)) = tab_ranges(a.explorer.x + 1)
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
        let (x, y) = (at.x, at.y);
        match pane {
            PaneId::Status => None,
            PaneId::Queue => {
                self.queue.click(inner(a.queue), y);
                None
            }
            PaneId::Log => {
                self.log.click(inner(a.log), y);
                None
            }
            PaneId::Lookup => {
                let action = self.lookup.click(inner(a.explorer), y);
                self.act(action)
            }
            PaneId::Graph => {
                self.graph.click(inner(a.explorer), x, y);
                None
            }
            PaneId::Points => {
                self.points.click(inner(a.explorer), y);
                None
            }
        }
    }

    fn wheel(&mut self, pane: PaneId, delta: isize) -> Option<Command> {
        match pane {
            PaneId::Queue => {
                self.queue.move_by(delta);
                None
            }
            PaneId::Log => {
                let h = self.pane_height(PaneId::Log).saturating_sub(1);
                self.log.scroll(delta, h);
                None
            }
            PaneId::Lookup => {
                let action = self.lookup.select(delta);
                self.act(action)
            }
            PaneId::Graph => {
                self.graph.move_by(delta);
                None
            }
            PaneId::Points => {
                self.points.move_by(delta);
                None
            }
            PaneId::Status => None,
        }
    }

    fn block(&self, p: PaneId) -> Block<'static> {
        let focused = self.focus == p;
        Block::bordered()
            .border_style(theme::border(focused))
            .title(Span::styled(tab_label(p), theme::title(focused)))
    }

    fn explorer_block(&self) -> Block<'static> {
        let focused = self.focus.is_explorer();
        let mut spans = Vec::new();
        for (i, p) in EXPLORERS.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled("│", theme::border(focused)));
            }
            let style = if p == self.explorer {
                theme::title(focused)
            } else {
                theme::dim()
            };
            spans.push(Span::styled(tab_label(p), style));
        }
        Block::bordered()
            .border_style(theme::border(focused))
            .title(Line::from(spans))
    }

    /// Draws the whole screen; the model is not changed.
    pub fn render(&self, frame: &mut Frame) {
        let area = frame.area();
        if too_small(area) {
            self.render_too_small(frame, area);
            return;
        }
        let a = areas(area, self.focus);
        let status_block = self.block(PaneId::Status).title(
            Line::styled(format!(" {} ", self.db_label), theme::dim()).alignment(Alignment::Right),
        );
        frame.render_widget(&status_block, a.status);
        frame.render_widget(&self.status, status_block.inner(a.status));
        frame.render_widget(self.block(PaneId::Queue), a.queue);
        frame.render_widget(&self.queue, inner(a.queue));
        frame.render_widget(self.block(PaneId::Log), a.log);
        frame.render_widget(&self.log, inner(a.log));
        frame.render_widget(self.explorer_block(), a.explorer);
        let ex = inner(a.explorer);
        match self.explorer {
            PaneId::Graph => frame.render_widget(&self.graph, ex),
            PaneId::Points => frame.render_widget(&self.points, ex),
            _ => frame.render_widget(&self.lookup, ex),
        }
        self.render_footer(frame, a.footer);
        match self.modal {
            Some(Modal::Help) => self.render_help(frame, area),
            Some(Modal::ConfirmQuit) => render_confirm_quit(frame, area),
            None => {
                let cursor = match self.focus {
                    PaneId::Log => self.log.cursor(inner(a.log)),
                    PaneId::Lookup => self.lookup.cursor(ex),
                    PaneId::Points => self.points.cursor(ex),
                    _ => None,
                };
                if let Some(pos) = cursor {
                    frame.set_cursor_position(pos);
                }
            }
        }
    }

    fn render_too_small(&self, frame: &mut Frame, area: Rect) {
        let text = vec![
            Line::styled("Terminal too small", theme::error()),
            Line::from(format!(
                "{}×{} here; crawlscope needs at least {MIN_WIDTH}×{MIN_HEIGHT}.",
                area.width, area.height
            )),
            Line::from("Enlarge the window, or press q to quit."),
        ];
        let y = area.y + area.height.saturating_sub(text.len() as u16) / 2;
        frame.render_widget(
            Paragraph::new(text)
                .alignment(Alignment::Center)
                .wrap(Wrap { trim: true }),
            Rect {
                y,
                height: area.bottom() - y,
                ..area
            },
        );
    }

    fn render_footer(&self, frame: &mut Frame, area: Rect) {
        let mut spans = Vec::new();
        let editing = self.editing();
        // In a text box `?` and `q` are text: only Ctrl-C still quits.
        let always: &[(&str, &str)] = if editing {
            &[("Ctrl-C", "quit")]
        } else {
            &[("?", "help"), ("q", "quit")]
        };
        for (key, what) in keymap::footer(self.focus, editing).iter().chain(always) {
            spans.push(Span::styled(format!(" {key}"), theme::key()));
            spans.push(Span::styled(format!(" {what} "), theme::label()));
        }
        frame.render_widget(Line::from(spans), area);
        if let Some(f) = &self.flash {
            let w = (f.text.chars().count() as u16 + 2).min(area.width);
            let r = Rect {
                x: area.right() - w,
                width: w,
                ..area
            };
            let style = if f.error {
                theme::error()
            } else {
                theme::heading()
            };
            frame.render_widget(Clear, r);
            frame.render_widget(Line::styled(format!(" {} ", f.text), style), r);
        }
    }

    fn render_help(&self, frame: &mut Frame, area: Rect) {
        let r = centered(area, 84, 22);
        frame.render_widget(Clear, r);
        let block = Block::bordered()
            .border_style(theme::border(true))
            .title(Span::styled(" Keys (any key closes) ", theme::title(true)));
        let body = block.inner(r);
        frame.render_widget(block, r);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .spacing(1)
                .areas(body);
        let entry = |(k, what): &(&str, &str)| {
            Line::from(vec![
                Span::styled(format!("{k:<13}"), theme::key()),
                Span::raw(what.to_string()),
            ])
        };
        let mut lines = vec![Line::styled("Everywhere", theme::heading())];
        lines.extend(keymap::GLOBAL.iter().map(entry));
        frame.render_widget(Paragraph::new(lines), left);
        let mut lines = Vec::new();
        for p in PaneId::ALL {
            lines.push(Line::styled(
                tab_label(p).trim().to_string(),
                theme::heading(),
            ));
            lines.extend(keymap::pane(p).iter().map(entry));
        }
        frame.render_widget(Paragraph::new(lines), right);
    }
}

fn render_confirm_quit(frame: &mut Frame, area: Rect) {
    let r = centered(area, 50, 5);
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .border_style(theme::error())
        .title(Span::styled(" Quit? ", theme::error()));
    let text = vec![
        Line::from("A crawl is running. Stop it and quit?"),
        Line::from(vec![
            Span::styled("y", theme::key()),
            Span::raw(" quit   "),
            Span::styled("n", theme::key()),
            Span::raw(" keep crawling"),
        ]),
    ];
    frame.render_widget(
        Paragraph::new(text)
            .alignment(Alignment::Center)
            .block(block),
        r,
    );
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

//! The console's panes: each module owns one pane's state, how it takes
//! keys and how it draws (`impl Widget for &Pane`). What they share lives
//! here: the pane names, what a pane asks of the app, list scrolling and
//! the text input box.

pub(crate) mod graph;
pub(crate) mod log;
pub(crate) mod lookup;
pub(crate) mod points;
pub(crate) mod queue;
pub(crate) mod status;

use std::time::Instant;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use tui_input::Input;

use crate::store::{PageId, PointId, PointRecord};

use super::theme;

/// The six panes, in focus order (keys 1-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum PaneId {
    Status,
    Queue,
    Log,
    Lookup,
    Graph,
    Points,
}

impl PaneId {
    pub(crate) const ALL: [PaneId; 6] = [
        PaneId::Status,
        PaneId::Queue,
        PaneId::Log,
        PaneId::Lookup,
        PaneId::Graph,
        PaneId::Points,
    ];

    pub(crate) fn index(self) -> usize {
        match self {
            PaneId::Status => 0,
            PaneId::Queue => 1,
            PaneId::Log => 2,
            PaneId::Lookup => 3,
            PaneId::Graph => 4,
            PaneId::Points => 5,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            PaneId::Status => "Status",
            PaneId::Queue => "Queue",
            PaneId::Log => "Log",
            PaneId::Lookup => "Lookup",
            PaneId::Graph => "Graph",
            PaneId::Points => "Points",
        }
    }

    pub(crate) fn next(self) -> PaneId {
        PaneId::ALL[(self.index() + 1) % PaneId::ALL.len()]
    }

    pub(crate) fn prev(self) -> PaneId {
        PaneId::ALL[(self.index() + PaneId::ALL.len() - 1) % PaneId::ALL.len()]
    }

    /// Lookup, graph and points share the lower half of the screen, one at a
    /// time.
    pub(crate) fn is_explorer(self) -> bool {
        matches!(self, PaneId::Lookup | PaneId::Graph | PaneId::Points)
    }
}

/// Keys as the footer and the help list them: (keys, what they do).
pub(crate) type Keys = &'static [(&'static str, &'static str)];

/// What a key handler may need to know besides the key.
pub(crate) struct KeyCtx {
    pub now: Instant,
    /// The pane's inner height, for page-sized moves.
    pub height: usize,
}

/// Everything the app asks of a pane, so that it dispatches by focus once
/// and a new pane is one new file plus its line in [`PaneId`]. A pane owns
/// its state, its keys (the same lists feed the footer and the `?` help,
/// so they cannot drift from each other) and its drawing.
pub(crate) trait Pane {
    /// The keys for the help overlay.
    fn help(&self) -> Keys;
    /// The keys for the footer while the pane has focus (they may change
    /// while a text box is being edited).
    fn footer(&self) -> Keys;
    fn key(&mut self, _key: &KeyEvent, _ctx: &KeyCtx) -> Action {
        Action::Unhandled
    }
    /// A left click at `at` inside the pane's inner `area`.
    fn click(&mut self, _area: Rect, _at: Position) -> Action {
        Action::Done
    }
    /// The mouse wheel: `delta` rows in a pane `height` rows tall.
    fn scroll(&mut self, _delta: isize, _height: usize) -> Action {
        Action::Done
    }
    /// Where the terminal cursor goes while a text box is edited.
    fn cursor(&self, _area: Rect) -> Option<Position> {
        None
    }
    /// A text box has the keys (global keys are then text).
    fn editing(&self) -> bool {
        false
    }
    /// Focus moved away: a search or filter box stops taking keys.
    fn stop_editing(&mut self) {}
    fn draw(&self, area: Rect, buf: &mut Buffer);
}

/// What a pane asks of the app after a key or a click.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// The pane had no use for the key: the app's global keys get it.
    Unhandled,
    /// Handled; the pane's state may have changed.
    Done,
    /// Show this page in the link graph.
    Open(PageId),
    /// Read a page for the link graph without moving the trail (going back).
    Load {
        seq: u64,
        page: PageId,
    },
    /// The lookup's selection moved: fetch the selected hit's details.
    Detail(PageId),
    SavePoint {
        id: Option<PointId>,
        rec: PointRecord,
    },
    DeletePoint(PointId),
    SetActive(PointId, bool),
    /// Crawl these points (empty: every active point).
    Crawl(Vec<PointId>),
}

/// The first row shown so that `selected` stays visible in `height` rows;
/// the same rule serves drawing and mapping a click to a row.
pub(crate) fn scroll_offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        0
    } else {
        selected.saturating_sub(height - 1)
    }
}

/// Moves a selection by `delta` within `len` rows.
pub(crate) fn step(selected: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    selected.saturating_add_signed(delta).min(len - 1)
}

/// A one-line text box: `label` then the value, scrolled so the cursor
/// shows; `masked` hides a password.
pub(crate) fn render_input(
    input: &Input,
    label: &str,
    editing: bool,
    masked: bool,
    area: Rect,
    buf: &mut Buffer,
) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    Line::from(Span::styled(label, theme::label())).render(area, buf);
    let field = input_field(label, area);
    if field.width == 0 {
        return;
    }
    buf.set_style(field, theme::input(editing));
    let scroll = input.visual_scroll(field.width.saturating_sub(1) as usize);
    let shown: String = if masked {
        "•".repeat(input.value().chars().count().saturating_sub(scroll))
    } else {
        input.value().chars().skip(scroll).collect()
    };
    Span::styled(shown, theme::input(editing)).render(field, buf);
}

/// Where the terminal cursor goes in a box drawn by [`render_input`].
pub(crate) fn input_cursor(input: &Input, label: &str, area: Rect) -> Position {
    let field = input_field(label, area);
    let scroll = input.visual_scroll(field.width.saturating_sub(1) as usize);
    let x = input.visual_cursor().saturating_sub(scroll) as u16;
    Position::new(field.x + x.min(field.width.saturating_sub(1)), field.y)
}

fn input_field(label: &str, area: Rect) -> Rect {
    let label_w = (label.chars().count() as u16).min(area.width);
    Rect {
        x: area.x + label_w,
        width: area.width - label_w,
        height: area.height.min(1),
        ..area
    }
}

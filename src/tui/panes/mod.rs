//! The console's panes: each module owns one pane's state, how it takes
//! keys and how it draws (`impl Widget for &Pane`). What they share lives
//! here: the pane names, what a pane asks of the app, list scrolling and
//! the text input box.

pub mod graph;
pub mod log;
pub mod lookup;
pub mod points;
pub mod queue;
pub mod status;

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use tui_input::Input;

use crate::store::{PageId, PointId, PointRecord};

use super::theme;

/// The six panes, in focus order (keys 1-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaneId {
    Status,
    Queue,
    Log,
    Lookup,
    Graph,
    Points,
}

impl PaneId {
    pub const ALL: [PaneId; 6] = [
        PaneId::Status,
        PaneId::Queue,
        PaneId::Log,
        PaneId::Lookup,
        PaneId::Graph,
        PaneId::Points,
    ];

    pub fn index(self) -> usize {
        match self {
            PaneId::Status => 0,
            PaneId::Queue => 1,
            PaneId::Log => 2,
            PaneId::Lookup => 3,
            PaneId::Graph => 4,
            PaneId::Points => 5,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PaneId::Status => "Status",
            PaneId::Queue => "Queue",
            PaneId::Log => "Log",
            PaneId::Lookup => "Lookup",
            PaneId::Graph => "Graph",
            PaneId::Points => "Points",
        }
    }

    pub fn next(self) -> PaneId {
        PaneId::ALL[(self.index() + 1) % PaneId::ALL.len()]
    }

    pub fn prev(self) -> PaneId {
        PaneId::ALL[(self.index() + PaneId::ALL.len() - 1) % PaneId::ALL.len()]
    }

    /// Lookup, graph and points share the lower half of the screen, one at a
    /// time.
    pub fn is_explorer(self) -> bool {
        matches!(self, PaneId::Lookup | PaneId::Graph | PaneId::Points)
    }
}

/// What a pane asks of the app after a key or a click.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
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
pub fn scroll_offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        0
    } else {
        selected.saturating_sub(height - 1)
    }
}

/// Moves a selection by `delta` within `len` rows.
pub fn step(selected: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    selected.saturating_add_signed(delta).min(len - 1)
}

/// A one-line text box: `label` then the value, scrolled so the cursor
/// shows; `masked` hides a password.
pub fn render_input(
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
pub fn input_cursor(input: &Input, label: &str, area: Rect) -> Position {
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

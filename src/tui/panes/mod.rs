//! The console's panes: each module owns one pane's state, how it takes
//! keys (its key table) and how it draws. What they share lives here: the
//! pane names, what a pane asks of the app and the text input box; the
//! list view they share is [`list`].

pub(crate) mod cluster;
pub(crate) mod findings;
pub(crate) mod graph;
pub(crate) mod list;
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
use cluster::ClusterPane;
use findings::FindingsPane;
use graph::GraphPane;
use log::LogPane;
use lookup::LookupPane;
use points::PointsPane;
use queue::QueuePane;
use status::StatusPane;

use super::keymap::{Global, Keys, Mode, Table, Verb};
use super::theme;

/// What every pane is built from.
pub(crate) struct Setup {
    pub now: Instant,
    /// Seconds east of UTC for times of day and dates.
    pub tz_offset: i64,
}

/// Where a pane sits: the status bar, the upper left and right, or the
/// lower half that the explorer panes share one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Bar,
    Left,
    Right,
    Explorer,
}

/// Declares the panes: their ids in focus order (keys 1-9), the struct that
/// holds them all, and the one mapping from id to pane.
macro_rules! panes {
    ($($id:ident => $field:ident: $ty:ident in $slot:ident,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum PaneId {
            $($id,)*
        }

        impl PaneId {
            pub(crate) const ALL: [PaneId; [$(PaneId::$id,)*].len()] = [$(PaneId::$id,)*];

            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(PaneId::$id => stringify!($id),)*
                }
            }

            pub(crate) fn slot(self) -> Slot {
                match self {
                    $(PaneId::$id => Slot::$slot,)*
                }
            }
        }

        /// Every pane's state.
        pub(crate) struct Panes {
            $(pub(crate) $field: $ty,)*
        }

        impl Panes {
            pub(crate) fn new(setup: &Setup) -> Panes {
                Panes {
                    $($field: <$ty as Pane>::new(setup),)*
                }
            }

            pub(crate) fn get(&self, id: PaneId) -> &dyn Pane {
                match id {
                    $(PaneId::$id => &self.$field,)*
                }
            }

            pub(crate) fn get_mut(&mut self, id: PaneId) -> &mut dyn Pane {
                match id {
                    $(PaneId::$id => &mut self.$field,)*
                }
            }
        }
    };
}

// A new pane: its file, and its line here.
panes! {
    Status => status: StatusPane in Bar,
    Queue => queue: QueuePane in Left,
    Log => log: LogPane in Right,
    Lookup => lookup: LookupPane in Explorer,
    Graph => graph: GraphPane in Explorer,
    Points => points: PointsPane in Explorer,
    Findings => findings: FindingsPane in Explorer,
    Cluster => cluster: ClusterPane in Explorer,
}

impl PaneId {
    pub(crate) fn index(self) -> usize {
        PaneId::ALL.iter().position(|&p| p == self).unwrap_or(0)
    }

    pub(crate) fn next(self) -> PaneId {
        PaneId::ALL[(self.index() + 1) % PaneId::ALL.len()]
    }

    pub(crate) fn prev(self) -> PaneId {
        PaneId::ALL[(self.index() + PaneId::ALL.len() - 1) % PaneId::ALL.len()]
    }

    /// Lookup, graph, points and findings share the lower half of the screen, one at a
    /// time.
    pub(crate) fn is_explorer(self) -> bool {
        self.slot() == Slot::Explorer
    }

    /// The panes that share the lower half, in order; `cluster`: the
    /// console shares a frontier.
    pub(crate) fn explorers(cluster: bool) -> impl Iterator<Item = PaneId> {
        PaneId::ALL
            .into_iter()
            .filter(move |p| p.is_explorer() && p.shown(cluster))
    }

    /// Whether the pane is on screen: the Cluster pane only in a console
    /// that shares a frontier (`tui --frontier`).
    pub(crate) fn shown(self, cluster: bool) -> bool {
        cluster || self != PaneId::Cluster
    }
}

/// What a key handler may need to know besides the key.
pub(crate) struct KeyCtx {
    pub now: Instant,
    /// The pane's inner height, for page-sized moves.
    pub height: usize,
}

/// Everything the app asks of a pane, so that it dispatches by focus once
/// and a new pane is one new file plus its line in [`PaneId`]. A pane owns
/// its state, its key table (which alone drives its key handling, its
/// footer and its `?` help) and its drawing.
pub(crate) trait Pane {
    fn new(setup: &Setup) -> Self
    where
        Self: Sized;
    /// The pane's keys.
    fn table(&self) -> &'static Table<Verb>;
    /// The state that picks the table's rows in force.
    fn mode(&self) -> Mode {
        Mode::Browse
    }
    /// Does what a row of the table bound (the mouse wheel is `Move`).
    fn run(&mut self, verb: Verb, ctx: &KeyCtx) -> Action;
    /// A key no row takes: text for a box being edited, or not the pane's.
    fn other(&mut self, _key: &KeyEvent, _ctx: &KeyCtx) -> Action {
        Action::Unhandled
    }
    /// A key: what the table's row for it does in the pane's state, else
    /// `other`. Panes keep this default, as they do `footer` and `help`:
    /// the table is the one place a key is bound.
    fn key(&mut self, key: &KeyEvent, ctx: &KeyCtx) -> Action {
        match self.table().lookup(self.mode(), key) {
            Some(Verb::Global(g)) => Action::Global(g),
            Some(verb) => self.run(verb, ctx),
            None => self.other(key, ctx),
        }
    }
    /// The keys for the footer while the pane has focus.
    fn footer(&self) -> Keys {
        self.table().footer(self.mode())
    }
    /// The keys for the help overlay.
    fn help(&self) -> Keys {
        self.table().help()
    }
    /// The pane has the keys (global keys are then text, or an answer).
    fn editing(&self) -> bool {
        self.mode().takes_keys()
    }
    /// A left click at `at` inside the pane's inner `area`.
    fn click(&mut self, _area: Rect, _at: Position) -> Action {
        Action::Done
    }
    /// Where the terminal cursor goes while a text box is edited.
    fn cursor(&self, _area: Rect) -> Option<Position> {
        None
    }
    /// Focus moved away: a search or filter box stops taking keys.
    fn stop_editing(&mut self) {}
    /// What the pane's frame says in its right corner: what it shows is
    /// as of (the Findings pane's run).
    fn caption(&self) -> Option<&str> {
        None
    }
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
        /// Boxed: a point record dwarfs the other variants.
        rec: Box<PointRecord>,
    },
    DeletePoint(PointId),
    SetActive(PointId, bool),
    /// Make document `name`, or rename `old` to it.
    SaveDoc {
        old: Option<String>,
        name: String,
    },
    /// Delete a document (soft: `doc restore` brings it back).
    DeleteDoc(String),
    /// Crawl these points (empty: every active point).
    Crawl(Vec<PointId>),
    /// List the rows of a finding kind.
    ListFindings {
        seq: u64,
        kind: &'static str,
    },
    /// Write a finding kind as CSV.
    ExportFindings(&'static str),
    /// An app-wide key bound in the pane's table.
    Global(Global),
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

//! Where things sit on the screen: the panes' rectangles for a size and a
//! focus, the explorer's tabs, and centred overlay boxes. Drawing and mouse
//! hit-testing both ask here, so a click lands where the eye sees.

use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::widgets::Block;

use super::panes::{PaneId, Slot};

/// Below this the layout cannot show every pane legibly.
pub(crate) const MIN_WIDTH: u16 = 80;
pub(crate) const MIN_HEIGHT: u16 = 24;

/// Where each pane sits for a screen size and focus.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Areas {
    pub status: Rect,
    pub queue: Rect,
    pub log: Rect,
    pub explorer: Rect,
    pub footer: Rect,
}

pub(crate) fn areas(area: Rect, focus: PaneId) -> Areas {
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

pub(crate) fn inner(area: Rect) -> Rect {
    Block::bordered().inner(area)
}

pub(crate) fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// Column ranges of the explorer's tab labels in its title, from `x0`;
/// `cluster`: the Cluster tab is shown.
pub(crate) fn tab_ranges(x0: u16, cluster: bool) -> Vec<(PaneId, u16, u16)> {
    let mut x = x0;
    PaneId::explorers(cluster)
        .map(|p| {
            let w = tab_label(p).chars().count() as u16;
            let r = (p, x, x + w);
            x += w + 1;
            r
        })
        .collect()
}

pub(crate) fn tab_label(p: PaneId) -> String {
    format!(" {} {} ", p.index() + 1, p.name())
}

pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

impl Areas {
    /// The pane under `at`; `explorer` is the one the lower half shows.
    pub(crate) fn pane_at(&self, at: Position, explorer: PaneId) -> Option<PaneId> {
        PaneId::ALL
            .into_iter()
            .filter(|&p| !p.is_explorer() || p == explorer)
            .find(|&p| self.of(p).contains(at))
    }

    /// The rectangle pane `p` is drawn in (the explorer's panes share one).
    pub(crate) fn of(&self, p: PaneId) -> Rect {
        match p.slot() {
            Slot::Bar => self.status,
            Slot::Left => self.queue,
            Slot::Right => self.log,
            Slot::Explorer => self.explorer,
        }
    }
}

//! The list view every list pane shares: which row is selected, which rows
//! a window of a given height shows, what a click or the wheel selects,
//! whether the last loaded row is reached (to load more), and the drawing
//! of the window on ratatui's `Table`.
//!
//! The window is derived from the selection alone (the selected row is the
//! last one shown once it passes the bottom), so drawing, which only reads
//! the model, and mapping a click to a row agree without stored offsets.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Row, StatefulWidget, Table, TableState};

use crate::tui::theme;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ListView {
    selected: usize,
}

impl ListView {
    pub(crate) fn selected(self) -> usize {
        self.selected
    }

    /// Back to the first row (a new list).
    pub(crate) fn reset(&mut self) {
        self.selected = 0;
    }

    /// Keeps the selection within a list now `len` rows long.
    pub(crate) fn clamp(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    /// Moves the selection by `delta` within `len` rows; whether it moved.
    pub(crate) fn step(&mut self, delta: isize, len: usize) -> bool {
        let before = self.selected;
        self.selected = if len == 0 {
            0
        } else {
            self.selected.saturating_add_signed(delta).min(len - 1)
        };
        self.selected != before
    }

    /// The first row shown in `height` rows.
    pub(crate) fn offset(self, height: usize) -> usize {
        offset(self.selected, height)
    }

    /// A click at row `y` of the screen on a list drawn in `rows`: selects
    /// the row under it; whether the selection moved.
    pub(crate) fn click(&mut self, rows: Rect, y: u16, len: usize) -> bool {
        if y < rows.y || y >= rows.bottom() {
            return false;
        }
        let row = self.offset(rows.height as usize) + (y - rows.y) as usize;
        if row >= len || row == self.selected {
            return false;
        }
        self.selected = row;
        true
    }

    /// The selection is on the last of `len` loaded rows (or there are none).
    pub(crate) fn at_end(self, len: usize) -> bool {
        self.selected + 1 >= len
    }

    /// Draws the rows of `len` that fit in `area`; `row(i)` builds row `i`.
    /// The selected row is drawn selected when `focused`.
    pub(crate) fn render<'a>(
        self,
        len: usize,
        focused: bool,
        area: Rect,
        buf: &mut Buffer,
        row: impl FnMut(usize) -> Line<'a>,
    ) {
        let top = self.offset(area.height as usize);
        let selected = focused.then_some(self.selected);
        draw(top, selected, len, area, buf, row);
    }
}

/// Draws rows `top..` of `len` that fit in `area`, `selected` drawn
/// selected; `row(i)` builds row `i`. Only the window is built (a list may
/// be long), so the table state's selection counts from `top`.
pub(crate) fn draw<'a>(
    top: usize,
    selected: Option<usize>,
    len: usize,
    area: Rect,
    buf: &mut Buffer,
    mut row: impl FnMut(usize) -> Line<'a>,
) {
    let end = len.min(top + area.height as usize);
    let rows = (top..end).map(|i| {
        let line = row(i);
        Row::new([Cell::from(if selected == Some(i) {
            theme::select(line)
        } else {
            line
        })])
    });
    let mut state = TableState::new().with_selected(selected.and_then(|s| s.checked_sub(top)));
    StatefulWidget::render(
        Table::new(rows, [Constraint::Fill(1)]).column_spacing(0),
        area,
        buf,
        &mut state,
    );
}

/// The first row shown so that `selected` stays visible in `height` rows.
pub(crate) fn offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        0
    } else {
        selected.saturating_sub(height - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_selects_the_row_under_it_in_the_scrolled_window() {
        let rows = Rect::new(0, 5, 10, 4);
        let mut list = ListView::default();
        list.step(6, 10);
        // Rows 3..7 are shown: the second line is row 4.
        assert_eq!(list.offset(4), 3);
        assert!(list.click(rows, 6, 10));
        assert_eq!(list.selected(), 4);
        // Above and below the rows, nothing is selected.
        assert!(!list.click(rows, 4, 10));
        assert!(!list.click(rows, 9, 10));
        assert_eq!(list.selected(), 4);
        // Nor under the last row of a short list.
        let mut short = ListView::default();
        assert!(!short.click(rows, 8, 2));
        assert_eq!(short.selected(), 0);
    }

    #[test]
    fn the_selection_stays_in_the_list_and_knows_its_end() {
        let mut list = ListView::default();
        assert!(!list.step(-1, 3));
        assert!(list.step(10, 3));
        assert_eq!(list.selected(), 2);
        assert!(list.at_end(3));
        assert!(!list.at_end(4));
        list.clamp(1);
        assert_eq!(list.selected(), 0);
    }
}

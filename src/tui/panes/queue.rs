//! The crawl queue: fetches in flight (from `Started` until the page's
//! outcome) with their running time, and the next URLs of the frontier as
//! the last store snapshot saw them, with depth and crawl point.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{scroll_offset, step, Action, KeyCtx, Keys, Pane, Setup};
use crate::crawl::CrawlEvent;
use crate::store::{PageId, PointId};
use crate::tui::{format, theme};

/// A frontier entry with its URL, as a snapshot read it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueueRow {
    pub page: PageId,
    pub url: String,
    pub depth: u32,
    pub point: PointId,
}

#[derive(Debug, Clone)]
struct InFlight {
    page: PageId,
    url: String,
    since: Instant,
}

pub(crate) struct QueuePane {
    frontier: Vec<QueueRow>,
    frontier_len: u64,
    in_flight: Vec<InFlight>,
    selected: usize,
    now: Instant,
}

impl QueuePane {
    pub(crate) fn new(now: Instant) -> Self {
        QueuePane {
            frontier: Vec::new(),
            frontier_len: 0,
            in_flight: Vec::new(),
            selected: 0,
            now,
        }
    }

    pub(crate) fn set_now(&mut self, now: Instant) {
        self.now = now;
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub(crate) fn set_frontier(&mut self, rows: Vec<QueueRow>, len: u64) {
        self.frontier = rows;
        self.frontier_len = len;
        self.selected = self.selected.min(self.frontier.len().saturating_sub(1));
    }

    /// The engine ended: nothing is in flight any more.
    pub(crate) fn clear_in_flight(&mut self) {
        self.in_flight.clear();
    }

    pub(crate) fn on_event(&mut self, ev: &CrawlEvent) {
        let done = match ev {
            CrawlEvent::Started { page, url } => {
                // A retried fetch starts again: keep its first start time.
                if !self.in_flight.iter().any(|f| f.page == *page) {
                    self.in_flight.push(InFlight {
                        page: *page,
                        url: url.clone(),
                        since: self.now,
                    });
                }
                return;
            }
            CrawlEvent::Fetched(f) => f.page,
            CrawlEvent::NotModified { page, .. }
            | CrawlEvent::Unchanged { page, .. }
            | CrawlEvent::Failed { page, .. }
            | CrawlEvent::Skipped { page, .. }
            | CrawlEvent::Redirected { page, .. } => *page,
            _ => return,
        };
        self.in_flight.retain(|f| f.page != done);
    }

    /// Rows of the in-flight part and of the frontier part of `area`.
    fn split(&self, area: Rect) -> (Rect, Rect) {
        let wanted = if self.in_flight.is_empty() {
            0
        } else {
            self.in_flight.len() as u16 + 1
        };
        let flight_h = wanted.min(area.height / 2);
        let [a, b] =
            Layout::vertical([Constraint::Length(flight_h), Constraint::Fill(1)]).areas(area);
        (a, b)
    }

    fn on_key(&mut self, key: &KeyEvent) -> Action {
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::PageUp => self.move_by(-10),
            KeyCode::PageDown => self.move_by(10),
            KeyCode::Enter => match self.frontier.get(self.selected) {
                Some(row) => Action::Open(row.page),
                None => Action::Done,
            },
            _ => Action::Unhandled,
        }
    }

    pub(crate) fn move_by(&mut self, delta: isize) -> Action {
        self.selected = step(self.selected, delta, self.frontier.len());
        Action::Done
    }

    /// A click at row `y` of the pane's inner `area` selects that URL.
    fn click_row(&mut self, area: Rect, y: u16) {
        let (_, list) = self.split(area);
        let height = list.height.saturating_sub(1) as usize;
        if y > list.y && y < list.bottom() {
            let row = scroll_offset(self.selected, height) + (y - list.y - 1) as usize;
            if row < self.frontier.len() {
                self.selected = row;
            }
        }
    }
}

impl Pane for QueuePane {
    fn new(setup: &Setup) -> Self {
        QueuePane::new(setup.now)
    }

    fn help(&self) -> Keys {
        &[("↑↓ Enter", "select · open in graph")]
    }

    fn footer(&self) -> Keys {
        &[("↑↓", "select"), ("Enter", "open in graph")]
    }

    fn key(&mut self, key: &KeyEvent, _ctx: &KeyCtx) -> Action {
        self.on_key(key)
    }

    fn click(&mut self, area: Rect, at: Position) -> Action {
        self.click_row(area, at.y);
        Action::Done
    }

    fn scroll(&mut self, delta: isize, _height: usize) -> Action {
        self.move_by(delta)
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        Widget::render(self, area, buf);
    }
}

impl Widget for &QueuePane {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (flight, list) = self.split(area);
        if flight.height > 0 {
            let mut lines = vec![Line::styled(
                format!("In flight ({})", self.in_flight.len()),
                theme::heading(),
            )];
            for f in self.in_flight.iter().take(flight.height as usize - 1) {
                let took = self.now.saturating_duration_since(f.since);
                let url = format::squeeze(
                    format::bare_url(&f.url),
                    flight.width.saturating_sub(7) as usize,
                );
                lines.push(Line::from(vec![
                    Span::styled(format!("{:>6} ", format::short(took)), theme::dim()),
                    Span::styled(url, theme::url()),
                ]));
            }
            Paragraph::new(lines).render(flight, buf);
        }
        let mut lines = vec![Line::styled(
            format!("Next in frontier ({})", format::count(self.frontier_len)),
            theme::heading(),
        )];
        if self.frontier.is_empty() {
            lines.push(Line::styled("  (empty)", theme::dim()));
        }
        let height = list.height.saturating_sub(1) as usize;
        let offset = scroll_offset(self.selected, height);
        for (i, row) in self.frontier.iter().enumerate().skip(offset).take(height) {
            let prefix = format!("d{:<2} #{:<2} ", row.depth, row.point);
            let url_w = (list.width as usize).saturating_sub(prefix.chars().count());
            let line = Line::from(vec![
                Span::styled(prefix, theme::dim()),
                Span::styled(
                    format::squeeze(format::bare_url(&row.url), url_w),
                    theme::url(),
                ),
            ]);
            lines.push(if i == self.selected {
                theme::select(line)
            } else {
                line
            });
        }
        Paragraph::new(lines).render(list, buf);
    }
}

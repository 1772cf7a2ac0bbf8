//! The findings pane: how many findings of each kind the store holds (the
//! counts of `report summary`, read again by a background job at most every
//! [`RECOUNT_EVERY`] while something changed and the pane is shown), a
//! kind's rows (URL and what is wrong), a row opened in the link graph, and
//! a kind exported as CSV.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{scroll_offset, step, Action, KeyCtx, Keys, Pane, Setup};
use crate::tui::findings_jobs::{Counts, FindingRow, Listed};
use crate::tui::{format, theme};

/// The least time between two counts: `report summary` reads every table
/// (0.34 s on a 100,000-page store).
pub(crate) const RECOUNT_EVERY: Duration = Duration::from_secs(2);

/// What the pane says instead of a count of broken external links when no
/// link was ever checked.
const NOT_CHECKED: &str = "not checked (crawl with --check-external)";

/// One kind's rows, while listed.
struct Rows {
    kind: &'static str,
    seq: u64,
    /// None while the job reads them.
    listed: Option<Result<Listed, String>>,
    selected: usize,
}

pub(crate) struct FindingsPane {
    counts: Option<Result<Counts, String>>,
    selected: usize,
    rows: Option<Rows>,
    seq: u64,
    /// The store changed since the last count began.
    stale: bool,
    counting: bool,
    next_count: Instant,
}

impl FindingsPane {
    /// The store may hold new findings (a crawl wrote, or ended).
    pub(crate) fn changed(&mut self) {
        self.stale = true;
    }

    /// Whether to count now: something changed, the pane is `shown`, no
    /// count is running and the last began long enough ago.
    pub(crate) fn poll(&mut self, now: Instant, shown: bool) -> bool {
        if !(shown && self.stale && !self.counting && now >= self.next_count) {
            return false;
        }
        self.stale = false;
        self.counting = true;
        self.next_count = now + RECOUNT_EVERY;
        true
    }

    pub(crate) fn set_counts(&mut self, counts: Result<Counts, String>) {
        self.counting = false;
        if let Ok(c) = &counts {
            self.selected = self.selected.min(c.kinds.len().saturating_sub(1));
        }
        self.counts = Some(counts);
    }

    /// A kind's rows, if they are still the ones asked for last.
    pub(crate) fn set_rows(&mut self, seq: u64, listed: Result<Listed, String>) {
        if let Some(rows) = self.rows.as_mut().filter(|r| r.seq == seq) {
            rows.listed = Some(listed);
            rows.selected = 0;
        }
    }

    fn kinds(&self) -> &[(&'static str, usize)] {
        match &self.counts {
            Some(Ok(c)) => &c.kinds,
            _ => &[],
        }
    }

    fn selected_kind(&self) -> Option<&'static str> {
        match &self.rows {
            Some(r) => Some(r.kind),
            None => self.kinds().get(self.selected).map(|(k, _)| *k),
        }
    }

    fn listed(&self) -> &[FindingRow] {
        match self.rows.as_ref().and_then(|r| r.listed.as_ref()) {
            Some(Ok(l)) => &l.rows,
            _ => &[],
        }
    }

    fn move_by(&mut self, delta: isize) -> Action {
        let len = match &self.rows {
            Some(_) => self.listed().len(),
            None => self.kinds().len(),
        };
        match &mut self.rows {
            Some(r) => r.selected = step(r.selected, delta, len),
            None => self.selected = step(self.selected, delta, len),
        }
        Action::Done
    }

    fn enter(&mut self) -> Action {
        if let Some(r) = &self.rows {
            return self
                .listed()
                .get(r.selected)
                .map_or(Action::Done, |row| Action::Open(row.page));
        }
        let Some(kind) = self.selected_kind() else {
            return Action::Done;
        };
        self.seq += 1;
        self.rows = Some(Rows {
            kind,
            seq: self.seq,
            listed: None,
            selected: 0,
        });
        Action::ListFindings {
            seq: self.seq,
            kind,
        }
    }
}

impl Pane for FindingsPane {
    fn new(setup: &Setup) -> Self {
        FindingsPane {
            counts: None,
            selected: 0,
            rows: None,
            seq: 0,
            // Whatever the store already holds is counted once shown.
            stale: true,
            counting: false,
            next_count: setup.now,
        }
    }

    fn help(&self) -> Keys {
        &[
            ("↑↓ Enter", "list · open in graph"),
            ("x  Esc", "export CSV · back"),
        ]
    }

    fn footer(&self) -> Keys {
        match self.rows {
            Some(_) => &[
                ("↑↓", "select"),
                ("Enter", "open in graph"),
                ("Esc", "back"),
                ("x", "export CSV"),
            ],
            None => &[("↑↓", "select"), ("Enter", "list"), ("x", "export CSV")],
        }
    }

    fn key(&mut self, key: &KeyEvent, ctx: &KeyCtx) -> Action {
        let page = ctx.height.saturating_sub(2).max(1) as isize;
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::PageUp => self.move_by(-page),
            KeyCode::PageDown => self.move_by(page),
            KeyCode::Enter => self.enter(),
            KeyCode::Esc | KeyCode::Backspace if self.rows.is_some() => {
                self.rows = None;
                Action::Done
            }
            KeyCode::Char('x') => self
                .selected_kind()
                .map_or(Action::Done, Action::ExportFindings),
            _ => Action::Unhandled,
        }
    }

    fn click(&mut self, area: Rect, at: Position) -> Action {
        // The rows have a heading line; the kinds have none.
        let (selected, top) = match &self.rows {
            Some(r) => (r.selected, 1),
            None => (self.selected, 0),
        };
        if at.y < area.y + top {
            return Action::Done;
        }
        let height = area.height.saturating_sub(top) as usize;
        let row = scroll_offset(selected, height) + (at.y - area.y - top) as usize;
        self.move_by(row as isize - selected as isize)
    }

    fn scroll(&mut self, delta: isize, _height: usize) -> Action {
        self.move_by(delta)
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        Widget::render(self, area, buf);
    }
}

impl FindingsPane {
    /// A line a kind, no heading: at 80×24 every kind fits.
    fn kind_lines(&self, width: usize, height: usize) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        let counts = match &self.counts {
            None => return vec![Line::styled("counting…", theme::dim())],
            Some(Err(e)) => return vec![Line::styled(e.clone(), theme::error())],
            Some(Ok(c)) => c,
        };
        let offset = scroll_offset(self.selected, height);
        for (i, (kind, n)) in counts.kinds.iter().enumerate().skip(offset).take(height) {
            let (count, style) = if *kind == "external" && !counts.external_checked {
                (format!("— {NOT_CHECKED}"), theme::dim())
            } else if *n == 0 {
                ("0".to_string(), theme::ok())
            } else {
                (format::count(*n as u64), theme::error())
            };
            let line = Line::from(vec![
                Span::styled(format!("{kind:<14}"), theme::label()),
                Span::styled(format::ellipsize(&count, width.saturating_sub(14)), style),
            ]);
            lines.push(if i == self.selected {
                theme::select(line)
            } else {
                line
            });
        }
        lines
    }

    fn row_lines(&self, rows: &Rows, width: usize, height: usize) -> Vec<Line<'static>> {
        let head = |text: String| Line::styled(text, theme::heading());
        let listed = match &rows.listed {
            None => return vec![head(format!("{}: reading…", rows.kind))],
            Some(Err(e)) => {
                return vec![
                    head(rows.kind.to_string()),
                    Line::styled(format!("  {e}"), theme::error()),
                ]
            }
            Some(Ok(l)) => l,
        };
        let shown = if listed.rows.len() < listed.total {
            format!("{} of {}", listed.rows.len(), listed.total)
        } else {
            listed.total.to_string()
        };
        let mut lines = vec![head(format!("{}: {shown} (Esc: back)", listed.kind))];
        if listed.rows.is_empty() {
            lines.push(Line::styled("none", theme::ok()));
        }
        let longest = listed
            .rows
            .iter()
            .map(|r| format::bare_url(&r.url).chars().count());
        let url_w = longest.max().unwrap_or(0).min(width / 2);
        let offset = scroll_offset(rows.selected, height);
        for (i, row) in listed.rows.iter().enumerate().skip(offset).take(height) {
            let url = format::squeeze(format::bare_url(&row.url), url_w);
            let issue_w = width.saturating_sub(url_w + 2);
            let line = Line::from(vec![
                Span::styled(format!("{url:<url_w$}  "), theme::url()),
                Span::styled(format::ellipsize(&row.issue, issue_w), theme::value()),
            ]);
            lines.push(if i == rows.selected {
                theme::select(line)
            } else {
                line
            });
        }
        lines
    }
}

impl Widget for &FindingsPane {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let width = area.width as usize;
        let lines = match &self.rows {
            Some(rows) => self.row_lines(rows, width, area.height.saturating_sub(1) as usize),
            None => self.kind_lines(width, area.height as usize),
        };
        Paragraph::new(lines).render(area, buf);
        // A count under way, in the corner, over what it will replace.
        if self.counting && self.counts.is_some() && self.rows.is_none() {
            Line::styled("counting…", theme::dim())
                .alignment(ratatui::layout::Alignment::Right)
                .render(area, buf);
        }
    }
}

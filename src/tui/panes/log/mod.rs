//! The live page log: one line per page outcome (time, status, size, time
//! taken, URL, title or reason; a reason cut by whole words when narrow) and per origin or sitemap notice (an origin
//! unreachable or throttled, a sitemap read), coloured by kind, in a
//! bounded ring. It
//! follows the tail until the user scrolls; a filter box narrows it by text
//! (reason phrases included: `not found`), status (`404`, `4xx`) or any
//! status-bar label (`errors`, `out of scope`: exactly the rows it counts).
//! Before this session logs anything it says what the store holds. What
//! one line says and how it is drawn is [`line`]'s; this module owns the
//! ring, the filter, scrolling and the pane.

mod line;

use std::collections::VecDeque;

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::Widget;
use tui_input::backend::crossterm::EventHandler;
use tui_input::Input;

use super::{input_cursor, list, render_input, Action, KeyCtx, Pane, Setup};
pub(crate) use line::{store_line, LogLine};

use crate::crawl::CrawlEvent;
use crate::store::StateCounts;
use crate::tui::keymap::{ch, code, Binding, HelpRow, Mode, Table, Verb, BROWSE, EDIT, UP_DOWN};
use crate::tui::{format, theme};

/// Lines kept; older ones are dropped.
pub(crate) const CAPACITY: usize = 10_000;
const FILTER_LABEL: &str = "filter ";

pub(crate) struct LogPane {
    lines: VecDeque<LogLine>,
    next_seq: u64,
    filter: Input,
    editing: bool,
    /// Seqs of the lines the filter keeps, when there is a filter.
    matches: Option<VecDeque<u64>>,
    /// Every URL of the store the filter keeps (the whole crawl, not only
    /// what this session saw), once the store has answered; new matching
    /// lines are added as they come.
    store_view: Option<Vec<LogLine>>,
    /// Bumped with each new filter: a store answer to an older one is dropped.
    filter_seq: u64,
    /// The store has not been asked about the current filter yet.
    store_due: bool,
    /// The selected line's seq; `None` follows the tail.
    selected: Option<u64>,
    /// The seq of the top line shown while scrolled.
    top: u64,
    tz_offset: i64,
    /// The store's URLs by state, for the word before any line.
    store_totals: StateCounts,
}

impl LogPane {
    #[cfg(test)]
    pub(crate) fn filter(&self) -> &str {
        self.filter.value()
    }

    #[cfg(test)]
    pub(crate) fn following(&self) -> bool {
        self.selected.is_none()
    }

    #[cfg(test)]
    /// Lines the filter keeps (all when there is none).
    pub(crate) fn shown(&self) -> usize {
        self.view_len()
    }

    /// Records a page outcome or a notice at `unix` seconds; other events
    /// are ignored.
    pub(crate) fn on_event(&mut self, ev: &CrawlEvent, unix: i64) {
        if let Some(line) = LogLine::of_event(self.next_seq, ev, unix) {
            self.push(line);
        }
    }

    fn push(&mut self, line: LogLine) {
        self.next_seq += 1;
        if let Some(store) = &mut self.store_view {
            if line.matches(&terms(self.filter.value())) {
                store.push(line.clone().numbered(store.len() as u64));
            }
        }
        if self.lines.len() == CAPACITY {
            if let Some(old) = self.lines.pop_front() {
                if let Some(m) = &mut self.matches {
                    if m.front() == Some(&old.seq) {
                        m.pop_front();
                    }
                }
            }
        }
        if let Some(m) = &mut self.matches {
            if line.matches(&terms(self.filter.value())) {
                m.push_back(line.seq);
            }
        }
        self.lines.push_back(line);
    }

    fn refilter(&mut self) {
        let t = terms(self.filter.value());
        // The lines at hand answer at once; the store answers for the
        // whole crawl once the filter box is left.
        self.matches = (!t.is_empty()).then(|| {
            self.lines
                .iter()
                .filter(|l| l.matches(&t))
                .map(|l| l.seq)
                .collect()
        });
        self.store_view = None;
        self.filter_seq += 1;
        self.store_due = !t.is_empty();
        self.selected = None;
    }

    /// The filter to search the whole store for, once typing is done.
    pub(crate) fn store_search(&mut self) -> Option<(u64, Vec<String>)> {
        if !self.store_due || self.editing {
            return None;
        }
        self.store_due = false;
        Some((self.filter_seq, terms(self.filter.value())))
    }

    /// The store's answer to filter `seq`: every URL of the crawl it keeps.
    /// The store's URLs by state, from the last snapshot.
    pub(crate) fn set_store_totals(&mut self, totals: StateCounts) {
        self.store_totals = totals;
    }

    /// What an empty log says: what the store holds and how to see it,
    /// or, for an empty store, how to fill it.
    fn idle_text(&self) -> String {
        let t = &self.store_totals;
        let held = [
            (t.done, "done"),
            (t.failed, "errors"),
            (t.skipped, "skipped"),
            (t.redirected, "redirected"),
            (t.queued + t.claimed, "queued"),
        ];
        if held.iter().all(|&(n, _)| n == 0) {
            return "no pages yet: start a crawl (c) or add a crawl point (a)".into();
        }
        let figures: Vec<String> = held
            .iter()
            .filter(|&&(n, _)| n > 0)
            .map(|&(n, what)| format!("{} {what}", format::count(n)))
            .collect();
        format!(
            "the store holds {}: filter done, errors or skipped to list them",
            figures.join(" · ")
        )
    }

    pub(crate) fn set_store_view(&mut self, seq: u64, lines: Vec<LogLine>) {
        if seq != self.filter_seq {
            return;
        }
        let lines = lines
            .into_iter()
            .enumerate()
            .map(|(i, l)| l.numbered(i as u64))
            .collect();
        self.store_view = Some(lines);
        self.selected = None;
    }

    fn view_len(&self) -> usize {
        if let Some(store) = &self.store_view {
            return store.len();
        }
        match &self.matches {
            Some(m) => m.len(),
            None => self.lines.len(),
        }
    }

    fn view_line(&self, i: usize) -> Option<&LogLine> {
        if let Some(store) = &self.store_view {
            return store.get(i);
        }
        let seq = match &self.matches {
            Some(m) => *m.get(i)?,
            None => return self.lines.get(i),
        };
        let front = self.lines.front()?.seq;
        self.lines.get(seq.checked_sub(front)? as usize)
    }

    /// Where the line `seq` (or the first after it) sits in the view.
    fn position(&self, seq: u64) -> usize {
        let last = self.view_len().saturating_sub(1);
        if self.store_view.is_some() {
            return (seq as usize).min(last);
        }
        let pos = match &self.matches {
            Some(m) => m.partition_point(|&s| s < seq),
            None => self
                .lines
                .front()
                .map_or(0, |f| seq.saturating_sub(f.seq) as usize),
        };
        pos.min(last)
    }

    /// The first view row shown in `height` rows, and the selected row.
    fn window(&self, height: usize) -> (usize, Option<usize>) {
        let len = self.view_len();
        match self.selected {
            None => (len.saturating_sub(height), None),
            Some(seq) => {
                let sel = self.position(seq);
                let mut top = self.position(self.top);
                if sel < top || sel >= top + height {
                    top = list::offset(sel, height);
                }
                (top, Some(sel))
            }
        }
    }

    fn seq_at(&self, i: usize) -> Option<u64> {
        self.view_line(i).map(|l| l.seq)
    }

    /// Moves the selection by `delta` rows of a view `height` rows tall;
    /// moving down past the last line follows the tail again.
    fn scroll_rows(&mut self, delta: isize, height: usize) {
        let len = self.view_len();
        if len == 0 {
            return;
        }
        let (top, sel) = self.window(height);
        // Following, the selection sits just past the last line.
        let current = sel.unwrap_or(len);
        let next = current as isize + delta;
        if next >= len as isize {
            self.selected = None;
            return;
        }
        let next = next.max(0) as usize;
        self.selected = self.seq_at(next);
        let top = if next < top {
            next
        } else if next >= top + height {
            next + 1 - height
        } else {
            top
        };
        self.top = self.seq_at(top).unwrap_or(0);
    }

    fn select_first(&mut self) {
        self.selected = self.seq_at(0);
        self.top = self.selected.unwrap_or(0);
    }
}

fn terms(filter: &str) -> Vec<String> {
    filter.split_whitespace().map(str::to_lowercase).collect()
}

fn filter_row(area: Rect) -> Rect {
    Rect {
        height: area.height.min(1),
        width: (area.width / 2).min(40),
        ..area
    }
}

const SCROLL: Binding<Verb> = Binding {
    name: "↑↓",
    keys: UP_DOWN,
    footer: "scroll",
    when: BROWSE,
};
const PAGE: Binding<Verb> = Binding {
    name: "PgUp PgDn",
    keys: &[
        (code(KeyCode::PageUp), Verb::Page(-1)),
        (code(KeyCode::PageDown), Verb::Page(1)),
    ],
    footer: "",
    when: BROWSE,
};
const TOP: Binding<Verb> = Binding {
    name: "Home",
    keys: &[(code(KeyCode::Home), Verb::Top), (ch('g'), Verb::Top)],
    footer: "",
    when: BROWSE,
};
const FOLLOW: Binding<Verb> = Binding {
    name: "End",
    keys: &[(code(KeyCode::End), Verb::Follow), (ch('G'), Verb::Follow)],
    footer: "follow",
    when: BROWSE,
};
const FILTER: Binding<Verb> = Binding {
    name: "f",
    keys: &[(ch('f'), Verb::Edit)],
    footer: "filter",
    when: BROWSE,
};
const OPEN: Binding<Verb> = Binding {
    name: "Enter",
    keys: &[(code(KeyCode::Enter), Verb::Open)],
    footer: "open",
    when: BROWSE,
};
/// Not a key: what typing does, for the footer.
const TYPE: Binding<Verb> = Binding {
    name: "type",
    keys: &[],
    footer: "filter: text, 404, 4xx, errors, any status-bar label",
    when: EDIT,
};
const LEAVE: Binding<Verb> = Binding {
    name: "Enter/Esc",
    keys: &[
        (code(KeyCode::Enter), Verb::Leave),
        (code(KeyCode::Esc), Verb::Leave),
    ],
    footer: "leave",
    when: EDIT,
};
const KEYS: Table<Verb> = Table {
    rows: &[&SCROLL, &PAGE, &TOP, &FOLLOW, &FILTER, &OPEN, &TYPE, &LEAVE],
    help: &[
        HelpRow {
            rows: &[&SCROLL, &PAGE],
            sep: " ",
            words: "scroll",
        },
        HelpRow {
            rows: &[&TOP, &FOLLOW],
            sep: " ",
            words: "top · follow the tail",
        },
        HelpRow {
            rows: &[&FILTER, &OPEN],
            sep: "  ",
            words: "filter · open in graph",
        },
    ],
};

impl Pane for LogPane {
    fn new(setup: &Setup) -> Self {
        LogPane {
            lines: VecDeque::with_capacity(1024),
            next_seq: 0,
            filter: Input::default(),
            editing: false,
            matches: None,
            store_view: None,
            filter_seq: 0,
            store_due: false,
            selected: None,
            top: 0,
            tz_offset: setup.tz_offset,
            store_totals: StateCounts::default(),
        }
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    fn mode(&self) -> Mode {
        if self.editing {
            Mode::Edit
        } else {
            Mode::Browse
        }
    }

    /// `ctx.height` is the pane's inner height (the list is one row
    /// shorter: the filter row).
    fn run(&mut self, verb: Verb, ctx: &KeyCtx) -> Action {
        let rows = ctx.height.saturating_sub(1).max(1);
        match verb {
            Verb::Move(d) => self.scroll_rows(d, rows),
            Verb::Page(d) => self.scroll_rows(d * rows as isize, rows),
            Verb::Top => self.select_first(),
            Verb::Follow => self.selected = None,
            Verb::Edit => self.editing = true,
            Verb::Leave => self.editing = false,
            Verb::Open => {
                let (_, sel) = self.window(rows);
                let i = sel.unwrap_or(self.view_len().saturating_sub(1));
                return self
                    .view_line(i)
                    .and_then(|l| l.page)
                    .map_or(Action::Done, Action::Open);
            }
            _ => return Action::Unhandled,
        }
        Action::Done
    }

    /// While editing, any other key is text for the filter.
    fn other(&mut self, key: &KeyEvent, _ctx: &KeyCtx) -> Action {
        if !self.editing {
            return Action::Unhandled;
        }
        if self.filter.handle_event(&Event::Key(*key)).is_some() {
            self.refilter();
        }
        Action::Done
    }

    /// A click in the pane's inner `area`: the filter row edits the
    /// filter, a line selects it.
    fn click(&mut self, area: Rect, at: Position) -> Action {
        if at.y == area.y {
            self.editing = true;
            return Action::Done;
        }
        let rows = area.height.saturating_sub(1) as usize;
        let (top, _) = self.window(rows);
        let i = top + (at.y - area.y - 1) as usize;
        if let Some(seq) = self.seq_at(i) {
            self.selected = Some(seq);
            self.top = self.seq_at(top).unwrap_or(0);
        }
        Action::Done
    }

    fn cursor(&self, area: Rect) -> Option<Position> {
        self.editing
            .then(|| input_cursor(&self.filter, FILTER_LABEL, filter_row(area)))
    }

    fn stop_editing(&mut self) {
        self.editing = false;
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 {
            return;
        }
        render_input(
            &self.filter,
            FILTER_LABEL,
            self.editing,
            false,
            filter_row(area),
            buf,
        );
        let note = match (self.selected.is_some(), &self.store_view) {
            (false, Some(s)) => Some(format!(
                "following · {} in the store",
                format::count(s.len() as u64)
            )),
            (true, Some(s)) => Some(format!(
                "scrolled · {} in the store",
                format::count(s.len() as u64)
            )),
            (_, None) => None,
        };
        let note = note.unwrap_or_else(|| match (self.selected.is_some(), &self.matches) {
            (false, None) => format!("following · {}", format::count(self.lines.len() as u64)),
            (true, None) => format!(
                "scrolled (End follows) · {}",
                format::count(self.lines.len() as u64)
            ),
            (false, Some(m)) => format!("following · {} of {}", m.len(), self.lines.len()),
            (true, Some(m)) => format!("scrolled · {} of {}", m.len(), self.lines.len()),
        });
        let note_area = Rect {
            x: area.x + filter_row(area).width + 1,
            width: area.width.saturating_sub(filter_row(area).width + 1),
            height: 1,
            ..area
        };
        Line::styled(note, theme::dim()).render(note_area, buf);
        let list = Rect {
            y: area.y + 1,
            height: area.height - 1,
            ..area
        };
        let rows = list.height as usize;
        if self.view_len() == 0 {
            let msg = if self.matches.is_some() {
                "no line matches the filter".into()
            } else {
                self.idle_text()
            };
            Line::styled(msg, theme::dim()).render(list, buf);
            return;
        }
        let (top, sel) = self.window(rows);
        list::draw(top, sel, self.view_len(), list, buf, |i| {
            self.view_line(i)
                .map_or_else(Line::default, |l| l.render(area.width, self.tz_offset))
        });
    }
}

//! Word lookup: a search box whose results follow the typing (debounced;
//! the search itself runs off the UI thread and stale answers are dropped),
//! a ranked list, and the selected hit's date, size, top keywords and
//! snippet.

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};
use tui_input::backend::crossterm::EventHandler;
use tui_input::Input;

use super::list::ListView;
use super::{input_cursor, render_input, Action, KeyCtx, Pane, Setup};
use crate::export::page::UNTITLED;
use crate::search::{self, Hit, Results};
use crate::store::PageId;
use crate::tui::keymap::{
    ch, code, Binding, Global, HelpRow, Mode, Table, Verb, BROWSE, EDIT, OPEN,
};
use crate::tui::{format, theme};

/// Typing pauses this long before a search runs.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(150);
const LABEL: &str = "search ";
const DETAIL_ROWS: u16 = 6;

/// The selected hit's details, read off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Detail {
    pub page: PageId,
    pub keywords: Vec<(String, u32)>,
    pub snippet: Option<String>,
}

pub(crate) struct LookupPane {
    input: Input,
    editing: bool,
    /// The number of the latest search asked for; older answers are stale.
    seq: u64,
    due: Option<Instant>,
    searching: bool,
    /// The query the results answer.
    query: String,
    hits: Vec<Hit>,
    /// Pages that match in all (`hits` holds the best of them so far).
    total: usize,
    note: Option<String>,
    error: Option<String>,
    list: ListView,
    detail: Option<Detail>,
    tz_offset: i64,
}

impl LookupPane {
    pub(crate) fn start_editing(&mut self) {
        self.editing = true;
    }

    pub(crate) fn hits(&self) -> &[Hit] {
        &self.hits
    }

    fn selected_page(&self) -> Option<PageId> {
        self.hits.get(self.list.selected()).map(|h| h.page)
    }

    /// The search to run now, if any: the query once typing paused, or
    /// the next page of hits once the selection reached the last one.
    pub(crate) fn poll(&mut self, now: Instant) -> Option<(u64, String, usize)> {
        match self.due {
            Some(due) if now >= due => {}
            Some(_) => return None,
            None => return self.wants_more(),
        }
        self.due = None;
        let query = self.input.value().trim().to_string();
        self.seq += 1;
        if query.is_empty() {
            self.searching = false;
            self.query.clear();
            self.hits.clear();
            self.total = 0;
            self.note = None;
            self.error = None;
            self.detail = None;
            return None;
        }
        self.searching = true;
        Some((self.seq, query, search::DEFAULT_LIMIT))
    }

    /// The selection reached the last hit loaded while more match: the
    /// same search again with room for the next page of hits.
    fn wants_more(&mut self) -> Option<(u64, String, usize)> {
        if self.searching || !self.list.at_end(self.hits.len()) || self.total <= self.hits.len() {
            return None;
        }
        self.searching = true;
        Some((
            self.seq,
            self.query.clone(),
            self.hits.len() + search::DEFAULT_LIMIT,
        ))
    }

    /// The answer to search `seq`; returns the hit whose details to load.
    /// A stale answer (the user typed since) is dropped.
    pub(crate) fn set_results(
        &mut self,
        seq: u64,
        query: String,
        result: Result<Results, String>,
    ) -> Option<PageId> {
        if seq != self.seq {
            return None;
        }
        self.searching = false;
        // More of the same search keeps the place in the list.
        let more = query == self.query && !self.hits.is_empty();
        if !more {
            self.list.reset();
            self.detail = None;
        }
        self.query = query;
        match result {
            Ok(r) => {
                self.hits = r.hits;
                self.total = r.total;
                self.note = r.note;
                self.error = None;
                if more {
                    return None;
                }
            }
            Err(e) => {
                self.hits.clear();
                self.total = 0;
                self.note = None;
                self.error = Some(e);
            }
        }
        self.selected_page()
    }

    /// Details arrive; kept only if that hit is still the selected one.
    pub(crate) fn set_detail(&mut self, detail: Detail) {
        if self.selected_page() == Some(detail.page) {
            self.detail = Some(detail);
        }
    }

    /// The query the current details should highlight.
    pub(crate) fn results_query(&self) -> &str {
        &self.query
    }

    fn select(&mut self, delta: isize) -> Action {
        if self.list.step(delta, self.hits.len()) {
            self.selection_changed()
        } else {
            Action::Done
        }
    }

    fn selection_changed(&mut self) -> Action {
        self.detail = None;
        self.selected_page().map_or(Action::Done, Action::Detail)
    }

    fn areas(&self, area: Rect) -> (Rect, Rect, Rect) {
        let detail_h = if self.hits.is_empty() { 0 } else { DETAIL_ROWS };
        let [input, list, detail] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Fill(1),
            Constraint::Length(detail_h),
        ])
        .areas(area);
        (input, list, detail)
    }

    fn status(&self) -> Line<'_> {
        if let Some(e) = &self.error {
            return Line::styled(e.as_str(), theme::error());
        }
        if self.searching || self.due.is_some() {
            return Line::styled("searching…", theme::dim());
        }
        if let Some(n) = &self.note {
            return Line::styled(n.as_str(), theme::dim());
        }
        if self.query.is_empty() {
            return Line::styled("type words; \"a phrase\"; -exclude", theme::dim());
        }
        let shown = self.hits.len();
        Line::styled(
            match self.total {
                1 => "1 result".to_string(),
                n if n > shown => format!("{n} results ({shown} loaded: scroll for more)"),
                n => format!("{n} results"),
            },
            theme::dim(),
        )
    }

    fn render_detail(&self, hit: &Hit, area: Rect, buf: &mut Buffer) {
        let mut lines = vec![Line::from(vec![
            Span::styled("modified ", theme::label()),
            Span::styled(
                format::date_time(hit.last_modified, self.tz_offset),
                theme::value(),
            ),
            Span::styled("  size ", theme::label()),
            Span::styled(format::bytes(hit.size), theme::value()),
            Span::raw("  "),
            Span::styled(hit.url.as_str(), theme::url()),
        ])];
        match &self.detail {
            Some(d) => {
                let mut kw = vec![Span::styled("keywords ", theme::label())];
                for (i, (word, n)) in d.keywords.iter().enumerate() {
                    if i > 0 {
                        kw.push(Span::styled(" · ", theme::dim()));
                    }
                    kw.push(Span::styled(word.as_str(), theme::value()));
                    kw.push(Span::styled(format!(" {n}"), theme::dim()));
                }
                lines.push(Line::from(kw));
                match &d.snippet {
                    Some(s) => lines.push(highlight(s, &self.query)),
                    None => lines.push(Line::styled("(no text stored)", theme::dim())),
                }
            }
            None => lines.push(Line::styled("loading…", theme::dim())),
        }
        let rule = Block::new()
            .borders(Borders::TOP)
            .border_style(theme::dim())
            .title(Span::styled(
                format!(
                    " result {} of {} ",
                    self.list.selected() + 1,
                    self.hits.len()
                ),
                theme::label(),
            ));
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(rule)
            .render(area, buf);
    }
}

fn input_box(row: Rect) -> Rect {
    Rect {
        width: (row.width / 2).min(50),
        ..row
    }
}

/// The snippet with the query's words in bold: a word is marked when it
/// starts with a query word (so `harbors` lights up for `harbor`).
fn highlight<'a>(snippet: &'a str, query: &str) -> Line<'a> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2)
        .map(str::to_lowercase)
        .collect();
    let mark = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    let mut spans = Vec::new();
    for (i, token) in snippet.split(' ').enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        let bare = token
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if !bare.is_empty() && words.iter().any(|w| bare.starts_with(w.as_str())) {
            spans.push(Span::styled(token, mark));
        } else {
            spans.push(Span::raw(token));
        }
    }
    Line::from(spans)
}

const SELECT: Binding<Verb> = Binding {
    name: "↑↓",
    keys: &[
        (code(KeyCode::Up), Verb::Move(-1)),
        (code(KeyCode::Down), Verb::Move(1)),
        (code(KeyCode::PageUp), Verb::Page(-1)),
        (code(KeyCode::PageDown), Verb::Page(1)),
    ],
    footer: "select",
    when: &[Mode::Browse, Mode::Edit],
};
/// Letters are text in the box: vi's keys only while browsing.
const SELECT_VI: Binding<Verb> = Binding {
    name: "j k",
    keys: &[(ch('k'), Verb::Move(-1)), (ch('j'), Verb::Move(1))],
    footer: "",
    when: BROWSE,
};
const OPEN_TYPING: Binding<Verb> = Binding {
    footer: "open",
    when: EDIT,
    ..OPEN
};
const EDIT_QUERY: Binding<Verb> = Binding {
    name: "/",
    keys: &[
        (ch('/'), Verb::Global(Global::Search)),
        (ch('i'), Verb::Edit),
        (ch('e'), Verb::Edit),
    ],
    footer: "edit query",
    when: BROWSE,
};
/// Not a key: what typing does, for the footer.
const TYPE: Binding<Verb> = Binding {
    name: "type",
    keys: &[],
    footer: "search",
    when: EDIT,
};
const LEAVE: Binding<Verb> = Binding {
    name: "Esc",
    keys: &[(code(KeyCode::Esc), Verb::Leave)],
    footer: "leave",
    when: EDIT,
};
const KEYS: Table<Verb> = Table {
    rows: &[
        &TYPE,
        &EDIT_QUERY,
        &SELECT,
        &SELECT_VI,
        &OPEN,
        &OPEN_TYPING,
        &LEAVE,
    ],
    help: &[HelpRow {
        rows: &[&EDIT_QUERY, &SELECT, &OPEN],
        sep: " ",
        words: "edit · select · open",
    }],
};

impl Pane for LookupPane {
    fn new(setup: &Setup) -> Self {
        LookupPane {
            input: Input::default(),
            editing: false,
            seq: 0,
            due: None,
            searching: false,
            query: String::new(),
            hits: Vec::new(),
            total: 0,
            note: None,
            error: None,
            list: ListView::default(),
            detail: None,
            tz_offset: setup.tz_offset,
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

    fn run(&mut self, verb: Verb, _ctx: &KeyCtx) -> Action {
        match verb {
            Verb::Move(d) => self.select(d),
            Verb::Page(d) => self.select(d * 10),
            Verb::Open => {
                self.editing = false;
                self.selected_page().map_or(Action::Done, Action::Open)
            }
            Verb::Edit => {
                self.editing = true;
                Action::Done
            }
            Verb::Leave => {
                self.editing = false;
                Action::Done
            }
            _ => Action::Unhandled,
        }
    }

    /// While editing, any other key is text for the query.
    fn other(&mut self, key: &KeyEvent, ctx: &KeyCtx) -> Action {
        if !self.editing {
            return Action::Unhandled;
        }
        if self.input.handle_event(&Event::Key(*key)).is_some() {
            self.due = Some(ctx.now + DEBOUNCE);
        }
        Action::Done
    }

    /// A click in the inner `area`: the box edits, a row selects its hit.
    fn click(&mut self, area: Rect, at: Position) -> Action {
        let (input, list, _) = self.areas(area);
        if at.y == input.y {
            self.editing = true;
            return Action::Done;
        }
        if self.list.click(list, at.y, self.hits.len()) {
            self.selection_changed()
        } else {
            Action::Done
        }
    }

    fn cursor(&self, area: Rect) -> Option<Position> {
        let (input, _, _) = self.areas(area);
        self.editing
            .then(|| input_cursor(&self.input, LABEL, input_box(input)))
    }

    fn stop_editing(&mut self) {
        self.editing = false;
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        let (input, list, detail) = self.areas(area);
        let boxed = input_box(input);
        render_input(&self.input, LABEL, self.editing, false, boxed, buf);
        self.status().render(
            Rect {
                x: boxed.right() + 1,
                width: input.width.saturating_sub(boxed.width + 1),
                ..input
            },
            buf,
        );
        if self.hits.is_empty() {
            if !self.query.is_empty() && self.error.is_none() && self.note.is_none() {
                Line::styled("no page matches", theme::dim()).render(list, buf);
            }
            return;
        }
        self.list.render(self.hits.len(), true, list, buf, |i| {
            let h = &self.hits[i];
            Line::from(vec![
                Span::styled(format!("{:>3}. ", i + 1), theme::dim()),
                Span::styled(
                    format!("{}  ", crate::search::score_text(h.score)),
                    theme::label(),
                ),
                Span::styled(h.title.as_deref().unwrap_or(UNTITLED), theme::value()),
                Span::raw("  "),
                Span::styled(h.url.as_str(), theme::url()),
            ])
        });
        if let Some(hit) = self.hits.get(self.list.selected()) {
            self.render_detail(hit, detail, buf);
        }
    }
}

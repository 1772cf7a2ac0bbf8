//! The findings pane: how many findings of each kind the store holds (the
//! counts of `report summary`, read again by a background job at most every
//! [`RECOUNT_EVERY`], and never more than a twentieth of the time, while
//! something changed and the pane is shown), a
//! kind's rows (URL and what is wrong), a row opened in the link graph, and
//! a kind exported as CSV.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::list::ListView;
use super::{Action, KeyCtx, Pane, Setup};
use crate::tui::fields::{fit, Field};
use crate::tui::findings_jobs::{Counts, ExternalChecked, FindingRow, Listed};
use crate::tui::keymap::{self, ch, code, Binding, HelpRow, Mode, Table, Verb, BROWSE};
use crate::tui::{format, theme};

/// The least time between two counts: the kept counts are a few records,
/// but while a crawl writes they are stale and `report summary` reads
/// every table (0.34 s on a 100,000-page store).
pub(crate) const RECOUNT_EVERY: Duration = Duration::from_secs(2);

/// A count that took t waits at least this many t before the next, so
/// recounting a large store while a crawl writes takes at most a
/// twentieth of the time (one core's 5%).
const IDLE_PER_COUNT: u32 = 19;

/// What the pane says instead of a count of broken external links when no
/// link was ever checked.
const NOT_CHECKED: &str = "not checked (crawl with --check-external)";
/// What it says when the crawl checks external links but none was linked.
const NONE_FOUND: &str = "no external link found (the crawl checks them)";

/// One kind's rows, while listed.
struct Rows {
    kind: &'static str,
    seq: u64,
    /// None while the job reads them.
    listed: Option<Result<Listed, String>>,
    list: ListView,
}

pub(crate) struct FindingsPane {
    counts: Option<Result<Counts, String>>,
    /// The selection among the kinds.
    list: ListView,
    rows: Option<Rows>,
    seq: u64,
    /// The store changed since the last count began.
    stale: bool,
    counting: bool,
    /// When the count under way began.
    count_began: Instant,
    next_count: Instant,
}

impl FindingsPane {
    /// The store may hold new findings (a crawl wrote, or ended).
    pub(crate) fn changed(&mut self) {
        self.stale = true;
    }

    /// The crawl ended: its last count comes as soon as two seconds
    /// allow, however long the last took (the counts are kept now).
    pub(crate) fn crawl_ended(&mut self) {
        self.stale = true;
        self.next_count = self.next_count.min(self.count_began + RECOUNT_EVERY);
    }

    /// Whether to count now: something changed, the pane is `shown`, no
    /// count is running and the last began long enough ago.
    pub(crate) fn poll(&mut self, now: Instant, shown: bool) -> bool {
        if !(shown && self.stale && !self.counting && now >= self.next_count) {
            return false;
        }
        self.stale = false;
        self.counting = true;
        self.count_began = now;
        self.next_count = now + RECOUNT_EVERY;
        true
    }

    /// The counts, arrived at `now`.
    pub(crate) fn set_counts(&mut self, counts: Result<Counts, String>, now: Instant) {
        self.counting = false;
        let took = now.saturating_duration_since(self.count_began);
        self.next_count = self.next_count.max(now + took * IDLE_PER_COUNT);
        if let Ok(c) = &counts {
            self.list.clamp(c.kinds.len());
        }
        self.counts = Some(counts);
    }

    /// A kind's rows, if they are still the ones asked for last.
    pub(crate) fn set_rows(&mut self, seq: u64, listed: Result<Listed, String>) {
        if let Some(rows) = self.rows.as_mut().filter(|r| r.seq == seq) {
            rows.listed = Some(listed);
            rows.list.reset();
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
            None => self.kinds().get(self.list.selected()).map(|(k, _)| *k),
        }
    }

    fn listed(&self) -> &[FindingRow] {
        match self.rows.as_ref().and_then(|r| r.listed.as_ref()) {
            Some(Ok(l)) => &l.rows,
            _ => &[],
        }
    }

    /// The list shown (a kind's rows, or the kinds) and its length.
    fn shown(&mut self) -> (&mut ListView, usize) {
        let len = match &self.rows {
            Some(_) => self.listed().len(),
            None => self.kinds().len(),
        };
        match &mut self.rows {
            Some(r) => (&mut r.list, len),
            None => (&mut self.list, len),
        }
    }

    fn move_by(&mut self, delta: isize) -> Action {
        let (list, len) = self.shown();
        list.step(delta, len);
        Action::Done
    }

    fn open(&self) -> Action {
        let Some(r) = &self.rows else {
            return Action::Done;
        };
        self.listed()
            .get(r.list.selected())
            .map_or(Action::Done, |row| Action::Open(row.page))
    }

    fn list_kind(&mut self) -> Action {
        let Some(kind) = self.selected_kind() else {
            return Action::Done;
        };
        self.seq += 1;
        self.rows = Some(Rows {
            kind,
            seq: self.seq,
            listed: None,
            list: ListView::default(),
        });
        Action::ListFindings {
            seq: self.seq,
            kind,
        }
    }
}

const SELECT: Binding<Verb> = Binding {
    when: &[Mode::Browse, Mode::Rows],
    ..keymap::SELECT
};
const LIST: Binding<Verb> = Binding {
    name: "Enter",
    keys: &[(code(KeyCode::Enter), Verb::List)],
    footer: "list",
    when: BROWSE,
};
const OPEN: Binding<Verb> = Binding {
    when: &[Mode::Rows],
    ..keymap::OPEN
};
const BACK: Binding<Verb> = Binding {
    name: "Esc",
    keys: &[
        (code(KeyCode::Esc), Verb::Back),
        (code(KeyCode::Backspace), Verb::Back),
    ],
    footer: "back",
    when: &[Mode::Rows],
};
const EXPORT: Binding<Verb> = Binding {
    name: "x",
    keys: &[(ch('x'), Verb::Export)],
    footer: "export CSV",
    when: &[Mode::Browse, Mode::Rows],
};
const KEYS: Table<Verb> = Table {
    rows: &[&SELECT, &LIST, &OPEN, &BACK, &EXPORT],
    help: &[
        HelpRow {
            rows: &[&SELECT, &LIST, &OPEN],
            sep: " ",
            words: "list · open in graph",
        },
        HelpRow {
            rows: &[&EXPORT, &BACK],
            sep: "  ",
            words: "export CSV · back",
        },
    ],
};

impl Pane for FindingsPane {
    fn new(setup: &Setup) -> Self {
        FindingsPane {
            counts: None,
            list: ListView::default(),
            rows: None,
            seq: 0,
            // Whatever the store already holds is counted once shown.
            stale: true,
            counting: false,
            count_began: setup.now,
            next_count: setup.now,
        }
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    fn mode(&self) -> Mode {
        match self.rows {
            Some(_) => Mode::Rows,
            None => Mode::Browse,
        }
    }

    fn run(&mut self, verb: Verb, ctx: &KeyCtx) -> Action {
        let page = ctx.height.saturating_sub(2).max(1) as isize;
        match verb {
            Verb::Move(d) => self.move_by(d),
            Verb::Page(d) => self.move_by(d * page),
            Verb::List => self.list_kind(),
            Verb::Open => self.open(),
            Verb::Back => {
                self.rows = None;
                Action::Done
            }
            Verb::Export => self
                .selected_kind()
                .map_or(Action::Done, Action::ExportFindings),
            _ => Action::Unhandled,
        }
    }

    fn caption(&self) -> Option<&str> {
        match &self.counts {
            Some(Ok(c)) => c.as_of.as_deref(),
            _ => None,
        }
    }

    fn click(&mut self, area: Rect, at: Position) -> Action {
        // The rows have a heading line; the kinds have none.
        let top = u16::from(self.rows.is_some()).min(area.height);
        let rows = Rect {
            y: area.y + top,
            height: area.height - top,
            ..area
        };
        let (list, len) = self.shown();
        list.click(rows, at.y, len);
        Action::Done
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        match &self.rows {
            Some(rows) => FindingsPane::render_rows(rows, area, buf),
            None => self.render_kinds(area, buf),
        }
        // A count under way, in the corner, over what it will replace.
        if self.counting && self.counts.is_some() && self.rows.is_none() {
            Line::styled("counting…", theme::dim())
                .alignment(ratatui::layout::Alignment::Right)
                .render(area, buf);
        }
    }
}

impl FindingsPane {
    /// A line a kind, no heading: at 80×24 every kind fits. The counts
    /// line up after the longest name, and are never cut: one too wide
    /// for the room left is shortened (`22k`).
    fn render_kinds(&self, area: Rect, buf: &mut Buffer) {
        let counts = match &self.counts {
            None => return Line::styled("counting…", theme::dim()).render(area, buf),
            Some(Err(e)) => return Line::styled(e.as_str(), theme::error()).render(area, buf),
            Some(Ok(c)) => c,
        };
        let width = area.width as usize;
        let name_w = counts.kinds.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        let room = width.saturating_sub(name_w + 1);
        self.list.render(counts.kinds.len(), true, area, buf, |i| {
            let (kind, n) = counts.kinds[i];
            let unchecked = match counts.external {
                _ if kind != "external" => None,
                ExternalChecked::Yes => None,
                ExternalChecked::NoneFound => Some(NONE_FOUND),
                ExternalChecked::No => Some(NOT_CHECKED),
            };
            let (count, style) = if let Some(why) = unchecked {
                (format::ellipsize(&format!("— {why}"), room), theme::dim())
            } else if n == 0 {
                ("0".to_string(), theme::ok())
            } else {
                (whole_count(n as u64, room), theme::error())
            };
            Line::from(vec![
                Span::styled(format!("{kind:<name_w$} "), theme::label()),
                Span::styled(count, style),
            ])
        });
    }

    fn render_rows(rows: &Rows, area: Rect, buf: &mut Buffer) {
        let head = |text: String| Line::styled(text, theme::heading());
        let listed = match &rows.listed {
            None => return head(format!("{}: reading…", rows.kind)).render(area, buf),
            Some(Err(e)) => {
                let lines = vec![
                    head(rows.kind.to_string()),
                    Line::styled(format!("  {e}"), theme::error()),
                ];
                return Paragraph::new(lines).render(area, buf);
            }
            Some(Ok(l)) => l,
        };
        let (rows_n, total) = (listed.rows.len() as u64, listed.total as u64);
        let shown = if rows_n < total {
            Field::new(
                "",
                format!("{} of {}", format::count(rows_n), format::count(total)),
                format!("{} of {}", format::compact(rows_n), format::compact(total)),
            )
        } else {
            Field::new("", format::count(total), format::compact(total))
        };
        let fields = [shown, Field::new("", "(Esc: back)".into(), "(Esc)".into())];
        let lead = vec![Span::styled(format!("{}: ", listed.kind), theme::heading())];
        let mut lines = vec![Line::from(fit(lead, &fields, area.width))];
        if listed.rows.is_empty() {
            lines.push(Line::styled("none", theme::ok()));
        }
        Paragraph::new(lines).render(area, buf);
        let width = area.width as usize;
        let longest = listed
            .rows
            .iter()
            .map(|r| format::bare_url(&r.url).chars().count());
        let url_w = longest.max().unwrap_or(0).min(width / 2);
        let list = Rect {
            y: area.y + 1.min(area.height),
            height: area.height.saturating_sub(1),
            ..area
        };
        rows.list.render(listed.rows.len(), true, list, buf, |i| {
            let row = &listed.rows[i];
            let url = format::squeeze(format::bare_url(&row.url), url_w);
            let issue_w = width.saturating_sub(url_w + 2);
            Line::from(vec![
                Span::styled(format!("{url:<url_w$}  "), theme::url()),
                Span::styled(format::ellipsize(&row.issue, issue_w), theme::value()),
            ])
        });
    }
}

/// `n` in full when it fits in `room` columns, else shortened: a count is
/// never cut.
fn whole_count(n: u64, room: usize) -> String {
    let full = format::count(n);
    if full.chars().count() <= room {
        full
    } else {
        format::compact(n)
    }
}

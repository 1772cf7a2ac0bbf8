//! The crawl queue: what is queued, claimed and in flight (the status
//! bar's figures, from the same snapshot), the requests on the wire (from
//! `Started` until `Answered`, never the wait for a politeness slot) with
//! their running time, and the next URLs of the frontier as the last store
//! snapshot saw them, with depth and crawl point.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::list::ListView;
use super::status::work_fields;
use super::{Action, KeyCtx, Pane, Setup};
use crate::crawl::{CrawlEvent, FetchedPage, WorkAtHand};
use crate::store::{PageId, PointId};
use crate::tui::fields::fit;
use crate::tui::keymap::{HelpRow, Table, Verb, OPEN, SELECT};
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
    work: WorkAtHand,
    in_flight: Vec<InFlight>,
    list: ListView,
    now: Instant,
}

impl QueuePane {
    pub(crate) fn set_now(&mut self, now: Instant) {
        self.now = now;
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub(crate) fn set_frontier(&mut self, rows: Vec<QueueRow>) {
        self.frontier = rows;
        self.list.clamp(self.frontier.len());
    }

    /// The status bar's queued, claimed and in flight.
    pub(crate) fn set_work(&mut self, work: WorkAtHand) {
        self.work = work;
    }

    /// The engine ended: nothing is in flight any more.
    pub(crate) fn clear_in_flight(&mut self) {
        self.in_flight.clear();
    }

    pub(crate) fn on_event(&mut self, ev: &CrawlEvent) {
        match ev {
            // Each attempt is its own request: its age is that fetch's.
            CrawlEvent::Started { page, url } => {
                self.in_flight.retain(|f| f.page != *page);
                self.in_flight.push(InFlight {
                    page: *page,
                    url: url.clone(),
                    since: self.now,
                });
            }
            // The outcome comes after the answer; it ends the row too, so
            // nothing lingers if an answer was missed.
            CrawlEvent::Answered { page }
            | CrawlEvent::Fetched(FetchedPage { page, .. })
            | CrawlEvent::NotModified { page, .. }
            | CrawlEvent::Unchanged { page, .. }
            | CrawlEvent::Failed { page, .. }
            | CrawlEvent::Skipped { page, .. }
            | CrawlEvent::Redirected { page, .. } => self.in_flight.retain(|f| f.page != *page),
            _ => {}
        }
    }

    /// The figures' row, and the rows of the in-flight part and of the
    /// frontier part of `area`.
    fn split(&self, area: Rect) -> (Rect, Rect, Rect) {
        let wanted = if self.in_flight.is_empty() {
            0
        } else {
            self.in_flight.len() as u16 + 1
        };
        let [figures, rest] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        let flight_h = wanted.min(rest.height / 2);
        let [a, b] =
            Layout::vertical([Constraint::Length(flight_h), Constraint::Fill(1)]).areas(rest);
        (figures, a, b)
    }

    /// The frontier's rows, under its heading.
    fn rows(&self, area: Rect) -> Rect {
        let (_, _, list) = self.split(area);
        Rect {
            y: list.y + 1.min(list.height),
            height: list.height.saturating_sub(1),
            ..list
        }
    }
}

const KEYS: Table<Verb> = Table {
    rows: &[&SELECT, &OPEN],
    help: &[HelpRow {
        rows: &[&SELECT, &OPEN],
        sep: " ",
        words: "select · open in graph",
    }],
};

impl Pane for QueuePane {
    fn new(setup: &Setup) -> Self {
        QueuePane {
            frontier: Vec::new(),
            work: WorkAtHand::default(),
            in_flight: Vec::new(),
            list: ListView::default(),
            now: setup.now,
        }
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    fn run(&mut self, verb: Verb, _ctx: &KeyCtx) -> Action {
        let len = self.frontier.len();
        match verb {
            Verb::Move(d) => self.list.step(d, len),
            Verb::Page(d) => self.list.step(d * 10, len),
            Verb::Open => {
                return self
                    .frontier
                    .get(self.list.selected())
                    .map_or(Action::Done, |row| Action::Open(row.page))
            }
            _ => return Action::Unhandled,
        };
        Action::Done
    }

    fn click(&mut self, area: Rect, at: Position) -> Action {
        self.list.click(self.rows(area), at.y, self.frontier.len());
        Action::Done
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        let (figures, flight, list) = self.split(area);
        let fields = work_fields(self.work);
        Line::from(fit(Vec::new(), &fields, figures.width)).render(figures, buf);
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
            format!("Next in frontier ({})", format::count(self.work.queued)),
            theme::heading(),
        )];
        if self.frontier.is_empty() {
            lines.push(Line::styled("  (empty)", theme::dim()));
        }
        Paragraph::new(lines).render(list, buf);
        let rows = self.rows(area);
        self.list.render(self.frontier.len(), true, rows, buf, |i| {
            let row = &self.frontier[i];
            let prefix = format!("d{:<2} #{:<2} ", row.depth, row.point);
            let url_w = (rows.width as usize).saturating_sub(prefix.chars().count());
            Line::from(vec![
                Span::styled(prefix, theme::dim()),
                Span::styled(
                    format::squeeze(format::bare_url(&row.url), url_w),
                    theme::url(),
                ),
            ])
        });
    }
}

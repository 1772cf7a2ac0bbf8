//! The status bar: whether a crawl runs, its counters, its rate with a
//! sparkline, the queue, the store's size, the elapsed time and the origins
//! paused at their own request (429/503 Retry-After), and the busiest
//! origin's figures (requests, failures, throttles, p50/p90). Counters
//! follow the page events between the engine's periodic stats, which then
//! overwrite them (they are the engine's own count). What waits and what
//! is under way ([`WorkAtHand`]: queued, claimed, in flight) comes from
//! one snapshot: the engine's stats while a crawl runs, with the requests
//! on the wire as the Queue pane lists them; the store's otherwise. Each
//! figure sits under a [`Label`] and rows fit the width without cutting a
//! number.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Sparkline, Widget};

use super::{Action, KeyCtx, Pane, Setup};
use crate::crawl::{CrawlEvent, CrawlStats, SkipCounts, Summary, WorkAtHand};
use crate::store::{OriginFigures, SkipReason, StateCounts};
use crate::tui::fields::{fit, Field};
use crate::tui::format;
use crate::tui::keymap::{ch, Binding, Global, HelpRow, Table, Verb, BROWSE};
use crate::tui::labels::{Label, CLASSES, RUN, SKIP_REASONS, STORE};
use crate::tui::theme;

/// Samples kept for the sparkline (one a second at most).
const RATE_SAMPLES: usize = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunState {
    /// No crawl has run in this session.
    Idle,
    Running,
    Paused,
    /// Stop was asked; in-flight fetches are finishing.
    Stopping,
    /// Stopped by the user: what was queued stays queued.
    Stopped,
    /// Nothing left to crawl.
    Finished,
}

impl RunState {
    fn label(self) -> (&'static str, Color) {
        match self {
            RunState::Idle => ("idle", Color::Gray),
            RunState::Running => ("running", Color::Green),
            RunState::Paused => ("paused", Color::Yellow),
            RunState::Stopping => ("stopping", Color::Yellow),
            RunState::Stopped => ("stopped", Color::Yellow),
            RunState::Finished => ("finished", Color::Cyan),
        }
    }
}

pub(crate) struct StatusPane {
    run: RunState,
    stats: CrawlStats,
    /// The store's own counts, whatever this session did.
    totals: StateCounts,
    /// Pages per second, one sample per stats interval of at least a second.
    rates: VecDeque<f64>,
    last_sample: (Duration, u64),
    summary: Option<Summary>,
    /// Origins that asked for a pause, and when it ends.
    paused_origins: BTreeMap<String, Instant>,
    /// The store's per-origin figures, read off the render path.
    origins: Vec<(String, OriginFigures)>,
    /// This run's answers by status class.
    classes: Classes,
    /// The second row shows `classes` instead (`b` toggles).
    breakdown: bool,
    /// Requests on the wire as their events tell, while a crawl runs.
    on_wire: u64,
}

/// Answers by status class; `no_answer` are failures without a response
/// (refused, timeout, redirect loops...).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Classes {
    ok: u64,
    redirect: u64,
    client: u64,
    server: u64,
    no_answer: u64,
}

impl Classes {
    fn count(&mut self, status: u16) {
        *match status {
            200..=299 => &mut self.ok,
            300..=399 => &mut self.redirect,
            400..=499 => &mut self.client,
            _ => &mut self.server,
        } += 1;
    }
}

impl Default for StatusPane {
    fn default() -> Self {
        StatusPane {
            run: RunState::Idle,
            stats: CrawlStats::default(),
            totals: StateCounts::default(),
            rates: VecDeque::with_capacity(RATE_SAMPLES),
            last_sample: (Duration::ZERO, 0),
            summary: None,
            paused_origins: BTreeMap::new(),
            origins: Vec::new(),
            classes: Classes::default(),
            breakdown: false,
            on_wire: 0,
        }
    }
}

impl StatusPane {
    pub(crate) fn run_state(&self) -> RunState {
        self.run
    }

    pub(crate) fn set_run_state(&mut self, run: RunState) {
        self.run = run;
    }

    /// A crawl engine is attached (running, paused or stopping): the work
    /// at hand is its.
    fn attached(&self) -> bool {
        matches!(
            self.run,
            RunState::Running | RunState::Paused | RunState::Stopping
        )
    }

    /// A new run starts: counters restart at zero, as the engine's do.
    pub(crate) fn started(&mut self) {
        let store_bytes = self.stats.store_bytes;
        let queued = self.stats.queued;
        let totals = self.totals;
        let origins = std::mem::take(&mut self.origins);
        let breakdown = self.breakdown;
        *self = StatusPane::default();
        self.origins = origins;
        self.breakdown = breakdown;
        self.stats.store_bytes = store_bytes;
        self.stats.queued = queued;
        self.totals = totals;
        self.run = RunState::Running;
    }

    /// Shows this run's answers by status class in place of the second row,
    /// or the usual row again.
    pub(crate) fn toggle_breakdown(&mut self) {
        self.breakdown = !self.breakdown;
    }

    /// The store's own numbers, read off the render path; its work at
    /// hand only while no engine is attached (the engine's is newer).
    pub(crate) fn set_store(&mut self, bytes: u64, work: WorkAtHand, totals: StateCounts) {
        self.stats.store_bytes = bytes;
        if !self.attached() {
            self.stats.queued = work.queued;
            self.stats.claimed = work.claimed;
            self.stats.in_flight = work.in_flight;
        }
        self.totals = totals;
    }

    /// The requests on the wire as the Queue pane lists them.
    pub(crate) fn set_on_wire(&mut self, n: u64) {
        self.on_wire = n;
    }

    /// What is queued, claimed and in flight, from one snapshot. While a
    /// crawl runs, a request is counted in flight from its start event to
    /// its answer's, as the Queue pane lists it, and claimed otherwise
    /// until a stats tick counts it settled: the three add up to the
    /// tick's.
    pub(crate) fn work(&self) -> WorkAtHand {
        let s = &self.stats;
        if !self.attached() {
            return WorkAtHand {
                queued: s.queued,
                claimed: s.claimed,
                in_flight: s.in_flight,
            };
        }
        WorkAtHand {
            queued: s.queued,
            claimed: (s.claimed + s.in_flight).saturating_sub(self.on_wire),
            in_flight: self.on_wire,
        }
    }

    pub(crate) fn set_origins(&mut self, origins: Vec<(String, OriginFigures)>) {
        self.origins = origins;
    }

    pub(crate) fn on_event(&mut self, ev: &CrawlEvent) {
        match ev {
            // Counted as the engine counts (a 4xx or 5xx is an error), so the
            // numbers between two stats ticks agree with the log.
            CrawlEvent::Fetched(f) if (200..300).contains(&f.status) => {
                self.classes.count(f.status);
                self.stats.fetched += 1
            }
            CrawlEvent::Fetched(f) => {
                self.classes.count(f.status);
                self.stats.failed += 1
            }
            CrawlEvent::Failed { .. } => {
                self.classes.no_answer += 1;
                self.stats.failed += 1
            }
            CrawlEvent::NotModified { .. } => {
                self.classes.count(304);
                self.stats.not_modified += 1
            }
            CrawlEvent::Unchanged { .. } => {
                self.classes.count(200);
                self.stats.unchanged += 1
            }
            CrawlEvent::Redirected { status, .. } => self.classes.count(*status),
            CrawlEvent::OriginThrottled { origin, wait, .. } => {
                self.stats.throttled += 1;
                self.paused_origins
                    .insert(origin.clone(), Instant::now() + *wait);
            }
            CrawlEvent::Skipped { reason, .. } => {
                self.stats.skipped += 1;
                let by = &mut self.stats.skipped_by;
                *match reason {
                    SkipReason::Robots => &mut by.robots,
                    SkipReason::OutOfScope => &mut by.out_of_scope,
                    SkipReason::Excluded => &mut by.excluded,
                    SkipReason::TooDeep => &mut by.too_deep,
                    SkipReason::Nofollow => &mut by.nofollow,
                } += 1;
            }
            CrawlEvent::Stats(s) => {
                self.stats = *s;
                let (at, fetched) = self.last_sample;
                let dt = s.elapsed.saturating_sub(at);
                if dt >= Duration::from_secs(1) {
                    let rate = s.fetched.saturating_sub(fetched) as f64 / dt.as_secs_f64();
                    if self.rates.len() == RATE_SAMPLES {
                        self.rates.pop_front();
                    }
                    self.rates.push_back(rate);
                    self.last_sample = (s.elapsed, s.fetched);
                }
            }
            CrawlEvent::Paused => self.run = RunState::Paused,
            CrawlEvent::Resumed => self.run = RunState::Running,
            CrawlEvent::Finished(summary) => {
                self.run = if self.run == RunState::Stopping {
                    RunState::Stopped
                } else {
                    RunState::Finished
                };
                self.summary = Some(*summary);
                // The engine's own final count, reason by reason.
                let s = &mut self.stats;
                s.fetched = summary.fetched;
                s.failed = summary.failed;
                s.not_modified = summary.not_modified;
                s.unchanged = summary.unchanged;
                s.throttled = summary.throttled;
                s.rendered = summary.rendered;
                s.render_failed = summary.render_failed;
                s.skipped_by = SkipCounts {
                    robots: summary.skipped_robots,
                    out_of_scope: summary.out_of_scope,
                    excluded: summary.excluded,
                    too_deep: summary.too_deep,
                    nofollow: summary.nofollow,
                };
                s.skipped = s.skipped_by.total();
                // Its claims went back to the queue, which the next store
                // snapshot counts.
                s.claimed = 0;
                s.in_flight = 0;
                s.elapsed = Duration::from_secs_f64(summary.elapsed_s.max(0.0));
            }
            _ => {}
        }
    }

    fn rate(&self) -> String {
        let (rate, avg) = match (self.run, self.summary) {
            (RunState::Finished | RunState::Stopped, Some(s)) => (s.pages_per_s, " avg"),
            _ => (self.rates.back().copied().unwrap_or(0.0), ""),
        };
        if rate < 10.0 {
            format!("{rate:.1}/s{avg}")
        } else {
            format!("{rate:.0}/s{avg}")
        }
    }
}

impl StatusPane {
    /// "3 (paused: http://a:80 2s)": throttles waited out and the origins
    /// still paused, with the seconds left.
    fn throttled(&self, total: u64) -> String {
        let now = Instant::now();
        let paused: Vec<String> = self
            .paused_origins
            .iter()
            .filter(|(_, &until)| until > now)
            .map(|(origin, until)| format!("{origin} {}s", (*until - now).as_secs() + 1))
            .collect();
        if paused.is_empty() {
            format::count(total)
        } else {
            format!("{} (paused: {})", format::count(total), paused.join(" · "))
        }
    }
}

/// "127.0.0.1:8080 120 req · 3 failed · 1 throttled · p50 ≤25ms · p90
/// ≤100ms (+2 origins)": the origin with the most requests, zeros left out;
/// and its short form, "127.0.0.1:8080 120 req".
fn busiest(origins: &[(String, OriginFigures)]) -> Option<(String, String)> {
    let (origin, f) = origins.iter().max_by_key(|(_, f)| f.requests)?;
    let ms = |name: &str, v: Option<u32>| match v {
        Some(u32::MAX) => Some(format!("{name} >60s")),
        Some(v) => Some(format!("{name} ≤{v}ms")),
        None => None,
    };
    let mut parts = vec![format!("{} req", format::count(f.requests))];
    parts.extend((f.failed > 0).then(|| format!("{} failed", format::count(f.failed))));
    parts.extend((f.throttled > 0).then(|| format!("{} throttled", format::count(f.throttled))));
    parts.extend(ms("p50", f.p50_ms()));
    parts.extend(ms("p90", f.p90_ms()));
    let others = match origins.len() - 1 {
        0 => String::new(),
        n => format!(" (+{n} origins)"),
    };
    let host = format::bare_url(origin);
    Some((
        format!("{host} {}{others}", parts.join(" · ")),
        format!("{host} {} req", format::compact(f.requests)),
    ))
}

/// `queue N  claimed N  in flight N`, as the status bar and the Queue
/// pane show the work at hand.
pub(crate) fn work_fields(w: WorkAtHand) -> Vec<Field> {
    [
        ("queue", w.queued),
        ("claimed", w.claimed),
        ("in flight", w.in_flight),
    ]
    .into_iter()
    .map(|(label, n)| Field::new(label, format::count(n), format::compact(n)))
    .collect()
}

/// "24 (robots 1 · out of scope 23)": the total and its reasons.
fn skipped(total: u64, by: &SkipCounts) -> String {
    let reasons: Vec<String> = SKIP_REASONS
        .into_iter()
        .map(|r| (Label::Skip(r).text(), skip_count(by, r)))
        .filter(|&(_, n)| n > 0)
        .map(|(why, n)| format!("{why} {}", format::count(n)))
        .collect();
    if reasons.is_empty() {
        format::count(total)
    } else {
        format!("{} ({})", format::count(total), reasons.join(" · "))
    }
}

fn skip_count(by: &SkipCounts, reason: SkipReason) -> u64 {
    match reason {
        SkipReason::Robots => by.robots,
        SkipReason::OutOfScope => by.out_of_scope,
        SkipReason::Excluded => by.excluded,
        SkipReason::TooDeep => by.too_deep,
        SkipReason::Nofollow => by.nofollow,
    }
}

/// The status bar has no keys of its own: it names the app's crawl keys.
const KEYS: Table<Verb> = Table {
    rows: &[&PAUSE, &STOP, &CRAWL],
    help: &[HelpRow {
        rows: &[&PAUSE, &STOP, &CRAWL],
        sep: " ",
        words: "pause · stop · crawl",
    }],
};
const PAUSE: Binding<Verb> = Binding {
    name: "p",
    keys: &[(ch('p'), Verb::Global(Global::Pause))],
    footer: "pause/resume",
    when: BROWSE,
};
const STOP: Binding<Verb> = Binding {
    name: "s",
    keys: &[(ch('s'), Verb::Global(Global::Stop))],
    footer: "stop",
    when: BROWSE,
};
const CRAWL: Binding<Verb> = Binding {
    name: "c",
    keys: &[(ch('c'), Verb::Global(Global::Crawl))],
    footer: "crawl active points",
    when: BROWSE,
};

impl Pane for StatusPane {
    fn new(_setup: &Setup) -> Self {
        StatusPane::default()
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    fn run(&mut self, _verb: Verb, _ctx: &KeyCtx) -> Action {
        Action::Unhandled
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        let [first_row, second_row] =
            Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
        // The sparkline shares the shorter second line.
        let spark_w = (area.width / 5).clamp(8, 40);
        let [second_row, spark] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(spark_w)])
                .spacing(1)
                .areas(second_row);
        let (label, color) = self.run.label();
        let lead = vec![
            Span::styled(
                format!("● {label} "),
                Style::new().fg(color).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format::clock(self.stats.elapsed), theme::value()),
            Span::raw("  "),
        ];
        let run_fields = self.run_fields();
        let first = fit(lead, &run_fields, first_row.width);
        let (lead, second_fields) = if self.breakdown {
            let lead = vec![Span::styled("this run by class: ", theme::label())];
            (lead, self.class_fields())
        } else {
            (Vec::new(), self.store_fields())
        };
        let second = fit(lead, &second_fields, second_row.width);
        Line::from(first).render(first_row, buf);
        Line::from(second).render(second_row, buf);
        // Tenths, so that slow crawls still draw a shape.
        let data: Vec<u64> = self
            .rates
            .iter()
            .map(|r| (r * 10.0).round() as u64)
            .collect();
        let visible = &data[data.len().saturating_sub(spark.width as usize)..];
        Sparkline::default()
            .data(visible)
            .style(Style::new().fg(Color::Green))
            .render(spark, buf);
    }
}

impl StatusPane {
    /// The run's figure under `label`: from its events, then the engine's
    /// own count.
    pub(crate) fn run_figure(&self, label: Label) -> u64 {
        let (s, c) = (&self.stats, &self.classes);
        match label {
            Label::Fetched => s.fetched,
            Label::Errors => s.failed,
            Label::NotModified => s.not_modified,
            Label::Unchanged => s.unchanged,
            Label::Skipped => s.skipped,
            Label::Skip(reason) => skip_count(&s.skipped_by, reason),
            Label::Throttled => s.throttled,
            Label::Class(2) => c.ok,
            Label::Class(3) => c.redirect,
            Label::Class(4) => c.client,
            Label::Class(_) => c.server,
            Label::NoAnswer => c.no_answer,
            Label::Done => s.fetched + s.not_modified + s.unchanged,
        }
    }

    /// The store's figure under `label`, over all runs (None: a figure
    /// the store row does not show).
    pub(crate) fn store_figure(&self, label: Label) -> Option<u64> {
        let t = &self.totals;
        match label {
            Label::Done => Some(t.done),
            Label::Errors => Some(t.failed),
            Label::Skipped => Some(t.skipped),
            _ => None,
        }
    }

    /// The first row after the run's state and clock: this run's figures.
    fn run_fields(&self) -> Vec<Field> {
        let s = &self.stats;
        let mut row = Vec::with_capacity(RUN.len() + 1);
        for label in RUN {
            let n = self.run_figure(label);
            match label {
                Label::Unchanged | Label::Throttled if n == 0 => {}
                Label::Skipped => row.push(Field::new(
                    label.text(),
                    skipped(n, &s.skipped_by),
                    format::compact(n),
                )),
                Label::Throttled => row.push(Field::new(
                    label.text(),
                    self.throttled(n),
                    format::compact(n),
                )),
                _ => row.push(Field::count(label, n)),
            }
            // The rate follows what it is the rate of.
            if label == Label::Fetched {
                row.push(Field::new("", self.rate(), self.rate()));
            }
        }
        // Only a crawl that renders (`--render`) shows its browser's work.
        if s.rendered + s.render_failed > 0 {
            row.push(Field::new(
                "rendered",
                format!(
                    "{} (failed {})",
                    format::count(s.rendered),
                    format::count(s.render_failed)
                ),
                format!(
                    "{}/{}",
                    format::compact(s.rendered),
                    format::compact(s.render_failed)
                ),
            ));
        }
        row
    }

    /// This run's answers by status class (`b`).
    fn class_fields(&self) -> Vec<Field> {
        let mut row: Vec<Field> = CLASSES
            .into_iter()
            .map(|l| Field::count(l, self.run_figure(l)))
            .collect();
        row.push(Field::new("", "(b: back)".into(), "(b: back)".into()));
        row
    }

    /// The queue, the claims, what is on the wire and the store's totals,
    /// which count every run, not only this one: the label says so, since
    /// they differ from the first row's.
    fn store_fields(&self) -> Vec<Field> {
        let s = &self.stats;
        let mut row = work_fields(self.work());
        for label in STORE {
            let n = self.store_figure(label).unwrap_or_default();
            let mut f = Field::count(label, n);
            if label == Label::Done {
                f.label = "all runs: done";
            }
            row.push(f);
        }
        let bytes = format::bytes(s.store_bytes);
        row.push(Field::new("", bytes.clone(), bytes));
        if let Some((full, short)) = busiest(&self.origins) {
            row.push(Field::new("busiest origin", full, short));
        }
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Exchange;

    fn text(pane: &StatusPane) -> String {
        let area = Rect::new(0, 0, 240, 2);
        let mut buf = Buffer::empty(area);
        pane.draw(area, &mut buf);
        (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn throttled_origins_and_the_busiest_origins_figures_show() {
        let mut pane = StatusPane::default();
        assert!(!text(&pane).contains("throttled"), "{}", text(&pane));
        pane.on_event(&CrawlEvent::OriginThrottled {
            origin: "http://slow.test:80".into(),
            status: 429,
            wait: Duration::from_secs(30),
        });
        let shown = text(&pane);
        assert!(
            shown.contains("throttled 1 (paused: http://slow.test:80 30s)"),
            "{shown}"
        );
        let mut busy = OriginFigures::default();
        for _ in 0..3 {
            busy.record(Exchange::Ok, Some(20));
        }
        busy.record(Exchange::Throttled, Some(2));
        let mut quiet = OriginFigures::default();
        quiet.record(Exchange::Failed, None);
        pane.set_origins(vec![
            ("http://quiet.test".into(), quiet),
            ("http://busy.test".into(), busy),
        ]);
        let shown = text(&pane);
        assert!(
            shown.contains(
                "busiest origin busy.test 4 req · 1 throttled · p50 ≤25ms · p90 ≤25ms (+1 origins)"
            ),
            "{shown}"
        );
    }
}

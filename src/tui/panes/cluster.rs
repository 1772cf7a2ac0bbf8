//! The Cluster pane, shown when the console shares a frontier (`tui
//! --frontier`): the cluster as last read from the server, about once a
//! second (see `runtime`): every crawler (this console marked `*`), each
//! point's shared queue, the origins' next politeness slots and the merged
//! log's tail, newest last. Its `p` and `s` act on the whole cluster, as
//! they do everywhere in such a console; its footer says so.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{Action, KeyCtx, Pane, Setup};
use crate::crawl::shared::cluster::{self, View};
use crate::tui::format;
use crate::tui::keymap::{ch, Binding, Global, HelpRow, Table, Verb, BROWSE, UP_DOWN};
use crate::tui::theme;

/// The log's tail read is at most this long: lines past it are none.
pub(crate) const LOG_TAIL: usize = 200;
const MAX_LINES: usize = LOG_TAIL + 100;

pub(crate) struct ClusterPane {
    view: Option<Result<View, String>>,
    /// Unix ms when the view was read: heartbeats are aged from it.
    read_at: i64,
    /// First line shown.
    scroll: usize,
}

impl ClusterPane {
    pub(crate) fn set_view(&mut self, view: Result<View, String>, unix_ms: i64) {
        self.view = Some(view);
        self.read_at = unix_ms;
    }

    /// Whether the cluster was paused when last read.
    pub(crate) fn paused(&self) -> bool {
        matches!(&self.view, Some(Ok(v)) if v.paused)
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let v = match &self.view {
            None => return vec![Line::styled("reading the cluster…", theme::dim())],
            Some(Err(e)) => return vec![Line::styled(format!("cluster: {e}"), theme::error())],
            Some(Ok(v)) => v,
        };
        let mut out = vec![Line::styled(
            format!(
                "Crawlers ({}) · cluster {}",
                v.crawlers.len(),
                if v.paused { "paused" } else { "running" }
            ),
            theme::heading(),
        )];
        out.push(Line::styled(
            format!(
                "  {:<24} {:>8} {:>8} {:>9} {:>9}",
                "host", "pid", "pages/s", "in flight", "heartbeat"
            ),
            theme::label(),
        ));
        for c in &v.crawlers {
            let age = Duration::from_millis(u64::try_from(self.read_at - c.heartbeat).unwrap_or(0));
            let me = if cluster::is_me(c) { "* " } else { "  " };
            out.push(Line::from(format!(
                "{me}{:<24} {:>8} {:>8.1} {:>9} {:>9}",
                format::ellipsize(&c.host, 24),
                c.pid,
                c.rate,
                c.in_flight,
                format!("{} ago", format::short(age))
            )));
        }
        out.push(Line::styled("Shared queue", theme::heading()));
        out.push(Line::styled(
            format!("  {}", cluster::heading()),
            theme::label(),
        ));
        for p in &v.points {
            out.push(Line::from(format!("  {}", p.line())));
        }
        out.push(Line::styled("Politeness: next slot", theme::heading()));
        for s in v.slots.iter().take(10) {
            let due = if s.due_in_ms == 0 {
                "free".to_string()
            } else {
                format!("in {}", format::short(Duration::from_millis(s.due_in_ms)))
            };
            out.push(Line::from(format!("  {due:>10}  {}", s.origin)));
        }
        out.push(Line::styled("Merged log", theme::heading()));
        for e in &v.log {
            let status = e.status.map_or_else(|| "-".to_string(), |s| s.to_string());
            let style = e.status.map_or_else(theme::failed, theme::status);
            let head = format!("  {:<20} ", format::ellipsize(&e.crawler, 20));
            let tail = format!(" {:>5}ms ", e.ms);
            let room = width.saturating_sub(head.len() + tail.len() + 3);
            out.push(Line::from(vec![
                Span::styled(head, theme::dim()),
                Span::styled(format!("{status:>3}"), style),
                Span::styled(tail, theme::dim()),
                Span::styled(
                    format::squeeze(format::bare_url(&e.url), room),
                    theme::url(),
                ),
            ]));
        }
        out
    }
}

const SCROLL: Binding<Verb> = Binding {
    name: "↑↓",
    keys: UP_DOWN,
    footer: "scroll",
    when: BROWSE,
};

const PAUSE: Binding<Verb> = Binding {
    name: "p",
    keys: &[(ch('p'), Verb::Global(Global::Pause))],
    footer: "pause/resume the cluster",
    when: BROWSE,
};

const STOP: Binding<Verb> = Binding {
    name: "s",
    keys: &[(ch('s'), Verb::Global(Global::Stop))],
    footer: "stop the cluster",
    when: BROWSE,
};

const KEYS: Table<Verb> = Table {
    rows: &[&SCROLL, &PAUSE, &STOP],
    help: &[HelpRow {
        rows: &[&SCROLL, &PAUSE, &STOP],
        sep: " ",
        words: "scroll · pause/stop cluster",
    }],
};

impl Pane for ClusterPane {
    fn new(_setup: &Setup) -> Self {
        ClusterPane {
            view: None,
            read_at: 0,
            scroll: 0,
        }
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    fn run(&mut self, verb: Verb, _ctx: &KeyCtx) -> Action {
        match verb {
            // Past the end is drawn as the end; kept near it so that
            // scrolling back up answers at once.
            Verb::Move(d) => self.scroll = self.scroll.saturating_add_signed(d).min(MAX_LINES),
            _ => return Action::Unhandled,
        }
        Action::Done
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        let lines = self.lines(area.width as usize);
        // Scrolled past the end: the tail, where the log's newest are.
        let last = lines.len().saturating_sub(area.height as usize);
        let from = self.scroll.min(last);
        Paragraph::new(lines.into_iter().skip(from).collect::<Vec<_>>()).render(area, buf);
    }
}

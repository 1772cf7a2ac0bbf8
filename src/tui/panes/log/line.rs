//! One line of the log: what it says of a page outcome, a notice or a
//! URL as the store keeps it, which status-bar figures count it, what a
//! filter finds in it, and how it is drawn in a pane of a given width.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::crawl::{CrawlEvent, NoticeKind};
use crate::store::{PageId, PageRecord, SkipReason, UrlState};
use crate::tui::labels::Label;
use crate::tui::{format, theme};

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// `ms` is None for a line read from the store (it keeps no timing).
    Page {
        status: u16,
        bytes: u64,
        ms: Option<u64>,
    },
    NotModified,
    /// A 200 with the body already stored.
    Unchanged,
    Failed,
    Skipped(SkipReason),
    Redirected {
        status: u16,
    },
    /// About an origin or a sitemap, not a page.
    Notice(NoticeKind),
}

#[derive(Debug, Clone)]
pub(crate) struct LogLine {
    pub(super) seq: u64,
    /// When it happened; None for a URL the store never fetched.
    unix: Option<i64>,
    kind: Kind,
    /// None for a notice.
    pub(super) page: Option<PageId>,
    /// The page's URL, or the origin or sitemap a notice is about.
    url: String,
    /// The title, the failure's reason, where a redirect leads, or what a
    /// notice says.
    text: String,
    /// Lowercased status label, URL and text, for the filter.
    key: String,
}

impl LogLine {
    fn new(
        seq: u64,
        unix: Option<i64>,
        kind: Kind,
        page: Option<PageId>,
        url: String,
        text: String,
    ) -> Self {
        let mut line = LogLine {
            seq,
            unix,
            kind,
            page,
            url,
            text,
            key: String::new(),
        };
        // The reason phrase and the status bar's labels are words of the
        // line too: `not found`, `out of scope`, `errors` find it.
        let phrase = line.status_code().map(crate::crawl::status_text);
        let labels: Vec<&str> = Label::all()
            .filter(|&l| line.counted_by(l))
            .map(Label::text)
            .collect();
        line.key = format!(
            "{} {} {} {} {}",
            line.status_label(),
            phrase.unwrap_or_default(),
            labels.join(" "),
            line.url,
            line.text
        )
        .to_lowercase();
        line
    }

    /// The same line as number `seq` of another sequence.
    pub(super) fn numbered(self, seq: u64) -> LogLine {
        LogLine { seq, ..self }
    }

    /// Whether the status bar's figure `label` counts this line.
    pub(crate) fn counted_by(&self, label: Label) -> bool {
        let answered = |ok: bool| match self.kind {
            Kind::Page { status, .. } => (200..300).contains(&status) == ok,
            _ => false,
        };
        match label {
            Label::Fetched => answered(true),
            Label::Errors => answered(false) || self.kind == Kind::Failed,
            Label::NotModified => self.kind == Kind::NotModified,
            Label::Unchanged => self.kind == Kind::Unchanged,
            Label::Skipped => matches!(self.kind, Kind::Skipped(_)),
            Label::Skip(reason) => self.kind == Kind::Skipped(reason),
            Label::Throttled => self.kind == Kind::Notice(NoticeKind::Throttled),
            Label::Class(class) => self.status_code().is_some_and(|s| s / 100 == class),
            Label::NoAnswer => self.kind == Kind::Failed,
            Label::Done => {
                answered(true) || matches!(self.kind, Kind::NotModified | Kind::Unchanged)
            }
        }
    }

    fn status_label(&self) -> String {
        match self.kind {
            Kind::Page { status, .. } => status.to_string(),
            Kind::NotModified => "304".into(),
            Kind::Unchanged => "200".into(),
            Kind::Failed => "failed".into(),
            Kind::Skipped(_) => "skipped".into(),
            Kind::Redirected { status } => status.to_string(),
            Kind::Notice(NoticeKind::Unreachable | NoticeKind::Throttled) => "origin".into(),
            Kind::Notice(NoticeKind::Sitemap | NoticeKind::SitemapFailed) => "sitemap".into(),
        }
    }

    /// Whether the text says why the URL failed or was skipped (rather
    /// than a title, a redirect's target or a notice).
    fn text_is_reason(&self) -> bool {
        match self.kind {
            Kind::Page { status, .. } => status >= 400,
            Kind::Failed | Kind::Skipped(_) => true,
            _ => false,
        }
    }

    fn status_code(&self) -> Option<u16> {
        match self.kind {
            Kind::Page { status, .. } | Kind::Redirected { status } => Some(status),
            Kind::NotModified => Some(304),
            Kind::Unchanged => Some(200),
            _ => None,
        }
    }

    /// A status-bar label finds exactly the lines its figure counts; any
    /// other filter is terms that must all match.
    pub(crate) fn matches(&self, terms: &[String]) -> bool {
        match Label::named(terms) {
            Some(label) => self.counted_by(label),
            None => terms.iter().all(|t| self.matches_term(t)),
        }
    }

    /// `4xx` is a status class and `404` a status: they match the status,
    /// never a URL that happens to hold the digits. Anything else is a
    /// substring of the status label, URL or text.
    fn matches_term(&self, term: &str) -> bool {
        let b = term.as_bytes();
        if b.len() == 3 && b[0].is_ascii_digit() && &b[1..] == b"xx" {
            let class = u16::from(b[0] - b'0');
            return self.status_code().is_some_and(|s| s / 100 == class);
        }
        if let Some(code) = (b.len() == 3).then(|| term.parse::<u16>().ok()).flatten() {
            return self.status_code() == Some(code);
        }
        self.key.contains(term)
    }

    /// The line of a page outcome or a notice at `unix` seconds, number
    /// `seq`; None for any other event.
    pub(super) fn of_event(seq: u64, ev: &CrawlEvent, unix: i64) -> Option<LogLine> {
        if let Some(n) = ev.notice() {
            return Some(LogLine::new(
                seq,
                Some(unix),
                Kind::Notice(n.kind),
                None,
                n.about.to_string(),
                n.text,
            ));
        }
        let (kind, page, url, text) = match ev {
            CrawlEvent::Fetched(f) => (
                Kind::Page {
                    status: f.status,
                    bytes: f.bytes,
                    ms: Some(f.elapsed.as_millis() as u64),
                },
                f.page,
                &f.url,
                match &f.reason {
                    Some(reason) => reason.clone(),
                    None => crate::render::facts::log_text(f.render, f.title.as_deref()),
                },
            ),
            CrawlEvent::NotModified { page, url } => (Kind::NotModified, *page, url, String::new()),
            CrawlEvent::Unchanged { page, url } => (
                Kind::Unchanged,
                *page,
                url,
                "unchanged: the body stored already".into(),
            ),
            CrawlEvent::Failed { page, url, reason } => (Kind::Failed, *page, url, reason.clone()),
            CrawlEvent::Skipped { page, url, reason } => (
                Kind::Skipped(*reason),
                *page,
                url,
                reason.describe().to_string(),
            ),
            CrawlEvent::Redirected {
                page,
                url,
                to,
                status,
            } => (
                Kind::Redirected { status: *status },
                *page,
                url,
                format!("→ {to}"),
            ),
            _ => return None,
        };
        Some(LogLine::new(
            seq,
            Some(unix),
            kind,
            Some(page),
            url.clone(),
            text,
        ))
    }

    /// The line drawn `width` cells wide, times of day `tz_offset`
    /// seconds east of UTC.
    pub(super) fn render(&self, width: u16, tz_offset: i64) -> Line<'_> {
        let l = self;
        let (status_style, size, ms) = match l.kind {
            Kind::Page { status, bytes, ms } => (
                theme::status(status),
                format::bytes(bytes),
                ms.map_or_else(String::new, |ms| format!("{ms}ms")),
            ),
            Kind::NotModified | Kind::Unchanged => {
                (theme::status(304), String::new(), String::new())
            }
            Kind::Failed => (theme::failed(), String::new(), String::new()),
            Kind::Skipped(_) => (theme::skipped(), String::new(), String::new()),
            Kind::Redirected { .. } => (theme::redirected(), String::new(), String::new()),
            Kind::Notice(kind) => (notice_style(kind), String::new(), String::new()),
        };
        let text_style = match l.kind {
            Kind::Notice(kind) => notice_style(kind),
            Kind::Failed => theme::failed(),
            Kind::Skipped(_) => theme::skipped(),
            Kind::Redirected { .. } => theme::redirected(),
            _ => Style::new(),
        };
        let mut spans = Vec::with_capacity(8);
        let mut used = 8 + 15;
        // Narrow panes drop the clock first: the URL matters more.
        if width >= 60 {
            used += 9;
            spans.push(Span::styled(
                match l.unix {
                    Some(unix) => format!("{} ", format::time_of_day(unix, tz_offset)),
                    None => " ".repeat(9),
                },
                theme::dim(),
            ));
        }
        spans.push(Span::styled(
            format!("{:<8}", format::ellipsize(&l.status_label(), 8)),
            status_style,
        ));
        spans.push(Span::styled(format!("{size:>7} {ms:>6} "), theme::dim()));
        let rest = (width as usize).saturating_sub(used);
        let reason = l.text_is_reason();
        let text_w = match l.text.chars().count() {
            0 => 0,
            // A reason is why the row is there: it keeps half the room, and
            // its first word whole however narrow the pane.
            n if reason => {
                let first = l
                    .text
                    .split_whitespace()
                    .next()
                    .map_or(0, |w| w.chars().count());
                (n + 2).min((rest / 2).max(first + 3)).min(rest)
            }
            // A title keeps at least a third.
            n => (n + 2).min(rest / 3),
        };
        // Cut by whole words, a reason may leave some of its room to the URL.
        let text_w = if reason && text_w > 2 {
            format::words(&l.text, text_w - 2).chars().count() + 2
        } else {
            text_w
        };
        let url = format::squeeze(format::bare_url(&l.url), rest - text_w);
        // The text gets what the URL left; a cut one ends in an ellipsis.
        let text_room = rest.saturating_sub(url.chars().count() + 2);
        spans.push(Span::styled(url, theme::url()));
        if !l.text.is_empty() {
            spans.push(Span::raw("  "));
            let text = if reason {
                format::words(&l.text, text_room)
            } else {
                format::ellipsize(&l.text, text_room)
            };
            spans.push(Span::styled(text, text_style));
        }
        Line::from(spans)
    }
}

/// The log line of a URL as the store keeps it, for a filter over the
/// whole crawl: None for a URL still queued or claimed (no outcome yet).
/// `target` is where a redirect leads.
pub(crate) fn store_line(
    page: PageId,
    url: String,
    state: &UrlState,
    record: Option<&PageRecord>,
    target: Option<String>,
) -> Option<LogLine> {
    let (kind, text) = match (state, record) {
        (UrlState::Done { .. }, Some(r)) => (
            Kind::Page {
                status: r.status,
                bytes: r.size,
                ms: None,
            },
            r.title.clone().unwrap_or_default(),
        ),
        (UrlState::Failed { reason, .. }, Some(r)) => (
            Kind::Page {
                status: r.status,
                bytes: r.size,
                ms: None,
            },
            reason.clone(),
        ),
        (UrlState::Failed { reason, .. }, None) => (Kind::Failed, reason.clone()),
        (UrlState::Skipped { reason, .. }, _) => {
            (Kind::Skipped(*reason), reason.describe().to_string())
        }
        (UrlState::Redirected { status, .. }, _) => (
            Kind::Redirected { status: *status },
            format!("→ {}", target.unwrap_or_default()),
        ),
        _ => return None,
    };
    let unix = record.map(|r| r.fetched_at);
    Some(LogLine::new(0, unix, kind, Some(page), url, text))
}

fn notice_style(kind: NoticeKind) -> Style {
    match kind {
        NoticeKind::Unreachable | NoticeKind::SitemapFailed => theme::failed(),
        NoticeKind::Throttled => theme::skipped(),
        NoticeKind::Sitemap => theme::dim(),
    }
}

//! The link graph browser: one page (title, URL, status, size, last
//! modified, state) with its parents and children side by side. Enter jumps
//! to a linked page, Backspace walks the trail back; links never fetched
//! (queued, out of scope, excluded, failed) show their state instead of a
//! status, and an out-of-scope link `--check-external` checked shows what
//! the check found. A page's resources follow its links among the
//! children, marked with their element and check; a resource's view shows
//! its check and, as parents, the pages that load it. A link only the
//! rendered DOM has (`--render`) is marked as such.

use std::collections::HashMap;

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::list::ListView;
use super::{Action, KeyCtx, Pane, Setup};
use crate::export::page::UNTITLED;
use crate::html::resources::Element;
use crate::store::{ExternalCheck, PageId, PageRecord, ResourceCheck, SkipReason};
use crate::tui::keymap::{ch, code, Binding, HelpRow, Table, Verb, BROWSE, UP_DOWN_PAGE};
use crate::tui::{format, theme};

/// Pages remembered for Backspace.
const TRAIL_MAX: usize = 64;
const HEADER_ROWS: u16 = 4;

/// A linked URL as the graph lists it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LinkRow {
    pub page: PageId,
    pub url: String,
    pub title: Option<String>,
    /// The HTTP status, when the URL was fetched.
    pub status: Option<u16>,
    /// The store's state label (`done`, `queued`, `skipped:out_of_scope`...).
    pub state: Option<String>,
    /// A child linked with `rel=nofollow`.
    pub nofollow: bool,
    /// A child only the rendered DOM links to (`--render`): the served
    /// HTML does not.
    pub rendered_only: bool,
    /// What `--check-external` found of it, an out-of-scope URL.
    pub external: Option<ExternalCheck>,
    /// A resource the page loads, not a link.
    pub resource: Option<ResourceTag>,
}

/// A resource row's element and what its check answered (None: not
/// checked yet).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResourceTag {
    pub element: Element,
    pub check: Option<ResourceCheck>,
}

impl ResourceTag {
    fn label(&self) -> String {
        let found = match &self.check {
            Some(c) => resource_checked(c).0,
            None => "not checked".into(),
        };
        format!("[{}] {found}", self.element.as_str())
    }

    fn style(&self) -> ratatui::style::Style {
        self.check
            .as_ref()
            .map_or_else(theme::dim, |c| resource_checked(c).1)
    }
}

/// A resource check in a few words, with its colour: the status it got
/// (styled like a link's), else why none came.
fn resource_checked(c: &ResourceCheck) -> (String, ratatui::style::Style) {
    match (c.status, c.not_checked, c.broken()) {
        (Some(s), _, _) => (s.to_string(), theme::status(s)),
        (None, Some(SkipReason::Robots), _) => ("disallowed".into(), theme::skipped()),
        (None, Some(_), _) => ("excluded".into(), theme::skipped()),
        (None, None, true) => ("no answer".into(), theme::failed()),
        (None, None, false) => ("works".into(), theme::ok()),
    }
}

impl LinkRow {
    fn label(&self) -> String {
        if let Some(t) = &self.resource {
            return t.label();
        }
        // The label column is narrow: the status the check got, or else
        // the start of why it got none.
        if let Some(c) = &self.external {
            return match c.status {
                Some(s) => format!("{s} external"),
                None => checked(c).0,
            };
        }
        match (self.status, &self.state) {
            (Some(s), Some(state)) if state != "done" => format!("{s} {state}"),
            (Some(s), _) => s.to_string(),
            (None, Some(state)) => state.clone(),
            (None, None) => "unknown".into(),
        }
    }

    fn label_style(&self) -> ratatui::style::Style {
        if let Some(t) = &self.resource {
            return t.style();
        }
        if let Some(c) = &self.external {
            return checked(c).1;
        }
        match (self.status, &self.state) {
            (Some(s), _) => theme::status(s),
            (None, Some(state)) => theme::state(state),
            (None, None) => theme::dim(),
        }
    }
}

/// What `--check-external` found of an out-of-scope URL, in words, with
/// its colour: the status line or failure when broken, the status when it
/// works.
fn checked(c: &ExternalCheck) -> (String, ratatui::style::Style) {
    match (&c.reason, c.status) {
        (Some(reason), Some(s)) => (format!("external check: {s} {reason}"), theme::error()),
        (Some(reason), None) => (format!("external check: {reason}"), theme::error()),
        (None, Some(s)) => (format!("external check: {s}"), theme::status(s)),
        (None, None) => ("external check: works".into(), theme::ok()),
    }
}

/// One page with its links, read from one store snapshot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PageView {
    pub page: PageId,
    pub url: String,
    /// None for a URL that was seen but never fetched.
    pub record: Option<PageRecord>,
    pub state: Option<String>,
    /// What `--check-external` found of it, an out-of-scope URL.
    pub external: Option<ExternalCheck>,
    pub parents: Vec<LinkRow>,
    pub children: Vec<LinkRow>,
    /// How many there are in all (the lists may be cut).
    pub parents_total: usize,
    pub children_total: usize,
    /// The sitemap that listed the page, if one did.
    pub from_sitemap: Option<String>,
    /// What the check of it found, a resource pages load.
    pub resource: Option<ResourceCheck>,
    /// What the fetching point's `--extract` rules kept, by rule name.
    pub extract: Vec<(String, Vec<String>)>,
}

impl PageView {
    fn crumb(&self) -> String {
        let name = match self.record.as_ref().and_then(|r| r.title.as_deref()) {
            Some(t) => t.to_string(),
            None => self.url.clone(),
        };
        format::ellipsize(&name, 24)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Parents,
    Children,
}

pub(crate) struct GraphPane {
    view: Option<PageView>,
    /// Pages shown before this one: (id, breadcrumb label).
    trail: Vec<(PageId, String)>,
    /// The shown page was put there by the crawl, not opened by the user:
    /// the trail starts at the first page the user opens.
    shown_for_user: bool,
    seq: u64,
    loading: Option<PageId>,
    error: Option<String>,
    side: Side,
    /// Selection in the parents and the children list.
    sel: [ListView; 2],
    tz_offset: i64,
}

impl GraphPane {
    #[cfg(test)]
    pub(crate) fn current(&self) -> Option<&PageView> {
        self.view.as_ref()
    }

    #[cfg(test)]
    pub(crate) fn trail_len(&self) -> usize {
        self.trail.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.view.is_none() && self.loading.is_none()
    }

    /// Shows `page` next, remembering the current page for Backspace.
    /// Returns the load to run: `(seq, page)`.
    pub(crate) fn open(&mut self, page: PageId) -> (u64, PageId) {
        let user_page = std::mem::replace(&mut self.shown_for_user, true);
        if let Some(v) = self.view.as_ref().filter(|_| user_page) {
            if v.page != page && self.trail.last().map(|t| t.0) != Some(v.page) {
                if self.trail.len() == TRAIL_MAX {
                    self.trail.remove(0);
                }
                self.trail.push((v.page, v.crumb()));
            }
        }
        self.load(page)
    }

    /// Shows `page` because the crawl reached it (the first page fetched):
    /// it is not part of the user's trail.
    pub(crate) fn show(&mut self, page: PageId) -> (u64, PageId) {
        self.shown_for_user = false;
        self.load(page)
    }

    /// Reads the shown page again (its links' states change as a crawl runs).
    pub(crate) fn reload(&mut self) -> Option<(u64, PageId)> {
        if self.loading.is_some() {
            return None;
        }
        let page = self.view.as_ref()?.page;
        self.seq += 1;
        Some((self.seq, page))
    }

    fn load(&mut self, page: PageId) -> (u64, PageId) {
        self.seq += 1;
        self.loading = Some(page);
        (self.seq, page)
    }

    pub(crate) fn back(&mut self) -> Option<(u64, PageId)> {
        let (page, _) = self.trail.pop()?;
        Some(self.load(page))
    }

    /// The answer to load `seq`; a stale one is dropped.
    pub(crate) fn set_view(&mut self, seq: u64, view: Result<PageView, String>) {
        if seq != self.seq {
            return;
        }
        let fresh = self.loading.take().is_some();
        match view {
            Ok(v) => {
                if fresh {
                    self.sel = Default::default();
                    self.side = if v.children.is_empty() && !v.parents.is_empty() {
                        Side::Parents
                    } else {
                        Side::Children
                    };
                } else {
                    self.sel[0].clamp(v.parents.len());
                    self.sel[1].clamp(v.children.len());
                }
                self.view = Some(v);
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn list(&self, side: Side) -> &[LinkRow] {
        match (&self.view, side) {
            (Some(v), Side::Parents) => &v.parents,
            (Some(v), Side::Children) => &v.children,
            (None, _) => &[],
        }
    }

    fn side_index(side: Side) -> usize {
        match side {
            Side::Parents => 0,
            Side::Children => 1,
        }
    }

    fn move_by(&mut self, delta: isize) {
        let len = self.list(self.side).len();
        self.sel[Self::side_index(self.side)].step(delta, len);
    }

    fn columns(area: Rect) -> (Rect, Rect) {
        let lists = Rect {
            y: area.y + HEADER_ROWS.min(area.height),
            height: area.height.saturating_sub(HEADER_ROWS),
            ..area
        };
        let [p, c] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .spacing(1)
            .areas(lists);
        (p, c)
    }

    fn header<'a>(&'a self, v: &'a PageView) -> Vec<Line<'a>> {
        let mut crumbs = vec![Span::styled("trail ", theme::label())];
        let skip = self.trail.len().saturating_sub(3);
        if skip > 0 {
            crumbs.push(Span::styled("… › ", theme::dim()));
        }
        for (_, label) in &self.trail[skip..] {
            crumbs.push(Span::styled(label.as_str(), theme::dim()));
            crumbs.push(Span::styled(" › ", theme::dim()));
        }
        crumbs.push(Span::styled(v.crumb(), theme::value()));
        let title = v
            .record
            .as_ref()
            .and_then(|r| r.title.clone())
            .unwrap_or_else(|| UNTITLED.into());
        let mut facts = Vec::new();
        if let Some(r) = &v.record {
            facts.push(Span::styled(r.status.to_string(), theme::status(r.status)));
            facts.push(Span::styled(
                format!(
                    " · {} · {} {} · crawl depth {}",
                    format::bytes(r.size),
                    r.last_modified_label(),
                    format::date_time(r.last_modified, self.tz_offset),
                    r.depth
                ),
                theme::label(),
            ));
        } else if let Some(c) = &v.resource {
            facts.extend(resource_facts(c));
        } else {
            facts.push(Span::styled("not fetched", theme::dim()));
        }
        if let Some(s) = &v.state {
            facts.push(Span::styled(" · ", theme::label()));
            facts.push(Span::styled(s.as_str(), theme::state(s)));
        }
        if let Some(c) = &v.external {
            let (text, style) = checked(c);
            facts.push(Span::styled(" · ", theme::label()));
            facts.push(Span::styled(text, style));
        }
        if let Some(r) = &v.record {
            for (what, source) in [("noindex", r.noindex), ("nofollow", r.nofollow)] {
                if let Some(source) = source {
                    facts.push(Span::styled(
                        format!(" · {what} ({})", source.as_str()),
                        theme::skipped(),
                    ));
                }
            }
            for (name, values) in &v.extract {
                facts.push(Span::styled(
                    format!(" · {name}: {}", values.join(" | ")),
                    theme::value(),
                ));
            }
            // A canonical naming another URL says this page is a copy.
            if let Some(c) = r.canonical.as_deref().filter(|c| *c != v.url) {
                facts.push(Span::styled(
                    format!(" · canonical {}", format::bare_url(c)),
                    theme::label(),
                ));
            }
        }
        vec![
            Line::from(crumbs),
            Line::styled(title, theme::value()),
            Line::styled(v.url.as_str(), theme::url()),
            Line::from(facts),
        ]
    }

    fn render_list(&self, side: Side, total: usize, area: Rect, buf: &mut Buffer) {
        let rows = self.list(side);
        let i = Self::side_index(side);
        let name = match side {
            Side::Parents => "Parents",
            Side::Children => "Children",
        };
        let more = if total > rows.len() {
            format!(" (first {} of {})", rows.len(), format::count(total as u64))
        } else {
            format!(" ({total})")
        };
        let heading_style = if self.side == side {
            theme::heading()
        } else {
            theme::label()
        };
        let mut lines = vec![Line::styled(format!("{name}{more}"), heading_style)];
        let label_w = rows
            .iter()
            .map(|r| r.label().len())
            .max()
            .unwrap_or(0)
            .min(22);
        // Rows that share a title are told apart by their URL.
        let mut titles: HashMap<&str, usize> = HashMap::new();
        for t in rows.iter().filter_map(|r| r.title.as_deref()) {
            *titles.entry(t).or_default() += 1;
        }
        let text_w = (area.width as usize).saturating_sub(label_w + 1);
        let sitemap = self
            .view
            .as_ref()
            .and_then(|v| v.from_sitemap.as_deref())
            .filter(|_| side == Side::Parents);
        match sitemap {
            // No page links here: the crawl came from a sitemap.
            Some(url) if rows.is_empty() => lines.push(Line::styled(
                format::ellipsize(&format!("  from sitemap {url}"), area.width as usize),
                theme::dim(),
            )),
            _ if rows.is_empty() => lines.push(Line::styled("  none", theme::dim())),
            _ => {}
        }
        Paragraph::new(lines).render(area, buf);
        let list = rows_of(area);
        self.sel[i].render(rows.len(), self.side == side, list, buf, |n| {
            let row = &rows[n];
            let mut name = match row.title.as_deref() {
                Some(t) if titles.get(t).is_some_and(|&c| c > 1) => {
                    format!("{t} · {}", format::bare_url(&row.url))
                }
                Some(t) => t.to_string(),
                None => row.url.clone(),
            };
            if row.nofollow {
                name.push_str(" · nofollow");
            }
            if row.rendered_only {
                name.push_str(" · rendered only");
            }
            Line::from(vec![
                Span::styled(
                    format!("{:<label_w$} ", format::ellipsize(&row.label(), label_w)),
                    row.label_style(),
                ),
                Span::raw(format::ellipsize(&name, text_w)),
            ])
        });
    }
}

/// A checked resource's header facts: status (or why none came), size,
/// type, as its check found them.
fn resource_facts(c: &ResourceCheck) -> Vec<Span<'static>> {
    let (found, style) = resource_checked(c);
    let mut facts = vec![
        Span::styled("resource ", theme::label()),
        Span::styled(found, style),
    ];
    if let Some(reason) = &c.reason {
        facts.push(Span::styled(format!(" · {reason}"), theme::error()));
    }
    let size = c.size.map(format::bytes);
    for fact in [size, c.mime.clone()].into_iter().flatten() {
        facts.push(Span::styled(format!(" · {fact}"), theme::label()));
    }
    facts
}

/// A list's rows, under its heading.
fn rows_of(column: Rect) -> Rect {
    Rect {
        y: column.y + 1.min(column.height),
        height: column.height.saturating_sub(1),
        ..column
    }
}

const SIDE: Binding<Verb> = Binding {
    name: "←→",
    keys: &[
        (code(KeyCode::Left), Verb::Parents),
        (ch('h'), Verb::Parents),
        (code(KeyCode::Right), Verb::Children),
        (ch('l'), Verb::Children),
    ],
    footer: "parents/children",
    when: BROWSE,
};
const SELECT: Binding<Verb> = Binding {
    name: "↑↓",
    keys: UP_DOWN_PAGE,
    footer: "",
    when: BROWSE,
};
const JUMP: Binding<Verb> = Binding {
    name: "Enter",
    keys: &[(code(KeyCode::Enter), Verb::Open)],
    footer: "jump",
    when: BROWSE,
};
const BACK: Binding<Verb> = Binding {
    name: "Bksp",
    keys: &[(code(KeyCode::Backspace), Verb::Back)],
    footer: "back",
    when: BROWSE,
};
const KEYS: Table<Verb> = Table {
    rows: &[&SIDE, &SELECT, &JUMP, &BACK],
    help: &[
        HelpRow {
            rows: &[&SIDE, &SELECT],
            sep: " ",
            words: "parents/children · select",
        },
        HelpRow {
            rows: &[&JUMP, &BACK],
            sep: "  ",
            words: "jump to page · go back",
        },
    ],
};

impl Pane for GraphPane {
    fn new(setup: &Setup) -> Self {
        GraphPane {
            view: None,
            trail: Vec::new(),
            shown_for_user: false,
            seq: 0,
            loading: None,
            error: None,
            side: Side::Children,
            sel: Default::default(),
            tz_offset: setup.tz_offset,
        }
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    fn run(&mut self, verb: Verb, _ctx: &KeyCtx) -> Action {
        match verb {
            Verb::Parents => self.side = Side::Parents,
            Verb::Children => self.side = Side::Children,
            Verb::Move(d) => self.move_by(d),
            Verb::Page(d) => self.move_by(d * 10),
            Verb::Open => {
                let i = self.sel[Self::side_index(self.side)].selected();
                return match self.list(self.side).get(i) {
                    Some(row) => Action::Open(row.page),
                    None => Action::Done,
                };
            }
            Verb::Back => {
                return match self.back() {
                    Some((seq, page)) => Action::Load { seq, page },
                    None => Action::Done,
                };
            }
            _ => return Action::Unhandled,
        }
        Action::Done
    }

    /// A click in the inner `area` picks a list and a row in it.
    fn click(&mut self, area: Rect, at: Position) -> Action {
        let (p, c) = Self::columns(area);
        let (side, col) = if at.x < c.x {
            (Side::Parents, p)
        } else {
            (Side::Children, c)
        };
        if at.y < col.y {
            return Action::Done;
        }
        self.side = side;
        let len = self.list(side).len();
        self.sel[Self::side_index(side)].click(rows_of(col), at.y, len);
        Action::Done
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        let Some(v) = &self.view else {
            let msg = match (&self.error, self.loading) {
                (Some(e), _) => Line::styled(e.as_str(), theme::error()),
                (None, Some(_)) => Line::styled("loading…", theme::dim()),
                (None, None) => Line::styled(
                    "No page yet: press Enter on a search result, a log line or a queued URL.",
                    theme::dim(),
                ),
            };
            msg.render(area, buf);
            return;
        };
        let mut header = self.header(v);
        if let Some(e) = &self.error {
            header[0] = Line::styled(e.as_str(), theme::error());
        }
        Paragraph::new(header).render(area, buf);
        let (p, c) = GraphPane::columns(area);
        self.render_list(Side::Parents, v.parents_total, p, buf);
        self.render_list(Side::Children, v.children_total, c, buf);
    }
}

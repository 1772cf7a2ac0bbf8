//! Crawl points: the stored points, and a form to add or edit one (URL,
//! root prefix, depth limit, max pages, excludes, user and password),
//! validated before anything is written, with the error shown inline.
//! Delete asks first; Space turns a point on or off; `c` crawls it.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use tui_input::backend::crossterm::EventHandler;
use tui_input::Input;

use super::{input_cursor, render_input, scroll_offset, step, Action, KeyCtx, Keys, Pane, Setup};
use crate::points::{self, PointError};
use crate::store::{PointId, PointRecord};
use crate::tui::{format, theme};

const LABELS: [&str; 7] = [
    "URL           ",
    "Root prefix   ",
    "Depth limit   ",
    "Max pages     ",
    "Excludes      ",
    "User          ",
    "Password      ",
];
const URL: usize = 0;
const ROOT: usize = 1;
const DEPTH: usize = 2;
const MAX_PAGES: usize = 3;
const EXCLUDES: usize = 4;
const USER: usize = 5;
const PASSWORD: usize = 6;

/// The add/edit form.
#[derive(Debug, Clone)]
pub(crate) struct Form {
    /// The point being edited; None adds one.
    id: Option<PointId>,
    /// What the form does not show (headers, run generation) is kept.
    base: PointRecord,
    fields: [Input; 7],
    focus: usize,
    error: Option<String>,
}

impl Form {
    fn new(id: Option<PointId>, base: PointRecord) -> Form {
        let opt = |v: Option<String>| Input::new(v.unwrap_or_default());
        let fields = [
            Input::new(base.url.clone()),
            Input::new(base.root.clone()),
            opt(base.depth.map(|d| d.to_string())),
            opt(base.max_pages.map(|d| d.to_string())),
            Input::new(base.excludes.join(", ")),
            opt(base.user.clone()),
            opt(base.password.clone()),
        ];
        Form {
            id,
            base,
            fields,
            focus: 0,
            error: None,
        }
    }

    /// A new-point form with these field values, as if typed.
    #[cfg(test)]
    pub(crate) fn typed(values: [&str; 7]) -> Form {
        let mut form = Form::new(None, PointRecord::default());
        for (field, value) in form.fields.iter_mut().zip(values) {
            *field = Input::new(value.to_string());
        }
        form
    }

    #[cfg(test)]
    pub(crate) fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The record the fields describe, or what is wrong with them (the
    /// setting's label, then the rule of `crate::points` it breaks).
    /// `points` are the stored ones: a start URL may belong to one point only.
    pub(crate) fn validate(
        &self,
        points: &[(PointId, PointRecord)],
    ) -> Result<PointRecord, String> {
        self.record(points).map_err(|e| match e.setting() {
            Some(setting) => format!("{}: {e}", setting.label()),
            None => e.to_string(),
        })
    }

    fn record(&self, stored: &[(PointId, PointRecord)]) -> Result<PointRecord, PointError> {
        let value = |i: usize| self.fields[i].value().trim();
        let optional = |i: usize| Some(value(i)).filter(|v| !v.is_empty());
        let url = match optional(URL) {
            Some(u) => crate::url::parse_start(u)?,
            None => return Err(PointError::MissingUrl),
        };
        let rec = points::validate(PointRecord {
            url: url.to_string(),
            root: optional(ROOT).map_or_else(|| crate::url::default_root(&url), str::to_string),
            depth: optional(DEPTH).map(points::parse_depth).transpose()?,
            max_pages: optional(MAX_PAGES)
                .map(points::parse_max_pages)
                .transpose()?,
            excludes: value(EXCLUDES)
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            user: optional(USER).map(str::to_string),
            password: Some(self.fields[PASSWORD].value())
                .filter(|p| !p.is_empty())
                .map(str::to_string),
            active: self.id.is_none() || self.base.active,
            ..self.base.clone()
        })?;
        points::unique_in(stored, self.id, &rec.url)?;
        Ok(rec)
    }
}

#[derive(Default)]
pub(crate) struct PointsPane {
    points: Vec<(PointId, PointRecord)>,
    selected: usize,
    form: Option<Form>,
    confirm_delete: Option<PointId>,
    /// The local time zone's offset, for when a point was changed.
    tz_offset: i64,
}

impl PointsPane {
    #[cfg(test)]
    pub(crate) fn form(&self) -> Option<&Form> {
        self.form.as_ref()
    }

    pub(crate) fn set_points(&mut self, points: Vec<(PointId, PointRecord)>) {
        self.points = points;
        self.selected = self.selected.min(self.points.len().saturating_sub(1));
    }

    pub(crate) fn open_add(&mut self) {
        self.confirm_delete = None;
        self.form = Some(Form::new(None, PointRecord::default()));
    }

    fn selected(&self) -> Option<&(PointId, PointRecord)> {
        self.points.get(self.selected)
    }

    fn on_key(&mut self, key: &KeyEvent) -> Action {
        if let Some(form) = &mut self.form {
            return match key.code {
                KeyCode::Esc => {
                    self.form = None;
                    Action::Done
                }
                KeyCode::Tab | KeyCode::Down => {
                    form.focus = (form.focus + 1) % LABELS.len();
                    Action::Done
                }
                KeyCode::BackTab | KeyCode::Up => {
                    form.focus = (form.focus + LABELS.len() - 1) % LABELS.len();
                    Action::Done
                }
                KeyCode::Enter => match form.validate(&self.points) {
                    Ok(rec) => {
                        let id = form.id;
                        self.form = None;
                        Action::SavePoint {
                            id,
                            rec: Box::new(rec),
                        }
                    }
                    Err(e) => {
                        form.error = Some(e);
                        Action::Done
                    }
                },
                _ => {
                    if form.fields[form.focus]
                        .handle_event(&Event::Key(*key))
                        .is_some()
                    {
                        form.error = None;
                    }
                    Action::Done
                }
            };
        }
        if let Some(id) = self.confirm_delete.take() {
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => Action::DeletePoint(id),
                _ => Action::Done,
            };
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::Char('a') => self.open_add(),
            KeyCode::Char('e') | KeyCode::Enter => {
                if let Some((id, rec)) = self.selected() {
                    self.form = Some(Form::new(Some(*id), rec.clone()));
                }
            }
            KeyCode::Char('d') | KeyCode::Delete => {
                self.confirm_delete = self.selected().map(|(id, _)| *id);
            }
            KeyCode::Char(' ') => {
                if let Some((id, rec)) = self.selected() {
                    return Action::SetActive(*id, !rec.active);
                }
            }
            KeyCode::Char('c') => {
                if let Some((id, _)) = self.selected() {
                    return Action::Crawl(vec![*id]);
                }
                return Action::Unhandled;
            }
            _ => return Action::Unhandled,
        }
        Action::Done
    }

    pub(crate) fn move_by(&mut self, delta: isize) {
        self.selected = step(self.selected, delta, self.points.len());
    }

    /// A click in the inner `area`: a form field takes focus, a list row is
    /// selected.
    fn click_row(&mut self, area: Rect, y: u16) {
        if let Some(form) = &mut self.form {
            let row = y.saturating_sub(area.y + 1) as usize;
            if y > area.y && row < LABELS.len() {
                form.focus = row;
            }
            return;
        }
        let rows = area.height.saturating_sub(2) as usize;
        if y > area.y {
            let i = scroll_offset(self.selected, rows) + (y - area.y - 1) as usize;
            if i < self.points.len() {
                self.selected = i;
            }
        }
    }

    fn cursor_at(&self, area: Rect) -> Option<Position> {
        let form = self.form.as_ref()?;
        let row = field_row(area, form.focus)?;
        Some(input_cursor(
            &form.fields[form.focus],
            LABELS[form.focus],
            row,
        ))
    }

    fn render_form(form: &Form, area: Rect, buf: &mut Buffer) {
        let title = match form.id {
            Some(id) => format!("Edit crawl point {id}"),
            None => "New crawl point".to_string(),
        };
        Line::styled(title, theme::heading()).render(area, buf);
        for (i, label) in LABELS.iter().enumerate() {
            if let Some(row) = field_row(area, i) {
                let focused = i == form.focus;
                render_input(&form.fields[i], label, focused, i == PASSWORD, row, buf);
            }
        }
        let hint_y = area.y + 1 + LABELS.len() as u16;
        if hint_y < area.bottom() {
            let line = match &form.error {
                Some(e) => Line::styled(format!("✗ {e}"), theme::error()),
                None => Line::styled(
                    "Root defaults to the URL's origin; excludes are URL prefixes, comma-separated.",
                    theme::dim(),
                ),
            };
            line.render(
                Rect {
                    y: hint_y,
                    height: 1,
                    ..area
                },
                buf,
            );
        }
    }
}

/// The row of form field `i`, under the form's title.
fn field_row(area: Rect, i: usize) -> Option<Rect> {
    let y = area.y + 1 + i as u16;
    (y < area.bottom()).then_some(Rect {
        y,
        height: 1,
        width: area.width.min(72),
        ..area
    })
}

impl Pane for PointsPane {
    fn new(setup: &Setup) -> Self {
        PointsPane {
            tz_offset: setup.tz_offset,
            ..PointsPane::default()
        }
    }

    fn help(&self) -> Keys {
        &[
            ("a e d", "add · edit · delete"),
            ("Space  c", "enable/disable · crawl it"),
        ]
    }

    fn footer(&self) -> Keys {
        if self.form.is_some() {
            &[
                ("Tab/↓", "next field"),
                ("S-Tab/↑", "previous"),
                ("Enter", "save"),
                ("Esc", "cancel"),
            ]
        } else {
            &[
                ("a", "add"),
                ("e", "edit"),
                ("d", "delete"),
                ("Space", "on/off"),
                ("c", "crawl"),
            ]
        }
    }

    fn key(&mut self, key: &KeyEvent, _ctx: &KeyCtx) -> Action {
        self.on_key(key)
    }

    fn click(&mut self, area: Rect, at: Position) -> Action {
        self.click_row(area, at.y);
        Action::Done
    }

    fn scroll(&mut self, delta: isize, _height: usize) -> Action {
        self.move_by(delta);
        Action::Done
    }

    fn cursor(&self, area: Rect) -> Option<Position> {
        self.cursor_at(area)
    }

    /// The form has the keys; it stays open when focus moves away.
    fn editing(&self) -> bool {
        self.form.is_some()
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        Widget::render(self, area, buf);
    }
}

impl Widget for &PointsPane {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if let Some(form) = &self.form {
            PointsPane::render_form(form, area, buf);
            return;
        }
        let mut lines = vec![Line::styled(
            format!(
                "{:>3}  {:<3}  {}",
                "id", "on", "start URL · root · depth · max pages"
            ),
            theme::heading(),
        )];
        if self.points.is_empty() {
            lines.push(Line::styled(
                "  no crawl points: press a to add one",
                theme::dim(),
            ));
        }
        let rows = area.height.saturating_sub(2) as usize;
        let offset = scroll_offset(self.selected, rows);
        for (i, (id, p)) in self.points.iter().enumerate().skip(offset).take(rows) {
            let limit = |v: Option<String>| v.unwrap_or_else(|| "any".into());
            let mut spans = vec![
                Span::styled(format!("{id:>3}  "), theme::dim()),
                if p.active {
                    Span::styled("on   ", theme::ok())
                } else {
                    Span::styled("off  ", theme::dim())
                },
                Span::styled(p.url.as_str(), theme::url()),
                Span::styled(
                    format!(
                        "  root {}  depth {}  max {}",
                        p.root,
                        limit(p.depth.map(|d| d.to_string())),
                        limit(p.max_pages.map(format::count)),
                    ),
                    theme::label(),
                ),
            ];
            for (label, value) in points::extras(p) {
                spans.push(Span::styled(format!("  {label} {value}"), theme::label()));
            }
            // Points saved before the metacolumns have no time to show.
            if p.updated_at > 0 {
                spans.push(Span::styled(
                    format!(
                        "  changed {} by {}",
                        format::date_time(p.updated_at, self.tz_offset),
                        p.updated_by
                    ),
                    theme::dim(),
                ));
            }
            let line = Line::from(spans);
            lines.push(if i == self.selected {
                theme::select(line)
            } else {
                line
            });
        }
        Paragraph::new(lines).render(area, buf);
        if let Some(id) = self.confirm_delete {
            let y = area.bottom().saturating_sub(1);
            let line = Line::styled(
                format!("Delete crawl point {id} and its queued URLs? y / n"),
                theme::error(),
            );
            let row = Rect {
                y,
                height: 1,
                ..area
            };
            Clear.render(row, buf);
            line.render(row, buf);
        }
    }
}

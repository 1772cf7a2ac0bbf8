//! The boxes the Points pane edits in place of its list: the form that
//! adds or edits a crawl point, checked by `crate::points`' rules before
//! anything is written, and the box that names a document; where their
//! rows go and how they are drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;
use tui_input::Input;

use super::super::render_input;
use crate::points::{self, PointError};
use crate::store::{PointId, PointRecord};
use crate::tui::theme;

pub(super) const LABELS: [&str; 8] = [
    "URL           ",
    "Root prefix   ",
    "Depth limit   ",
    "Max pages     ",
    "Excludes      ",
    "User          ",
    "Password      ",
    "Documents     ",
];
const URL: usize = 0;
const ROOT: usize = 1;
const DEPTH: usize = 2;
const MAX_PAGES: usize = 3;
const EXCLUDES: usize = 4;
const USER: usize = 5;
const PASSWORD: usize = 6;
const DOCS: usize = 7;
/// The document name box's label.
pub(super) const NAME: &str = "Name  ";

/// The add/edit form.
#[derive(Debug, Clone)]
pub(crate) struct Form {
    /// The point being edited; None adds one.
    pub(super) id: Option<PointId>,
    /// What the form does not show (headers, run generation) is kept.
    pub(super) base: PointRecord,
    pub(super) fields: [Input; 8],
    pub(super) focus: usize,
    pub(super) error: Option<String>,
}

impl Form {
    pub(super) fn new(id: Option<PointId>, base: PointRecord) -> Form {
        let opt = |v: Option<String>| Input::new(v.unwrap_or_default());
        let fields = [
            Input::new(base.url.clone()),
            Input::new(base.root.clone()),
            opt(base.depth.map(|d| d.to_string())),
            opt(base.max_pages.map(|d| d.to_string())),
            Input::new(base.excludes.join(", ")),
            opt(base.user.clone()),
            opt(base.password.clone()),
            Input::new(base.docs.join(", ")),
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
    pub(crate) fn typed(values: [&str; 8]) -> Form {
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
    /// `points` are the stored ones: a start URL may belong to one point
    /// only; `docs` the documents a point may join (not deleted).
    pub(crate) fn validate(
        &self,
        points: &[(PointId, PointRecord)],
        docs: &[String],
    ) -> Result<PointRecord, String> {
        self.record(points, docs).map_err(|e| match e.setting() {
            Some(setting) => format!("{}: {e}", setting.label()),
            None => e.to_string(),
        })
    }

    fn record(
        &self,
        stored: &[(PointId, PointRecord)],
        docs: &[String],
    ) -> Result<PointRecord, PointError> {
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
            // One it is in already it keeps, even deleted.
            docs: points::parse_docs(value(DOCS), &[docs, self.base.docs.as_slice()].concat())?,
            ..self.base.clone()
        })?;
        points::unique_in(stored, self.id, &rec.url)?;
        Ok(rec)
    }

    pub(super) fn render(&self, area: Rect, buf: &mut Buffer) {
        let form = self;
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
        let hint = match &form.error {
            Some(e) => Line::styled(format!("✗ {e}"), theme::error()),
            None => Line::styled(
                "Root defaults to the URL's origin; excludes (URL prefixes) and documents are comma-separated.",
                theme::dim(),
            ),
        };
        hint_row(area, LABELS.len(), hint, buf);
    }
}

/// The box that names a new document, or renames one.
#[derive(Debug, Clone)]
pub(super) struct DocBox {
    /// The document being renamed; None makes one.
    pub(super) old: Option<String>,
    pub(super) input: Input,
    pub(super) error: Option<String>,
}

impl DocBox {
    pub(super) fn render(&self, area: Rect, buf: &mut Buffer) {
        let b = self;
        let title = match &b.old {
            Some(old) => format!("Rename document {old}"),
            None => "New document".to_string(),
        };
        Line::styled(title, theme::heading()).render(area, buf);
        if let Some(row) = field_row(area, 0) {
            render_input(&b.input, NAME, true, false, row, buf);
        }
        let hint = match &b.error {
            Some(e) => Line::styled(format!("✗ {e}"), theme::error()),
            None => Line::styled(
                "A document groups crawl points; its excludes (crawlscope doc add NAME --exclude) apply to each.",
                theme::dim(),
            ),
        };
        hint_row(area, 1, hint, buf);
    }
}

/// The row of form field `i`, under the form's title.
pub(super) fn field_row(area: Rect, i: usize) -> Option<Rect> {
    let y = area.y + 1 + i as u16;
    (y < area.bottom()).then_some(Rect {
        y,
        height: 1,
        width: area.width.min(72),
        ..area
    })
}

/// The hint or error line under a box's `fields` fields.
fn hint_row(area: Rect, fields: usize, line: Line<'_>, buf: &mut Buffer) {
    let y = area.y + 1 + fields as u16;
    if y < area.bottom() {
        line.render(
            Rect {
                y,
                height: 1,
                ..area
            },
            buf,
        );
    }
}

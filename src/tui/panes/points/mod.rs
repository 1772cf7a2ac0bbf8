//! Crawl points and their documents: a bar of the documents (←→ picks
//! one, `n` makes one, `R` renames and `X` deletes the picked one) over the
//! points of the picked document (or every point), and a form to add or
//! edit a point (URL, root prefix, depth limit, max pages, excludes, user,
//! password and documents), validated before anything is written, with the
//! error shown inline. Deletes ask first; Space turns a point on or off;
//! `c` crawls it; `r` shows the selected point's runs in place of the
//! list, each on the line `crawlscope runs` prints for it. A row's figures
//! come before its URLs, so a narrow pane cuts a URL, never a number.
//! The form and the document box are [`form`]'s; this module owns the
//! list, the runs, the questions and the pane.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use tui_input::backend::crossterm::EventHandler;
use tui_input::Input;

mod form;

pub(crate) use form::Form;
use form::{field_row, DocBox, LABELS, NAME};

use super::list::ListView;
use super::{input_cursor, Action, KeyCtx, Pane, Setup};
use crate::points;
use crate::runs::{self, Run};
use crate::store::{PointId, PointRecord};
use crate::tui::keymap::{ch, code, Binding, HelpRow, Mode, Table, Verb, BROWSE, UP_DOWN};
use crate::tui::{format, theme};

/// A question the pane waits a yes or no for.
#[derive(Debug, Clone, PartialEq)]
enum Question {
    DeletePoint(PointId),
    DeleteDoc(String),
}

#[derive(Default)]
pub(crate) struct PointsPane {
    points: Vec<(PointId, PointRecord)>,
    /// The documents that are not deleted, by name.
    docs: Vec<String>,
    /// The document whose points are listed; None: every point.
    doc: Option<String>,
    list: ListView,
    form: Option<Form>,
    doc_box: Option<DocBox>,
    question: Option<Question>,
    /// Every point's runs, newest first, as the last snapshot read them.
    runs: Vec<Run>,
    /// The point whose runs are shown in place of the list.
    runs_of: Option<PointId>,
    runs_list: ListView,
    /// The local time zone's offset, for when a point was changed.
    tz_offset: i64,
}

impl PointsPane {
    #[cfg(test)]
    pub(crate) fn form(&self) -> Option<&Form> {
        self.form.as_ref()
    }

    /// The document whose points are listed.
    #[cfg(test)]
    pub(crate) fn document(&self) -> Option<&str> {
        self.doc.as_deref()
    }

    pub(crate) fn set_points(&mut self, points: Vec<(PointId, PointRecord)>) {
        self.points = points;
        self.list.clamp(self.shown().len());
    }

    /// The documents, not deleted: a picked one that is gone picks every
    /// point again.
    pub(crate) fn set_docs(&mut self, docs: Vec<String>) {
        self.docs = docs;
        if self.doc.as_ref().is_some_and(|d| !self.docs.contains(d)) {
            self.doc = None;
            self.list.reset();
        }
        self.list.clamp(self.shown().len());
    }

    pub(crate) fn set_runs(&mut self, runs: Vec<Run>) {
        self.runs = runs;
        self.runs_list.clamp(self.shown_runs().count());
    }

    /// The runs of the point whose runs are open, newest first.
    fn shown_runs(&self) -> impl Iterator<Item = &Run> {
        let of = self.runs_of;
        self.runs.iter().filter(move |r| Some(r.record.point) == of)
    }

    /// The points listed: the picked document's, else all of them.
    fn shown(&self) -> Vec<&(PointId, PointRecord)> {
        self.points
            .iter()
            .filter(|(_, p)| self.doc.as_ref().is_none_or(|d| p.docs.contains(d)))
            .collect()
    }

    pub(crate) fn open_add(&mut self) {
        self.question = None;
        let base = PointRecord {
            // A point added while a document is picked joins it.
            docs: self.doc.iter().cloned().collect(),
            ..PointRecord::default()
        };
        self.form = Some(Form::new(None, base));
    }

    fn selected(&self) -> Option<&(PointId, PointRecord)> {
        self.shown().get(self.list.selected()).copied()
    }

    /// Picks the next (1) or previous (-1) document, round, with "every
    /// point" before the first.
    fn step_doc(&mut self, delta: isize) {
        let at = self
            .doc
            .as_ref()
            .and_then(|d| self.docs.iter().position(|n| n == d))
            .map_or(0, |i| i + 1);
        let len = self.docs.len() + 1;
        let next = (at as isize + delta).rem_euclid(len as isize) as usize;
        self.doc = next.checked_sub(1).map(|i| self.docs[i].clone());
        self.list.reset();
        self.runs_of = None;
    }

    /// Saves the open form or name box if valid, else says what is wrong.
    fn save(&mut self) -> Action {
        if let Some(b) = &mut self.doc_box {
            return match crate::documents::parse_name(b.input.value()) {
                Err(e) => {
                    b.error = Some(e.to_string());
                    Action::Done
                }
                Ok(name) if b.old.as_ref() != Some(&name) && self.docs.contains(&name) => {
                    b.error = Some(format!("a document {name:?} exists already"));
                    Action::Done
                }
                Ok(name) => {
                    let old = b.old.clone();
                    self.doc_box = None;
                    // The renamed or new document is the one listed.
                    self.doc = Some(name.clone());
                    self.list.reset();
                    Action::SaveDoc { old, name }
                }
            };
        }
        let Some(form) = &mut self.form else {
            return Action::Done;
        };
        match form.validate(&self.points, &self.docs) {
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
        }
    }

    /// Moves the form's focus by `delta` fields, round.
    fn next_field(&mut self, delta: usize) {
        if let Some(form) = &mut self.form {
            form.focus = (form.focus + delta) % LABELS.len();
        }
    }

    /// The list's rows: under the documents and the heading, above the row
    /// a question takes.
    fn rows(area: Rect) -> Rect {
        Rect {
            y: area.y + 2.min(area.height),
            height: area.height.saturating_sub(3),
            ..area
        }
    }

    /// The runs list's rows: under the heading.
    fn run_rows(area: Rect) -> Rect {
        Rect {
            y: area.y + 1.min(area.height),
            height: area.height.saturating_sub(1),
            ..area
        }
    }

    /// Point `id`'s runs, newest first, under their column names.
    fn render_runs(&self, id: PointId, area: Rect, buf: &mut Buffer) {
        let shown: Vec<&Run> = self.shown_runs().collect();
        let mut lines = vec![Line::styled(runs::heading(), theme::heading())];
        if shown.is_empty() {
            lines.push(Line::styled(
                format!("  point {id} has no runs yet: press c to crawl it, r for the points"),
                theme::dim(),
            ));
        }
        Paragraph::new(lines).render(area, buf);
        self.runs_list
            .render(shown.len(), true, PointsPane::run_rows(area), buf, |i| {
                Line::raw(runs::line(shown[i]))
            });
    }

    /// The documents on one line, the picked one marked, with how many
    /// points each groups.
    fn docs_line(&self) -> Line<'static> {
        let count = |d: &str| {
            self.points
                .iter()
                .filter(|(_, p)| p.docs.iter().any(|n| n == d))
                .count()
        };
        let style = |picked: bool| {
            if picked {
                theme::selected()
            } else {
                theme::label()
            }
        };
        let mut spans = vec![
            Span::styled("Documents ", theme::heading()),
            Span::styled(
                format!(" every point ({}) ", self.points.len()),
                style(self.doc.is_none()),
            ),
        ];
        for d in &self.docs {
            spans.push(Span::styled(
                format!(" {d} ({}) ", count(d)),
                style(self.doc.as_ref() == Some(d)),
            ));
        }
        if self.docs.is_empty() {
            spans.push(Span::styled("  n makes one", theme::dim()));
        }
        Line::from(spans)
    }

    /// One point's row: its figures first, so that a narrow pane cuts a
    /// URL, never a number.
    fn point_line<'a>(&self, id: PointId, p: &'a PointRecord) -> Line<'a> {
        let limit = |v: Option<String>| v.unwrap_or_else(|| "any".into());
        let mut spans = vec![
            Span::styled(format!("{id:>3}  "), theme::dim()),
            if p.active {
                Span::styled("on   ", theme::ok())
            } else {
                Span::styled("off  ", theme::dim())
            },
            Span::styled(
                format!(
                    "{:>5}  {:>7}  ",
                    limit(p.depth.map(|d| d.to_string())),
                    limit(p.max_pages.map(format::count)),
                ),
                theme::label(),
            ),
            Span::styled(p.url.as_str(), theme::url()),
            Span::styled(format!("  root {}", p.root), theme::label()),
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
        Line::from(spans)
    }
}

const ADD: Binding<Verb> = Binding {
    name: "a",
    keys: &[(ch('a'), Verb::AddPoint)],
    footer: "add",
    when: BROWSE,
};
const EDIT_POINT: Binding<Verb> = Binding {
    name: "e",
    keys: &[
        (ch('e'), Verb::EditPoint),
        (code(KeyCode::Enter), Verb::EditPoint),
    ],
    footer: "edit",
    when: BROWSE,
};
const DELETE: Binding<Verb> = Binding {
    name: "d",
    keys: &[
        (ch('d'), Verb::DeletePoint),
        (code(KeyCode::Delete), Verb::DeletePoint),
    ],
    footer: "delete",
    when: BROWSE,
};
const TOGGLE: Binding<Verb> = Binding {
    name: "Space",
    keys: &[(ch(' '), Verb::Toggle)],
    footer: "on/off",
    when: BROWSE,
};
const CRAWL: Binding<Verb> = Binding {
    name: "c",
    keys: &[(ch('c'), Verb::CrawlPoint)],
    footer: "crawl",
    when: BROWSE,
};
const RUNS: Binding<Verb> = Binding {
    name: "r",
    keys: &[(ch('r'), Verb::Runs)],
    footer: "runs",
    when: BROWSE,
};
const SELECT: Binding<Verb> = Binding {
    name: "↑↓",
    keys: UP_DOWN,
    footer: "",
    when: BROWSE,
};
const PICK_DOC: Binding<Verb> = Binding {
    name: "←→",
    keys: &[
        (code(KeyCode::Left), Verb::PickDoc(-1)),
        (code(KeyCode::Right), Verb::PickDoc(1)),
    ],
    footer: "document",
    when: BROWSE,
};
const NEW_DOC: Binding<Verb> = Binding {
    name: "n",
    keys: &[(ch('n'), Verb::NewDoc)],
    footer: "",
    when: BROWSE,
};
const RENAME_DOC: Binding<Verb> = Binding {
    name: "R",
    keys: &[(ch('R'), Verb::RenameDoc)],
    footer: "",
    when: BROWSE,
};
const DELETE_DOC: Binding<Verb> = Binding {
    name: "X",
    keys: &[(ch('X'), Verb::DeleteDoc)],
    footer: "",
    when: BROWSE,
};
const NEXT_FIELD: Binding<Verb> = Binding {
    name: "Tab/↓",
    keys: &[
        (code(KeyCode::Tab), Verb::NextField),
        (code(KeyCode::Down), Verb::NextField),
    ],
    footer: "next field",
    when: FORM,
};
const PREV_FIELD: Binding<Verb> = Binding {
    name: "S-Tab/↑",
    keys: &[
        (code(KeyCode::BackTab), Verb::PrevField),
        (code(KeyCode::Up), Verb::PrevField),
    ],
    footer: "previous",
    when: FORM,
};
const SAVE: Binding<Verb> = Binding {
    name: "Enter",
    keys: &[(code(KeyCode::Enter), Verb::Save)],
    footer: "save",
    when: FORM,
};
const CANCEL: Binding<Verb> = Binding {
    name: "Esc",
    keys: &[(code(KeyCode::Esc), Verb::Cancel)],
    footer: "cancel",
    when: FORM,
};
const CONFIRM: Binding<Verb> = Binding {
    name: "y",
    keys: &[
        (ch('y'), Verb::ConfirmDelete),
        (ch('Y'), Verb::ConfirmDelete),
    ],
    footer: "delete",
    when: CONFIRM_ONLY,
};
/// Any other key keeps it too (see `other`).
const KEEP: Binding<Verb> = Binding {
    name: "n",
    keys: &[(ch('n'), Verb::KeepPoint)],
    footer: "keep",
    when: CONFIRM_ONLY,
};
const FORM: &[Mode] = &[Mode::Form];
const CONFIRM_ONLY: &[Mode] = &[Mode::Confirm];
const KEYS: Table<Verb> = Table {
    rows: &[
        &ADD,
        &EDIT_POINT,
        &DELETE,
        &TOGGLE,
        &CRAWL,
        &RUNS,
        &SELECT,
        &PICK_DOC,
        &NEW_DOC,
        &RENAME_DOC,
        &DELETE_DOC,
        &NEXT_FIELD,
        &PREV_FIELD,
        &SAVE,
        &CANCEL,
        &CONFIRM,
        &KEEP,
    ],
    help: &[
        HelpRow {
            rows: &[&ADD, &EDIT_POINT, &DELETE],
            sep: " ",
            words: "add · edit · delete",
        },
        HelpRow {
            rows: &[&TOGGLE, &CRAWL, &RUNS],
            sep: " ",
            words: "on/off · crawl · its runs",
        },
        HelpRow {
            rows: &[&PICK_DOC, &NEW_DOC, &RENAME_DOC, &DELETE_DOC],
            sep: " ",
            words: "pick/add/rename/del doc",
        },
    ],
};

impl Pane for PointsPane {
    fn new(setup: &Setup) -> Self {
        PointsPane {
            tz_offset: setup.tz_offset,
            ..PointsPane::default()
        }
    }

    fn table(&self) -> &'static Table<Verb> {
        &KEYS
    }

    /// The form stays open when focus moves away.
    fn mode(&self) -> Mode {
        if self.form.is_some() || self.doc_box.is_some() {
            Mode::Form
        } else if self.question.is_some() {
            Mode::Confirm
        } else {
            Mode::Browse
        }
    }

    fn run(&mut self, verb: Verb, _ctx: &KeyCtx) -> Action {
        let selected = self.selected().map(|(id, rec)| (*id, rec.active));
        match verb {
            Verb::Move(d) if self.runs_of.is_some() => {
                let len = self.shown_runs().count();
                self.runs_list.step(d, len);
            }
            Verb::Move(d) => {
                self.list.step(d, self.shown().len());
            }
            Verb::Runs => {
                self.runs_of = match self.runs_of {
                    Some(_) => None,
                    None => selected.map(|(id, _)| id),
                };
                self.runs_list.reset();
            }
            Verb::AddPoint => self.open_add(),
            Verb::EditPoint => {
                if let Some((id, rec)) = self.selected() {
                    self.form = Some(Form::new(Some(*id), rec.clone()));
                }
            }
            Verb::DeletePoint => self.question = selected.map(|(id, _)| Question::DeletePoint(id)),
            Verb::PickDoc(d) => self.step_doc(d),
            Verb::NewDoc | Verb::RenameDoc => {
                let old = self.doc.clone().filter(|_| verb == Verb::RenameDoc);
                if verb == Verb::RenameDoc && old.is_none() {
                    return Action::Done;
                }
                self.doc_box = Some(DocBox {
                    input: Input::new(old.clone().unwrap_or_default()),
                    old,
                    error: None,
                });
            }
            Verb::DeleteDoc => self.question = self.doc.clone().map(Question::DeleteDoc),
            Verb::ConfirmDelete => {
                return match self.question.take() {
                    Some(Question::DeletePoint(id)) => Action::DeletePoint(id),
                    Some(Question::DeleteDoc(name)) => Action::DeleteDoc(name),
                    None => Action::Done,
                }
            }
            Verb::KeepPoint => self.question = None,
            Verb::Toggle => {
                if let Some((id, active)) = selected {
                    return Action::SetActive(id, !active);
                }
            }
            // No point selected: the app's `c` crawls the active ones.
            Verb::CrawlPoint => {
                return selected.map_or(Action::Unhandled, |(id, _)| Action::Crawl(vec![id]))
            }
            Verb::NextField => self.next_field(1),
            Verb::PrevField => self.next_field(LABELS.len() - 1),
            Verb::Save => return self.save(),
            Verb::Cancel => {
                self.form = None;
                self.doc_box = None;
            }
            _ => return Action::Unhandled,
        }
        Action::Done
    }

    /// In a form, other keys are text for the focused field; a question
    /// is answered no by any other key.
    fn other(&mut self, key: &KeyEvent, _ctx: &KeyCtx) -> Action {
        if let Some(b) = &mut self.doc_box {
            if b.input.handle_event(&Event::Key(*key)).is_some() {
                b.error = None;
            }
            return Action::Done;
        }
        if let Some(form) = &mut self.form {
            if form.fields[form.focus]
                .handle_event(&Event::Key(*key))
                .is_some()
            {
                form.error = None;
            }
            return Action::Done;
        }
        if self.question.take().is_some() {
            return Action::Done;
        }
        Action::Unhandled
    }

    /// A click in the inner `area`: a form field takes focus, a list row is
    /// selected.
    fn click(&mut self, area: Rect, at: Position) -> Action {
        if self.doc_box.is_some() {
            return Action::Done;
        }
        if let Some(form) = &mut self.form {
            let row = at.y.saturating_sub(area.y + 1) as usize;
            if at.y > area.y && row < LABELS.len() {
                form.focus = row;
            }
            return Action::Done;
        }
        if self.runs_of.is_some() {
            let len = self.shown_runs().count();
            self.runs_list.click(Self::run_rows(area), at.y, len);
        } else {
            let len = self.shown().len();
            self.list.click(Self::rows(area), at.y, len);
        }
        Action::Done
    }

    fn cursor(&self, area: Rect) -> Option<Position> {
        if let Some(b) = &self.doc_box {
            return Some(input_cursor(&b.input, NAME, field_row(area, 0)?));
        }
        let form = self.form.as_ref()?;
        let row = field_row(area, form.focus)?;
        Some(input_cursor(
            &form.fields[form.focus],
            LABELS[form.focus],
            row,
        ))
    }

    fn draw(&self, area: Rect, buf: &mut Buffer) {
        if let Some(b) = &self.doc_box {
            b.render(area, buf);
            return;
        }
        if let Some(form) = &self.form {
            form.render(area, buf);
            return;
        }
        if let Some(id) = self.runs_of {
            self.render_runs(id, area, buf);
            return;
        }
        let shown = self.shown();
        let mut lines = vec![
            self.docs_line(),
            Line::styled(
                format!(
                    "{:>3}  {:<3}  {:>5}  {:>7}  {}",
                    "id", "on", "depth", "max", "start URL · root"
                ),
                theme::heading(),
            ),
        ];
        if shown.is_empty() {
            let empty = match &self.doc {
                Some(d) => format!("  no crawl points in {d}: add one (a), or edit one and name {d} in its documents"),
                None => "  no crawl points: press a to add one".to_string(),
            };
            lines.push(Line::styled(empty, theme::dim()));
        }
        Paragraph::new(lines).render(area, buf);
        self.list
            .render(shown.len(), true, PointsPane::rows(area), buf, |i| {
                let (id, p) = shown[i];
                self.point_line(*id, p)
            });
        let question = match &self.question {
            Some(Question::DeletePoint(id)) => {
                format!("Delete crawl point {id} and its queued URLs? y / n")
            }
            Some(Question::DeleteDoc(name)) => format!(
                "Delete document {name}? Its points stay; its excludes stop applying. y / n"
            ),
            None => return,
        };
        let row = Rect {
            y: area.bottom().saturating_sub(1),
            height: 1,
            ..area
        };
        Clear.render(row, buf);
        Line::styled(question, theme::error()).render(row, buf);
    }
}

//! A row of labelled figures that fits its width whole: no number is ever
//! cut at the edge or under a neighbour; counts shorten (`4,567` to
//! `4.5k`), then the last figures are left out.

use ratatui::text::{Line, Span};

use super::labels::Label;
use super::{format, theme};

/// One figure of a row, drawn whole or not at all: its label and value,
/// and a shorter form for a row short of room.
pub(crate) struct Field {
    pub(crate) label: &'static str,
    value: String,
    short: String,
}

impl Field {
    /// A count under a status-bar label, `4.5k` when short.
    pub(crate) fn count(label: Label, n: u64) -> Field {
        Field::new(label.text(), format::count(n), format::compact(n))
    }

    pub(crate) fn new(label: &'static str, value: String, short: String) -> Field {
        Field {
            label,
            value,
            short,
        }
    }

    fn width(&self, short: bool) -> usize {
        let gap = usize::from(!self.label.is_empty());
        self.label.chars().count() + gap + self.value(short).chars().count()
    }

    fn value(&self, short: bool) -> &str {
        if short {
            &self.short
        } else {
            &self.value
        }
    }
}

/// Gap between two fields.
const GAP: usize = 2;

/// `lead` and then the fields, as spans that fit in `width` with no number
/// cut: every field at full length when they all fit, else each in its
/// short form, the last ones dropped whole until the rest fit.
pub(crate) fn fit<'a>(lead: Vec<Span<'a>>, fields: &'a [Field], width: u16) -> Vec<Span<'a>> {
    let width = (width as usize).saturating_sub(Line::from(lead.clone()).width());
    let total = |short: bool, n: usize| -> usize {
        let gaps: usize = fields[..n].iter().map(|f| f.width(short) + GAP).sum();
        gaps.saturating_sub(GAP)
    };
    let short = total(false, fields.len()) > width;
    let mut n = fields.len();
    while n > 0 && total(short, n) > width {
        n -= 1;
    }
    let mut spans = lead;
    for (i, f) in fields[..n].iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" ".repeat(GAP)));
        }
        if !f.label.is_empty() {
            spans.push(Span::styled(format!("{} ", f.label), theme::label()));
        }
        spans.push(Span::styled(f.value(short).to_string(), theme::value()));
    }
    spans
}

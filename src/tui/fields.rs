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
/// cut: every field at full length when they all fit; else the last ones
/// in their short form, one more at a time from the end, so the first
/// figures keep their full numbers as long as there is room; when even
/// all short forms are too wide, the last fields are dropped whole.
pub(crate) fn fit<'a>(lead: Vec<Span<'a>>, fields: &'a [Field], width: u16) -> Vec<Span<'a>> {
    let width = (width as usize).saturating_sub(Line::from(lead.clone()).width());
    // The first `n` fields, those from `short_from` on in their short form.
    let total = |short_from: usize, n: usize| -> usize {
        let gaps: usize = fields[..n]
            .iter()
            .enumerate()
            .map(|(i, f)| f.width(i >= short_from) + GAP)
            .sum();
        gaps.saturating_sub(GAP)
    };
    let mut n = fields.len();
    while n > 0 && total(0, n) > width {
        n -= 1;
    }
    let mut short_from = n;
    while short_from > 0 && total(short_from, n) > width {
        short_from -= 1;
    }
    let mut spans = lead;
    for (i, f) in fields[..n].iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" ".repeat(GAP)));
        }
        if !f.label.is_empty() {
            spans.push(Span::styled(format!("{} ", f.label), theme::label()));
        }
        spans.push(Span::styled(
            f.value(i >= short_from).to_string(),
            theme::value(),
        ));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(fields: &[Field], width: u16) -> String {
        Line::from(fit(Vec::new(), fields, width)).to_string()
    }

    #[test]
    fn the_first_figures_keep_their_full_numbers_while_there_is_room() {
        let fields = [
            Field::new("fetched", format::count(22_800), format::compact(22_800)),
            Field::new(
                "queue",
                format::count(1_234_567),
                format::compact(1_234_567),
            ),
            Field::new("busiest", "a long origin figure".into(), "short".into()),
        ];
        let full = "fetched 22,800  queue 1,234,567  busiest a long origin figure";
        assert_eq!(shown(&fields, 80), full);
        assert_eq!(
            shown(&fields, 50),
            "fetched 22,800  queue 1,234,567  busiest short"
        );
        assert_eq!(
            shown(&fields, 41),
            "fetched 22,800  queue 1.2M  busiest short"
        );
        assert_eq!(shown(&fields, 38), "fetched 22k  queue 1.2M  busiest short");
        assert_eq!(shown(&fields, 30), "fetched 22,800  queue 1.2M");
        assert_eq!(shown(&fields, 20), "fetched 22,800");
    }
}

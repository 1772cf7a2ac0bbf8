//! The console's colours and styles, in one place so the panes agree on
//! what "failed", "selected" or "focused" looks like.

use ratatui::style::{Color, Modifier, Style};

pub(crate) fn border(focused: bool) -> Style {
    if focused {
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::DarkGray)
    }
}

pub(crate) fn title(focused: bool) -> Style {
    if focused {
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::Gray)
    }
}

pub(crate) fn selected() -> Style {
    Style::new()
        .bg(Color::DarkGray)
        .add_modifier(Modifier::BOLD)
}

/// A row drawn as selected. Dim text (timestamps, ids) is dark grey, the
/// selection's background too: on a selected row it is lifted to grey so it
/// stays readable.
pub(crate) fn select(mut line: ratatui::text::Line<'_>) -> ratatui::text::Line<'_> {
    for span in &mut line.spans {
        if span.style.fg == Some(Color::DarkGray) {
            span.style = span.style.fg(Color::Gray);
        }
    }
    line.style(selected())
}

pub(crate) fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub(crate) fn label() -> Style {
    Style::new().fg(Color::Gray)
}

pub(crate) fn value() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub(crate) fn heading() -> Style {
    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

pub(crate) fn key() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

pub(crate) fn error() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

pub(crate) fn ok() -> Style {
    Style::new().fg(Color::Green)
}

pub(crate) fn url() -> Style {
    Style::new().fg(Color::Blue)
}

/// An input box: highlighted while it takes keys.
pub(crate) fn input(editing: bool) -> Style {
    if editing {
        Style::new().fg(Color::Black).bg(Color::Cyan)
    } else {
        Style::new().bg(Color::Indexed(236))
    }
}

/// An HTTP status by class: success green, not modified and redirects
/// cyan, client errors yellow, server errors red.
pub(crate) fn status(code: u16) -> Style {
    match code {
        200..=299 => Style::new().fg(Color::Green),
        300..=399 => Style::new().fg(Color::Cyan),
        400..=499 => Style::new().fg(Color::Yellow),
        _ => Style::new().fg(Color::Red),
    }
}

/// A URL state label as the store names it (`done`, `failed`,
/// `skipped:out_of_scope`, ...).
pub(crate) fn state(label: &str) -> Style {
    match label {
        "done" => Style::new().fg(Color::Green),
        "queued" | "claimed" => Style::new().fg(Color::Cyan),
        "failed" => Style::new().fg(Color::Red),
        "redirected" => Style::new().fg(Color::Blue),
        _ if label.starts_with("skipped") => Style::new().fg(Color::Magenta),
        _ => dim(),
    }
}

pub(crate) fn failed() -> Style {
    Style::new().fg(Color::Red)
}

pub(crate) fn skipped() -> Style {
    Style::new().fg(Color::Magenta)
}

pub(crate) fn redirected() -> Style {
    Style::new().fg(Color::Blue)
}

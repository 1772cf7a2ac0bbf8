//! What is drawn over or around the panes: their frames and tab titles, the
//! footer with the focused pane's keys and a passing message, the `?` help,
//! the quit confirmation and the "terminal too small" notice.

use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::keymap::{self, Keys};
use super::layout::{centered, tab_label, MIN_HEIGHT, MIN_WIDTH};
use super::panes::PaneId;
use super::theme;

/// The frame of pane `p`, highlighted when it has the focus.
pub(crate) fn pane_block(p: PaneId, focus: PaneId) -> Block<'static> {
    let focused = focus == p;
    Block::bordered()
        .border_style(theme::border(focused))
        .title(Span::styled(tab_label(p), theme::title(focused)))
}

/// The lower half's frame: a tab per explorer pane, `shown` picked out;
/// `cluster`: the Cluster tab is one.
pub(crate) fn explorer_block(focus: PaneId, shown: PaneId, cluster: bool) -> Block<'static> {
    let focused = focus.is_explorer();
    let mut spans = Vec::new();
    for (i, p) in PaneId::explorers(cluster).enumerate() {
        if i > 0 {
            spans.push(Span::styled("│", theme::border(focused)));
        }
        let style = if p == shown {
            theme::title(focused)
        } else {
            theme::dim()
        };
        spans.push(Span::styled(tab_label(p), style));
    }
    Block::bordered()
        .border_style(theme::border(focused))
        .title(Line::from(spans))
}

pub(crate) fn too_small(frame: &mut Frame, area: Rect) {
    let text = vec![
        Line::styled("Terminal too small", theme::error()),
        Line::from(format!(
            "{}×{} here; crawlscope needs at least {MIN_WIDTH}×{MIN_HEIGHT}.",
            area.width, area.height
        )),
        Line::from("Enlarge the window, or press q to quit."),
    ];
    let y = area.y + area.height.saturating_sub(text.len() as u16) / 2;
    frame.render_widget(
        Paragraph::new(text)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        Rect {
            y,
            height: area.bottom() - y,
            ..area
        },
    );
}

/// The focused pane's `keys`, then help and quit; a passing message
/// (`flash`: text, is it an error) on the right.
pub(crate) fn footer(
    frame: &mut Frame,
    area: Rect,
    keys: &Keys,
    editing: bool,
    flash: Option<(&str, bool)>,
) {
    let mut spans = Vec::new();
    // In a text box `?` and `q` are text: only Ctrl-C still quits.
    let always = keymap::global_footer(editing);
    for (key, what) in keys.iter().chain(&always) {
        spans.push(Span::styled(format!(" {key}"), theme::key()));
        spans.push(Span::styled(format!(" {what} "), theme::label()));
    }
    frame.render_widget(Line::from(spans), area);
    if let Some((text, error)) = flash {
        let w = (text.chars().count() as u16 + 2).min(area.width);
        let r = Rect {
            x: area.right() - w,
            width: w,
            ..area
        };
        let style = if error {
            theme::error()
        } else {
            theme::heading()
        };
        frame.render_widget(Clear, r);
        frame.render_widget(Line::styled(format!(" {text} "), style), r);
    }
}

/// The help overlay: the global keys, then each pane's (`sections`:
/// title, keys), from the same lists the footer shows.
pub(crate) fn help(frame: &mut Frame, area: Rect, sections: &[(String, Keys)]) {
    let r = centered(area, 84, 22);
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .border_style(theme::border(true))
        .title(Span::styled(" Keys (any key closes) ", theme::title(true)));
    let body = block.inner(r);
    frame.render_widget(block, r);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .spacing(1)
            .areas(body);
    let entry = |(k, what): &(String, &str)| {
        Line::from(vec![
            Span::styled(format!("{k:<13}"), theme::key()),
            Span::raw(what.to_string()),
        ])
    };
    let mut globals = vec![Line::styled("Everywhere", theme::heading())];
    globals.extend(keymap::GLOBAL.help().iter().map(entry));
    let mut panes = Vec::new();
    // The panes' sections on the right; one that no longer fits there
    // goes under the app's keys on the left.
    for (title, keys) in sections {
        let to = if panes.len() + 1 + keys.len() <= right.height as usize {
            &mut panes
        } else {
            &mut globals
        };
        to.push(Line::styled(title.clone(), theme::heading()));
        to.extend(keys.iter().map(entry));
    }
    frame.render_widget(Paragraph::new(globals), left);
    frame.render_widget(Paragraph::new(panes), right);
}

pub(crate) fn confirm_quit(frame: &mut Frame, area: Rect) {
    let r = centered(area, 50, 5);
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .border_style(theme::error())
        .title(Span::styled(" Quit? ", theme::error()));
    let text = vec![
        Line::from("A crawl is running. Stop it and quit?"),
        Line::from(vec![
            Span::styled("y", theme::key()),
            Span::raw(" quit   "),
            Span::styled("n", theme::key()),
            Span::raw(" keep crawling"),
        ]),
    ];
    frame.render_widget(
        Paragraph::new(text)
            .alignment(Alignment::Center)
            .block(block),
        r,
    );
}

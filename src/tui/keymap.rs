//! The global keys: which key is which app-wide action, and their list for
//! the help overlay. Each pane lists its own keys beside the code that
//! handles them (the `Pane` trait), for both the footer and the help.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::panes::PaneId;

/// What a key means when no pane claims it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Global {
    Quit,
    Help,
    NextPane,
    PrevPane,
    Focus(PaneId),
    Search,
    AddPoint,
    Crawl,
    Pause,
    Stop,
    Breakdown,
}

/// The global meaning of a key, if it has one.
pub(crate) fn global(key: &KeyEvent) -> Option<Global> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return (key.code == KeyCode::Char('c')).then_some(Global::Quit);
    }
    Some(match key.code {
        KeyCode::Char('q') => Global::Quit,
        KeyCode::Char('?') => Global::Help,
        KeyCode::Tab => Global::NextPane,
        KeyCode::BackTab => Global::PrevPane,
        KeyCode::Char(c @ '1'..='9') => {
            Global::Focus(*PaneId::ALL.get(usize::from(c as u8 - b'1'))?)
        }
        KeyCode::Char('/') => Global::Search,
        KeyCode::Char('a') => Global::AddPoint,
        KeyCode::Char('c') => Global::Crawl,
        KeyCode::Char('p') => Global::Pause,
        KeyCode::Char('s') => Global::Stop,
        KeyCode::Char('b') => Global::Breakdown,
        _ => return None,
    })
}

/// Whether a key is Ctrl-C, which quits even from a text input.
pub(crate) fn is_interrupt(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c')
}

/// Keys that work everywhere (help overlay, left column).
pub(crate) const GLOBAL: &[(&str, &str)] = &[
    ("Tab / S-Tab", "next / previous pane"),
    ("1-7", "focus a pane"),
    ("click", "focus a pane, select a row"),
    ("/", "search words (lookup)"),
    ("a", "add a crawl point"),
    ("c", "crawl the active points"),
    ("p", "pause / resume the crawl"),
    ("s", "stop the crawl"),
    ("b", "run by status class"),
    ("?", "this help"),
    ("q / Ctrl-C", "quit (asks if crawling)"),
    ("Esc", "leave a text box / close"),
];

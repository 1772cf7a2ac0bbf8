//! The keys: which key is which global action, and the key lists that the
//! help overlay and the footer show. One table serves both, so the help
//! never disagrees with what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::panes::PaneId;

/// What a key means when no pane claims it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Global {
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
}

/// The global meaning of a key, if it has one.
pub fn global(key: &KeyEvent) -> Option<Global> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return (key.code == KeyCode::Char('c')).then_some(Global::Quit);
    }
    Some(match key.code {
        KeyCode::Char('q') => Global::Quit,
        KeyCode::Char('?') => Global::Help,
        KeyCode::Tab => Global::NextPane,
        KeyCode::BackTab => Global::PrevPane,
        KeyCode::Char(c @ '1'..='6') => Global::Focus(PaneId::ALL[(c as u8 - b'1') as usize]),
        KeyCode::Char('/') => Global::Search,
        KeyCode::Char('a') => Global::AddPoint,
        KeyCode::Char('c') => Global::Crawl,
        KeyCode::Char('p') => Global::Pause,
        KeyCode::Char('s') => Global::Stop,
        _ => return None,
    })
}

/// Whether a key is Ctrl-C, which quits even from a text input.
pub fn is_interrupt(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c')
}

/// Keys that work everywhere (help overlay, left column).
pub const GLOBAL: &[(&str, &str)] = &[
    ("Tab / S-Tab", "next / previous pane"),
    ("1-6", "focus a pane"),
    ("click", "focus a pane, select a row"),
    ("/", "search words (lookup)"),
    ("a", "add a crawl point"),
    ("c", "crawl the active points"),
    ("p", "pause / resume the crawl"),
    ("s", "stop the crawl"),
    ("?", "this help"),
    ("q / Ctrl-C", "quit (asks if crawling)"),
    ("Esc", "leave a text box / close"),
];

/// The keys of one pane, as the help overlay lists them.
pub fn pane(p: PaneId) -> &'static [(&'static str, &'static str)] {
    match p {
        PaneId::Status => &[("p s c", "pause · stop · crawl")],
        PaneId::Queue => &[("↑↓ Enter", "select · open in graph")],
        PaneId::Log => &[
            ("↑↓ PgUp PgDn", "scroll"),
            ("Home End", "top · follow the tail"),
            ("f  Enter", "filter · open in graph"),
        ],
        PaneId::Lookup => &[("/ ↑↓ Enter", "edit · select · open")],
        PaneId::Graph => &[
            ("←→ ↑↓", "parents/children · select"),
            ("Enter  Bksp", "jump to page · go back"),
        ],
        PaneId::Points => &[
            ("a e d", "add · edit · delete"),
            ("Space  c", "enable/disable · crawl it"),
        ],
    }
}

/// The footer's keys for the focused pane; `editing` when a text box has
/// the keys.
pub fn footer(p: PaneId, editing: bool) -> &'static [(&'static str, &'static str)] {
    match (p, editing) {
        (PaneId::Lookup, true) => &[
            ("type", "search"),
            ("↑↓", "select"),
            ("Enter", "open"),
            ("Esc", "leave"),
        ],
        (PaneId::Log, true) => &[
            ("type", "filter: text, 404, 4xx, failed"),
            ("Enter/Esc", "leave"),
        ],
        (PaneId::Points, true) => &[
            ("Tab/↓", "next field"),
            ("S-Tab/↑", "previous"),
            ("Enter", "save"),
            ("Esc", "cancel"),
        ],
        (PaneId::Status, _) => &[
            ("p", "pause/resume"),
            ("s", "stop"),
            ("c", "crawl active points"),
        ],
        (PaneId::Queue, _) => &[("↑↓", "select"), ("Enter", "open in graph")],
        (PaneId::Log, _) => &[
            ("↑↓", "scroll"),
            ("End", "follow"),
            ("f", "filter"),
            ("Enter", "open"),
        ],
        (PaneId::Lookup, _) => &[
            ("/", "edit query"),
            ("↑↓", "select"),
            ("Enter", "open in graph"),
        ],
        (PaneId::Graph, _) => &[
            ("←→", "parents/children"),
            ("Enter", "jump"),
            ("Bksp", "back"),
        ],
        (PaneId::Points, _) => &[
            ("a", "add"),
            ("e", "edit"),
            ("d", "delete"),
            ("Space", "on/off"),
            ("c", "crawl"),
        ],
    }
}

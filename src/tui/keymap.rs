//! Key tables: the one place a key is bound. A table's rows say which keys
//! they take, what the footer calls them and what they do; key handling,
//! the footer and the `?` help are all read from the same rows, so they
//! cannot drift apart. This module holds the table types, the lookups over
//! them and the app-wide table ([`GLOBAL`]); each pane declares its own
//! table beside the code that runs its verbs.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key means when no pane claims it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Global {
    Quit,
    Help,
    NextPane,
    PrevPane,
    /// The pane at this place of the focus order (`PaneId::ALL`).
    Focus(usize),
    Search,
    AddPoint,
    Crawl,
    Pause,
    Stop,
    Breakdown,
}

/// What a pane's key asks of the pane. Panes share one vocabulary so that
/// every table has the same shape and one test can walk them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    /// Move the selection by this many rows.
    Move(isize),
    /// Move the selection a page up (-1) or down (1).
    Page(isize),
    Top,
    /// Follow the tail again (the log).
    Follow,
    /// Open the selected row in the link graph.
    Open,
    /// List the selected finding kind's rows.
    List,
    /// Go back: the previous page, or out of a kind's rows.
    Back,
    /// Start editing the pane's text box.
    Edit,
    /// Stop editing the text box.
    Leave,
    /// The link graph's parents or children list.
    Parents,
    Children,
    AddPoint,
    EditPoint,
    /// Ask before deleting the selected point.
    DeletePoint,
    ConfirmDelete,
    KeepPoint,
    Toggle,
    /// Crawl the selected point.
    CrawlPoint,
    /// Show or hide the selected point's runs.
    Runs,
    /// List the next (1) or previous (-1) document's points.
    PickDoc(isize),
    NewDoc,
    RenameDoc,
    /// Ask before deleting the picked document.
    DeleteDoc,
    NextField,
    PrevField,
    Save,
    Cancel,
    Export,
    /// An app-wide key shown in the pane's footer (the status bar's).
    Global(Global),
}

/// What state a pane is in: a table row works only in the states it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Moving about a list.
    Browse,
    /// A text box has the keys.
    Edit,
    /// The point form has the keys.
    Form,
    /// A yes/no question has the keys.
    Confirm,
    /// A finding kind's rows are listed.
    Rows,
}

impl Mode {
    /// Whether the pane takes every key (global keys are then text, or
    /// an answer), so only Ctrl keys reach the app.
    pub(crate) fn takes_keys(self) -> bool {
        matches!(self, Mode::Edit | Mode::Form | Mode::Confirm)
    }
}

pub(crate) const BROWSE: &[Mode] = &[Mode::Browse];
pub(crate) const EDIT: &[Mode] = &[Mode::Edit];

/// A key as a table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    /// The key with any modifiers but Ctrl.
    Plain(KeyCode),
    /// Ctrl held with this character.
    Ctrl(char),
}

impl Key {
    pub(crate) fn matches(self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            Key::Plain(code) => !ctrl && key.code == code,
            Key::Ctrl(c) => ctrl && key.code == KeyCode::Char(c),
        }
    }

    /// The key as pressed, for tests that walk a table.
    #[cfg(test)]
    pub(crate) fn event(self) -> KeyEvent {
        match self {
            Key::Plain(code) => KeyEvent::new(code, KeyModifiers::NONE),
            Key::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
        }
    }
}

/// `Key::Plain` of a character, to keep tables short.
pub(crate) const fn ch(c: char) -> Key {
    Key::Plain(KeyCode::Char(c))
}

pub(crate) const fn code(c: KeyCode) -> Key {
    Key::Plain(c)
}

/// Up and down a row, with vi's `k` and `j`.
pub(crate) const UP_DOWN: &[(Key, Verb)] = &[
    (code(KeyCode::Up), Verb::Move(-1)),
    (ch('k'), Verb::Move(-1)),
    (code(KeyCode::Down), Verb::Move(1)),
    (ch('j'), Verb::Move(1)),
];

/// [`UP_DOWN`] and a page up and down, under one name in footers.
pub(crate) const UP_DOWN_PAGE: &[(Key, Verb)] = &[
    (code(KeyCode::Up), Verb::Move(-1)),
    (ch('k'), Verb::Move(-1)),
    (code(KeyCode::Down), Verb::Move(1)),
    (ch('j'), Verb::Move(1)),
    (code(KeyCode::PageUp), Verb::Page(-1)),
    (code(KeyCode::PageDown), Verb::Page(1)),
];

/// The list panes' selection row.
pub(crate) const SELECT: Binding<Verb> = Binding {
    name: "↑↓",
    keys: UP_DOWN_PAGE,
    footer: "select",
    when: BROWSE,
};

/// The list panes' row that opens the selected page in the link graph.
pub(crate) const OPEN: Binding<Verb> = Binding {
    name: "Enter",
    keys: &[(code(KeyCode::Enter), Verb::Open)],
    footer: "open in graph",
    when: BROWSE,
};

/// One row of a key table.
#[derive(Debug, PartialEq)]
pub(crate) struct Binding<V: 'static> {
    /// What the footer and the help call the keys.
    pub name: &'static str,
    /// The keys taken and what each does.
    pub keys: &'static [(Key, V)],
    /// The footer's words; empty leaves the row out of the footer.
    pub footer: &'static str,
    /// The states the row works in.
    pub when: &'static [Mode],
}

/// One line of the `?` help: rows of the table named together (their
/// names joined by `sep`), and what they do.
#[derive(Debug)]
pub(crate) struct HelpRow<V: 'static> {
    pub rows: &'static [&'static Binding<V>],
    pub sep: &'static str,
    pub words: &'static str,
}

/// A pane's table: its rows, and how the help groups them.
pub(crate) struct Table<V: 'static> {
    pub rows: &'static [&'static Binding<V>],
    pub help: &'static [HelpRow<V>],
}

/// Keys as the footer and the help show them: (keys, what they do).
pub(crate) type Keys = Vec<(String, &'static str)>;

impl<V: Copy> Table<V> {
    /// What `key` does in `mode`: the first row that takes it.
    pub(crate) fn lookup(&self, mode: Mode, key: &KeyEvent) -> Option<V> {
        self.rows
            .iter()
            .filter(|b| b.when.contains(&mode))
            .flat_map(|b| b.keys.iter())
            .find(|(k, _)| k.matches(key))
            .map(|&(_, v)| v)
    }

    /// The footer's keys in `mode`, in table order.
    pub(crate) fn footer(&self, mode: Mode) -> Keys {
        self.rows
            .iter()
            .filter(|b| b.when.contains(&mode) && !b.footer.is_empty())
            .map(|b| (b.name.to_string(), b.footer))
            .collect()
    }

    /// The help's lines, their keys named as the rows name them.
    pub(crate) fn help(&self) -> Keys {
        self.help
            .iter()
            .map(|h| {
                let mut names: Vec<&str> = Vec::new();
                for b in h.rows {
                    if !names.contains(&b.name) {
                        names.push(b.name);
                    }
                }
                (names.join(h.sep), h.words)
            })
            .collect()
    }
}

/// A help line of one table row.
macro_rules! one {
    ($row:ident, $words:expr) => {
        HelpRow {
            rows: &[&$row],
            sep: " ",
            words: $words,
        }
    };
}

/// The app-wide table's states: a pane's text box or question has the
/// keys, or not.
fn global_mode(taken: bool) -> Mode {
    if taken {
        Mode::Edit
    } else {
        Mode::Browse
    }
}

/// The global meaning of a key, if it has one, when no text box has the
/// keys.
pub(crate) fn global(key: &KeyEvent) -> Option<Global> {
    GLOBAL.lookup(Mode::Browse, key)
}

/// Whether a key quits even from a text box (Ctrl-C).
pub(crate) fn is_interrupt(key: &KeyEvent) -> bool {
    GLOBAL.lookup(Mode::Edit, key) == Some(Global::Quit)
}

/// The app-wide keys the footer shows after the pane's own: in a text box
/// only those that still work there.
pub(crate) fn global_footer(taken: bool) -> Keys {
    GLOBAL.footer(global_mode(taken))
}

const NEXT: Binding<Global> = Binding {
    name: "Tab",
    keys: &[(code(KeyCode::Tab), Global::NextPane)],
    footer: "",
    when: BROWSE,
};
const PREV: Binding<Global> = Binding {
    name: "S-Tab",
    keys: &[(code(KeyCode::BackTab), Global::PrevPane)],
    footer: "",
    when: BROWSE,
};
/// A digit a pane, in the focus order; the name says how many (a test
/// holds both to the panes there are).
pub(crate) const FOCUS: Binding<Global> = Binding {
    name: "1-8",
    keys: &[
        (ch('1'), Global::Focus(0)),
        (ch('2'), Global::Focus(1)),
        (ch('3'), Global::Focus(2)),
        (ch('4'), Global::Focus(3)),
        (ch('5'), Global::Focus(4)),
        (ch('6'), Global::Focus(5)),
        (ch('7'), Global::Focus(6)),
        (ch('8'), Global::Focus(7)),
    ],
    footer: "",
    when: BROWSE,
};
/// The mouse, handled apart from keys: named here so the help lists it.
const CLICK: Binding<Global> = Binding {
    name: "click",
    keys: &[],
    footer: "",
    when: BROWSE,
};
const SEARCH: Binding<Global> = Binding {
    name: "/",
    keys: &[(ch('/'), Global::Search)],
    footer: "",
    when: BROWSE,
};
const ADD: Binding<Global> = Binding {
    name: "a",
    keys: &[(ch('a'), Global::AddPoint)],
    footer: "",
    when: BROWSE,
};
pub(crate) const CRAWL: Binding<Global> = Binding {
    name: "c",
    keys: &[(ch('c'), Global::Crawl)],
    footer: "",
    when: BROWSE,
};
pub(crate) const PAUSE: Binding<Global> = Binding {
    name: "p",
    keys: &[(ch('p'), Global::Pause)],
    footer: "",
    when: BROWSE,
};
pub(crate) const STOP: Binding<Global> = Binding {
    name: "s",
    keys: &[(ch('s'), Global::Stop)],
    footer: "",
    when: BROWSE,
};
const BREAKDOWN: Binding<Global> = Binding {
    name: "b",
    keys: &[(ch('b'), Global::Breakdown)],
    footer: "",
    when: BROWSE,
};
const HELP: Binding<Global> = Binding {
    name: "?",
    keys: &[(ch('?'), Global::Help)],
    footer: "help",
    when: BROWSE,
};
const QUIT: Binding<Global> = Binding {
    name: "q",
    keys: &[(ch('q'), Global::Quit)],
    footer: "quit",
    when: BROWSE,
};
/// Ctrl-C quits from anywhere: the app asks [`is_interrupt`] before any
/// table. Its row sits in the text-box state so that the footer names it
/// only where `q` is text.
const INTERRUPT: Binding<Global> = Binding {
    name: "Ctrl-C",
    keys: &[(Key::Ctrl('c'), Global::Quit)],
    footer: "quit",
    when: EDIT,
};
/// Each pane's own, named here so the help lists it once.
const ESC: Binding<Global> = Binding {
    name: "Esc",
    keys: &[],
    footer: "",
    when: BROWSE,
};

/// The keys that work everywhere.
pub(crate) const GLOBAL: Table<Global> = Table {
    rows: &[
        &NEXT, &PREV, &FOCUS, &CLICK, &SEARCH, &ADD, &CRAWL, &PAUSE, &STOP, &BREAKDOWN, &HELP,
        &QUIT, &INTERRUPT, &ESC,
    ],
    help: &[
        HelpRow {
            rows: &[&NEXT, &PREV],
            sep: " / ",
            words: "next / previous pane",
        },
        one!(FOCUS, "focus a pane"),
        one!(CLICK, "focus a pane, select a row"),
        one!(SEARCH, "search words (lookup)"),
        one!(ADD, "add a crawl point"),
        one!(CRAWL, "crawl the active points"),
        one!(PAUSE, "pause / resume the crawl"),
        one!(STOP, "stop the crawl"),
        one!(BREAKDOWN, "run by status class"),
        one!(HELP, "this help"),
        HelpRow {
            rows: &[&QUIT, &INTERRUPT],
            sep: " / ",
            words: "quit (asks if crawling)",
        },
        one!(ESC, "leave a text box / close"),
    ],
};

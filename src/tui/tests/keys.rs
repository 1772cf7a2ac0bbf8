//! The key tables are the one source of each pane's keys: every key a row
//! names dispatches that row's verb in the states it names, the footer on
//! screen is the table's rows for the pane's state, and the `?` help shows
//! the table's help lines, keys named as the rows name them.

use crossterm::event::KeyCode;

use super::Harness;
use crate::tui::keymap::{self, Binding, Global, HelpRow, Mode, Verb, FOCUS, GLOBAL};
use crate::tui::panes::PaneId;

/// The states a table's rows name.
fn modes<V>(rows: &[&Binding<V>]) -> Vec<Mode> {
    let mut modes = Vec::new();
    for m in rows.iter().flat_map(|b| b.when) {
        if !modes.contains(m) {
            modes.push(*m);
        }
    }
    modes
}

fn focus_key(p: PaneId) -> KeyCode {
    KeyCode::Char(char::from(b'1' + p.index() as u8))
}

#[test]
fn every_pane_key_table_drives_its_keys_footer_and_help() {
    let mut h = Harness::cluster();
    for p in PaneId::ALL {
        h.key(focus_key(p));
        assert_eq!(h.app.focus(), p);
        let pane = h.app.pane(p);
        let table = pane.table();
        for mode in modes(table.rows) {
            for row in table.rows.iter().filter(|b| b.when.contains(&mode)) {
                for &(key, verb) in row.keys {
                    assert_eq!(
                        table.lookup(mode, &key.event()),
                        Some(verb),
                        "{p:?} in {mode:?}: {key:?} of {:?} is taken by another row",
                        row.name
                    );
                    // A pane naming an app-wide key names what the app does.
                    if let Verb::Global(g) = verb {
                        assert_eq!(GLOBAL.lookup(Mode::Browse, &key.event()), Some(g));
                    }
                }
            }
        }
        for line in table.help {
            for row in line.rows {
                assert!(
                    table.rows.contains(row),
                    "{p:?}'s help names {:?}, a row not in its table",
                    row.name
                );
            }
        }
        // The footer drawn is the table's rows for the pane's state, then
        // the app's.
        let mut want = String::new();
        let global = keymap::global_footer(pane.mode().takes_keys());
        for (key, what) in table.footer(pane.mode()).iter().chain(&global) {
            want.push_str(&format!(" {key} {what} "));
        }
        let screen = h.screen(120, 40);
        let footer = screen.lines().last().unwrap_or_default();
        assert_eq!(footer, want.trim_end(), "{p:?}'s footer");
    }
    // The help lists every table's help lines, each naming its rows' keys.
    h.key(KeyCode::Char('?'));
    let screen = h.screen(120, 40);
    let mut lines: Vec<(String, &str)> = GLOBAL.help.iter().map(help_line).collect();
    for p in PaneId::ALL {
        lines.extend(h.app.pane(p).table().help.iter().map(help_line));
    }
    for (key, what) in lines {
        let entry = format!("{key:<13}{what}");
        assert!(screen.contains(&entry), "help lacks {entry:?}:\n{screen}");
    }
}

/// A help line as the help should draw it: the names of its rows (a name
/// shared by rows of several states once), then its words.
fn help_line<V>(line: &HelpRow<V>) -> (String, &'static str) {
    let mut names: Vec<&str> = line.rows.iter().map(|r| r.name).collect();
    names.dedup();
    (names.join(line.sep), line.words)
}

#[test]
fn the_focus_keys_are_one_digit_a_pane_and_the_help_says_so() {
    assert_eq!(FOCUS.name, format!("1-{}", PaneId::ALL.len()));
    assert_eq!(FOCUS.keys.len(), PaneId::ALL.len());
    for (i, &(key, g)) in FOCUS.keys.iter().enumerate() {
        assert_eq!(key, keymap::ch(char::from(b'1' + i as u8)));
        assert_eq!(g, Global::Focus(i));
    }
    let past = keymap::ch(char::from(b'1' + PaneId::ALL.len() as u8));
    assert_eq!(keymap::global(&past.event()), None, "a digit with no pane");
}

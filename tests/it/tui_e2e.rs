//! End to end: the real binary in a real terminal (tmux). `crawlscope demo`
//! crawls its built-in site; the screen must show fetched pages, then a
//! search typed into the lookup must show a result. tmux is required (CI
//! installs it): without it this test fails rather than pass unseen.

use std::path::Path;

use crawlscope::demo::DemoSite;

use crate::support::tmux::{quoted, Tmux};

const PAGES: u32 = 300;

/// The number after "fetched " on the status bar.
fn fetched(screen: &str) -> u64 {
    screen
        .split("fetched ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or(0)
}

#[test]
fn demo_console_crawls_and_finds_a_word() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("store");
    let cmd = format!(
        "{} --db {} demo --pages {PAGES}",
        quoted(Path::new(env!("CARGO_BIN_EXE_crawlscope"))),
        quoted(&db)
    );
    // The console's log goes to the data dir: keep it in the temp dir.
    let tmux = Tmux::start("e2e", &cmd, dir.path());

    let screen = tmux.wait_for("fetched pages", |s| fetched(s) > 0);
    assert!(screen.contains("1 Status"), "{screen}");

    // A word of the start page's title, which the crawl fetches first.
    let word = DemoSite::new(PAGES)
        .words_of(0)
        .next()
        .expect("page 0 has a title")
        .to_string();
    tmux.keys("/");
    tmux.text(&word);
    let screen = tmux.wait_for("a search result", |s| {
        s.contains(&format!("search {word}"))
            && s.lines().any(|l| l.contains("  1. "))
            && s.contains("result")
    });
    let row = screen
        .lines()
        .find(|l| l.contains("  1. "))
        .unwrap_or_default()
        .to_lowercase();
    assert!(row.contains("http://127.0.0.1:"), "{screen}");

    // Quit with Ctrl-C, which works from the search box too (an Escape
    // followed at once by q would read as Alt-q), confirming if the crawl
    // still runs; the console must exit.
    tmux.quit();
}

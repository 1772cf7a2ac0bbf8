//! End to end: the real binary in a real terminal (tmux). `crawlscope demo`
//! crawls its built-in site; the screen must show fetched pages, then a
//! search typed into the lookup must show a result. tmux is required (CI
//! installs it): without it this test fails rather than pass unseen.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crawlscope::demo::DemoSite;

const PAGES: u32 = 300;
const DEADLINE: Duration = Duration::from_secs(90);

/// A private tmux server, killed when the test ends however it ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("running tmux")
    }

    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "console"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn alive(&self) -> bool {
        self.run(&["has-session", "-t", "console"]).status.success()
    }

    /// Polls the screen until `done` holds; panics with the last screen
    /// after the deadline.
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(
                self.alive(),
                "the console exited while waiting for {what}:\n{screen}"
            );
            assert!(
                start.elapsed() < DEADLINE,
                "no {what} within {DEADLINE:?}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn quoted(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

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
    let version = Command::new("tmux").arg("-V").output();
    assert!(
        version.is_ok_and(|o| o.status.success()),
        "tmux is needed for the console's end-to-end test: install it (apt-get install -y tmux)"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("store");
    let tmux = Tmux {
        socket: format!("crawlscope-e2e-{}", std::process::id()),
    };
    let cmd = format!(
        "{} --db {} demo --pages {PAGES}",
        quoted(Path::new(env!("CARGO_BIN_EXE_crawlscope"))),
        quoted(&db)
    );
    let started = Command::new("tmux")
        .args(["-L", &tmux.socket, "-f", "/dev/null"])
        .args([
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            "console",
        ])
        .arg(&cmd)
        // The console's log goes to the data dir: keep it in the temp dir.
        .env("XDG_DATA_HOME", dir.path())
        .env("TERM", "xterm-256color")
        .output()
        .expect("starting tmux");
    assert!(
        started.status.success(),
        "tmux new-session failed: {}",
        String::from_utf8_lossy(&started.stderr)
    );

    let screen = tmux.wait_for("fetched pages", |s| fetched(s) > 0);
    assert!(screen.contains("1 Status"), "{screen}");

    // A word of the start page's title, which the crawl fetches first.
    let word = DemoSite::new(PAGES)
        .words_of(0)
        .next()
        .expect("page 0 has a title")
        .to_string();
    tmux.run(&["send-keys", "-t", "console", "/"]);
    tmux.run(&["send-keys", "-t", "console", "-l", &word]);
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
    tmux.run(&["send-keys", "-t", "console", "C-c"]);
    let start = Instant::now();
    while tmux.alive() && start.elapsed() < DEADLINE {
        if tmux.screen().contains("Stop it and quit?") {
            tmux.run(&["send-keys", "-t", "console", "y"]);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !tmux.alive(),
        "the console did not exit on Ctrl-C:\n{}",
        tmux.screen()
    );
}

//! The real binary in a real terminal: a private tmux server whose one
//! session, `console`, runs a command line; the console's end-to-end tests
//! type keys into it and read its screen. Killed when dropped, however the
//! test ends. tmux is required (CI installs it): without it a test fails
//! rather than pass unseen.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a wait for the screen may take.
const DEADLINE: Duration = Duration::from_secs(90);

pub struct Tmux {
    socket: String,
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// `p` quoted for the shell.
pub fn quoted(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

impl Tmux {
    /// Starts `cmd` (a shell line) in a 120×40 terminal; `name` tells this
    /// test's server from others'; `data` is where the console's data dir
    /// goes.
    pub fn start(name: &str, cmd: &str, data: &Path) -> Tmux {
        let version = Command::new("tmux").arg("-V").output();
        assert!(
            version.is_ok_and(|o| o.status.success()),
            "tmux is needed for the console's end-to-end tests: install it (apt-get install -y tmux)"
        );
        let tmux = Tmux {
            socket: format!("crawlscope-{name}-{}", std::process::id()),
        };
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
            .arg(cmd)
            .env("XDG_DATA_HOME", data)
            .env("TERM", "xterm-256color")
            .output()
            .expect("starting tmux");
        assert!(
            started.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("running tmux")
    }

    /// Types `keys` (tmux's key names: `q`, `C-c`, `Enter`).
    pub fn keys(&self, keys: &str) {
        self.run(&["send-keys", "-t", "console", keys]);
    }

    /// Types `text` as it is.
    pub fn text(&self, text: &str) {
        self.run(&["send-keys", "-t", "console", "-l", text]);
    }

    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "console"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn alive(&self) -> bool {
        self.run(&["has-session", "-t", "console"]).status.success()
    }

    /// Polls the screen until `done` holds; panics with the last screen
    /// after the deadline.
    pub fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
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

    /// Quits the console (confirming while a crawl runs) and waits for it
    /// to exit.
    pub fn quit(&self) {
        self.keys("C-c");
        let start = Instant::now();
        while self.alive() && start.elapsed() < DEADLINE {
            if self.screen().contains("Stop it and quit?") {
                self.keys("y");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(
            !self.alive(),
            "the console did not exit on Ctrl-C:\n{}",
            self.screen()
        );
    }
}

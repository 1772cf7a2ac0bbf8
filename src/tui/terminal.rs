//! The real terminal: raw mode, the alternate screen and mouse capture,
//! undone by a guard's `Drop` and by a panic hook (so a panic's message is
//! readable and the shell usable); logs routed to a file, since anything
//! printed under the console would garble it; the local time zone.

use std::fs::{File, OpenOptions};
use std::io::{self, Stdout};
use std::path::Path;
use std::sync::{Mutex, Once};

use crossterm::cursor::Show;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// A log file past this size is started afresh.
const LOG_MAX_BYTES: u64 = 16 << 20;

/// Puts the terminal back as the shell expects it. Safe to call twice.
fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        Show
    );
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// The console's terminal; dropping it restores the screen.
pub(crate) struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    pub(crate) fn new() -> io::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        // From here on the guard exists, so a failure below still restores.
        let mut guard = TerminalGuard {
            terminal: Terminal::new(CrosstermBackend::new(io::stdout()))?,
        };
        execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        guard.terminal.clear()?;
        Ok(guard)
    }

    pub(crate) fn terminal(&mut self) -> &mut Terminal<CrosstermBackend<Stdout>> {
        &mut self.terminal
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Sends `tracing` output to `path` (appending; level from the
/// `CRAWLSCOPE_LOG` variable, default `info`). A second call keeps the
/// first subscriber.
pub(crate) fn log_to_file(path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let big = std::fs::metadata(path).is_ok_and(|m| m.len() > LOG_MAX_BYTES);
    let file: File = OpenOptions::new()
        .create(true)
        .append(!big)
        .write(true)
        .truncate(big)
        .open(path)?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("CRAWLSCOPE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Ok(())
}

/// Seconds east of UTC of the local time zone now.
pub(crate) fn local_offset() -> i64 {
    let now = crate::time::unix_now() as libc::time_t;
    // SAFETY: localtime_r only writes the `tm` we own; a zeroed `tm` is a
    // valid value of that plain C struct.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe { !libc::localtime_r(&now, &mut tm).is_null() };
    if ok {
        tm.tm_gmtoff
    } else {
        0
    }
}

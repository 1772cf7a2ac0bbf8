//! The interactive face: a console on the store and the crawl engine. The
//! model ([`App`]) changes only through `update(Msg) -> Option<Command>`;
//! the event loop ([`Runtime::run`], generic over the ratatui backend) feeds
//! it terminal events, engine events in batches and the answers of
//! background store jobs; each pane is a module under [`panes`].

mod app;
mod fields;
mod findings_jobs;
mod format;
mod graph_resources;
mod jobs;
mod keymap;
mod labels;
mod layout;
mod msg;
mod overlay;
pub(crate) mod panes;
mod runtime;
mod terminal;
mod theme;

#[cfg(test)]
mod tests;

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use app::{App, Clock, Options};
use runtime::Runtime;
pub(crate) use terminal::log_to_file;
use terminal::{local_offset, TerminalGuard};

use crate::crawl::CrawlConfig;
use crate::store::{PointId, Store};

/// How long quitting waits for in-flight fetches to be committed.
const STOP_WAIT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("the console needs a terminal (for a headless crawl use `crawlscope crawl`)")]
    NoTerminal,
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
    #[error("a background job of the console failed: {0}")]
    Job(#[source] tokio::task::JoinError),
}

/// The console draws on stdout and reads keys from stdin: both must be a
/// terminal.
pub fn ensure_terminal() -> Result<(), TuiError> {
    if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
        Ok(())
    } else {
        Err(TuiError::NoTerminal)
    }
}

/// Runs the console on the real terminal until the user quits; `start`
/// names crawl points to crawl at once. A crawl still running at the end is
/// stopped after the terminal is restored, so its last pages are kept.
pub async fn console(
    store: Arc<Store>,
    cfg: CrawlConfig,
    start: Vec<PointId>,
    db_label: &Path,
) -> Result<(), TuiError> {
    ensure_terminal()?;
    let mut app = App::new(Options {
        db_label: db_label.display().to_string(),
        tz_offset: local_offset(),
        clock: Clock::system(),
    });
    if cfg.frontier.is_some() {
        app.set_cluster();
    }
    let mut runtime = Runtime::new(store, cfg);
    let result = {
        let mut guard = TerminalGuard::new()?;
        let inputs = crossterm::event::EventStream::new();
        runtime.run(guard.terminal(), &mut app, inputs, start).await
    };
    if let Some(engine) = runtime.take_engine() {
        eprintln!("stopping the crawl: finishing in-flight fetches…");
        match engine.shutdown(STOP_WAIT).await {
            Ok(()) => tracing::info!("crawl stopped on quit"),
            Err(e) => {
                tracing::warn!(error = %e, "crawl stop on quit");
                eprintln!("crawl: {e}");
            }
        }
    }
    result
}

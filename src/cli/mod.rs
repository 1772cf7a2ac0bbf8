//! The headless face: one module per command, each reading the store or
//! driving the engine, printing for people or (`--json`) for scripts.

pub mod args;
mod crawl;
mod export;
mod page;
mod point;
mod search;
mod serve_demo;
mod stats;
mod tui;
mod word;

use std::path::PathBuf;
use std::sync::Arc;

pub use args::Cli;
use args::Command;

use crate::store::{Store, StoreError};

/// A failed command: its message is printed as one `error:` line, exit 1.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Crawl(#[from] crate::crawl::CrawlError),
    #[error("crawl point: {0}")]
    Point(#[from] crate::points::PointError),
    #[error("nothing to crawl: give a URL or add a crawl point (crawlscope point add URL)")]
    NothingToCrawl,
    #[error("{0}")]
    Msg(String),
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Msg(e.to_string())
    }
}

pub type CliResult = Result<(), CliError>;

/// The store path: `--db`, else the platform data dir + `/store`.
pub fn store_path(db: Option<PathBuf>) -> Result<PathBuf, CliError> {
    if let Some(p) = db {
        return Ok(p);
    }
    directories::ProjectDirs::from("", "", "crawlscope")
        .map(|d| d.data_dir().join("store"))
        .ok_or_else(|| CliError::Msg("no home directory: pass --db PATH".into()))
}

pub fn open_store(db: Option<PathBuf>) -> Result<Arc<Store>, CliError> {
    Ok(Arc::new(Store::open(&store_path(db)?)?))
}

pub fn print_json<T: serde::Serialize>(value: &T) -> CliResult {
    let s = serde_json::to_string_pretty(value).map_err(|e| CliError::Msg(e.to_string()))?;
    println!("{s}");
    Ok(())
}

/// Runs one command line.
pub fn run(cli: Cli) -> CliResult {
    let db = cli.db;
    match cli.command {
        Some(Command::Crawl {
            urls,
            scope,
            run,
            json,
        }) => crawl::run(open_store(db)?, urls, scope, run, json),
        Some(Command::Point { action }) => point::run(&*open_store(db)?, action),
        Some(Command::Stats { json }) => stats::run(&*open_store(db)?, json),
        Some(Command::ServeDemo { port, pages }) => serve_demo::run(port, pages),
        Some(Command::Check { json }) => stats::check(&*open_store(db)?, json),
        Some(Command::Search { query, limit, json }) => {
            search::run(&*open_store(db)?, &query, limit, json)
        }
        Some(Command::Page { url, json }) => page::run(&*open_store(db)?, &url, json),
        Some(Command::Word { word, json }) => word::run(&*open_store(db)?, &word, json),
        Some(Command::Export { format, out }) => export::run(&*open_store(db)?, format, out),
        Some(Command::Tui { url, scope, run }) => tui::run(db, url, &scope, run.config()),
        Some(Command::Demo { pages }) => tui::demo(db, pages),
        None => tui::run(
            db,
            None,
            &args::ScopeArgs::default(),
            crate::crawl::CrawlConfig::default(),
        ),
    }
}

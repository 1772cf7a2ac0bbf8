//! The headless face: one module per command, each reading the store or
//! driving the engine, printing for people or (`--json`) for scripts.

/// `println!` for a command's answer on stdout, except that a closed pipe
/// (`crawlscope ... | head`) comes back as [`CliError::Output`] for `main`
/// to end quietly on, instead of a panic.
macro_rules! outln {
    () => {
        $crate::cli::write_line(format_args!(""))?
    };
    ($($arg:tt)*) => {
        $crate::cli::write_line(format_args!($($arg)*))?
    };
}

pub mod args;
mod body;
mod copy;
mod crawl;
mod crawl_findings;
mod doc;
mod export;
pub(crate) mod fail_on;
mod generated;
mod junit;
mod local;
mod merge;
pub(crate) mod page;
mod point;
mod report;
pub(crate) mod runs;
mod search;
mod search_details;
mod serve_demo;
mod stats;
mod target;
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
    #[error(transparent)]
    Tui(#[from] crate::tui::TuiError),
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    #[error(transparent)]
    Merge(#[from] crate::merge::MergeError),
    /// A point's scope flag on a bare `crawl`: a usage error (exit 2).
    #[error("{flag} needs a URL: it changes a crawl point's scope (crawlscope crawl URL {flag} ..., or crawlscope point update ID {flag} ...)")]
    FlagNeedsUrl { flag: &'static str },
    #[error("nothing to crawl: give a URL or add a crawl point (crawlscope point add URL)")]
    NothingToCrawl,
    #[error("no Markdown files under {0}")]
    NoMarkdown(String),
    #[error("nothing fetched: {url}: {reason}")]
    NothingFetched { url: String, reason: String },
    #[error("no stored body for {0} (never fetched with a 2xx answer)")]
    NoBody(String),
    #[error("no word has id {0}")]
    NoSuchWord(u32),
    #[error("no such page: {0}")]
    NoSuchPage(String),
    #[error("the store has {0} problem(s)")]
    CheckFailed(usize),
    /// `man COMMAND` for a name the parser let through but no subcommand has.
    #[error("no command '{0}' (crawlscope --help lists them)")]
    NoSuchCommand(String),
    #[error("no home directory: pass --db PATH")]
    NoHome,
    #[error(transparent)]
    Write(#[from] crate::outfile::WriteError),
    #[error("cannot serve the demo site on 127.0.0.1:{port}: {source}")]
    Serve { port: u16, source: std::io::Error },
    #[error("demo server: {0}")]
    DemoServer(#[source] std::io::Error),
    #[error("{what}: {source}")]
    Task {
        what: &'static str,
        source: tokio::task::JoinError,
    },
    #[error("cannot listen for Ctrl-C: {0}")]
    Interrupt(#[source] std::io::Error),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// Writing the answer to stdout failed.
    #[error("output: {0}")]
    Output(#[from] std::io::Error),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Doc(#[from] crate::documents::DocError),
    /// The command worked and found what `--fail-on` names (exit 3).
    #[error("--fail-on: found {0}")]
    FailOn(String),
    /// `--junit` on a report that is not a list of findings (exit 2).
    #[error("--junit: report {0} is a table, not a finding kind [kinds: summary, {kinds}]", kinds = crate::report::kinds::finding_names().join(", "))]
    NoJunit(&'static str),
    /// What an export reads besides the store is unreadable or malformed.
    #[error("{0}")]
    ExportInput(String),
    /// `CRAWLSCOPE_BENCH_OFF` names no part (exit 2).
    #[error(transparent)]
    BenchParts(#[from] crate::crawl::UnknownPart),
}

/// The tokio runtime a command drives its async work on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Runtime::new().map_err(CliError::Runtime)
}

pub type CliResult = Result<(), CliError>;

/// The store path: `--db`, else the platform data dir + `/store`.
impl From<crate::export::ExportError> for CliError {
    /// Kept apart as the rest of the CLI's errors are, so a closed stdout
    /// stays quiet (see `CliError::is_closed_stdout`).
    fn from(e: crate::export::ExportError) -> Self {
        match e {
            crate::export::ExportError::Store(e) => CliError::Store(e),
            crate::export::ExportError::Output(e) => CliError::Output(e),
            crate::export::ExportError::Input(e) => CliError::ExportInput(e),
        }
    }
}

pub fn store_path(db: Option<PathBuf>) -> Result<PathBuf, CliError> {
    if let Some(p) = db {
        return Ok(p);
    }
    directories::ProjectDirs::from("", "", "crawlscope")
        .map(|d| d.data_dir().join("store"))
        .ok_or(CliError::NoHome)
}

/// The store, created when missing: for the commands that write one.
pub fn open_store(db: Option<PathBuf>) -> Result<Arc<Store>, CliError> {
    let path = store_path(db)?;
    Ok(Arc::new(Store::open(&path)?))
}

/// The store, which must exist: for every command that only reads or
/// changes what is there.
pub fn open_existing(db: Option<PathBuf>) -> Result<Store, CliError> {
    let path = store_path(db)?;
    Ok(Store::open_existing(&path)?)
}

pub fn print_json<T: serde::Serialize>(value: &T) -> CliResult {
    let s = serde_json::to_string_pretty(value)?;
    outln!("{s}");
    Ok(())
}

/// One line on stdout; see `outln!`.
pub(crate) fn write_line(args: std::fmt::Arguments<'_>) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)?;
    out.write_all(b"\n")?;
    Ok(())
}

impl CliError {
    /// Whoever read our stdout has gone (`| head`): not a failure.
    pub fn is_closed_stdout(&self) -> bool {
        matches!(self, CliError::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The exit code: 2 for usage, 3 for findings `--fail-on` names, 1 for
    /// everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::FlagNeedsUrl { .. } | CliError::NoSuchCommand(_) | CliError::NoJunit(_) => 2,
            CliError::BenchParts(_) => 2,
            CliError::FailOn(_) => 3,
            _ => 1,
        }
    }
}

/// Runs one command line.
pub fn run(cli: Cli) -> CliResult {
    let db = cli.db;
    match cli.command {
        Some(Command::Crawl {
            urls,
            markdown,
            scope,
            run,
            shared,
            json,
            fail_on,
            quiet,
            doc,
            format,
        }) => crawl::run(
            open_store(db)?,
            crawl::Points {
                urls,
                markdown,
                doc,
            },
            scope,
            run,
            shared,
            crawl::Output {
                json,
                quiet,
                fail_on,
                format,
            },
        ),
        Some(Command::Point { action, frontier }) => point::run(db, action, frontier.as_deref()),
        Some(Command::Runs {
            frontier: Some(url),
            point: None,
            doc: None,
            limit,
            json,
        }) => runs::cluster(&url, limit, json),
        Some(Command::Runs {
            point,
            limit,
            json,
            doc,
            ..
        }) => runs::run(&open_existing(db)?, point, limit, json, doc.as_deref()),
        Some(Command::Stats { json, frontier }) => {
            stats::run(&open_existing(db)?, json, frontier.as_deref())
        }
        Some(Command::ServeDemo { port, pages }) => serve_demo::run(port, pages),
        Some(Command::Check { json }) => stats::check(&open_existing(db)?, json),
        Some(Command::Search {
            query,
            limit,
            links,
            json,
            stopwords,
        }) => {
            let own = stopwords.map(|list| crate::index::Analyzer::with_stopwords(&list.0));
            let listing = search::Listing { limit, links, json };
            search::run(&open_existing(db)?, &query, listing, own.as_ref())
        }
        Some(Command::Page {
            url,
            all_keywords,
            parents,
            json,
        }) => {
            let keywords = if all_keywords {
                usize::MAX
            } else {
                crate::export::page::PAGE_KEYWORDS
            };
            let parents = if parents == 0 { usize::MAX } else { parents };
            page::run(&open_existing(db)?, &url, keywords, parents, json)
        }
        Some(Command::Word { word, id, json }) => {
            word::run(&open_existing(db)?, word.as_deref(), id, json)
        }
        Some(Command::Body { url, out }) => body::run(&open_existing(db)?, &url, out),
        Some(Command::Words {
            prefix,
            limit,
            json,
        }) => word::list(&open_existing(db)?, prefix.as_deref(), limit, json),
        Some(Command::Copy { dest, compact }) => copy::run(&open_existing(db)?, &dest, compact),
        Some(Command::Merge { shards, into }) => merge::run(&shards, &into),
        Some(Command::Report(flags)) => report::from_flags(db, flags),
        Some(Command::Export { format, out, warc }) => export::run(db, format, out, warc),
        Some(Command::Tui {
            url,
            scope,
            run,
            shared,
        }) => {
            let cfg = crate::crawl::CrawlConfig {
                frontier: shared.spec(),
                ..run.config()
            };
            tui::run(db, url, &scope, cfg)
        }
        Some(Command::Demo { pages }) => tui::demo(db, pages),
        Some(Command::Completions { shell }) => generated::completions(shell),
        Some(Command::Man { command }) => generated::man(command.as_deref()),
        Some(Command::Doc { action }) => doc::run(db, action),
        None => tui::run(
            db,
            None,
            &args::ScopeArgs::default(),
            crate::crawl::CrawlConfig::default(),
        ),
    }
}

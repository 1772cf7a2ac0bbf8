//! The crawl engine: frontier claims, fetch workers, robots, politeness,
//! redirects, parsing and the one batched writer. It reports through
//! [`CrawlEvent`]s and obeys [`CrawlCommand`]s; it never imports a face.

mod config;
mod engine;
mod event;
mod fetch;
mod parse;
mod politeness;
mod pool;
mod robots;
mod writer;

pub use config::{CrawlConfig, DEFAULT_USER_AGENT};
pub use engine::{start, CrawlHandle};
pub use event::{CrawlCommand, CrawlEvent, CrawlStats, FetchedPage, Summary};
pub use fetch::parse_header;
pub use writer::{instance_dead, pid_alive};

use crate::store::StoreError;

/// Errors that end a crawl.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot start the {what} thread: {source}")]
    Spawn {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("cannot build the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    #[error("waiting for the store writer: {0}")]
    Join(#[source] tokio::task::JoinError),
    #[error("the store writer thread panicked")]
    WriterPanicked,
    #[error("the store writer stopped unexpectedly")]
    WriterGone,
}

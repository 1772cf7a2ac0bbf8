//! The crawl engine: frontier claims, fetch workers, robots, politeness,
//! redirects, parsing and the one batched writer. It reports through
//! [`CrawlEvent`]s and obeys [`CrawlCommand`]s; it never imports a face.
//!
//! How a URL goes through it: the dispatcher (`engine`) claims it from the
//! frontier and hands it to a fetch worker, which walks it (`claim`: robots,
//! the fetch, the answer, parsing) and sends the outcome (`msg`) to the one
//! writer thread (`writer`), which applies a batch of outcomes in one
//! transaction, deciding by the frontier rules (`policy`) where each link
//! found goes, and announces them once committed.

mod analyzers;
mod asking;
mod bench_parts;
mod claim;
mod config;
mod cookie_jar;
mod ctx;
mod engine;
mod event;
mod exchange;
mod external;
mod fetch;
mod head;
mod history;
pub mod https_twins;
mod link_auth;
mod local;
mod msg;
mod once;
mod origins;
mod parse;
mod pause;
mod policy;
mod politeness;
mod pool;
pub mod reason;
mod render_gate;
mod render_plans;
pub mod replay;
mod request_rules;
mod rescope;
mod resources;
mod result_cache;
mod retry;
mod robots;
pub mod shared;
mod sitemaps;
mod stop;
mod throttle;
mod writer;

pub use bench_parts::{Part, PartsOff, UnknownPart, BENCH_OFF};
pub use config::{CrawlConfig, DEFAULT_USER_AGENT};
pub use engine::{start, CrawlHandle};
pub use event::{
    CrawlCommand, CrawlEvent, CrawlStats, FetchedPage, Notice, NoticeKind, SkipCounts, Summary,
};
pub use fetch::parse_header;
pub use policy::{scope_refusal, PointRun, MAX_REDIRECTS, SITEMAP_DEPTH};
pub use reason::status_text;
pub use request_rules::{check_include, parse_remap};
pub use result_cache::{parse_max_age, DEFAULT_MAX_AGE_S as DEFAULT_MAX_CACHE_AGE_S};
pub use retry::DEFAULT_RETRIES;
pub use writer::{instance_dead, pid_alive, run_ended, work_at_hand, WorkAtHand};

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
    #[error("{0}")]
    Resolve(String),
    /// `--cookie-jar`: the file could not be read or written.
    #[error("{0}")]
    CookieJar(String),
}

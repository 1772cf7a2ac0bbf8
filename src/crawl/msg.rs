//! What the crawl tells its one writer, in two kinds: an [`Outcome`] is a
//! result to record and nobody waits on it; a [`Request`] carries the
//! channel its answer goes back on, once committed. Both travel on one
//! channel as a [`WriterMsg`], in the order they were sent.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use url::Url;

use super::parse::ParsedPage;
use crate::store::{
    Claim, Exchange, ExternalCheck, PageId, PointId, PointRecord, ResourceCheck, RobotsRecord,
    SkipReason, StoreError,
};

/// Where the writer answers a [`Request`].
pub type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

/// One message on the writer's channel.
pub enum WriterMsg {
    Outcome(Outcome),
    Request(Request),
}

impl From<Outcome> for WriterMsg {
    fn from(o: Outcome) -> Self {
        WriterMsg::Outcome(o)
    }
}

impl From<Request> for WriterMsg {
    fn from(r: Request) -> Self {
        WriterMsg::Request(r)
    }
}

/// A result for the writer to record; announced as events once committed.
pub enum Outcome {
    /// A response with a body (2xx stored and indexed; 4xx/5xx recorded).
    Fetched {
        claim: Claim,
        page: Box<ParsedPage>,
        elapsed: Duration,
    },
    NotModified {
        claim: Claim,
        fetched_at: i64,
    },
    /// A 200 whose body hashes to the stored one.
    Unchanged {
        claim: Claim,
        fetched_at: i64,
        response_ms: u32,
    },
    Failed {
        claim: Claim,
        reason: String,
    },
    Redirect {
        claim: Claim,
        target: Url,
        status: u16,
    },
    Skipped {
        claim: Claim,
        reason: SkipReason,
    },
    Robots {
        origin: String,
        record: RobotsRecord,
    },
    /// One request to an origin, for its figures (counted in the run of
    /// the point that asked; robots.txt and sitemaps ask for none); a
    /// throttle (status and the wait) is announced once committed.
    Exchanged {
        origin: String,
        point: Option<PointId>,
        how: Exchange,
        response_ms: Option<u32>,
        throttle: Option<(u16, Duration)>,
    },
    /// The page URLs an origin's sitemaps list, offered to a point.
    Sitemap {
        point: PointId,
        found: Arc<Found>,
    },
    Requeue(Vec<Claim>),
    /// The answer to an external link check.
    External {
        url: String,
        page: PageId,
        check: ExternalCheck,
    },
    /// The answer to a resource check, with the `url()`s of a stylesheet.
    Resource {
        url: String,
        page: PageId,
        check: ResourceCheck,
        css: Vec<Url>,
    },
    /// What the https twin of the http URL `page` answered.
    HttpsTwin {
        page: PageId,
        check: ExternalCheck,
    },
}

impl Outcome {
    /// The claim this outcome settles, when it settles exactly one.
    pub fn claim(&self) -> Option<&Claim> {
        match self {
            Outcome::Fetched { claim, .. }
            | Outcome::NotModified { claim, .. }
            | Outcome::Unchanged { claim, .. }
            | Outcome::Failed { claim, .. }
            | Outcome::Redirect { claim, .. }
            | Outcome::Skipped { claim, .. } => Some(claim),
            _ => None,
        }
    }

    /// Whether the outcome is a page that counts toward `--max-pages`: a
    /// 2xx, fetched or unchanged.
    pub fn counts_as_page(&self) -> bool {
        match self {
            Outcome::Fetched { page, .. } => (200..300).contains(&page.write.record.status),
            Outcome::Unchanged { .. } => true,
            _ => false,
        }
    }

    /// How many of this crawler's claims the outcome settles once
    /// committed.
    pub fn claims_settled(&self) -> u64 {
        match self {
            Outcome::Fetched { .. }
            | Outcome::NotModified { .. }
            | Outcome::Unchanged { .. }
            | Outcome::Failed { .. }
            | Outcome::Redirect { .. }
            | Outcome::Skipped { .. } => 1,
            Outcome::Requeue(claims) => claims.len() as u64,
            Outcome::Robots { .. }
            | Outcome::Exchanged { .. }
            | Outcome::Sitemap { .. }
            | Outcome::External { .. }
            | Outcome::Resource { .. }
            | Outcome::HttpsTwin { .. } => 0,
        }
    }
}

/// A question for the writer: it ends the batch being gathered, and its
/// answer goes out once the batch has committed.
pub enum Request {
    Claim {
        n: usize,
        points: Vec<PointId>,
        reply: Reply<Vec<Claim>>,
    },
    /// Nothing to claim and nothing in flight: is the crawl over?
    Settle {
        points: Vec<PointId>,
        reply: Reply<Settle>,
    },
    AddPoint {
        point: Box<PointRecord>,
        reply: Reply<PointId>,
    },
}

/// The answer to [`Request::Settle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Work appeared (queued entries, or recovered claims of a dead crawler).
    More,
    /// Another live crawler holds claims that may yield new links.
    Wait,
    Done,
}

/// A page URL a sitemap lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub url: Url,
    /// `<lastmod>` in unix seconds, when given and readable.
    pub lastmod: Option<i64>,
    /// The sitemap that listed it.
    pub sitemap: Arc<str>,
}

/// What reading one origin's sitemaps gave.
#[derive(Debug, Default)]
pub struct Found {
    pub urls: Vec<Listed>,
    /// Each sitemap read or not: its URL and how many page URLs it gave,
    /// or why it gave none or was cut.
    pub notes: Vec<(String, Result<usize, String>)>,
}

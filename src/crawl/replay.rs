//! A stored page parsed again as its crawl parsed it: the answer rebuilt
//! from the status, heads and body its store kept, through the one
//! parser, for a store that takes the page from another (`merge`). What
//! the parse derives from the words (terms, the compressed body, the
//! near-duplicate signature) is made again for the store that takes it;
//! what the fetch knew (the record, the heads) is the stored page's.

use std::time::Duration;

use url::Url;

use super::config::CrawlConfig;
use super::fetch::Response;
use super::parse::{self, At, FromStore};
use crate::index::Analyzer;
use crate::store::{HttpHead, PageRecord, PageText, PageWrite, PointRecord, Store};

/// A page as another store kept it.
pub struct Stored<'a> {
    pub url: &'a Url,
    pub record: PageRecord,
    pub head: Option<HttpHead>,
    /// The Content-Type its head carried (or its mimetype's name).
    pub content_type: String,
    /// The body as received (empty: none kept).
    pub body: Vec<u8>,
    /// The point that fetched it: its stopwords.
    pub point: &'a PointRecord,
}

/// `page` parsed again for `into`: its write (the stored record and heads,
/// terms resolved and body compressed for `into`) and its text facts.
pub fn reparse(page: Stored<'_>, into: &Store) -> (PageWrite, PageText) {
    let header = |name: &str| {
        let head = page.head.as_ref()?;
        let (_, v) = head.response.iter().find(|(k, _)| k == name)?;
        Some(v.clone())
    };
    let resp = Response {
        status: page.record.status,
        reason: None,
        content_type: Some(page.content_type.clone()),
        last_modified: header("last-modified"),
        date: header("date"),
        etag: header("etag"),
        location: header("location"),
        content_length: Some(page.record.size),
        body: page.body,
        truncated: page.record.truncated,
        elapsed: Duration::from_millis(u64::from(page.record.response_ms)),
        headers: page
            .head
            .as_ref()
            .map(|h| h.response.clone())
            .unwrap_or_default(),
        version: page
            .head
            .as_ref()
            .map(|h| h.version.clone())
            .unwrap_or_default(),
        request_headers: page
            .head
            .as_ref()
            .map(|h| h.request.clone())
            .unwrap_or_default(),
    };
    let own = page
        .point
        .stopwords
        .as_deref()
        .map(Analyzer::with_stopwords);
    let at = At {
        url: page.url,
        depth: page.record.depth,
        fetched_at: page.record.fetched_at,
        analyzer: own.as_ref().unwrap_or(Analyzer::global()),
        keep_body: true,
        custom: None,
    };
    let agent = CrawlConfig::default();
    let parsed = parse::parse(&resp, at, agent.robots_agent(), &FromStore::of(into));
    let mut write = parsed.write;
    write.record = page.record;
    write.head = page.head;
    (write, parsed.text)
}

//! What the reports read of a fetched page ([`PageFacts`]): its record
//! without the fields no report reads (the revisit headers, the ranking
//! figures) and with its texts boxed. A report context holds one for
//! every page of its view, so this is what a million pages cost it:
//! about half of what their records would.

use crate::store::{DirectiveSource, MimeId, PageRecord};

#[derive(Debug, Clone)]
pub struct PageFacts {
    pub status: u16,
    pub mime: MimeId,
    /// Content-Length, else the body's length.
    pub size: u64,
    pub content_hash: u64,
    /// From sending the request to the whole body, in milliseconds.
    pub response_ms: u32,
    pub noindex: Option<DirectiveSource>,
    pub nofollow: Option<DirectiveSource>,
    pub canonical: Option<Box<str>>,
    pub title: Option<Box<str>>,
    pub description: Option<Box<str>>,
    pub h1: Vec<String>,
}

impl From<PageRecord> for PageFacts {
    fn from(rec: PageRecord) -> PageFacts {
        PageFacts {
            status: rec.status,
            mime: rec.mime,
            size: rec.size,
            content_hash: rec.content_hash,
            response_ms: rec.response_ms,
            noindex: rec.noindex,
            nofollow: rec.nofollow,
            canonical: rec.canonical.map(String::into_boxed_str),
            title: rec.title.map(String::into_boxed_str),
            description: rec.description.map(String::into_boxed_str),
            h1: rec.h1,
        }
    }
}

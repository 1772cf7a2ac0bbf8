//! What one exchange gives back, whoever answered it (a server through
//! `fetch`, the disk through `local`): a response with its body, or why
//! none came, in the terms a person acts on; and what a resource check
//! learnt.

use std::time::Duration;

/// A response, body read (and maybe cut).
#[derive(Debug, Clone, Default)]
pub struct Response {
    pub status: u16,
    /// The reason phrase the server sent, when not the standard one.
    pub reason: Option<String>,
    pub content_type: Option<String>,
    pub last_modified: Option<String>,
    pub date: Option<String>,
    pub etag: Option<String>,
    pub location: Option<String>,
    pub content_length: Option<u64>,
    pub body: Vec<u8>,
    pub truncated: bool,
    pub elapsed: Duration,
    /// Every header as received (names in lower case), in order, capped at
    /// `MAX_HEADERS` of `MAX_HEADER_CHARS` each: directives, canonical
    /// links and archives read them.
    pub headers: Vec<(String, String)>,
    /// The protocol version of the answer: `HTTP/1.1`, `HTTP/2.0`.
    pub version: String,
    /// The request headers as sent (see `head::sent`), for the archive.
    pub request_headers: Vec<(String, String)>,
}

pub const MAX_HEADERS: usize = 100;
pub const MAX_HEADER_CHARS: usize = 2048;

impl Response {
    /// Values of every header named `name` (lower case).
    pub fn header_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> {
        self.headers
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What went wrong, in the terms a person acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailKind {
    Refused,
    Dns,
    ConnectTimeout,
    Connect,
    Timeout,
    Reset,
    Body,
    Other,
}

/// Why a fetch got no usable response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    pub kind: FailKind,
    pub reason: String,
    pub retryable: bool,
}

impl FetchError {
    /// No connection could be made: the host is down, unknown or
    /// unroutable, not just slow or broken on one page.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self.kind,
            FailKind::Refused | FailKind::Dns | FailKind::ConnectTimeout | FailKind::Connect
        )
    }
}

/// What a resource check learnt: the status, the announced size and type,
/// and the body when it was asked for and read whole.
#[derive(Debug, Clone, Default)]
pub struct Probed {
    pub status: u16,
    /// The reason phrase the server sent, when not the standard one.
    pub reason: Option<String>,
    /// Content-Length, else the bytes read by a GET.
    pub size: Option<u64>,
    /// The Content-Type's essence, in lower case.
    pub mime: Option<String>,
    pub body: Option<Vec<u8>>,
}

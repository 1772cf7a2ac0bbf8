//! WARC/1.1 (ISO 28500:2017): a `warcinfo` record, then for every fetched
//! page a `request` and a `response` record rebuilt from the stored HTTP
//! heads and the exact stored body. With `gzip`, each record is its own
//! gzip member, so readers can seek to any record.
//!
//! The body is stored decoded, so the response head written says so: a
//! Content-Encoding, Transfer-Encoding or Content-Length kept from the wire
//! is renamed `x-crawlscope-original-*` and a Content-Length matching the
//! body is written. (The HTTP client already drops Content-Encoding and
//! Content-Length when it decodes a compressed body.) Credentials were
//! redacted when the heads were captured.

use std::io::{self, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use sha1::{Digest, Sha1};

use super::{each_page, ExportError};
use crate::store::prelude::*;
use crate::store::{HttpHead, PageId, PageRecord, Reader};
use crate::time::{rfc3339, unix_now};

/// Response headers that describe the bytes on the wire, not the stored
/// body: renamed to `x-crawlscope-original-NAME`.
const WIRE_HEADERS: [&str; 3] = ["content-encoding", "transfer-encoding", "content-length"];

/// What the export wrote, for the face to report.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WarcCounts {
    pub pages: u64,
    /// Fetched pages left out because no HTTP head was kept for them.
    pub without_head: u64,
}

/// Where a record lies in the file: its first byte and its length (the
/// gzip member's, when gzipped), as a CDX index points into a WARC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub offset: u64,
    pub length: u64,
}

/// A WARC being written: the `warcinfo` record first, then one exchange
/// per page, each telling where its response record landed.
pub struct WarcWriter<W: Write> {
    out: Counted<W>,
    gzip: bool,
    info_id: String,
    counts: WarcCounts,
}

impl<W: Write> WarcWriter<W> {
    /// Writes the `warcinfo` record.
    pub fn start(w: W, gzip: bool) -> io::Result<Self> {
        let mut out = Counted {
            inner: w,
            written: 0,
        };
        let info_id = record_id();
        let info = format!(
            "software: crawlscope/{}\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n",
            env!("CARGO_PKG_VERSION")
        );
        write_record(
            &mut out,
            gzip,
            &[
                ("WARC-Type", "warcinfo".into()),
                ("WARC-Record-ID", info_id.clone()),
                ("WARC-Date", rfc3339(unix_now())),
                ("Content-Type", "application/warc-fields".into()),
            ],
            &[info.as_bytes()],
            None,
        )?;
        Ok(WarcWriter {
            out,
            gzip,
            info_id,
            counts: WarcCounts::default(),
        })
    }

    /// Writes page `id`'s request and response (its stored `body` given,
    /// so a caller that needs it too reads it once); the response
    /// record's span, or None when no HTTP head was kept for the page.
    pub fn page(
        &mut self,
        r: &Reader<'_>,
        id: PageId,
        url: &str,
        record: &PageRecord,
        body: &[u8],
    ) -> Result<Option<Span>, ExportError> {
        let Some(head) = r.http_head(id)? else {
            self.counts.without_head += 1;
            return Ok(None);
        };
        let span = write_exchange(
            &mut self.out,
            self.gzip,
            &self.info_id,
            url,
            record,
            &head,
            body,
        )?;
        self.counts.pages += 1;
        Ok(Some(span))
    }

    pub fn counts(&self) -> WarcCounts {
        self.counts
    }
}

/// A sink that knows how many bytes went through it.
struct Counted<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub fn write(r: &Reader<'_>, w: &mut impl Write, gzip: bool) -> Result<WarcCounts, ExportError> {
    let mut warc = WarcWriter::start(w, gzip)?;
    each_page(r, |id, record| {
        let Some(url) = r.url_of(id)? else {
            return Ok(());
        };
        let body = r.body(id)?.unwrap_or_default();
        warc.page(r, id, &url, &record, &body)?;
        Ok(())
    })?;
    Ok(warc.counts())
}

/// Writes a page's response and request records; where the response
/// landed.
fn write_exchange<W: Write>(
    out: &mut Counted<W>,
    gzip: bool,
    info_id: &str,
    url: &str,
    record: &PageRecord,
    head: &HttpHead,
    body: &[u8],
) -> io::Result<Span> {
    let date = rfc3339(record.fetched_at);
    let response_id = record_id();
    let mut response_headers = vec![
        ("WARC-Type", "response".to_string()),
        ("WARC-Record-ID", response_id.clone()),
        ("WARC-Date", date.clone()),
        ("WARC-Target-URI", url.to_string()),
        ("WARC-Warcinfo-ID", info_id.to_string()),
        ("Content-Type", "application/http;msgtype=response".into()),
    ];
    if record.truncated {
        response_headers.push(("WARC-Truncated", "length".into()));
    }
    let response_head = response_head(head, record.status, body.len());
    let offset = out.written;
    write_record(
        out,
        gzip,
        &response_headers,
        &[&response_head, body],
        Some(body),
    )?;
    let span = Span {
        offset,
        length: out.written - offset,
    };
    let request_head = request_head(url, head);
    write_record(
        out,
        gzip,
        &[
            ("WARC-Type", "request".into()),
            ("WARC-Record-ID", record_id()),
            ("WARC-Date", date),
            ("WARC-Target-URI", url.to_string()),
            ("WARC-Warcinfo-ID", info_id.to_string()),
            ("WARC-Concurrent-To", response_id),
            ("Content-Type", "application/http;msgtype=request".into()),
        ],
        &[&request_head],
        None,
    )?;
    Ok(span)
}

/// The status line and headers as received, made true of the stored body.
fn response_head(head: &HttpHead, status: u16, body_len: usize) -> Vec<u8> {
    let mut out =
        format!("{} {}\r\n", head.version, crate::crawl::status_text(status)).into_bytes();
    for (name, value) in &head.response {
        if WIRE_HEADERS.contains(&name.as_str()) {
            out.extend_from_slice(b"x-crawlscope-original-");
        }
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("content-length: {body_len}\r\n\r\n").as_bytes());
    out
}

/// The GET as sent: request line, then the headers captured at fetch time.
fn request_head(url: &str, head: &HttpHead) -> Vec<u8> {
    let target = url::Url::parse(url).map_or_else(
        |_| "/".to_string(),
        |u| match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        },
    );
    let mut out = format!("GET {target} {}\r\n", head.version);
    for (name, value) in &head.request {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// Writes one record whose block is `parts` concatenated; `payload` (the
/// HTTP body) gets its own digest.
fn write_record(
    w: &mut impl Write,
    gzip: bool,
    headers: &[(&str, String)],
    parts: &[&[u8]],
    payload: Option<&[u8]>,
) -> io::Result<()> {
    let mut block_digest = Sha1::new();
    let mut len = 0;
    for p in parts {
        block_digest.update(p);
        len += p.len();
    }
    let mut head = String::from("WARC/1.1\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "WARC-Block-Digest: sha1:{}\r\n",
        base32(&block_digest.finalize())
    ));
    if let Some(p) = payload {
        head.push_str(&format!(
            "WARC-Payload-Digest: sha1:{}\r\n",
            payload_digest(p)
        ));
    }
    head.push_str(&format!("Content-Length: {len}\r\n\r\n"));
    let emit = |out: &mut dyn Write| -> io::Result<()> {
        out.write_all(head.as_bytes())?;
        for p in parts {
            out.write_all(p)?;
        }
        out.write_all(b"\r\n\r\n")
    };
    if gzip {
        let mut member = GzEncoder::new(&mut *w, Compression::default());
        emit(&mut member)?;
        member.finish()?;
        Ok(())
    } else {
        emit(w)
    }
}

fn record_id() -> String {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4())
}

/// The SHA-1 of a payload in base32, as WARC-Payload-Digest and Common
/// Crawl's `content_digest` write it (without the `sha1:` label).
pub fn payload_digest(payload: &[u8]) -> String {
    base32(&Sha1::digest(payload))
}

/// RFC 4648 base32 (uppercase, padded), the digest encoding WARC tools use.
pub fn base32(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(data.len().div_ceil(5) * 8);
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = buf.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(char::from(ALPHABET[(n >> (35 - i * 5)) as usize & 31]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_matches_rfc_4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "MY======"),
            ("fo", "MZXQ===="),
            ("foo", "MZXW6==="),
            ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI======"),
        ] {
            assert_eq!(base32(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn the_response_head_tells_the_truth_about_the_stored_body() {
        let head = HttpHead {
            request: vec![],
            version: "HTTP/1.1".into(),
            response: vec![
                ("content-type".into(), "text/html".into()),
                ("content-encoding".into(), "gzip".into()),
                ("content-length".into(), "31".into()),
            ],
        };
        let text = String::from_utf8(response_head(&head, 200, 120)).unwrap();
        assert_eq!(
            text,
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-crawlscope-original-content-encoding: gzip\r\nx-crawlscope-original-content-length: 31\r\ncontent-length: 120\r\n\r\n"
        );
    }
}

//! CDXJ, the index pywb replays a WARC from: one line per `response`
//! record, `SURT TIMESTAMP {json}`, sorted bytewise as pywb's binary
//! search expects (by SURT, then timestamp). The WARC is streamed; the
//! lines, one per page, are sorted in memory.

use std::io::{self, Read, Write};

use serde::Serialize;

use super::surt::surt_of_url;
use super::warc::payload_digest;
use super::warc_read::{for_each_record, WarcRecord};
use super::ExportError;

/// The JSON of a line, in the order pywb's indexer writes it; numbers as
/// strings, as it writes them.
#[derive(Serialize)]
struct Fields<'a> {
    url: &'a str,
    mime: String,
    status: String,
    digest: String,
    length: String,
    offset: String,
    filename: &'a str,
}

/// Indexes the WARC `input` (named `filename` in the lines) into `w`;
/// the number of lines.
pub fn write(input: impl Read, filename: &str, w: &mut impl Write) -> Result<usize, ExportError> {
    let mut lines = Vec::new();
    for_each_record(input, |record| {
        if let Some(line) = line(&record, filename)? {
            lines.push(line);
        }
        Ok(())
    })
    .map_err(|e| ExportError::Input(format!("{filename}: {e}")))?;
    lines.sort_unstable();
    for line in &lines {
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")?;
    }
    Ok(lines.len())
}

/// The line of a `response` record; None for the other record types.
fn line(record: &WarcRecord, filename: &str) -> io::Result<Option<String>> {
    if record.header("WARC-Type") != Some("response") {
        return Ok(None);
    }
    let invalid = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the response record at byte {}: {what}", record.span.offset),
        )
    };
    let url = record
        .header("WARC-Target-URI")
        .ok_or_else(|| invalid("no WARC-Target-URI"))?;
    let surt = surt_of_url(url).ok_or_else(|| invalid("a WARC-Target-URI that is not a URL"))?;
    let timestamp = record
        .header("WARC-Date")
        .and_then(timestamp)
        .ok_or_else(|| invalid("no valid WARC-Date"))?;
    let http = Http::parse(&record.block);
    let digest = match record.header("WARC-Payload-Digest") {
        Some(d) => d.strip_prefix("sha1:").unwrap_or(d).to_string(),
        None => payload_digest(http.as_ref().map_or(&record.block[..], |h| h.payload)),
    };
    let mime = match &http {
        Some(h) => h.mime.clone(),
        None => record.header("Content-Type").map(essence),
    };
    let fields = Fields {
        url,
        mime: mime.unwrap_or_else(|| "unk".to_string()),
        status: http.map_or_else(|| "-".to_string(), |h| h.status),
        digest,
        length: record.span.length.to_string(),
        offset: record.span.offset.to_string(),
        filename,
    };
    let json = serde_json::to_string(&fields).map_err(io::Error::other)?;
    Ok(Some(format!("{surt} {timestamp} {json}")))
}

/// The HTTP response a record's block holds.
struct Http<'a> {
    status: String,
    mime: Option<String>,
    payload: &'a [u8],
}

impl<'a> Http<'a> {
    /// None when the block is not an HTTP response.
    fn parse(block: &'a [u8]) -> Option<Http<'a>> {
        let end = memchr::memmem::find(block, b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&block[..end]);
        let mut lines = head.split("\r\n");
        let status = lines
            .next()?
            .strip_prefix("HTTP/")?
            .split(' ')
            .nth(1)?
            .to_string();
        let mime = lines.find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-type")
                .then(|| essence(value))
        });
        Some(Http {
            status,
            mime,
            payload: &block[end + 4..],
        })
    }
}

/// A media type without its parameters, lower-cased.
fn essence(content_type: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

/// A WARC-Date's first 14 digits: `YYYYMMDDhhmmss`.
fn timestamp(date: &str) -> Option<String> {
    let digits: String = date.chars().filter(char::is_ascii_digit).take(14).collect();
    (digits.len() == 14).then_some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warc_date_becomes_fourteen_digits() {
        assert_eq!(
            timestamp("2024-06-01T12:34:56Z").as_deref(),
            Some("20240601123456")
        );
        assert_eq!(
            timestamp("2024-06-01T12:34:56.789Z").as_deref(),
            Some("20240601123456")
        );
        assert_eq!(timestamp("2024-06-01"), None);
    }

    #[test]
    fn the_http_head_gives_status_and_mime() {
        let block = b"HTTP/1.1 404 Not Found\r\nContent-Type: Text/HTML; charset=utf-8\r\n\r\nbody";
        let http = Http::parse(block).unwrap();
        assert_eq!(http.status, "404");
        assert_eq!(http.mime.as_deref(), Some("text/html"));
        assert_eq!(http.payload, b"body");
        assert!(Http::parse(b"not http\r\n\r\n").is_none());
    }
}

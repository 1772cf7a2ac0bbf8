//! Turns a fetched response into what the writer stores: the page record,
//! analysed body and title terms, meta tags, the compressed body and the
//! links found. CPU work: the engine runs it off the async reactor.

use rustc_hash::FxHashMap as HashMap;

use url::Url;

use super::fetch::Response;
use crate::html::{self, Document};
use crate::index::Analyzer;
use crate::store::{compress_body, PageRecord, PageWrite, TermPositions};

/// A parsed page, ready for the writer.
pub struct ParsedPage {
    pub write: PageWrite,
    pub links: Vec<Url>,
}

/// What kind of body a content type announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Html,
    Text,
    Other,
}

pub fn body_kind(content_type: Option<&str>) -> BodyKind {
    let essence = content_type
        .and_then(|c| c.split(';').next())
        .map(|s| s.trim().to_ascii_lowercase());
    match essence.as_deref() {
        // A server that names no type usually sends HTML.
        None | Some("") | Some("text/html") | Some("application/xhtml+xml") => BodyKind::Html,
        Some("text/plain") => BodyKind::Text,
        _ => BodyKind::Other,
    }
}

/// Unix seconds of an HTTP date, if it is one.
pub fn http_time(s: Option<&str>) -> Option<i64> {
    let t = httpdate::parse_http_date(s?).ok()?;
    let secs = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs).ok()
}

pub fn parse(resp: &Response, url: &Url, depth: u32, fetched_at: i64) -> ParsedPage {
    let ct = resp.content_type.as_deref();
    let ok = (200..300).contains(&resp.status);
    let doc = match (ok, body_kind(ct)) {
        (true, BodyKind::Html) => html::parse_html(&resp.body, ct, url),
        (true, BodyKind::Text) => html::parse_text(&resp.body, ct),
        _ => Document::default(),
    };
    let analyzer = Analyzer::global();
    // Per stem: its positions, and the word as first written on the page
    // (empty when that is the stem itself), the page's vote for how the
    // word is shown.
    let mut body_terms: HashMap<String, (Vec<u32>, String)> = HashMap::default();
    let token_count = analyzer.analyze_forms(&doc.text, 0, |stem, form, pos| {
        match body_terms.get_mut(stem) {
            Some((v, _)) => v.push(pos),
            None => {
                let form = if form == stem {
                    String::new()
                } else {
                    form.to_string()
                };
                body_terms.insert(stem.to_string(), (vec![pos], form));
            }
        }
    });
    let mut title_terms: HashMap<String, Vec<u32>> = HashMap::default();
    if let Some(t) = &doc.title {
        analyzer.analyze(t, 0, |stem, pos| {
            title_terms.entry(stem.to_string()).or_default().push(pos);
        });
    }
    let last_modified = http_time(resp.last_modified.as_deref())
        .or_else(|| http_time(resp.date.as_deref()))
        .unwrap_or(fetched_at);
    let record = PageRecord {
        title: doc.title,
        status: resp.status,
        size: resp.content_length.unwrap_or(resp.body.len() as u64),
        last_modified,
        last_modified_header: resp
            .last_modified
            .clone()
            .filter(|s| http_time(Some(s)).is_some()),
        etag: resp.etag.clone(),
        fetched_at,
        depth,
        content_hash: xxhash_rust::xxh3::xxh3_64(&resp.body),
        truncated: resp.truncated,
        token_count,
        ..Default::default()
    };
    // Every 2xx body is kept, whatever its type (`crawlscope body URL`
    // returns it exactly); only HTML and text are indexed.
    let keep_body = ok;
    let mut body: Vec<(String, (Vec<u32>, String))> = body_terms.into_iter().collect();
    body.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let (terms, forms): (TermPositions, Vec<String>) = body
        .into_iter()
        .map(|(stem, (positions, form))| ((stem, positions), form))
        .unzip();
    ParsedPage {
        write: PageWrite {
            record,
            content_type: resp.content_type.clone().unwrap_or_default(),
            meta: doc.meta,
            compressed_body: if keep_body {
                compress_body(&resp.body)
            } else {
                Vec::new()
            },
            forms,
            terms,
            title_terms: into_sorted(title_terms),
        },
        links: doc.links,
    }
}

fn into_sorted(map: HashMap<String, Vec<u32>>) -> TermPositions {
    let mut v: TermPositions = map.into_iter().collect();
    v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_pick_the_parser() {
        assert_eq!(body_kind(Some("text/html; charset=utf-8")), BodyKind::Html);
        assert_eq!(body_kind(Some("TEXT/PLAIN")), BodyKind::Text);
        assert_eq!(body_kind(Some("application/pdf")), BodyKind::Other);
        assert_eq!(body_kind(None), BodyKind::Html);
    }

    #[test]
    fn http_dates_parse_and_garbage_does_not() {
        assert_eq!(http_time(Some("Thu, 01 Jan 1970 00:01:40 GMT")), Some(100));
        assert_eq!(http_time(Some("yesterday")), None);
    }
}

//! Turns a fetched response into what the writer stores: the page record
//! (with its description, headings, canonical link and robots directives
//! from the markup and the headers), analysed body and title terms, meta
//! tags, the compressed body and the links found, with the word ids the
//! store already knows. CPU work: the engine runs it off the async reactor.

use std::sync::Arc;

use url::Url;

use super::exchange::Response;
use crate::custom::CustomRules;
use crate::html::{self, Document, Link, MetaTag};
use crate::index::minhash::{Shingler, Signature};
use crate::index::Analyzer;
use crate::store::{
    Dictionaries, DictionaryKind, DirectiveSource, HttpHead, KnownWords, PageRecord, PageText,
    PageWrite, Store, Terms, TermsBuilder,
};

/// What the parser threads take from the store.
#[derive(Clone)]
pub struct FromStore {
    /// To compress the body with.
    pub dictionaries: Arc<Dictionaries>,
    /// To resolve the terms' word ids with.
    pub known_words: KnownWords,
}

impl FromStore {
    pub fn of(store: &Store) -> FromStore {
        FromStore {
            dictionaries: store.dictionaries(),
            known_words: store.known_words(),
        }
    }
}

/// A parsed page, ready for the writer.
pub struct ParsedPage {
    pub write: PageWrite,
    pub links: Vec<Link>,
    /// Every link as written, by index in `links`.
    pub occurrences: Vec<crate::html::Occurrence>,
    /// Its near-duplicate signature and why its text could not be read.
    pub text: PageText,
    /// Ids and fragment links, kept when the run checks fragments.
    pub fragments: crate::html::PageFragments,
    /// What the page loads (images, scripts, ...), for the checks.
    pub resources: Vec<crate::html::resources::Resource>,
    /// How a rendering point's page was rendered (`--render`).
    pub render: Option<Box<crate::render::PageRender>>,
    /// Why an answer that is not 2xx failed: its reason phrase.
    pub reason: Option<String>,
}

/// What kind of body a content type announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Html,
    Text,
    Other,
    Pdf,
    /// Read through its HTML (`html::markdown`), stored as sent.
    Markdown,
}

pub fn body_kind(content_type: Option<&str>) -> BodyKind {
    let essence = content_type
        .and_then(|c| c.split(';').next())
        .map(|s| s.trim().to_ascii_lowercase());
    match essence.as_deref() {
        // A server that names no type usually sends HTML.
        None | Some("") | Some("text/html") | Some("application/xhtml+xml") => BodyKind::Html,
        Some("text/plain") => BodyKind::Text,
        Some("application/pdf") => BodyKind::Pdf,
        Some("text/markdown") => BodyKind::Markdown,
        _ => BodyKind::Other,
    }
}

/// Unix seconds of an HTTP date, if it is one.
pub fn http_time(s: Option<&str>) -> Option<i64> {
    let t = httpdate::parse_http_date(s?).ok()?;
    let secs = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs).ok()
}

/// Where and when a response was fetched.
pub struct At<'a> {
    pub url: &'a Url,
    pub depth: u32,
    pub fetched_at: i64,
    /// The crawl point's (its stopwords).
    pub analyzer: &'a Analyzer,
    /// False only when a benchmark turned bodies off: none is compressed.
    pub keep_body: bool,
    /// The crawl point's `--extract`/`--search` rules, if it has any.
    pub custom: Option<&'a CustomRules>,
}

/// Parses a response; `agent` is our robots.txt product token (a `<meta
/// name=AGENT>` or `X-Robots-Tag: AGENT: ...` speaks to us).
pub fn parse(resp: &Response, at: At<'_>, agent: &str, store: &FromStore) -> ParsedPage {
    let At {
        url,
        depth,
        fetched_at,
        analyzer,
        keep_body,
        custom,
    } = at;
    let ct = resp.content_type.as_deref();
    let ok = (200..300).contains(&resp.status);
    let kind = body_kind(ct);
    let html_page = ok && kind == BodyKind::Html;
    let (doc, text_error) = read_body(resp, ok, kind, url);
    let analysed = analyse(&doc, analyzer, html_page, &store.known_words);
    let meta_says =
        |directive| meta_directive(&doc.meta, agent, directive).then_some(DirectiveSource::Meta);
    let header_says = |directive| {
        resp.header_values("x-robots-tag")
            .any(|v| header_directive(v, agent, directive))
            .then_some(DirectiveSource::Header)
    };
    let record = PageRecord {
        noindex: meta_says("noindex").or_else(|| header_says("noindex")),
        nofollow: meta_says("nofollow").or_else(|| header_says("nofollow")),
        canonical: doc
            .canonical
            .as_ref()
            .map(Url::to_string)
            .or_else(|| link_header_canonical(resp, url)),
        description: doc.description,
        h1: doc.h1,
        title: doc.title,
        ..response_record(resp, fetched_at, depth, analysed.token_count)
    };
    // Every 2xx body is kept, whatever its type (`crawlscope body URL`
    // returns it exactly); only HTML, text and PDF are indexed.
    let keep_body = ok && keep_body;
    // What the page names without linking to it is checked like what it
    // loads.
    let mut resources = doc.resources;
    resources.extend(html::audit_facts::target_resources(
        record.canonical.as_deref(),
        &doc.audit,
        url,
    ));
    ParsedPage {
        write: PageWrite {
            record,
            content_type: resp.content_type.clone().unwrap_or_default(),
            meta: doc.meta,
            compressed_body: if keep_body {
                store
                    .dictionaries
                    .compress(DictionaryKind::Body, &resp.body)
            } else {
                Vec::new()
            },
            terms: analysed.terms,
            title_terms: analysed.title_terms,
            head: Some(HttpHead {
                request: resp.request_headers.clone(),
                version: resp.version.clone(),
                response: resp.headers.clone(),
            }),
            audit: html_page.then_some(crate::store::PageAudit {
                h2: doc.h2,
                facts: doc.audit,
            }),
            // Decoded again only for a point with rules of its own.
            custom: custom
                .filter(|_| html_page)
                .map(|rules| rules.apply(&html::decode(&resp.body, ct))),
        },
        links: doc.links,
        occurrences: doc.occurrences,
        text: PageText {
            signature: analysed.signature,
            text_error,
        },
        fragments: doc.fragments,
        resources,
        render: None,
        reason: (!ok).then(|| super::reason::phrase(resp.status, resp.reason.as_deref())),
    }
}

/// The document a body reads as, and why a PDF's text could not be read;
/// an answer that is not 2xx, or a type not read, is an empty document.
fn read_body(resp: &Response, ok: bool, kind: BodyKind, url: &Url) -> (Document, Option<String>) {
    let ct = resp.content_type.as_deref();
    let mut text_error = None;
    let doc = match (ok, kind) {
        (true, BodyKind::Html) => html::parse_html(&resp.body, ct, url),
        (true, BodyKind::Text) => html::parse_text(&resp.body, ct),
        (true, BodyKind::Markdown) => {
            let html = html::markdown::to_html(&resp.body);
            html::parse_html(html.as_bytes(), Some("text/html; charset=utf-8"), url)
        }
        (true, BodyKind::Pdf) => {
            html::pdf::parse_pdf(&resp.body, resp.truncated).unwrap_or_else(|why| {
                text_error = Some(why);
                Document::default()
            })
        }
        _ => Document::default(),
    };
    (doc, text_error)
}

/// A document's analysed text.
struct Analysed {
    /// The body's and the title's terms, with the word ids the store knows.
    terms: Terms,
    title_terms: Terms,
    token_count: u32,
    /// Only for an HTML page.
    signature: Option<Signature>,
}

fn analyse(doc: &Document, analyzer: &Analyzer, html_page: bool, known: &KnownWords) -> Analysed {
    // The first form a page writes a word in is its vote for how the word
    // is shown.
    let mut body = TermsBuilder::for_text(&doc.text);
    // Near-duplicates are an HTML audit: only pages get a signature.
    let mut shingles = html_page.then(Shingler::default);
    let token_count = analyzer.analyze_forms(&doc.text, 0, |stem, form, pos| {
        body.add(stem, form, pos);
        if let Some(s) = &mut shingles {
            s.push(stem);
        }
    });
    let mut title = TermsBuilder::default();
    if let Some(t) = &doc.title {
        // Only the body votes for forms.
        analyzer.analyze(t, 0, |stem, pos| title.add(stem, stem, pos));
    }
    let (mut terms, mut title_terms) = (body.finish(), title.finish());
    known.resolve(&mut terms);
    known.resolve(&mut title_terms);
    Analysed {
        terms,
        title_terms,
        token_count,
        signature: shingles.and_then(|s| s.finish()),
    }
}

/// What the response itself says of the page: status, size, dates, ETag,
/// timing and hash; the markup's fields are the caller's.
fn response_record(resp: &Response, fetched_at: i64, depth: u32, token_count: u32) -> PageRecord {
    PageRecord {
        response_ms: u32::try_from(resp.elapsed.as_millis()).unwrap_or(u32::MAX),
        status: resp.status,
        size: resp.content_length.unwrap_or(resp.body.len() as u64),
        last_modified: http_time(resp.last_modified.as_deref())
            .or_else(|| http_time(resp.date.as_deref()))
            .unwrap_or(fetched_at),
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
    }
}

/// Whether a `<meta name=robots>` (or one named for our agent) says
/// `directive`; `none` says both noindex and nofollow.
fn meta_directive(meta: &[MetaTag], agent: &str, directive: &str) -> bool {
    meta.iter()
        .filter(|m| m.attr == "name" && (m.name == "robots" || m.name.eq_ignore_ascii_case(agent)))
        .any(|m| says(&m.content, directive))
}

/// Whether one `X-Robots-Tag` value says `directive` to us: unprefixed, or
/// prefixed with our agent (`crawlscope: noindex`); a value prefixed with
/// another crawler's name is not ours.
fn header_directive(value: &str, agent: &str, directive: &str) -> bool {
    let rules = match value.split_once(':') {
        Some((head, rest)) if !is_directive_with_value(head) => {
            if !head.trim().eq_ignore_ascii_case(agent) {
                return false;
            }
            rest
        }
        _ => value,
    };
    says(rules, directive)
}

/// Directives that carry their own `name: value` (not an agent prefix).
fn is_directive_with_value(head: &str) -> bool {
    let head = head.trim().to_ascii_lowercase();
    matches!(
        head.as_str(),
        "unavailable_after" | "max-snippet" | "max-image-preview" | "max-video-preview"
    )
}

fn says(rules: &str, directive: &str) -> bool {
    rules
        .split(',')
        .map(str::trim)
        .any(|r| r.eq_ignore_ascii_case(directive) || r.eq_ignore_ascii_case("none"))
}

/// The target of a `Link: <URL>; rel="canonical"` header, resolved.
fn link_header_canonical(resp: &Response, url: &Url) -> Option<String> {
    resp.header_values("link")
        .flat_map(|v| v.split('<').skip(1))
        .find_map(|entry| {
            let (target, params) = entry.split_once('>')?;
            let canonical = params.split(';').any(|p| {
                p.trim().strip_prefix("rel=").is_some_and(|rel| {
                    rel.trim_matches('"')
                        .split_whitespace()
                        .any(|t| t.eq_ignore_ascii_case("canonical"))
                })
            });
            canonical
                .then(|| crate::url::resolve(url, target.trim()).ok())
                .flatten()
                .map(|u| u.to_string())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_pick_the_parser() {
        assert_eq!(body_kind(Some("text/html; charset=utf-8")), BodyKind::Html);
        assert_eq!(body_kind(Some("TEXT/PLAIN")), BodyKind::Text);
        assert_eq!(body_kind(Some("application/pdf")), BodyKind::Pdf);
        assert_eq!(body_kind(Some("image/png")), BodyKind::Other);
        assert_eq!(body_kind(None), BodyKind::Html);
    }

    #[test]
    fn robots_directives_speak_to_us_or_to_everyone() {
        assert!(header_directive(
            "noindex, nofollow",
            "crawlscope",
            "nofollow"
        ));
        assert!(header_directive("none", "crawlscope", "noindex"));
        assert!(header_directive(
            "Crawlscope: noindex",
            "crawlscope",
            "noindex"
        ));
        assert!(!header_directive(
            "googlebot: noindex",
            "crawlscope",
            "noindex"
        ));
        assert!(!header_directive(
            "unavailable_after: 2030-01-01",
            "crawlscope",
            "noindex"
        ));
        assert!(!header_directive("noarchive", "crawlscope", "noindex"));
        let meta = |name: &str, content: &str| MetaTag {
            attr: "name".into(),
            name: name.into(),
            content: content.into(),
        };
        assert!(meta_directive(
            &[meta("robots", "NOINDEX")],
            "crawlscope",
            "noindex"
        ));
        assert!(meta_directive(
            &[meta("crawlscope", "nofollow")],
            "crawlscope",
            "nofollow"
        ));
        assert!(!meta_directive(
            &[meta("googlebot", "noindex")],
            "crawlscope",
            "noindex"
        ));
    }

    #[test]
    fn canonical_from_a_link_header() {
        let url = Url::parse("http://h/a/b").unwrap();
        let resp = |link: &str| Response {
            status: 200,
            headers: vec![("link".into(), link.into())],
            version: "HTTP/1.1".into(),
            ..Response::default()
        };
        let got = |link: &str| link_header_canonical(&resp(link), &url);
        assert_eq!(
            got(r#"</c>; rel="canonical""#).as_deref(),
            Some("http://h/c")
        );
        assert_eq!(
            got(r#"<http://x/s.css>; rel=preload, <../d>; rel="alternate canonical""#).as_deref(),
            Some("http://h/d")
        );
        assert_eq!(got(r#"</c>; rel="alternate""#), None);
    }

    #[test]
    fn http_dates_parse_and_garbage_does_not() {
        assert_eq!(http_time(Some("Thu, 01 Jan 1970 00:01:40 GMT")), Some(100));
        assert_eq!(http_time(Some("yesterday")), None);
    }
}

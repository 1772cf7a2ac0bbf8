//! The page object: what `page --json` prints, one line of `export
//! --format jsonl` holds, and the parts every face and format shares —
//! keywords shown as words, MIME types as strings, the reason a URL failed
//! or was skipped, a body's size and whether it was cut, the URLs of page
//! ids.

use serde::Serialize;

use super::inlinks::Inlinks;
use super::url_parts::{self, UrlPartsJson};
use crate::render::facts::PageRenderJson;
use crate::report::indexability::{classify, is_html, Facts, Indexability};
use crate::report::link_depth::LinkDepths;
use crate::report::pixels::{width_px, DESCRIPTION_FONT_PX, TITLE_FONT_PX};
use crate::store::prelude::*;
use crate::store::{
    DirectiveSource, ExternalCheck, MimeRecord, PageId, PageRecord, Reader, StoreError, UrlState,
};
use crate::time::rfc3339;

/// Keywords shown for one page.
pub const PAGE_KEYWORDS: usize = 10;

/// Parents `page` lists unless told otherwise.
pub const PAGE_PARENTS: usize = 100;
/// What every face shows for a page without a title.
pub const UNTITLED: &str = "(untitled)";

#[derive(Serialize)]
pub struct KeywordJson {
    /// As most pages write it (lowercased).
    pub word: String,
    pub stem: String,
    pub freq: u32,
}

#[derive(Serialize)]
pub struct MetaJson {
    pub name: String,
    pub content: String,
    /// The attribute that names the tag: name, property, http-equiv,
    /// itemprop or charset.
    pub attr: String,
}

/// A link of the page, as written on it: one occurrence.
#[derive(Serialize)]
pub struct LinkJson {
    pub url: String,
    pub anchor: String,
    pub nofollow: bool,
    /// Its kept `rel` tokens, space-separated in a fixed order.
    pub rel: String,
    /// `a`, `area`, `frame` or `iframe`.
    pub element: &'static str,
    /// `nav`, `header`, `footer`, `aside` or `content`.
    pub position: &'static str,
    pub fragment: Option<String>,
    /// 1 for the page's first link to that URL, 2 for its second, ...
    pub occurrence: u32,
}

/// The `page --json` object (also one line of `export --format jsonl`).
/// Fields a seen-but-unfetched URL lacks are null.
#[derive(Serialize)]
pub struct PageJson {
    pub id: PageId,
    pub url: String,
    /// The URL in parts, as stored.
    pub parts: Option<UrlPartsJson>,
    /// `UrlState::label()`; "seen" for a URL that was linked but never
    /// considered for fetching (e.g. a link on an error page).
    pub state: String,
    /// Why the URL failed or was skipped: a 4xx/5xx's reason phrase (the
    /// server's own, else the standard one), or the failure's name.
    pub reason: Option<String>,
    pub redirect_to: Option<String>,
    /// The redirect's status code (301, 302, 303, 307, 308).
    pub redirect_status: Option<u16>,
    pub title: Option<String>,
    pub status: Option<u16>,
    pub mime: Option<String>,
    /// The body's bytes: as announced (Content-Length), else as received;
    /// the bytes kept when the body was cut.
    pub size: Option<u64>,
    /// The body was cut at `--max-body-bytes`.
    pub truncated: Option<bool>,
    /// What the server announced of a cut body, when it did.
    pub full_size: Option<u64>,
    pub last_modified: Option<String>,
    /// Where `last_modified` comes from: `header` (Last-Modified), `date`
    /// (the server's Date) or `fetch` (our clock at fetch time).
    pub last_modified_source: Option<&'static str>,
    pub fetched_at: Option<String>,
    /// Link depth (`crate::report::link_depth`): None when no link
    /// reaches the URL.
    pub depth: Option<u32>,
    /// How the crawl can have found the URL: `start`, `link`, `redirect`,
    /// `sitemap`.
    pub found_in: Vec<&'static str>,
    pub response_ms: Option<u32>,
    /// Words of the body, stopwords included (what phrase positions count).
    pub word_count: Option<u32>,
    pub description: Option<String>,
    pub h1: Vec<String>,
    pub canonical: Option<String>,
    /// Where a noindex / nofollow directive was found: "meta" or "header".
    pub noindex: Option<&'static str>,
    pub nofollow: Option<&'static str>,
    /// xxh3-64 of the body, 16 hex digits.
    pub content_hash: Option<String>,
    pub keywords: Vec<KeywordJson>,
    pub meta: Vec<MetaJson>,
    /// The first parents by page id (`page --parents`; the export lists
    /// all).
    pub parents: Vec<String>,
    /// How many other pages link to this one or load it: its inlinks.
    pub parent_count: usize,
    /// The same count, by the name every export gives it.
    pub inlinks: usize,
    /// The page's links to itself, not among its inlinks.
    pub self_links: u32,
    /// The sitemap that listed the page (a page only a sitemap leads to
    /// has no parents).
    pub from_sitemap: Option<String>,
    pub children: Vec<String>,
    /// Every link of the page, in page order (`children` has each
    /// target once).
    pub links: Vec<LinkJson>,
    /// What `--check-external` found of an out-of-scope URL.
    pub external_check: Option<ExternalCheckJson>,
    /// Why a fetched document's text (a PDF's) could not be read; absent
    /// when it could, or when the page is not such a document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_error: Option<String>,
    /// `indexable` or why not (`report indexability`); null for what is
    /// not a page (an image, a URL out of scope).
    pub indexability: Option<&'static str>,
    /// The page's link score, 0-100 (`report links`), as of the latest
    /// runs; null for a URL not fetched in them.
    pub link_score: Option<f64>,
    /// The title's and description's widths in search results, in pixels.
    pub title_px: Option<u32>,
    pub description_px: Option<u32>,
    /// What the page loads, with each resource's checked status.
    pub resources: Vec<ResourceJson>,
    /// The structured data its markup declares (null: not an HTML page
    /// fetched with a 2xx).
    pub structured_data: Option<StructuredDataJson>,
    /// How the page was rendered (`--render`), beside its own fields.
    #[serde(flatten)]
    pub render: PageRenderJson,
    /// The documents it belongs to (`documents::Membership`, which the
    /// caller builds once for every page it reads).
    pub docs: Vec<String>,
    /// What the fetching point's `--extract` rules kept, by rule name.
    pub extract: std::collections::BTreeMap<String, Vec<String>>,
}

/// A resource of the page: its URL, the element that loads it and the
/// status its check answered (null: no answer, or not checked).
#[derive(Serialize)]
pub struct ResourceJson {
    pub url: String,
    pub element: &'static str,
    pub status: Option<u16>,
}

/// The `@type`s of a page's JSON-LD scripts, its microdata `itemtype`s,
/// and whether it has RDFa attributes.
#[derive(Serialize)]
pub struct StructuredDataJson {
    pub jsonld: Vec<String>,
    pub microdata: Vec<String>,
    pub rdfa: bool,
}

impl From<crate::html::audit_facts::AuditFacts> for StructuredDataJson {
    fn from(f: crate::html::audit_facts::AuditFacts) -> Self {
        StructuredDataJson {
            jsonld: f.jsonld,
            microdata: f.microdata,
            rdfa: f.rdfa,
        }
    }
}

/// The resources `page` loads, in page order (what it only names, its
/// canonical or alternates, is no resource of it).
pub fn resources_json(r: &Reader<'_>, page: PageId) -> Result<Vec<ResourceJson>, StoreError> {
    let mut out = Vec::new();
    for l in r
        .resources(page)?
        .into_iter()
        .filter(|l| !l.element.is_target())
    {
        if let Some(url) = r.url_of(l.target)? {
            out.push(ResourceJson {
                url,
                element: l.element.as_str(),
                status: r.resource_check(l.target)?.and_then(|c| c.status),
            });
        }
    }
    Ok(out)
}

/// An out-of-scope link target's check: the status it answered (null when
/// none came) and why it is broken (null when it works).
#[derive(Serialize)]
pub struct ExternalCheckJson {
    pub status: Option<u16>,
    pub reason: Option<String>,
    pub checked_at: String,
}

impl From<ExternalCheck> for ExternalCheckJson {
    fn from(c: ExternalCheck) -> Self {
        ExternalCheckJson {
            status: c.status,
            reason: c.reason,
            checked_at: rfc3339(c.checked_at),
        }
    }
}

/// A fetched body's size, and what the server announced when it was cut.
pub struct BodySize {
    pub size: u64,
    pub full_size: Option<u64>,
}

/// The size of page `id`'s body. A record's size is the announced
/// Content-Length, else the bytes received; for a body cut at
/// `--max-body-bytes` those differ, so its size is the bytes kept (the
/// stored body, exactly as the WARC export writes it) and the announced
/// size, when larger, is its full size.
pub fn body_size(r: &Reader<'_>, id: PageId, record: &PageRecord) -> Result<BodySize, StoreError> {
    if !record.truncated {
        return Ok(BodySize {
            size: record.size,
            full_size: None,
        });
    }
    let kept = r.body(id)?.map_or(record.size, |b| b.len() as u64);
    Ok(BodySize {
        size: kept,
        full_size: (record.size > kept).then_some(record.size),
    })
}

pub fn mime_string(m: &MimeRecord) -> String {
    let mut s = m.essence.clone();
    for (k, v) in &m.params {
        s.push_str(&format!("; {k}={v}"));
    }
    s
}

/// URLs of page ids, skipping any id without a URL record.
pub fn urls(r: &Reader<'_>, ids: &[PageId]) -> Result<Vec<String>, StoreError> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        out.extend(r.url_of(id)?);
    }
    Ok(out)
}

pub fn keywords_json(r: &Reader<'_>, id: PageId, n: usize) -> Result<Vec<KeywordJson>, StoreError> {
    Ok(crate::search::keywords(r, id, n)?
        .into_iter()
        .map(|k| KeywordJson {
            word: k.word,
            stem: k.stem,
            freq: k.tf,
        })
        .collect())
}

/// Everything about page `id` (whose URL is `url`), with its top
/// `keywords` keywords and its first `parents` parents: only those are
/// turned into URLs (the home page of a large site has a parent a page).
pub fn page_json(
    r: &Reader<'_>,
    id: PageId,
    url: String,
    keywords: usize,
    parents: usize,
    inlinks: &Inlinks,
    depths: &LinkDepths,
) -> Result<PageJson, StoreError> {
    let parent_ids = inlinks.of(r, id)?;
    let from_sitemap = r.listed_by_sitemap(id)?;
    // Queued again, a URL reads as what an earlier run found of it.
    let state = r.url_state(id)?.map(UrlState::known);
    let (redirect_to, redirect_status) = match &state {
        Some(UrlState::Redirected { to, status, .. }) => (r.url_of(*to)?, Some(*status)),
        _ => (None, None),
    };
    let record = r.page(id)?;
    let mime = match &record {
        Some(rec) => r.mime(rec.mime)?.map(|m| mime_string(&m)),
        None => None,
    };
    let (keywords, meta, links) = if record.is_some() {
        let meta = meta_json(r, id)?;
        let links = links_json(r, id)?;
        (keywords_json(r, id, keywords)?, meta, links)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    let children = urls(r, &r.children(id)?)?;
    // Not fetched as a page: what its resource or external check found.
    let checked = super::target::unfetched(r, id, state.as_ref(), record.is_some())?;
    let size = match &record {
        Some(rec) => Some(body_size(r, id, rec)?),
        None => None,
    };
    // A check's answer says more than why the URL was not crawled.
    let reason = checked
        .as_ref()
        .and_then(|c| c.reason.clone())
        .or_else(|| super::target::reason(state.as_ref(), record.as_ref()));
    let indexability = indexability(r, state.as_ref(), record.as_ref(), &url)?;
    Ok(PageJson {
        render: PageRenderJson::of(r.page_render(id)?),
        id,
        url,
        parts: url_parts::parts(r, id)?,
        reason,
        redirect_status,
        state: state.map_or_else(|| "seen".to_string(), |s| s.label()),
        redirect_to,
        title: record.as_ref().and_then(|p| p.title.clone()),
        status: match &checked {
            Some(c) => c.status,
            None => record.as_ref().map(|p| p.status),
        },
        mime,
        size: size.as_ref().map(|s| s.size),
        truncated: record.as_ref().map(|p| p.truncated),
        full_size: size.and_then(|s| s.full_size),
        last_modified: record.as_ref().map(|p| rfc3339(p.last_modified)),
        last_modified_source: record.as_ref().map(PageRecord::last_modified_source),
        fetched_at: record.as_ref().map(|p| rfc3339(p.fetched_at)),
        depth: depths.of(id),
        found_in: depths.found_in(id, !r.inlinks(id)?.is_empty(), from_sitemap.is_some()),
        response_ms: record.as_ref().map(|p| p.response_ms),
        word_count: record.as_ref().map(|p| p.token_count),
        description: record.as_ref().and_then(|p| p.description.clone()),
        h1: record.as_ref().map(|p| p.h1.clone()).unwrap_or_default(),
        canonical: record.as_ref().and_then(|p| p.canonical.clone()),
        noindex: record
            .as_ref()
            .and_then(|p| p.noindex)
            .map(DirectiveSource::as_str),
        nofollow: record
            .as_ref()
            .and_then(|p| p.nofollow)
            .map(DirectiveSource::as_str),
        content_hash: record.as_ref().map(|p| format!("{:016x}", p.content_hash)),
        keywords,
        meta,
        parents: urls(r, &parent_ids[..parent_ids.len().min(parents)])?,
        parent_count: parent_ids.len(),
        inlinks: parent_ids.len(),
        self_links: r.self_links(id)?,
        from_sitemap,
        children,
        links,
        external_check: r.external_check(id)?.map(ExternalCheckJson::from),
        text_error: r.text_error(id)?,
        indexability,
        link_score: None,
        title_px: text_px(
            record.as_ref().and_then(|p| p.title.as_deref()),
            TITLE_FONT_PX,
        ),
        description_px: text_px(
            record.as_ref().and_then(|p| p.description.as_deref()),
            DESCRIPTION_FONT_PX,
        ),
        resources: resources_json(r, id)?,
        structured_data: r.page_audit(id)?.map(|a| StructuredDataJson::from(a.facts)),
        docs: Vec::new(),
        extract: (r.page_custom(id)?.map(|c| c.extract))
            .unwrap_or_default()
            .into_iter()
            .collect(),
    })
}

/// The page's meta tags, in document order.
fn meta_json(r: &Reader<'_>, id: PageId) -> Result<Vec<MetaJson>, StoreError> {
    Ok(r.meta_tags(id)?
        .into_iter()
        .map(|m| MetaJson {
            name: m.name,
            content: m.content,
            attr: m.attr,
        })
        .collect())
}

/// Every link the page makes to a URL the store knows, numbered per
/// target so repeated links to one URL stay apart.
fn links_json(r: &Reader<'_>, id: PageId) -> Result<Vec<LinkJson>, StoreError> {
    let mut links = Vec::new();
    let mut nth: rustc_hash::FxHashMap<PageId, u32> = Default::default();
    for l in r.occurrences(id)? {
        if let Some(url) = r.url_of(l.child)? {
            let n = nth.entry(l.child).or_default();
            *n += 1;
            links.push(LinkJson {
                url,
                anchor: l.anchor,
                nofollow: l.rel.nofollow(),
                rel: l.rel.to_string(),
                element: l.element.as_str(),
                position: l.position.as_str(),
                fragment: l.fragment,
                occurrence: *n,
            });
        }
    }
    Ok(links)
}

/// Whether the page can be indexed, for a URL whose state is known.
fn indexability(
    r: &Reader<'_>,
    state: Option<&UrlState>,
    record: Option<&PageRecord>,
    url: &str,
) -> Result<Option<&'static str>, StoreError> {
    let Some(state) = state else {
        return Ok(None);
    };
    let class: Option<Indexability> = classify(Facts {
        state,
        page: record,
        is_html: |rec: &PageRecord| Ok::<_, StoreError>(is_html(r.mime(rec.mime)?.as_ref())),
        own_url: || Ok(url.to_string()),
    })?;
    Ok(class.map(Indexability::as_str))
}

/// A text's width in search results, when there is one.
fn text_px(text: Option<&str>, font_px: u32) -> Option<u32> {
    text.map(|t| width_px(t, font_px))
}

/// "word freq; word freq": keywords on one line.
pub fn keyword_line(keywords: &[KeywordJson]) -> String {
    keywords
        .iter()
        .map(|k| format!("{} {}", k.word, k.freq))
        .collect::<Vec<_>>()
        .join("; ")
}

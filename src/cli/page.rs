//! `page URL`: everything the store knows of one URL — its crawl state,
//! record, top keywords, meta tags, parents and children. Also the page
//! JSON object and RFC 3339 times that `search` and `export` share.

use serde::Serialize;

use super::{print_json, CliError, CliResult};
use crate::store::prelude::*;
use crate::store::{DirectiveSource, MimeRecord, PageId, PageRecord, Reader, Store, UrlState};
pub(super) use crate::time::rfc3339;
use crate::url::Url;

/// Keywords shown for one page.
pub(crate) const PAGE_KEYWORDS: usize = 10;

#[derive(Serialize)]
pub(crate) struct KeywordJson {
    /// As most pages write it (lowercased).
    pub word: String,
    pub stem: String,
    pub freq: u32,
}

#[derive(Serialize)]
struct MetaJson {
    name: String,
    content: String,
    /// The attribute that names the tag: name, property, http-equiv,
    /// itemprop or charset.
    attr: String,
}

/// A link of the page, as written on it.
#[derive(Serialize)]
struct LinkJson {
    url: String,
    anchor: String,
    nofollow: bool,
}

/// The `page --json` object (also one line of `export --format jsonl`).
/// Fields a seen-but-unfetched URL lacks are null.
#[derive(Serialize)]
pub(crate) struct PageJson {
    id: PageId,
    url: String,
    /// The URL in parts, as stored.
    parts: Option<super::parts::UrlPartsJson>,
    /// `UrlState::label()`; "seen" for a URL that was linked but never
    /// considered for fetching (e.g. a link on an error page).
    state: String,
    /// Why the URL failed or was skipped, or the status line of a 4xx/5xx.
    reason: Option<String>,
    redirect_to: Option<String>,
    /// The redirect's status code (301, 302, 303, 307, 308).
    redirect_status: Option<u16>,
    title: Option<String>,
    status: Option<u16>,
    mime: Option<String>,
    size: Option<u64>,
    last_modified: Option<String>,
    /// Where `last_modified` comes from: `header` (Last-Modified), `date`
    /// (the server's Date) or `fetch` (our clock at fetch time).
    last_modified_source: Option<&'static str>,
    fetched_at: Option<String>,
    depth: Option<u32>,
    response_ms: Option<u32>,
    /// Words of the body, stopwords included (what phrase positions count).
    word_count: Option<u32>,
    description: Option<String>,
    h1: Vec<String>,
    canonical: Option<String>,
    /// Where a noindex / nofollow directive was found: "meta" or "header".
    noindex: Option<&'static str>,
    nofollow: Option<&'static str>,
    /// xxh3-64 of the body, 16 hex digits.
    content_hash: Option<String>,
    keywords: Vec<KeywordJson>,
    meta: Vec<MetaJson>,
    parents: Vec<String>,
    /// The sitemap that listed the page (a page only a sitemap leads to
    /// has no parents).
    from_sitemap: Option<String>,
    children: Vec<String>,
    /// The children with their anchor text and nofollow marks.
    links: Vec<LinkJson>,
}

pub(crate) fn mime_string(m: &MimeRecord) -> String {
    let mut s = m.essence.clone();
    for (k, v) in &m.params {
        s.push_str(&format!("; {k}={v}"));
    }
    s
}

/// URLs of page ids, skipping any id without a URL record.
pub(crate) fn urls(r: &Reader<'_>, ids: &[PageId]) -> Result<Vec<String>, CliError> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        out.extend(r.url_of(id)?);
    }
    Ok(out)
}

pub(crate) fn keywords_json(
    r: &Reader<'_>,
    id: PageId,
    n: usize,
) -> Result<Vec<KeywordJson>, CliError> {
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
/// `keywords` keywords.
pub(crate) fn page_json(
    r: &Reader<'_>,
    id: PageId,
    url: String,
    keywords: usize,
) -> Result<PageJson, CliError> {
    let state = r.url_state(id)?;
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
        let meta = r
            .meta_tags(id)?
            .into_iter()
            .map(|m| MetaJson {
                name: m.name,
                content: m.content,
                attr: m.attr,
            })
            .collect();
        let mut links = Vec::new();
        for l in r.links(id)? {
            if let Some(url) = r.url_of(l.child)? {
                links.push(LinkJson {
                    url,
                    anchor: l.anchor,
                    nofollow: l.nofollow,
                });
            }
        }
        (keywords_json(r, id, keywords)?, meta, links)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    let children = links.iter().map(|l| l.url.clone()).collect();
    let reason = reason(state.as_ref(), record.as_ref());
    Ok(PageJson {
        id,
        url,
        parts: super::parts::parts(r, id)?,
        reason,
        redirect_status,
        state: state.map_or_else(|| "seen".to_string(), |s| s.label()),
        redirect_to,
        title: record.as_ref().and_then(|p| p.title.clone()),
        status: record.as_ref().map(|p| p.status),
        mime,
        size: record.as_ref().map(|p| p.size),
        last_modified: record.as_ref().map(|p| rfc3339(p.last_modified)),
        last_modified_source: record.as_ref().map(PageRecord::last_modified_source),
        fetched_at: record.as_ref().map(|p| rfc3339(p.fetched_at)),
        depth: record.as_ref().map(|p| p.depth),
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
        parents: urls(r, &r.parents(id)?)?,
        from_sitemap: r.listed_by_sitemap(id)?,
        children,
        links,
    })
}

/// Why a URL failed or was skipped, or the status line of a 4xx/5xx page.
pub(crate) fn reason(state: Option<&UrlState>, record: Option<&PageRecord>) -> Option<String> {
    state.and_then(UrlState::reason).or_else(|| {
        record
            .filter(|p| p.status >= 400)
            .map(|p| crate::crawl::status_text(p.status))
    })
}

fn or_dash<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".to_string(), T::to_string)
}

pub(crate) fn keyword_line(keywords: &[KeywordJson]) -> String {
    keywords
        .iter()
        .map(|k| format!("{} {}", k.word, k.freq))
        .collect::<Vec<_>>()
        .join("; ")
}

pub fn run(store: &Store, url: &Url, keywords: usize, json: bool) -> CliResult {
    let r = store.read()?;
    let Some(id) = r.site_page_id(url)? else {
        return Err(CliError::NoSuchPage(
            crate::url::redact(url.as_str()).into(),
        ));
    };
    // The stored form: without any user:password@ that was typed.
    let shown = r.url_of(id)?.unwrap_or_default();
    let p = page_json(&r, id, shown, keywords)?;
    if json {
        return print_json(&p);
    }
    outln!("id             {}", p.id);
    outln!("url            {}", p.url);
    if let Some(parts) = &p.parts {
        outln!("parts          {}", parts.line());
    }
    outln!("state          {}", p.state);
    if let Some(reason) = &p.reason {
        outln!("reason         {reason}");
    }
    if let (Some(to), Some(status)) = (&p.redirect_to, p.redirect_status) {
        outln!(
            "redirect to    {to}  ({})",
            crate::crawl::status_text(status)
        );
    }
    outln!("title          {}", or_dash(&p.title));
    outln!("status         {}", or_dash(&p.status));
    outln!("mime           {}", or_dash(&p.mime));
    outln!(
        "size           {}",
        p.size.map_or_else(|| "-".into(), |s| format!("{s} bytes"))
    );
    let source = match p.last_modified_source {
        Some("header") => "",
        Some("date") => "  (no Last-Modified: the server's Date)",
        Some(_) => "  (no Last-Modified: the fetch time)",
        None => "",
    };
    outln!("last modified  {}{source}", or_dash(&p.last_modified));
    outln!("fetched at     {}", or_dash(&p.fetched_at));
    outln!("depth          {}", or_dash(&p.depth));
    if let Some(ms) = p.response_ms {
        outln!("response       {ms} ms");
    }
    if let Some(n) = p.word_count {
        outln!("words          {n}");
    }
    if let Some(d) = &p.description {
        outln!("description    {d}");
    }
    for h in &p.h1 {
        outln!("h1             {h}");
    }
    if let Some(c) = &p.canonical {
        outln!("canonical      {c}");
    }
    for (what, source) in [("noindex", p.noindex), ("nofollow", p.nofollow)] {
        if let Some(source) = source {
            outln!("directive      {what} (from the {source})");
        }
    }
    outln!("keywords       {}", keyword_line(&p.keywords));
    for m in &p.meta {
        outln!("meta           {} {}: {}", m.attr, m.name, m.content);
    }
    outln!("parents ({})", p.parents.len());
    for u in &p.parents {
        outln!("  {u}");
    }
    if let Some(sitemap) = &p.from_sitemap {
        outln!("  from sitemap {sitemap}");
    }
    outln!("children ({})", p.links.len());
    for l in &p.links {
        let mark = if l.nofollow { "  [nofollow]" } else { "" };
        if l.anchor.is_empty() {
            outln!("  {}{mark}", l.url);
        } else {
            outln!("  {}  \"{}\"{mark}", l.url, l.anchor);
        }
    }
    Ok(())
}

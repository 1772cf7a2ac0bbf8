//! `page URL`: everything the store knows of one URL — its crawl state,
//! record, top keywords, meta tags, parents and children. Also the page
//! JSON object and RFC 3339 times that `search` and `export` share.

use serde::Serialize;

use super::{print_json, CliError, CliResult};
use crate::store::prelude::*;
use crate::store::{MimeRecord, PageId, Reader, Store, UrlState};
use crate::url::Url;

/// Keywords shown for one page.
pub(super) const PAGE_KEYWORDS: usize = 10;

#[derive(Serialize)]
pub(super) struct KeywordJson {
    pub word: String,
    pub freq: u32,
}

#[derive(Serialize)]
struct MetaJson {
    name: String,
    content: String,
}

/// The `page --json` object (also one line of `export --format jsonl`).
/// Fields a seen-but-unfetched URL lacks are null.
#[derive(Serialize)]
pub(super) struct PageJson {
    id: PageId,
    url: String,
    /// `UrlState::label()`; "seen" for a URL that was linked but never
    /// considered for fetching (e.g. a link on an error page).
    state: String,
    redirect_to: Option<String>,
    title: Option<String>,
    status: Option<u16>,
    mime: Option<String>,
    size: Option<u64>,
    last_modified: Option<String>,
    fetched_at: Option<String>,
    depth: Option<u32>,
    keywords: Vec<KeywordJson>,
    meta: Vec<MetaJson>,
    parents: Vec<String>,
    children: Vec<String>,
}

/// Unix seconds as RFC 3339 in UTC (`2024-06-01T00:00:00Z`), clamped to the
/// years RFC 3339 can write (0000–9999).
pub(super) fn rfc3339(secs: i64) -> String {
    const MIN: i64 = -62_167_219_200; // 0000-01-01T00:00:00Z
    const MAX: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z
    let secs = secs.clamp(MIN, MAX);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    )
}

/// Howard Hinnant's days-since-epoch → proleptic Gregorian (y, m, d).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

pub(super) fn mime_string(m: &MimeRecord) -> String {
    let mut s = m.essence.clone();
    for (k, v) in &m.params {
        s.push_str(&format!("; {k}={v}"));
    }
    s
}

/// URLs of page ids, skipping any id without a URL record.
pub(super) fn urls(r: &Reader<'_>, ids: &[PageId]) -> Result<Vec<String>, CliError> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        out.extend(r.url_of(id)?);
    }
    Ok(out)
}

pub(super) fn keywords_json(
    r: &Reader<'_>,
    id: PageId,
    n: usize,
) -> Result<Vec<KeywordJson>, CliError> {
    Ok(crate::search::keywords(r, id, n)?
        .into_iter()
        .map(|(word, freq)| KeywordJson { word, freq })
        .collect())
}

/// Everything about page `id` (whose URL is `url`).
pub(super) fn page_json(r: &Reader<'_>, id: PageId, url: String) -> Result<PageJson, CliError> {
    let state = r.url_state(id)?;
    let redirect_to = match &state {
        Some(UrlState::Redirected { to, .. }) => r.url_of(*to)?,
        _ => None,
    };
    let record = r.page(id)?;
    let mime = match &record {
        Some(rec) => r.mime(rec.mime)?.map(|m| mime_string(&m)),
        None => None,
    };
    let (keywords, meta, children) = if record.is_some() {
        let meta = r
            .meta_tags(id)?
            .into_iter()
            .map(|(name, content)| MetaJson { name, content })
            .collect();
        (
            keywords_json(r, id, PAGE_KEYWORDS)?,
            meta,
            urls(r, &r.children(id)?)?,
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    Ok(PageJson {
        id,
        url,
        state: state.map_or_else(|| "seen".to_string(), |s| s.label()),
        redirect_to,
        title: record.as_ref().and_then(|p| p.title.clone()),
        status: record.as_ref().map(|p| p.status),
        mime,
        size: record.as_ref().map(|p| p.size),
        last_modified: record.as_ref().map(|p| rfc3339(p.last_modified)),
        fetched_at: record.as_ref().map(|p| rfc3339(p.fetched_at)),
        depth: record.as_ref().map(|p| p.depth),
        keywords,
        meta,
        parents: urls(r, &r.parents(id)?)?,
        children,
    })
}

fn or_dash<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".to_string(), T::to_string)
}

pub(super) fn keyword_line(keywords: &[KeywordJson]) -> String {
    keywords
        .iter()
        .map(|k| format!("{} {}", k.word, k.freq))
        .collect::<Vec<_>>()
        .join("; ")
}

pub fn run(store: &Store, url: &Url, json: bool) -> CliResult {
    let r = store.read()?;
    let Some(id) = r.page_id(url)? else {
        return Err(CliError::Msg(format!("no such page: {url}")));
    };
    let p = page_json(&r, id, url.to_string())?;
    if json {
        return print_json(&p);
    }
    println!("id             {}", p.id);
    println!("url            {}", p.url);
    println!("state          {}", p.state);
    if let Some(to) = &p.redirect_to {
        println!("redirect to    {to}");
    }
    println!("title          {}", or_dash(&p.title));
    println!("status         {}", or_dash(&p.status));
    println!("mime           {}", or_dash(&p.mime));
    println!(
        "size           {}",
        p.size.map_or_else(|| "-".into(), |s| format!("{s} bytes"))
    );
    println!("last modified  {}", or_dash(&p.last_modified));
    println!("fetched at     {}", or_dash(&p.fetched_at));
    println!("depth          {}", or_dash(&p.depth));
    println!("keywords       {}", keyword_line(&p.keywords));
    for m in &p.meta {
        println!("meta           {}: {}", m.name, m.content);
    }
    println!("parents ({})", p.parents.len());
    for u in &p.parents {
        println!("  {u}");
    }
    println!("children ({})", p.children.len());
    for u in &p.children {
        println!("  {u}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_of_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_717_200_000), "2024-06-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
        assert_eq!(rfc3339(i64::MIN), "0000-01-01T00:00:00Z");
        assert_eq!(rfc3339(i64::MAX), "9999-12-31T23:59:59Z");
    }
}

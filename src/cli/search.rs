//! `search QUERY`: ranked results with each page's date, size, top
//! keywords and links, for people or (`--json`) scripts.

use serde::Serialize;

use super::search_details::details;
use super::{print_json, CliResult};
use crate::export::page::{keyword_line, KeywordJson, UNTITLED};
use crate::store::Store;
use crate::time::rfc3339;

#[derive(Serialize)]
struct HitJson {
    score: f32,
    url: String,
    title: Option<String>,
    last_modified: String,
    size: u64,
    keywords: Vec<KeywordJson>,
    /// The first parents (by page id) and children (in link order); the
    /// counts say how many there are in all.
    parents: Vec<String>,
    children: Vec<String>,
    parent_count: usize,
    child_count: usize,
}

/// What `search` lists: how many hits (`--limit`), how many of each hit's
/// parents and children (`--links`), as JSON or text.
pub struct Listing {
    pub limit: usize,
    pub links: usize,
    pub json: bool,
}

/// `analyzer`: a stopword list of the user's (`--stopwords FILE`), else the
/// built-in one.
pub fn run(
    store: &Store,
    query: &str,
    Listing { limit, links, json }: Listing,
    analyzer: Option<&crate::index::Analyzer>,
) -> CliResult {
    let r = store.read()?;
    let analyzer = analyzer.unwrap_or(crate::index::Analyzer::global());
    if json {
        // JSON prints no count of all matching pages, which several
        // words can only count by reading every posting of every word.
        let best = crate::search::search_best(&r, query, limit, analyzer)?;
        return print_json(&listed(store, &r, best, links)?);
    }
    let results = crate::search::search_with(&r, query, limit, analyzer)?;
    let hits = listed(store, &r, results.hits, links)?;
    if hits.is_empty() {
        match (results.note, results.total) {
            (Some(note), _) => outln!("{note}"),
            (None, 0) => outln!("no page matches {}", quoted(query)),
            (None, n) => outln!(
                "{n} pages match {} (none listed: --limit {limit})",
                quoted(query)
            ),
        }
        return Ok(());
    }
    for (i, h) in hits.iter().enumerate() {
        outln!(
            "{:>3}. {}  {}",
            i + 1,
            crate::search::score_text(h.score),
            h.title.as_deref().unwrap_or(UNTITLED)
        );
        outln!("     {}", h.url);
        outln!("     {}, {} bytes", h.last_modified, h.size);
        outln!("     {}", keyword_line(&h.keywords));
        print_links("parent", &h.parents, h.parent_count)?;
        print_links("child", &h.children, h.child_count)?;
        outln!();
    }
    if results.total > hits.len() {
        outln!(
            "{} of {} matching pages shown (--limit {limit})",
            hits.len(),
            results.total
        );
    }
    Ok(())
}

/// The hits with their details, each listing `links` parents and children.
fn listed(
    store: &Store,
    r: &crate::store::Reader<'_>,
    hits: Vec<crate::search::Hit>,
    links: usize,
) -> Result<Vec<HitJson>, crate::store::StoreError> {
    let pages: Vec<_> = hits.iter().map(|h| h.page).collect();
    Ok(hits
        .into_iter()
        .zip(details(store, r, &pages, links)?)
        .map(|(h, d)| HitJson {
            score: h.score,
            url: h.url,
            title: h.title,
            last_modified: rfc3339(h.last_modified),
            size: h.size,
            keywords: d.keywords,
            parents: d.parents,
            children: d.children,
            parent_count: d.parent_count,
            child_count: d.child_count,
        })
        .collect())
}

fn print_links(kind: &str, shown: &[String], total: usize) -> CliResult {
    for u in shown {
        outln!("     {kind}: {u}");
    }
    if total > shown.len() {
        outln!("     ... {} more {kind} links", total - shown.len());
    }
    Ok(())
}

/// The query as typed, between quotes it does not hold: a phrase query
/// (`"doctor shutter"`) reads `'"doctor shutter"'`, not with its quotes
/// escaped. Control characters show as spaces.
fn quoted(query: &str) -> String {
    let q: String = query
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if !q.contains('"') {
        format!("\"{q}\"")
    } else if !q.contains('\'') {
        format!("'{q}'")
    } else {
        q
    }
}

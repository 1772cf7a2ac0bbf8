//! The console's store work: each function reads one snapshot or runs one
//! write transaction and returns plain data for a [`Msg`](super::Msg). They
//! block, so the runtime runs them on tokio's blocking pool, never on the
//! thread that draws.

use crate::runs;
use crate::search;
use crate::store::prelude::*;
use crate::store::{PageId, Reader, Store, StoreError, UrlState};

use super::app::Snapshot;
use super::graph_resources;
use super::panes::graph::{LinkRow, PageView};
use super::panes::log::{self, LogLine};
use super::panes::lookup::Detail;
use super::panes::queue::QueueRow;

/// Frontier entries the queue pane shows.
const QUEUE_ROWS: usize = 100;
/// Parents or children listed in the graph; the rest are counted.
const LINK_ROWS: usize = 500;
const KEYWORDS: usize = 8;

pub(crate) fn snapshot(store: &Store) -> Result<Snapshot, StoreError> {
    let r = store.read()?;
    let mut frontier = Vec::with_capacity(QUEUE_ROWS);
    for e in r.frontier_peek(QUEUE_ROWS)? {
        frontier.push(QueueRow {
            page: e.page,
            url: r
                .url_of(e.page)?
                .unwrap_or_else(|| format!("(page {})", e.page)),
            depth: e.depth,
            point: e.point,
        });
    }
    Ok(Snapshot {
        frontier,
        work: crate::crawl::work_at_hand(&r)?,
        store_bytes: store.disk_size(),
        totals: r.state_counts()?,
        points: r
            .points()?
            .into_iter()
            .filter(|(_, p)| !p.deleted)
            .collect(),
        docs: live_docs(&r)?,
        origins: r.origin_figures()?,
        runs: runs::newest_first(&r, None)?,
    })
}

/// Makes document `name`, or (`old`) renames one to it; says which.
pub(crate) fn save_doc(
    store: &Store,
    old: Option<String>,
    name: &str,
) -> Result<String, crate::documents::DocError> {
    match old {
        Some(old) => {
            crate::documents::rename(store, &old, name)?;
            Ok(format!("document {old} renamed {name}"))
        }
        None => {
            crate::documents::create(store, name)?;
            Ok(format!("document {name} made"))
        }
    }
}

/// The documents that are not deleted, by name: what the Points pane lists.
pub(crate) fn live_docs(r: &Reader<'_>) -> Result<Vec<String>, StoreError> {
    Ok(r.documents()?
        .into_iter()
        .filter(|(_, d)| !d.deleted)
        .map(|(name, _)| name)
        .collect())
}

fn link_row(r: &Reader<'_>, page: PageId) -> Result<LinkRow, StoreError> {
    let record = r.page(page)?;
    Ok(LinkRow {
        page,
        url: r.url_of(page)?.unwrap_or_else(|| format!("(page {page})")),
        title: record.as_ref().and_then(|p| p.title.clone()),
        status: record.map(|p| p.status),
        state: r.url_state(page)?.map(|s| s.known().label()),
        nofollow: false,
        rendered_only: false,
        external: r.external_check(page)?,
        resource: None,
    })
}

/// A URL's state with its why: `failed: connection refused`, `failed:
/// 599 Custom Broken Thing`, `skipped: disallowed by robots.txt`,
/// `redirected (301)`.
fn state_text(s: &UrlState) -> String {
    match s {
        UrlState::Redirected { status, .. } => format!("redirected ({status})"),
        UrlState::Failed {
            reason,
            status: Some(status),
            ..
        } => format!("failed: {status} {reason}"),
        UrlState::Failed { reason, .. } => format!("failed: {reason}"),
        UrlState::Skipped { reason, .. } => format!("skipped: {}", reason.describe()),
        other => other.label(),
    }
}

pub(crate) fn page_view(store: &Store, page: PageId) -> Result<PageView, StoreError> {
    let r = store.read()?;
    let url = r
        .url_of(page)?
        .ok_or_else(|| StoreError::NotFound(format!("page {page}")))?;
    let parents = r.parents(page)?;
    let state = r.url_state(page)?.map(UrlState::known);
    // (page, linked with nofollow)
    let mut children: Vec<(PageId, bool)> = r
        .links(page)?
        .into_iter()
        .map(|l| (l.child, l.rel.nofollow()))
        .collect();
    // A redirect leads on to its target: the first row to follow.
    if let Some(UrlState::Redirected { to, .. }) = &state {
        children.insert(0, (*to, false));
    }
    let mut parents: Vec<(PageId, bool)> = parents.into_iter().map(|p| (p, false)).collect();
    // A checked URL, or one with no state (never a crawl URL), is a
    // resource: the pages using it are parents too, after those linking.
    let resource = r.resource_check(page)?;
    let linking = parents.len();
    let mut users_total = 0;
    if resource.is_some() || state.is_none() {
        let (users, total) = graph_resources::users(&r, page, LINK_ROWS)?;
        users_total = total;
        for u in users {
            if parents[..linking].iter().any(|&(p, _)| p == u) {
                users_total -= 1;
            } else {
                parents.push((u, false));
            }
        }
    }
    let rows = |ids: &[(PageId, bool)]| -> Result<Vec<LinkRow>, StoreError> {
        ids.iter()
            .take(LINK_ROWS)
            .map(|&(id, nofollow)| {
                Ok(LinkRow {
                    nofollow,
                    ..link_row(&r, id)?
                })
            })
            .collect()
    };
    let mut child_rows = rows(&children)?;
    if let Some(render) = r.page_render(page)? {
        for row in &mut child_rows {
            row.rendered_only = render.links_rendered_only.contains(&row.url);
        }
    }
    // Resources follow the links, within the same row budget.
    let room = LINK_ROWS.saturating_sub(child_rows.len());
    let (resources, resources_total) = graph_resources::rows(&r, page, room)?;
    child_rows.extend(resources);
    Ok(PageView {
        page,
        url,
        record: r.page(page)?,
        state: state.as_ref().map(state_text),
        external: r.external_check(page)?,
        parents: rows(&parents)?,
        children: child_rows,
        parents_total: linking + users_total,
        children_total: children.len() + resources_total,
        from_sitemap: r.listed_by_sitemap(page)?,
        resource,
        extract: (r.page_custom(page)?.map(|c| c.extract))
            .unwrap_or_default()
            .into_iter()
            .collect(),
    })
}

/// Search as you type: the half-typed last word matches as a prefix.
pub(crate) fn search(
    store: &Store,
    query: &str,
    limit: usize,
) -> Result<search::Results, StoreError> {
    search::search_typing(&store.read()?, query, limit)
}

pub(crate) fn detail(store: &Store, page: PageId, query: &str) -> Result<Detail, StoreError> {
    let r = store.read()?;
    Ok(Detail {
        page,
        keywords: search::keywords(&r, page, KEYWORDS)?
            .into_iter()
            .map(|k| (k.word, k.tf))
            .collect(),
        snippet: search::snippet(&r, page, query)?,
    })
}

/// Lines a filter over the whole crawl shows, at most this many.
const LOG_MATCHES: usize = 100_000;

/// Every URL of the store with an outcome that the log filter `terms`
/// keeps, in page id order: the whole crawl, not only this session's log.
pub(crate) fn log_matches(store: &Store, terms: &[String]) -> Result<Vec<LogLine>, StoreError> {
    let r = store.read()?;
    let mut out = Vec::new();
    r.for_each_state(|page, state| {
        let record = r.page(page)?;
        let target = match &state {
            UrlState::Redirected { to, .. } => r.url_of(*to)?,
            _ => None,
        };
        if let Some(url) = r.url_of(page)? {
            if let Some(line) = log::store_line(page, url, &state, record.as_ref(), target) {
                if line.matches(terms) {
                    out.push(line);
                }
            }
        }
        Ok(out.len() < LOG_MATCHES)
    })?;
    Ok(out)
}

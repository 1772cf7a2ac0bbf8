//! What the graph lists of resources: a page's resources as child rows
//! (element and check), and a resource's users, the pages that load it,
//! as parents. Store reads only; the loader job calls these off the
//! thread that draws.

use crate::store::prelude::*;
use crate::store::{PageId, Reader, StoreError};

use super::panes::graph::{LinkRow, ResourceTag};

/// `page`'s resources, in page order, each with its check; `limit` rows
/// at most, and how many there are.
pub(crate) fn rows(
    r: &Reader<'_>,
    page: PageId,
    limit: usize,
) -> Result<(Vec<LinkRow>, usize), StoreError> {
    let mut links = r.resources(page)?;
    links.retain(|l| !l.element.is_target());
    let mut rows = Vec::with_capacity(links.len().min(limit));
    for l in links.iter().take(limit) {
        rows.push(LinkRow {
            page: l.target,
            url: r
                .url_of(l.target)?
                .unwrap_or_else(|| format!("(page {})", l.target)),
            title: None,
            status: None,
            state: None,
            nofollow: false,
            rendered_only: false,
            external: None,
            resource: Some(ResourceTag {
                element: l.element,
                check: r.resource_check(l.target)?,
            }),
        });
    }
    Ok((rows, links.len()))
}

/// The pages (and stylesheets) that load `target`, by id: the first
/// `limit` of them, and how many there are. No table maps a resource to
/// its users, so this reads all of `page_resources` once: only for a URL
/// that is no crawled page.
pub(crate) fn users(
    r: &Reader<'_>,
    target: PageId,
    limit: usize,
) -> Result<(Vec<PageId>, usize), StoreError> {
    let mut found = Vec::new();
    let mut total = 0;
    r.for_each_resources(|page, links| {
        if links
            .iter()
            .any(|l| l.target == target && !l.element.is_target())
        {
            total += 1;
            if found.len() < limit {
                found.push(page);
            }
        }
        Ok(true)
    })?;
    Ok((found, total))
}

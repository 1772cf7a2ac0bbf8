//! A shard's URLs in the merged store: each URL's state and, for a
//! fetched page, the page itself written through the store's write path
//! (parsed again, `crawl::replay`), its links, resources and history;
//! then each point's marks, the external and resource checks and the
//! sitemap listings. Of two fetches of one URL the later wins; a fetch
//! wins over a skip, since a link to a page another crawler fetched
//! is only a skip (or nothing) in the shard that read the link.

use std::collections::HashMap;

use crate::crawl::replay::{self, Stored};
use crate::store::prelude::*;
use crate::store::{
    Decision, PageId, PointId, PointMark, Reader, ResourceLink, RunEntry, Store, StoreError,
    UrlState, Writer,
};

use super::ids::{self, Ids};

/// The shard's run history by page: (merged point, generation, entry).
pub struct History(HashMap<PageId, Vec<(PointId, u32, RunEntry)>>);

impl History {
    pub fn of(r: &Reader<'_>, ids: &Ids) -> Result<History, StoreError> {
        let mut by_page: HashMap<PageId, Vec<_>> = HashMap::new();
        for &point in ids.points.keys() {
            for gen in r.runs_of(point)? {
                for (page, entry) in r.run_entries(point, gen)? {
                    by_page
                        .entry(page)
                        .or_default()
                        .push((ids.point(point)?, gen, entry));
                }
            }
        }
        Ok(History(by_page))
    }
}

/// Merges the shard's URL `id` in state `state`; None when the merged
/// store keeps what it had, else whether a page was written.
pub fn merge_url(
    w: &mut Writer<'_>,
    into: &Store,
    r: &Reader<'_>,
    ids: &Ids,
    history: &History,
    id: PageId,
    state: &UrlState,
) -> Result<Option<bool>, StoreError> {
    let (merged, url) = ids::page(w, r, id)?;
    let record = r.page(id)?;
    if !wins(w, merged, state, record.as_ref().map(|p| p.fetched_at))? {
        return Ok(None);
    }
    let new_state = ids.state(w, r, state)?;
    let wrote = match record {
        Some(record) => {
            let point = ids.point_record(state.run().0)?;
            let content_type = content_type(r, &record, id)?;
            let stored = Stored {
                url: &url,
                head: r.http_head(id)?,
                body: r.body(id)?.unwrap_or_default(),
                record,
                content_type,
                point,
            };
            let (mut write, text) = replay::reparse(stored, into);
            // As the fetch left them (a rendered page's are its DOM's).
            write.meta = r.meta_tags(id)?;
            write.audit = r.page_audit(id)?;
            write.custom = r.page_custom(id)?;
            let mut links = r.occurrences(id)?;
            for link in &mut links {
                link.child = ids::page(w, r, link.child)?.0;
            }
            w.put_page(merged, &write, &links)?;
            w.put_page_text(merged, &text)?;
            let mut resources: Vec<ResourceLink> = r.resources(id)?;
            for res in &mut resources {
                res.target = ids::page(w, r, res.target)?.0;
            }
            w.put_resources(merged, &resources)?;
            if let Some(mut frag) = r.fragments(id)? {
                for (child, _) in &mut frag.links {
                    *child = ids::page(w, r, *child)?.0;
                }
                w.put_fragments(merged, &frag)?;
            }
            if let Some(render) = r.page_render(id)? {
                w.put_page_render(merged, &render)?;
            }
            true
        }
        // A later answer without a page (none came, a redirect) replaces
        // an earlier page.
        None if w.page(merged)?.is_some() && fetched(state) => {
            w.remove_page(merged)?;
            false
        }
        None => false,
    };
    w.set_state(merged, &new_state)?;
    for (point, gen, entry) in history.0.get(&id).into_iter().flatten() {
        w.put_run_entry(*point, *gen, merged, entry)?;
    }
    Ok(Some(wrote))
}

/// Whether the shard's `state` of a URL (fetched at `fetched_at` when it
/// has a page) replaces what the merged store knows of it.
fn wins(
    w: &Writer<'_>,
    merged: PageId,
    state: &UrlState,
    fetched_at: Option<i64>,
) -> Result<bool, StoreError> {
    let Some(have) = w.url_state(merged)?.and_then(|s| s.fact().cloned()) else {
        return Ok(true);
    };
    Ok(match (fetched(state), fetched(&have)) {
        (true, false) => true,
        (false, true) => false,
        (false, false) => true,
        (true, true) => {
            let had = w.page(merged)?.map(|p| p.fetched_at);
            fetched_at.unwrap_or(0) >= had.unwrap_or(0)
        }
    })
}

/// Whether a state is a fetch's answer (not a skip).
fn fetched(state: &UrlState) -> bool {
    matches!(
        state,
        UrlState::Done { .. } | UrlState::Failed { .. } | UrlState::Redirected { .. }
    )
}

/// The Content-Type a page was answered with: its head's, else its
/// mimetype's name.
fn content_type(
    r: &Reader<'_>,
    record: &crate::store::PageRecord,
    id: PageId,
) -> Result<String, StoreError> {
    if let Some(head) = r.http_head(id)? {
        if let Some((_, v)) = head.response.iter().find(|(k, _)| k == "content-type") {
            return Ok(v.clone());
        }
    }
    Ok(r.mime(record.mime)?.map(|m| m.essence).unwrap_or_default())
}

/// Merges the marks of the shard's `point`: what a run decided of a URL.
/// A settled URL stays settled; of two runs, the later's decision wins.
pub fn merge_marks(
    w: &mut Writer<'_>,
    r: &Reader<'_>,
    ids: &Ids,
    point: PointId,
    marks: &[(PageId, PointMark)],
) -> Result<(), StoreError> {
    let merged_point = ids.point(point)?;
    for &(page, mark) in marks {
        // A queued mark stands for a frontier entry, which is not merged.
        if mark.decision == Decision::Queued {
            continue;
        }
        let (merged, _) = ids::page(w, r, page)?;
        let takes = match w.point_mark(merged_point, merged)? {
            None => true,
            Some(have) => (mark.gen, rank(mark.decision)) >= (have.gen, rank(have.decision)),
        };
        if takes {
            w.put_point_mark(merged_point, merged, mark)?;
        }
    }
    Ok(())
}

fn rank(d: Decision) -> u8 {
    match d {
        Decision::Queued => 0,
        Decision::Skipped(_) => 1,
        Decision::Settled => 2,
    }
}

/// Merges the shard's external and resource checks (the later check of a
/// URL wins) and its sitemap listings.
pub fn merge_checks_and_listings(
    w: &mut Writer<'_>,
    r: &Reader<'_>,
    ids: &Ids,
) -> Result<(), StoreError> {
    for (page, mut check) in r.external_checks()? {
        let (merged, _) = ids::page(w, r, page)?;
        check.point = ids.point(check.point)?;
        if w.external_check(merged)?
            .is_none_or(|c| c.checked_at <= check.checked_at)
        {
            w.put_external_check(merged, &check)?;
        }
    }
    for (page, mut check) in r.resource_checks()? {
        let (merged, _) = ids::page(w, r, page)?;
        check.point = ids.point(check.point)?;
        if w.resource_check(merged)?
            .is_none_or(|c| c.checked_at <= check.checked_at)
        {
            w.put_resource_check(merged, &check)?;
        }
    }
    let mut listings = Vec::new();
    r.for_each_sitemap_listing(|page, l| listings.push((page, l)))?;
    for (page, list) in listings {
        let (merged, _) = ids::page(w, r, page)?;
        for l in list {
            w.put_sitemap_listing(merged, ids.point(l.point)?, l.gen, &l.sitemap)?;
        }
    }
    let mut listed = Vec::new();
    r.for_each_listed(|page, sitemap| listed.push((page, sitemap)))?;
    for (page, sitemap) in listed {
        let (merged, _) = ids::page(w, r, page)?;
        w.put_listed_by_sitemap(merged, &sitemap)?;
    }
    Ok(())
}

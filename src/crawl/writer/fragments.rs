//! Keeping a fetched page's ids and fragment links (`--check-fragments`)
//! in the `fragments` table, in the writer's transaction: only for a 2xx
//! HTML page, whose links have just been given their page ids
//! (`children`, one per `Document::links` entry).

use crate::html::PageFragments;
use crate::store::{FragmentRecord, PageId, StoreError, Writer};

pub(super) fn keep(
    w: &mut Writer<'_>,
    page: PageId,
    status: u16,
    found: &PageFragments,
    children: &[PageId],
) -> Result<(), StoreError> {
    if !found.html || !(200..300).contains(&status) {
        return Ok(());
    }
    let mut rec = FragmentRecord {
        ids: found.ids.clone(),
        links: found
            .links
            .iter()
            .filter_map(|(i, frag)| children.get(*i).map(|&c| (c, frag.clone())))
            .collect(),
    };
    rec.links.sort_unstable();
    rec.links.dedup();
    w.put_fragments(page, &rec)
}

//! Keeping a fetched page's ids and fragment links (`--check-fragments`)
//! in the `fragments` table, in the writer's transaction: only for a 2xx
//! HTML page, whose links have just been given their page ids.

use crate::html::PageFragments;
use crate::store::{FragmentRecord, OutLink, PageId, StoreError, Writer};

pub(super) fn keep(
    w: &mut Writer<'_>,
    page: PageId,
    status: u16,
    found: &PageFragments,
    links: &[OutLink],
) -> Result<(), StoreError> {
    if !found.html || !(200..300).contains(&status) {
        return Ok(());
    }
    let mut rec = FragmentRecord {
        ids: found.ids.clone(),
        links: found
            .links
            .iter()
            .filter_map(|(i, frag)| links.get(*i).map(|l| (l.child, frag.clone())))
            .collect(),
    };
    rec.links.sort_unstable();
    rec.links.dedup();
    w.put_fragments(page, &rec)
}

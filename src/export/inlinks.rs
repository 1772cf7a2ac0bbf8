//! A URL's inlinks, counted one way by every export and `page`: the pages
//! other than itself that link to it (`LinkRead::inlinks`) or load it as a
//! resource (an image, a script); its links to itself are apart
//! (`LinkRead::self_links`).

use rustc_hash::FxHashMap;

use crate::store::prelude::*;
use crate::store::{PageId, Reader, StoreError};

/// Which pages load each resource, read once for a whole export.
pub struct Inlinks(FxHashMap<PageId, Vec<PageId>>);

impl Inlinks {
    pub fn read(r: &Reader<'_>) -> Result<Inlinks, StoreError> {
        let mut by_target: FxHashMap<PageId, Vec<PageId>> = FxHashMap::default();
        r.for_each_resources(|page, resources| {
            for res in resources {
                by_target.entry(res.target).or_default().push(page);
            }
            Ok(true)
        })?;
        Ok(Inlinks(by_target))
    }

    /// The other pages linking to `id` or loading it, by page id.
    pub fn of(&self, r: &Reader<'_>, id: PageId) -> Result<Vec<PageId>, StoreError> {
        let mut from = r.inlinks(id)?;
        if let Some(loading) = self.0.get(&id) {
            from.extend(loading.iter().filter(|&&p| p != id));
            from.sort_unstable();
            from.dedup();
        }
        Ok(from)
    }
}

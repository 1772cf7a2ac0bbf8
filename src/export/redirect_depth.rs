//! The depth of a redirecting URL. The store keeps a depth in page
//! records only, and a redirect has none, so it is derived as the crawl
//! gave it: 0 for a crawl point's start URL, one more than the shallowest
//! page linking to it, a sitemap's depth for a URL a sitemap listed, and
//! the depth of a redirect leading to it (a hop keeps its depth).

use rustc_hash::FxHashSet;

use crate::crawl::SITEMAP_DEPTH;
use crate::report::redirects::{RedirectsInto, MAX_HOPS};
use crate::store::prelude::*;
use crate::store::{PageId, Reader, StoreError};

pub struct RedirectDepths<'a, 's> {
    r: &'a Reader<'s>,
    into: RedirectsInto,
    starts: FxHashSet<PageId>,
}

impl<'a, 's> RedirectDepths<'a, 's> {
    /// Reads which redirects lead where and the points' start URLs.
    pub fn new(r: &'a Reader<'s>) -> Result<Self, StoreError> {
        let mut into = RedirectsInto::default();
        r.for_each_state(|id, state| {
            into.add(id, &state);
            Ok(true)
        })?;
        let mut starts = FxHashSet::default();
        for (_, point) in r.points()? {
            // A point whose URL no longer parses has no start page to name.
            if let Ok(url) = crate::url::Url::parse(&point.url) {
                starts.extend(r.site_page_id(&url)?);
            }
        }
        Ok(RedirectDepths { r, into, starts })
    }

    /// The depth the crawl reached `page` at, when anything led to it.
    pub fn of(&self, page: PageId) -> Result<Option<u32>, StoreError> {
        self.walk(page, &mut FxHashSet::default())
    }

    fn walk(&self, page: PageId, seen: &mut FxHashSet<PageId>) -> Result<Option<u32>, StoreError> {
        // A loop, or a chain longer than any the crawler follows, adds
        // nothing.
        if !seen.insert(page) || seen.len() > MAX_HOPS {
            return Ok(None);
        }
        let mut best = self.starts.contains(&page).then_some(0);
        let mut offer = |d: u32| best = Some(best.map_or(d, |b: u32| b.min(d)));
        for parent in self.r.parents(page)? {
            if let Some(rec) = self.r.page(parent)? {
                offer(rec.depth.saturating_add(1));
            }
        }
        if self.r.listed_by_sitemap(page)?.is_some() {
            offer(SITEMAP_DEPTH);
        }
        for &(from, _) in self.into.to(page) {
            if let Some(d) = self.walk(from, seen)? {
                offer(d);
            }
        }
        Ok(best)
    }
}

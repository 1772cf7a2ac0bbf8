//! Pages a sitemap led to: page id → the URL of the sitemap that listed it
//! first. A page queued from a sitemap has no parent in the link graph;
//! this says where it came from.

use super::codec::{self, u32_key};
use super::schema::PageId;
use super::sealed::{by_id, View};
use super::{Result, Writer};

/// Sitemap origin look-ups.
pub trait SitemapRead: View {
    /// The sitemap that listed this page, if one did.
    fn listed_by_sitemap(&self, page: PageId) -> Result<Option<String>> {
        by_id(self, self.dbs().sitemap_pages, page, codec::decode)
    }

    /// Every page a sitemap listed, with that sitemap, in page id order.
    fn for_each_listed(&self, mut f: impl FnMut(PageId, String)) -> Result<()> {
        for item in self.dbs().sitemap_pages.iter(self.txn())? {
            let (k, v) = item?;
            f(codec::read_u32(k)?, codec::decode(v)?);
        }
        Ok(())
    }
}

impl<T: View + ?Sized> SitemapRead for T {}

impl Writer<'_> {
    /// Records that `sitemap` listed `page`, unless a sitemap already did.
    pub fn put_listed_by_sitemap(&mut self, page: PageId, sitemap: &str) -> Result<()> {
        let key = u32_key(page);
        if self.dbs.sitemap_pages.get(&self.txn, &key)?.is_none() {
            self.dbs
                .sitemap_pages
                .put(&mut self.txn, &key, &codec::encode(&sitemap)?)?;
        }
        Ok(())
    }
}

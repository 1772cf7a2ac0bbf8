//! Which sitemaps list a URL, run by run: page id → every (crawl point,
//! run, sitemap) that listed it in each point's latest run that read
//! sitemaps. `sitemap_pages` keeps only the first sitemap that ever
//! listed a page; the sitemap audit needs to know whether the run it
//! reports on listed it, and where.

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32, u32_key};
use super::schema::{PageId, PointId};
use super::sealed::View;
use super::{Result, Writer};

/// One sitemap listing a URL in one run of a point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SitemapListing {
    pub point: PointId,
    pub gen: u32,
    pub sitemap: String,
}

/// Sitemap listing look-ups.
pub trait ListingRead: View {
    /// Every listed URL with its listings, in page id order.
    fn for_each_sitemap_listing(
        &self,
        mut f: impl FnMut(PageId, Vec<SitemapListing>),
    ) -> Result<()> {
        for item in self.dbs().sitemap_listings.iter(self.txn())? {
            let (k, v) = item?;
            f(read_u32(k)?, codec::decode(v)?);
        }
        Ok(())
    }
}

impl<T: View + ?Sized> ListingRead for T {}

impl Writer<'_> {
    /// Records that `sitemap` listed `page` in run `gen` of `point`; what
    /// the point's earlier runs listed of it goes.
    pub fn put_sitemap_listing(
        &mut self,
        page: PageId,
        point: PointId,
        gen: u32,
        sitemap: &str,
    ) -> Result<()> {
        let key = u32_key(page);
        let mut listings: Vec<SitemapListing> =
            match self.dbs.sitemap_listings.get(&self.txn, &key)? {
                Some(v) => codec::decode(v)?,
                None => Vec::new(),
            };
        let before = listings.len();
        listings.retain(|l| l.point != point || l.gen == gen);
        let listed = (listings.iter()).any(|l| l.point == point && l.sitemap == sitemap);
        if listed && listings.len() == before {
            return Ok(());
        }
        if !listed {
            listings.push(SitemapListing {
                point,
                gen,
                sitemap: sitemap.to_string(),
            });
        }
        self.dbs
            .sitemap_listings
            .put(&mut self.txn, &key, &codec::encode(&listings)?)?;
        Ok(())
    }
}

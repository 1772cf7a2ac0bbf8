//! Each crawl point's own frontier marks: `point ‖ page` → what the
//! point's latest run decided of the URL (queued, settled by a fetch, or
//! skipped and why) and which run that was. The URL's state
//! (`url_state`) says what is known of the URL itself (its fetch result,
//! who holds its claim); these marks say what one point did with it, so
//! that what one point queued, skipped or left behind never hides a URL
//! from another, and each point's reports cover what its own runs reached.

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32};
use super::schema::{PageId, PointId, SkipReason};
use super::sealed::View;
use super::{Result, Writer};

/// What a point's run decided of a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// In the point's frontier (queued or claimed).
    Queued,
    /// Settled by a fetch (its own, or one this crawl made for another
    /// point): the URL's state says what it answered.
    Settled,
    /// Not fetched by this point, for this reason.
    Skipped(SkipReason),
}

/// A point's mark on a URL: the decision of its run `gen`, and the link
/// depth at which that run met the URL (a page's record holds the depth of
/// the fetch that wrote it, which may have been another point's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointMark {
    pub gen: u32,
    pub decision: Decision,
    pub depth: u32,
}

fn key(point: PointId, page: PageId) -> [u8; 8] {
    let mut k = [0u8; 8];
    k[..4].copy_from_slice(&point.to_be_bytes());
    k[4..].copy_from_slice(&page.to_be_bytes());
    k
}

/// A point's marks, read.
pub trait PointMarkRead: View {
    fn point_mark(&self, point: PointId, page: PageId) -> Result<Option<PointMark>> {
        match self.dbs().point_urls.get(self.txn(), &key(point, page))? {
            Some(v) => Ok(Some(codec::decode(v)?)),
            None => Ok(None),
        }
    }

    /// Every mark of `point`, in page id order.
    fn for_each_point_mark(
        &self,
        point: PointId,
        mut f: impl FnMut(PageId, PointMark) -> Result<()>,
    ) -> Result<()> {
        let prefix = point.to_be_bytes();
        for item in self.dbs().point_urls.prefix_iter(self.txn(), &prefix)? {
            let (k, v) = item?;
            f(read_u32(k.get(4..).unwrap_or(k))?, codec::decode(v)?)?;
        }
        Ok(())
    }
}

impl<T: View + ?Sized> PointMarkRead for T {}

impl Writer<'_> {
    pub fn put_point_mark(&mut self, point: PointId, page: PageId, mark: PointMark) -> Result<()> {
        self.dbs
            .point_urls
            .put(&mut self.txn, &key(point, page), &codec::encode(&mark)?)?;
        Ok(())
    }

    /// Forgets every mark of `point` (a point purged).
    pub fn drop_point_marks(&mut self, point: PointId) -> Result<()> {
        let prefix = point.to_be_bytes();
        let mut keys = Vec::new();
        for item in self.dbs.point_urls.prefix_iter(&self.txn, &prefix)? {
            keys.push(item?.0.to_vec());
        }
        for k in keys {
            self.dbs.point_urls.delete(&mut self.txn, &k)?;
        }
        Ok(())
    }
}

//! Persisted crawl points: start URL, scope (root prefix, excludes, depth,
//! max pages), credentials and whether the point is active.

use super::codec::{self, read_u32, u32_key};
use super::schema::{meta_keys, PointId, PointRecord};
use super::sealed::{by_id, View};
use super::{Result, StoreError, Writer};

/// Crawl point look-ups.
pub trait PointRead: View {
    fn point(&self, id: PointId) -> Result<Option<PointRecord>> {
        by_id(self, self.dbs().crawl_points, id, codec::decode)
    }

    fn points(&self) -> Result<Vec<(PointId, PointRecord)>> {
        let mut out = Vec::new();
        for item in self.dbs().crawl_points.iter(self.txn())? {
            let (k, v) = item?;
            out.push((read_u32(k)?, codec::decode(v)?));
        }
        Ok(out)
    }

    /// The point whose start URL is exactly `url`.
    fn point_by_url(&self, url: &str) -> Result<Option<(PointId, PointRecord)>> {
        Ok(self.points()?.into_iter().find(|(_, p)| p.url == url))
    }
}

impl<T: View + ?Sized> PointRead for T {}

impl Writer<'_> {
    pub fn add_point(&mut self, rec: &PointRecord) -> Result<PointId> {
        let id = self.next_id32(meta_keys::NEXT_POINT)?;
        self.put_point(id, rec)?;
        Ok(id)
    }

    pub fn put_point(&mut self, id: PointId, rec: &PointRecord) -> Result<()> {
        self.dbs
            .crawl_points
            .put(&mut self.txn, &u32_key(id), &codec::encode(rec)?)?;
        Ok(())
    }

    pub fn remove_point(&mut self, id: PointId) -> Result<()> {
        if !self.dbs.crawl_points.delete(&mut self.txn, &u32_key(id))? {
            return Err(StoreError::NotFound(format!("crawl point {id}")));
        }
        self.drop_queued(id)?;
        self.drop_point_marks(id)?;
        self.drop_history(id)?;
        self.drop_runs_of(id)?;
        Ok(())
    }
}

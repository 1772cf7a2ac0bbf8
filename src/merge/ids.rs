//! A shard's ids in the merged store: points by URL, runs by point and
//! generation (found as the merge of the points and runs committed), and
//! a URL's page id, looked up by its URL inside each transaction.

use std::collections::HashMap;

use url::Url;

use crate::store::prelude::*;
use crate::store::{PageId, PointId, PointRecord, Reader, RunId, StoreError, UrlState, Writer};

/// The shard's points and runs, as ids of the merged store.
#[derive(Default)]
pub struct Ids {
    /// Shard point → the merged point, and the shard's record of it.
    pub points: HashMap<PointId, (PointId, PointRecord)>,
    pub runs: HashMap<RunId, RunId>,
}

impl Ids {
    pub fn point(&self, shard: PointId) -> Result<PointId, StoreError> {
        self.points
            .get(&shard)
            .map(|(p, _)| *p)
            .ok_or_else(|| StoreError::corrupt(format!("the shard has no crawl point {shard}")))
    }

    pub fn point_record(&self, shard: PointId) -> Result<&PointRecord, StoreError> {
        self.points
            .get(&shard)
            .map(|(_, rec)| rec)
            .ok_or_else(|| StoreError::corrupt(format!("the shard has no crawl point {shard}")))
    }

    /// `state` with the merged store's point and page ids.
    pub fn state(
        &self,
        w: &mut Writer<'_>,
        r: &Reader<'_>,
        state: &UrlState,
    ) -> Result<UrlState, StoreError> {
        let mut s = state.clone();
        match &mut s {
            UrlState::Queued { point, .. }
            | UrlState::Claimed { point, .. }
            | UrlState::Done { point, .. }
            | UrlState::Failed { point, .. }
            | UrlState::Skipped { point, .. } => *point = self.point(*point)?,
            UrlState::Redirected { point, to, .. } => {
                *point = self.point(*point)?;
                *to = page(w, r, *to)?.0;
            }
        }
        Ok(s)
    }
}

/// The merged store's page id of the shard's page `id`, and its URL.
pub fn page(w: &mut Writer<'_>, r: &Reader<'_>, id: PageId) -> Result<(PageId, Url), StoreError> {
    let rec = r
        .url_record(id)?
        .ok_or_else(|| StoreError::corrupt(format!("the shard's page {id} has no URL")))?;
    let url = Url::parse(&rec.url)
        .map_err(|e| StoreError::corrupt(format!("the shard's URL {}: {e}", rec.url)))?;
    Ok((w.page_id_as(&url, rec.username.as_deref())?, url))
}

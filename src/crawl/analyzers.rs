//! Each crawl point's analyzer: the built-in stopwords, or the point's own
//! list (`--stopwords FILE`). Made once when a point joins the crawl, so a
//! page costs one look-up, and none is made for a point without a list.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::index::Analyzer;
use crate::store::PointId;

/// The analyzers of the points that have a stopword list of their own.
#[derive(Default)]
pub(super) struct PointAnalyzers(RwLock<HashMap<PointId, Arc<Analyzer>>>);

impl PointAnalyzers {
    /// Point `point` analyses with `stopwords`, or the built-in list.
    pub fn set(&self, point: PointId, stopwords: Option<&[String]>) {
        let mut map = self.0.write().unwrap_or_else(|p| p.into_inner());
        match stopwords {
            Some(words) => map.insert(point, Arc::new(Analyzer::with_stopwords(words))),
            None => map.remove(&point),
        };
    }

    /// The analyzer of a point with a list of its own; None: the built-in
    /// one ([`Analyzer::global`]).
    pub fn of(&self, point: PointId) -> Option<Arc<Analyzer>> {
        let map = self.0.read().unwrap_or_else(|p| p.into_inner());
        map.get(&point).cloned()
    }
}

//! What each crawl point brings to the parsing of its pages: its analyzer
//! (the built-in stopwords, or the point's own list, `--stopwords FILE`)
//! and its `--extract`/`--search` rules. Made once when a point joins the
//! crawl, so a page costs one look-up, and none is made for a point that
//! has nothing of its own.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::custom::CustomRules;
use crate::index::Analyzer;
use crate::store::{PointId, PointRecord};

/// One thing per point that has it of its own.
pub(super) struct PerPoint<T>(RwLock<HashMap<PointId, Arc<T>>>);

impl<T> Default for PerPoint<T> {
    fn default() -> Self {
        PerPoint(RwLock::default())
    }
}

impl<T> PerPoint<T> {
    /// Point `point` has `own`, or (None) nothing of its own.
    pub fn set(&self, point: PointId, own: Option<T>) {
        let mut map = self.0.write().unwrap_or_else(|p| p.into_inner());
        match own {
            Some(t) => map.insert(point, Arc::new(t)),
            None => map.remove(&point),
        };
    }

    pub fn of(&self, point: PointId) -> Option<Arc<T>> {
        let map = self.0.read().unwrap_or_else(|p| p.into_inner());
        map.get(&point).cloned()
    }
}

/// The analyzers and rules of the points crawled.
#[derive(Default)]
pub(super) struct PointParsing {
    /// Points with a stopword list of their own; the others analyse with
    /// [`Analyzer::global`].
    pub analyzers: PerPoint<Analyzer>,
    pub custom: PerPoint<CustomRules>,
}

impl PointParsing {
    /// What point `point` (`rec`) brings, replacing what it brought.
    pub fn set(&self, point: PointId, rec: &PointRecord) {
        let analyzer = rec.stopwords.as_deref().map(Analyzer::with_stopwords);
        self.analyzers.set(point, analyzer);
        self.custom
            .set(point, CustomRules::of(&rec.extract, &rec.search));
    }
}

//! Documents (the crawl design's): named groups of crawl points, keyed
//! by name in the `documents` table. A document's excludes apply to every
//! crawl of each of its points; a point names its documents
//! (`PointRecord::docs`).

use serde::{Deserialize, Serialize};

use super::codec;
use super::sealed::View;
use super::{Result, Writer};

/// A document as kept: what it excludes, when it was made and changed,
/// and whether it is deleted (soft: `doc restore` brings it back).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DocumentRecord {
    /// URL prefixes none of its points crawls, beside each point's own.
    pub excludes: Vec<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds: made, excludes set, renamed, deleted or restored.
    pub updated_at: i64,
    /// A deleted document groups nothing and excludes nothing until it is
    /// restored; its points keep its name.
    pub deleted: bool,
}

/// Document look-ups.
pub trait DocumentRead: View {
    fn document(&self, name: &str) -> Result<Option<DocumentRecord>> {
        self.dbs()
            .documents
            .get(self.txn(), name.as_bytes())?
            .map(codec::decode)
            .transpose()
    }

    /// Every document, by name.
    fn documents(&self) -> Result<Vec<(String, DocumentRecord)>> {
        let mut out = Vec::new();
        for item in self.dbs().documents.iter(self.txn())? {
            let (k, v) = item?;
            out.push((String::from_utf8_lossy(k).into_owned(), codec::decode(v)?));
        }
        Ok(out)
    }
}

impl<T: View + ?Sized> DocumentRead for T {}

impl Writer<'_> {
    pub fn put_document(&mut self, name: &str, rec: &DocumentRecord) -> Result<()> {
        self.dbs
            .documents
            .put(&mut self.txn, name.as_bytes(), &codec::encode(rec)?)?;
        Ok(())
    }

    pub fn remove_document(&mut self, name: &str) -> Result<()> {
        self.dbs.documents.delete(&mut self.txn, name.as_bytes())?;
        Ok(())
    }
}

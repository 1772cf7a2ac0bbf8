//! What a page's text gave beyond its terms: its near-duplicate signature
//! (`near_signatures`: page id → [`Signature`] bytes; HTML pages with at
//! least one shingle) and, for a document whose text could not be read,
//! why (`text_errors`: page id → the reason, UTF-8). Both are written with
//! the page and removed with it; a page stored before these tables
//! existed has neither, which reads as "not known".

use super::codec::{read_u32, u32_key};
use super::schema::PageId;
use super::sealed::{by_id, View};
use super::{Result, StoreError, Writer};
use crate::types::Signature;

/// The text facts of one fetched page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageText {
    pub signature: Option<Signature>,
    pub text_error: Option<String>,
}

/// Signature and text-error look-ups.
pub trait PageTextRead: View {
    /// Why the page's text could not be read, if it could not.
    fn text_error(&self, page: PageId) -> Result<Option<String>> {
        by_id(self, self.dbs().text_errors, page, |v| {
            Ok(String::from_utf8_lossy(v).into_owned())
        })
    }

    /// Calls `f` with every stored signature, in page order.
    fn for_each_signature(&self, mut f: impl FnMut(PageId, Signature)) -> Result<()> {
        for item in self.dbs().near_signatures.iter(self.txn())? {
            let (k, v) = item?;
            let page = read_u32(k)?;
            let sig = Signature::from_bytes(v).ok_or_else(|| {
                StoreError::corrupt(format!(
                    "page {page}: a near signature of {} bytes",
                    v.len()
                ))
            })?;
            f(page, sig);
        }
        Ok(())
    }
}

impl<T: View + ?Sized> PageTextRead for T {}

impl Writer<'_> {
    /// Replaces the page's text facts with `text` (after `put_page`).
    pub fn put_page_text(&mut self, page: PageId, text: &PageText) -> Result<()> {
        let key = u32_key(page);
        match &text.signature {
            Some(s) => self
                .dbs
                .near_signatures
                .put(&mut self.txn, &key, &s.to_bytes())?,
            None => {
                self.dbs.near_signatures.delete(&mut self.txn, &key)?;
            }
        }
        match &text.text_error {
            Some(e) => self
                .dbs
                .text_errors
                .put(&mut self.txn, &key, e.as_bytes())?,
            None => {
                self.dbs.text_errors.delete(&mut self.txn, &key)?;
            }
        }
        Ok(())
    }

    /// Removes the page's text facts (the page is removed).
    pub(super) fn drop_page_text(&mut self, page: PageId) -> Result<()> {
        self.put_page_text(page, &PageText::default())
    }
}

//! What the audit reports need of a page beyond its record: page id → a
//! small [`PageAudit`] (its `<h2>` count; its hreflang, pagination,
//! structured-data and security facts), written with the page
//! and removed with it. A page written before this table existed has no
//! record: read that as "not known", never as zero.

use serde::{Deserialize, Serialize};

use crate::types::AuditFacts;

use super::codec::{self, read_u32, u32_key};
use super::schema::PageId;
use super::sealed::{by_id, View};
use super::{Result, Writer};

/// What the HTML of one fetched page showed the audit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageAudit {
    /// `<h2>` elements, blank ones included (a heading is there).
    pub h2: u32,
    /// What `report hreflang`, `pagination`, `structured-data` and
    /// `security` read of the markup.
    pub facts: AuditFacts,
}

/// Audit record look-ups.
pub trait AuditRead: View {
    fn page_audit(&self, page: PageId) -> Result<Option<PageAudit>> {
        by_id(self, self.dbs().page_audit, page, codec::decode)
    }

    /// Every page's audit record, in page id order.
    fn for_each_page_audit(&self, mut f: impl FnMut(PageId, PageAudit)) -> Result<()> {
        for item in self.dbs().page_audit.iter(self.txn())? {
            let (k, v) = item?;
            f(read_u32(k)?, codec::decode(v)?);
        }
        Ok(())
    }
}

impl<T: View + ?Sized> AuditRead for T {}

impl Writer<'_> {
    /// Replaces a page's audit record (None: not an HTML page, nothing
    /// known).
    pub(super) fn put_page_audit(&mut self, page: PageId, audit: Option<&PageAudit>) -> Result<()> {
        match audit {
            Some(a) => {
                self.dbs
                    .page_audit
                    .put(&mut self.txn, &u32_key(page), &codec::encode(a)?)?
            }
            None => self.drop_page_audit(page)?,
        }
        Ok(())
    }

    pub(super) fn drop_page_audit(&mut self, page: PageId) -> Result<()> {
        self.dbs.page_audit.delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

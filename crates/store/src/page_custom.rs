//! What a point's own rules found on a page (`--extract`, `--search`):
//! page id → [`CustomFound`], written with the page when the fetching
//! point has rules and removed with it. No record: the page was fetched
//! without rules, which reports tell from "found nothing".

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32, u32_key};
use super::schema::PageId;
use super::sealed::{by_id, View};
use super::{Result, Writer};

/// Each extraction's values and each search's count on one page, by rule
/// name, in the order the rules were given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomFound {
    pub extract: Vec<(String, Vec<String>)>,
    pub search: Vec<SearchHit>,
}

/// One `--search` rule on one page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub name: String,
    /// `NAME=!TEXT`: the pages without it are the finding.
    pub without: bool,
    /// Occurrences in the page's HTML source.
    pub count: u32,
}

impl SearchHit {
    /// Whether the page is one the rule asks for.
    pub fn found(&self) -> bool {
        (self.count > 0) != self.without
    }
}

/// Custom rule look-ups.
pub trait CustomRead: View {
    fn page_custom(&self, page: PageId) -> Result<Option<CustomFound>> {
        by_id(self, self.dbs().page_custom, page, codec::decode)
    }

    /// Every page's record, in page id order.
    fn for_each_page_custom(&self, mut f: impl FnMut(PageId, CustomFound)) -> Result<()> {
        for item in self.dbs().page_custom.iter(self.txn())? {
            let (k, v) = item?;
            f(read_u32(k)?, codec::decode(v)?);
        }
        Ok(())
    }
}

impl<T: View + ?Sized> CustomRead for T {}

impl Writer<'_> {
    /// Replaces a page's record (None: fetched without rules).
    pub(super) fn put_page_custom(
        &mut self,
        page: PageId,
        found: Option<&CustomFound>,
    ) -> Result<()> {
        match found {
            Some(f) => {
                (self.dbs.page_custom).put(&mut self.txn, &u32_key(page), &codec::encode(f)?)?
            }
            None => self.drop_page_custom(page)?,
        }
        Ok(())
    }

    pub(super) fn drop_page_custom(&mut self, page: PageId) -> Result<()> {
        self.dbs.page_custom.delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

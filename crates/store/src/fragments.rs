//! `--check-fragments`: page id → the `id`/`name` values of the fetched
//! HTML page and its links that name a fragment (target page id and the
//! fragment). Written only by runs that check fragments, for 2xx HTML
//! pages; a page without a record is "not known", never "has no ids".
//! Removed with the page (`remove_page`).

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32, u32_key};
use super::schema::PageId;
use super::sealed::{by_id, View};
use super::{Result, Writer};

/// What fragment checking needs of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FragmentRecord {
    /// Every `id` and `name` attribute value, sorted and deduplicated.
    pub ids: Vec<String>,
    /// The page's links to `target#fragment`, once each.
    pub links: Vec<(PageId, String)>,
}

impl FragmentRecord {
    pub fn has_id(&self, fragment: &str) -> bool {
        self.ids
            .binary_search_by(|id| id.as_str().cmp(fragment))
            .is_ok()
    }
}

/// Fragment look-ups.
pub trait FragmentRead: View {
    fn fragments(&self, page: PageId) -> Result<Option<FragmentRecord>> {
        by_id(self, self.dbs().fragments, page, codec::decode)
    }

    /// Every page's record, by page id.
    fn all_fragments(&self) -> Result<Vec<(PageId, FragmentRecord)>> {
        let mut out = Vec::new();
        for item in self.dbs().fragments.iter(self.txn())? {
            let (k, v) = item?;
            out.push((read_u32(k)?, codec::decode(v)?));
        }
        Ok(out)
    }
}

impl<T: View + ?Sized> FragmentRead for T {}

impl Writer<'_> {
    pub fn put_fragments(&mut self, page: PageId, rec: &FragmentRecord) -> Result<()> {
        self.dbs
            .fragments
            .put(&mut self.txn, &u32_key(page), &codec::encode(rec)?)?;
        Ok(())
    }

    pub(super) fn drop_fragments(&mut self, page: PageId) -> Result<()> {
        self.dbs.fragments.delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

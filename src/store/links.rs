//! The link graph: `links_out` (page → its children, in page order) and
//! `links_in` (child ‖ parent keys, so a page's parents are one range scan).

use super::codec::{self, pair_key, split_pair_key, u32_key, VarintReader};
use super::schema::PageId;
use super::sealed::View;
use super::{Result, Writer};

/// Parent/child look-ups.
pub trait LinkRead: View {
    /// Pages this page links to, in the order they appear, each once.
    fn children(&self, page: PageId) -> Result<Vec<PageId>> {
        match self.dbs().links_out.get(self.txn(), &u32_key(page))? {
            Some(v) => codec::read_u32_list(&mut VarintReader::new(v)),
            None => Ok(Vec::new()),
        }
    }

    /// Pages that link to this page, by id.
    fn parents(&self, page: PageId) -> Result<Vec<PageId>> {
        let mut out = Vec::new();
        for item in self
            .dbs()
            .links_in
            .prefix_iter(self.txn(), &u32_key(page))?
        {
            let (k, _) = item?;
            out.push(split_pair_key(k)?.1);
        }
        Ok(out)
    }

    fn link_count(&self) -> Result<u64> {
        Ok(self.dbs().links_in.len(self.txn())?)
    }
}

impl<T: View + ?Sized> LinkRead for T {}

impl Writer<'_> {
    pub(super) fn link_children(&mut self, page: PageId, children: &[PageId]) -> Result<()> {
        let mut unique = Vec::with_capacity(children.len());
        let mut seen = std::collections::HashSet::with_capacity(children.len());
        for &c in children {
            if seen.insert(c) {
                unique.push(c);
            }
        }
        if unique.is_empty() {
            return Ok(());
        }
        let mut value = Vec::with_capacity(unique.len() * 3);
        codec::put_u32_list(&mut value, &unique);
        self.dbs
            .links_out
            .put(&mut self.txn, &u32_key(page), &value)?;
        for c in unique {
            self.dbs
                .links_in
                .put(&mut self.txn, &pair_key(c, page), &[])?;
        }
        Ok(())
    }

    pub(super) fn unlink_children(&mut self, page: PageId) -> Result<()> {
        for c in self.children(page)? {
            self.dbs
                .links_in
                .delete(&mut self.txn, &pair_key(c, page))?;
        }
        self.dbs.links_out.delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

//! How each page of a rendering point was rendered: page id → its
//! [`PageRender`] (postcard), written with the page when its point renders
//! and removed with it. A page crawled without rendering has no record:
//! read that as "not rendered, nothing known".

use super::codec::{self, read_u32, u32_key};
use super::schema::PageId;
use super::sealed::{by_id, View};
use super::{Result, Writer};
use crate::types::PageRender;

/// Render record look-ups.
pub trait RenderRead: View {
    fn page_render(&self, page: PageId) -> Result<Option<PageRender>> {
        by_id(self, self.dbs().render_facts, page, codec::decode)
    }

    /// Every render record, in page id order.
    fn for_each_page_render(&self, mut f: impl FnMut(PageId, PageRender)) -> Result<()> {
        for item in self.dbs().render_facts.iter(self.txn())? {
            let (k, v) = item?;
            f(read_u32(k)?, codec::decode(v)?);
        }
        Ok(())
    }
}

impl<T: View + ?Sized> RenderRead for T {}

impl Writer<'_> {
    pub fn put_page_render(&mut self, page: PageId, facts: &PageRender) -> Result<()> {
        self.dbs
            .render_facts
            .put(&mut self.txn, &u32_key(page), &codec::encode(facts)?)?;
        Ok(())
    }

    pub(super) fn drop_page_render(&mut self, page: PageId) -> Result<()> {
        self.dbs
            .render_facts
            .delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

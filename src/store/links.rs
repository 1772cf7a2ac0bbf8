//! The link graph: `links_out` (page → its children in page order, then
//! each link's anchor text and nofollow mark) and `links_in` (`segment ‖
//! child ‖ parent` keys, the segment being the parent's, see `segments`:
//! a page's parents are one range scan per live segment).

use super::codec::{self, put_varint, triple_key, u32_key, VarintReader};
use super::schema::{OutLink, PageId};
use super::sealed::View;
use super::segments::SegmentRead;
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

    /// The page's links with their anchor text and nofollow marks.
    fn links(&self, page: PageId) -> Result<Vec<OutLink>> {
        let Some(v) = self.dbs().links_out.get(self.txn(), &u32_key(page))? else {
            return Ok(Vec::new());
        };
        let mut r = VarintReader::new(v);
        let children = codec::read_u32_list(&mut r)?;
        let mut out = Vec::with_capacity(children.len());
        for child in children {
            // Length and mark in one varint: `len << 1 | nofollow`.
            let head = r.next_u64()?;
            let anchor = std::str::from_utf8(r.take(head >> 1)?)
                .map_err(|_| super::StoreError::corrupt("anchor text is not UTF-8"))?;
            out.push(OutLink {
                child,
                anchor: anchor.to_string(),
                nofollow: head & 1 == 1,
            });
        }
        Ok(out)
    }

    /// Pages that link to this page, by id.
    fn parents(&self, page: PageId) -> Result<Vec<PageId>> {
        let mut out: Vec<PageId> = self
            .in_segments(self.dbs().links_in, page)?
            .into_iter()
            .map(|(parent, _)| parent)
            .collect();
        out.sort_unstable();
        Ok(out)
    }

    fn link_count(&self) -> Result<u64> {
        Ok(self.dbs().links_in.len(self.txn())?)
    }
}

impl<T: View + ?Sized> LinkRead for T {}

impl Writer<'_> {
    /// Writes a page's links; `segment` is the one its postings go to.
    pub(super) fn link_children(
        &mut self,
        page: PageId,
        segment: u32,
        links: &[OutLink],
    ) -> Result<()> {
        let mut unique: Vec<&OutLink> = Vec::with_capacity(links.len());
        let mut seen = std::collections::HashSet::with_capacity(links.len());
        for l in links {
            if seen.insert(l.child) {
                unique.push(l);
            }
        }
        if unique.is_empty() {
            return Ok(());
        }
        let ids: Vec<PageId> = unique.iter().map(|l| l.child).collect();
        let mut value = Vec::with_capacity(unique.len() * 12);
        codec::put_u32_list(&mut value, &ids);
        for l in &unique {
            put_varint(
                &mut value,
                (l.anchor.len() as u64) << 1 | u64::from(l.nofollow),
            );
            value.extend_from_slice(l.anchor.as_bytes());
        }
        self.dbs
            .links_out
            .put(&mut self.txn, &u32_key(page), &value)?;
        for c in ids {
            self.dbs
                .links_in
                .put(&mut self.txn, &triple_key(segment, c, page), &[])?;
        }
        Ok(())
    }

    /// Removes a page's links; `segment` is the one its reverse links are
    /// in (None: it has none).
    pub(super) fn unlink_children(&mut self, page: PageId, segment: Option<u32>) -> Result<()> {
        if let Some(segment) = segment {
            for c in self.children(page)? {
                self.dbs
                    .links_in
                    .delete(&mut self.txn, &triple_key(segment, c, page))?;
            }
        }
        self.dbs.links_out.delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }
}

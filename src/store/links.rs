//! The link graph: a page's links out (its children in page order, then
//! each link's anchor text and nofollow mark, as a zstd frame: anchor
//! texts repeat from page to page, see `dictionary`), a part of its
//! `forward` record (`page_records`), and `links_in`: each segment's
//! (child, parent) pairs as a posting stream (`inverted::run`), the
//! child in the word's place and the parent in the page's, each entry's
//! one position 0. The parents' segment is the one their pages were
//! indexed in (see `segments`), so a page's parents are one seek per
//! live segment, and merges, removals and `check` are the postings'.
//! One record per child and segment, `segment ‖ child ‖ first parent`
//! with the other parents as deltas, spent 12 bytes of key and 10 of
//! LMDB node on each of 75,000 records on a 10k site, to hold 3 bytes of
//! parents on average: half the table.

use std::borrow::Cow;

use super::codec::{self, put_varint, VarintReader};
use super::dictionary::Kind;
use super::inverted;
use super::inverted::segments::SegmentRead;
use super::page_records::{self, Part};
use super::schema::{OutLink, PageId};
use super::sealed::View;
use super::{record_blocks, WordRead};
use super::{Result, Writer};

/// The position every reverse link's entry holds: a link has none.
pub(super) const LINK_POSITION: [u32; 1] = [0];

/// Parent/child look-ups.
pub trait LinkRead: View {
    /// Pages this page links to, in the order they appear, each once.
    fn children(&self, page: PageId) -> Result<Vec<PageId>> {
        match link_list(self, page)? {
            Some(v) => codec::read_u32_list(&mut VarintReader::new(&v)),
            None => Ok(Vec::new()),
        }
    }

    /// The page's links with their anchor text and nofollow marks.
    fn links(&self, page: PageId) -> Result<Vec<OutLink>> {
        let Some(v) = link_list(self, page)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        walk_links(&v, |child, anchor, nofollow| {
            let anchor = std::str::from_utf8(anchor)
                .map_err(|_| super::StoreError::corrupt("anchor text is not UTF-8"))?;
            out.push(OutLink {
                child,
                anchor: anchor.to_string(),
                nofollow,
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// The page's links as (child, nofollow), anchors skipped: what a
    /// pass over the whole graph needs, without a string per link.
    fn link_marks(&self, page: PageId) -> Result<Vec<(PageId, bool)>> {
        let Some(v) = link_list(self, page)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        walk_links(&v, |child, _, nofollow| {
            out.push((child, nofollow));
            Ok(())
        })?;
        Ok(out)
    }

    /// Pages that link to this page, by id.
    fn parents(&self, page: PageId) -> Result<Vec<PageId>> {
        let mut entries = Vec::new();
        for segment in self.live_segments()?.ids() {
            self.segment_stream_into(self.dbs().links_in, segment, page, &mut entries)?;
        }
        let mut out: Vec<PageId> = entries.iter().map(|e| e.page).collect();
        out.sort_unstable();
        Ok(out)
    }

    /// Links in the graph: every entry of the reverse links' streams.
    fn link_count(&self) -> Result<u64> {
        let mut n = 0u64;
        for item in self.dbs().links_in.iter(self.txn())? {
            let (k, part) = item?;
            for run in inverted::run::runs(codec::split_triple_key(k)?.1, part) {
                for e in run?.entries() {
                    e?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}

impl<T: View + ?Sized> LinkRead for T {}

/// Walks a `links_out` record: each child with its anchor's bytes and
/// its nofollow mark, in page order.
fn walk_links(v: &[u8], mut f: impl FnMut(PageId, &[u8], bool) -> Result<()>) -> Result<()> {
    let mut r = VarintReader::new(v);
    for child in codec::read_u32_list(&mut r)? {
        // Length and mark in one varint: `len << 1 | nofollow`.
        let head = r.next_u64()?;
        f(child, r.take(head >> 1)?, head & 1 == 1)?;
    }
    Ok(())
}

/// A page's `links_out` record, decompressed (None: it links nowhere).
fn link_list<V: View + ?Sized>(view: &V, page: PageId) -> Result<Option<Vec<u8>>> {
    page_records::get(view, Part::Links, page)?
        .map(|stored| record_blocks::plain(view, Kind::Links, page, stored).map(Cow::into_owned))
        .transpose()
}

impl Writer<'_> {
    /// Notes a page's links as its children's parents; `segment` is the
    /// one its postings go to. Returns its `links_out` record, compressed
    /// (None: no links).
    pub(super) fn link_children(
        &mut self,
        page: PageId,
        segment: u32,
        links: &[OutLink],
    ) -> Result<Option<Vec<u8>>> {
        let mut unique: Vec<&OutLink> = Vec::with_capacity(links.len());
        let mut seen = std::collections::HashSet::with_capacity(links.len());
        for l in links {
            if seen.insert(l.child) {
                unique.push(l);
            }
        }
        if unique.is_empty() {
            return Ok(None);
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
        debug_assert_eq!(self.pending.segment, Some(segment));
        for c in ids {
            self.pending.parents.entry(c).or_default().push(page);
        }
        let frame = self.dictionaries.frame(Kind::Links, &value)?;
        self.keep_dictionary(Kind::Links, &frame)?;
        Ok(Some(frame))
    }

    /// Appends this transaction's reverse links as its segment's stream
    /// (its segment is the newest, so the stream goes at the end).
    pub(super) fn flush_parents(&mut self) -> Result<()> {
        let mut children: Vec<(PageId, Vec<PageId>)> = self.pending.parents.drain().collect();
        let Some(segment) = self.pending.segment else {
            return Ok(());
        };
        children.sort_unstable_by_key(|(c, _)| *c);
        let mut blocks = Vec::with_capacity(children.len());
        for (child, mut parents) in children {
            parents.sort_unstable();
            parents.dedup();
            let mut block = Vec::with_capacity(parents.len() * 4);
            for p in parents {
                inverted::pending::push_entry(&mut block, p, &LINK_POSITION);
            }
            blocks.push((child, block));
        }
        let stream = blocks.iter().map(|(c, b)| (*c, &b[..], false));
        self.write_stream(self.dbs.links_in, segment, stream)
    }

    /// Removes a page's reverse links; `segment` is the one they are in
    /// (None: it has none). Its `links_out` record goes with its other
    /// records (`drop_page_records`).
    pub(super) fn unlink_children(&mut self, page: PageId, segment: Option<u32>) -> Result<()> {
        if let Some(segment) = segment {
            for c in self.children(page)? {
                if self.pending.segment == Some(segment) {
                    if let Some(parents) = self.pending.parents.get_mut(&c) {
                        parents.retain(|&p| p != page);
                    }
                } else {
                    self.remove_from_stream(self.dbs.links_in, segment, c, page)?;
                }
            }
        }
        Ok(())
    }
}

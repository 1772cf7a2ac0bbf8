//! The link graph: a page's links out (its children in page order, each
//! once, then every occurrence as written: which child, its element,
//! position, kept `rel` tokens, anchor text and fragment, as a zstd frame:
//! anchor texts repeat from page to page, see `dictionary`), a part of its
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
use super::schema::{OutLink, PageId, Stream};
use super::sealed::View;
use super::{record_blocks, WordRead};
use super::{Result, Writer};
use crate::types::{LinkElement, Position, Rel};

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

    /// The page's links, one per target in page order: the first
    /// non-empty anchor text of its occurrences, the `rel` tokens every
    /// one has (nofollow when every one is), the first one's element,
    /// position and fragment.
    fn links(&self, page: PageId) -> Result<Vec<OutLink>> {
        let mut out: Vec<OutLink> = Vec::new();
        let mut at = rustc_hash::FxHashMap::default();
        for o in self.occurrences(page)? {
            match at.get(&o.child) {
                Some(&i) => {
                    let folded: &mut OutLink = &mut out[i];
                    folded.rel = folded.rel.common(o.rel);
                    if folded.anchor.is_empty() {
                        folded.anchor = o.anchor;
                    }
                }
                None => {
                    at.insert(o.child, out.len());
                    out.push(o);
                }
            }
        }
        Ok(out)
    }

    /// Every link of the page as written, in page order.
    fn occurrences(&self, page: PageId) -> Result<Vec<OutLink>> {
        let Some(v) = link_list(self, page)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        walk_links(&v, |o| {
            out.push(OutLink {
                child: o.child,
                anchor: text(o.anchor, "anchor text")?,
                rel: o.rel,
                element: o.element,
                position: o.position,
                fragment: o.fragment.map(|f| text(f, "fragment")).transpose()?,
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// The page's links as (child, nofollow), one per target, anchors
    /// skipped: what a pass over the whole graph needs, without a string
    /// per link.
    fn link_marks(&self, page: PageId) -> Result<Vec<(PageId, bool)>> {
        let Some(v) = link_list(self, page)? else {
            return Ok(Vec::new());
        };
        let mut out: Vec<(PageId, bool)> = Vec::new();
        let mut at = rustc_hash::FxHashMap::default();
        walk_links(&v, |o| {
            match at.get(&o.child) {
                Some(&i) => {
                    let mark: &mut (PageId, bool) = &mut out[i];
                    mark.1 &= o.rel.nofollow();
                }
                None => {
                    at.insert(o.child, out.len());
                    out.push((o.child, o.rel.nofollow()));
                }
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Pages that link to this page, by id.
    fn parents(&self, page: PageId) -> Result<Vec<PageId>> {
        let mut entries = Vec::new();
        for segment in self.live_segments()?.ids() {
            self.segment_stream_into(Stream::LinksIn, segment, page, &mut entries)?;
        }
        let mut out: Vec<PageId> = entries.iter().map(|e| e.page).collect();
        out.sort_unstable();
        Ok(out)
    }

    /// Pages other than itself that link to this page: its inlinks, as
    /// every report and export counts them (a page's links to itself are
    /// [`LinkRead::self_links`]).
    fn inlinks(&self, page: PageId) -> Result<Vec<PageId>> {
        let mut parents = self.parents(page)?;
        parents.retain(|&p| p != page);
        Ok(parents)
    }

    /// How many of the page's links point to itself (a `#top` link, a
    /// logo linking home on the home page).
    fn self_links(&self, page: PageId) -> Result<u32> {
        let Some(v) = link_list(self, page)? else {
            return Ok(0);
        };
        let mut n = 0u32;
        walk_links(&v, |o| {
            n += u32::from(o.child == page);
            Ok(())
        })?;
        Ok(n)
    }

    /// Links in the graph: every entry of the reverse links' streams.
    fn link_count(&self) -> Result<u64> {
        let mut n = 0u64;
        for db in self.dbs().stream_tables(Stream::LinksIn) {
            for item in db.iter(self.txn())? {
                let (k, part) = item?;
                for run in inverted::run::runs(codec::split_triple_key(k)?.1, part) {
                    for e in run?.entries() {
                        e?;
                        n += 1;
                    }
                }
            }
        }
        Ok(n)
    }
}

impl<T: View + ?Sized> LinkRead for T {}

/// An occurrence's head byte: element in bits 0-1, position in 2-4, then
/// whether a `rel` byte follows (most links have none, so it costs them
/// nothing), whether a fragment follows, and whether an anchor follows
/// (else it is the previous occurrence's of the same child: a menu's
/// links repeat theirs).
const HAS_REL: u8 = 1 << 5;
const HAS_FRAGMENT: u8 = 1 << 6;
const OWN_ANCHOR: u8 = 1 << 7;

/// One occurrence of a `links_out` record, its texts as stored.
struct RawOccurrence<'a> {
    child: PageId,
    anchor: &'a [u8],
    rel: Rel,
    element: LinkElement,
    position: Position,
    fragment: Option<&'a [u8]>,
}

/// Walks a `links_out` record's occurrences, in page order.
fn walk_links<'a>(v: &'a [u8], mut f: impl FnMut(RawOccurrence<'a>) -> Result<()>) -> Result<()> {
    let corrupt = || super::StoreError::corrupt("link occurrence out of range");
    let mut r = VarintReader::new(v);
    let children = codec::read_u32_list(&mut r)?;
    let mut last_anchor: Vec<&[u8]> = vec![&[]; children.len()];
    for _ in 0..r.next_u64()? {
        let index = usize::try_from(r.next_u64()?).map_err(|_| corrupt())?;
        let &child = children.get(index).ok_or_else(corrupt)?;
        let head = r.take(1)?.first().copied().ok_or_else(corrupt)?;
        let element = LinkElement::from_code(head & 0b11).ok_or_else(corrupt)?;
        let position = Position::from_code(head >> 2 & 0b111).ok_or_else(corrupt)?;
        let rel = if head & HAS_REL != 0 {
            let code = r.take(1)?.first().copied().ok_or_else(corrupt)?;
            Rel::from_code(code).ok_or_else(corrupt)?
        } else {
            Rel::default()
        };
        if head & OWN_ANCHOR != 0 {
            let len = r.next_u64()?;
            last_anchor[index] = r.take(len)?;
        }
        let fragment = if head & HAS_FRAGMENT != 0 {
            let len = r.next_u64()?;
            Some(r.take(len)?)
        } else {
            None
        };
        f(RawOccurrence {
            child,
            anchor: last_anchor[index],
            rel,
            element,
            position,
            fragment,
        })?;
    }
    Ok(())
}

fn text(bytes: &[u8], what: &str) -> Result<String> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| super::StoreError::corrupt(format!("link {what} is not UTF-8")))
}

/// A page's `links_out` record, decompressed (None: it links nowhere).
fn link_list<V: View + ?Sized>(view: &V, page: PageId) -> Result<Option<Vec<u8>>> {
    page_records::get(view, Part::Links, page)?
        .map(|stored| record_blocks::plain(view, Kind::Links, page, stored).map(Cow::into_owned))
        .transpose()
}

impl Writer<'_> {
    /// Notes a page's links (every occurrence, in page order) as its
    /// children's parents; `segment` is the one its postings go to.
    /// Returns its `links_out` record, compressed (None: no links).
    pub(super) fn link_children(
        &mut self,
        page: PageId,
        segment: u32,
        links: &[OutLink],
    ) -> Result<Option<Vec<u8>>> {
        if links.is_empty() {
            return Ok(None);
        }
        let mut ids: Vec<PageId> = Vec::with_capacity(links.len());
        let mut index = rustc_hash::FxHashMap::default();
        let mut last_anchor: Vec<&str> = Vec::new();
        let mut value = Vec::with_capacity(links.len() * 12);
        for l in links {
            index.entry(l.child).or_insert_with(|| {
                ids.push(l.child);
                last_anchor.push("");
                ids.len() - 1
            });
        }
        codec::put_u32_list(&mut value, &ids);
        put_varint(&mut value, links.len() as u64);
        for l in links {
            let i = index[&l.child];
            put_varint(&mut value, i as u64);
            let own_anchor = last_anchor[i] != l.anchor;
            let head = l.element.code()
                | l.position.code() << 2
                | if l.rel.is_empty() { 0 } else { HAS_REL }
                | if l.fragment.is_some() {
                    HAS_FRAGMENT
                } else {
                    0
                }
                | if own_anchor { OWN_ANCHOR } else { 0 };
            value.push(head);
            if !l.rel.is_empty() {
                value.push(l.rel.code());
            }
            if own_anchor {
                put_varint(&mut value, l.anchor.len() as u64);
                value.extend_from_slice(l.anchor.as_bytes());
                last_anchor[i] = &l.anchor;
            }
            if let Some(f) = &l.fragment {
                put_varint(&mut value, f.len() as u64);
                value.extend_from_slice(f.as_bytes());
            }
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
        self.write_stream(Stream::LinksIn, segment, stream)
    }

    /// Removes a page's reverse links; `segment` is the one they are in
    /// (None: it has none). Its `links_out` record goes with its other
    /// records (`drop_page_records`).
    pub(super) fn unlink_children(&mut self, page: PageId, segment: Option<u32>) -> Result<()> {
        if let Some(segment) = segment {
            let twin = self.staged_twin(segment)?;
            for c in self.children(page)? {
                if self.pending.segment == Some(segment) {
                    if let Some(parents) = self.pending.parents.get_mut(&c) {
                        parents.retain(|&p| p != page);
                    }
                } else {
                    self.remove_from_stream(Stream::LinksIn, (segment, twin), c, page)?;
                }
            }
        }
        Ok(())
    }
}

//! The link graph: `links_out` (page → its children in page order, then
//! each link's anchor text and nofollow mark, as a zstd frame: anchor
//! texts repeat from page to page, see `dictionary`) and `links_in`: a child's
//! parents in one segment (the parents' segment, see `segments`) under
//! `segment ‖ child ‖ first parent`, the rest as ascending deltas, cut at
//! [`LEAF_VALUE_BYTES`]. A page's parents are one range scan per live
//! segment. One record per parent cost 22 bytes of key and LMDB node for
//! each link (a tenth of a 10k store); a merged segment holds a child's
//! parents in one record.

use super::codec::{self, put_varint, split_triple_key, triple_key, VarintReader};
use super::dictionary::{self, Kind};
use super::schema::{OutLink, PageId, LEAF_VALUE_BYTES};
use super::sealed::View;
use super::segments::SegmentRead;
use super::{page_records, Result, StoreError, Writer};

/// The records of one child's parents (ascending, distinct) in a segment.
pub fn parent_records(segment: u32, child: PageId, parents: &[PageId]) -> Vec<([u8; 12], Vec<u8>)> {
    let mut out = Vec::new();
    let mut rest = parents;
    while let Some((&first, tail)) = rest.split_first() {
        let mut value = Vec::new();
        let mut prev = first;
        let mut taken = 0;
        for &p in tail {
            if value.len() >= LEAF_VALUE_BYTES {
                break;
            }
            put_varint(&mut value, u64::from(p - prev));
            prev = p;
            taken += 1;
        }
        out.push((triple_key(segment, child, first), value));
        rest = &tail[taken..];
    }
    out
}

/// The parents a record names: its key's, then its deltas.
pub fn record_parents(key: &[u8], value: &[u8], out: &mut Vec<PageId>) -> Result<()> {
    let mut prev = split_triple_key(key)?.2;
    out.push(prev);
    let mut r = VarintReader::new(value);
    while !r.is_empty() {
        let delta = r.next_u32()?;
        prev = prev
            .checked_add(delta)
            .filter(|_| delta > 0)
            .ok_or_else(|| StoreError::corrupt("parents not ascending"))?;
        out.push(prev);
    }
    Ok(())
}

/// Parents of one child from several records (segments never share a
/// parent), merged and cut again: a merge's combine step.
pub fn merge_parent_records(
    segment: u32,
    child: PageId,
    records: &[(u32, Vec<u8>)],
) -> Result<Vec<([u8; 12], Vec<u8>)>> {
    let mut parents = Vec::new();
    for (first, value) in records {
        record_parents(&triple_key(segment, child, *first), value, &mut parents)?;
    }
    parents.sort_unstable();
    parents.dedup();
    Ok(parent_records(segment, child, &parents))
}

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
        let mut r = VarintReader::new(&v);
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
        let mut out = Vec::new();
        for segment in self.live_segments()?.ids() {
            let prefix = codec::pair_key(segment, page);
            for item in self.dbs().links_in.prefix_iter(self.txn(), &prefix)? {
                let (k, v) = item?;
                record_parents(k, v, &mut out)?;
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// Links in the graph: a read of every parents record (each varint
    /// ends in a byte below 0x80).
    fn link_count(&self) -> Result<u64> {
        let mut n = 0u64;
        for item in self.dbs().links_in.iter(self.txn())? {
            let (_, v) = item?;
            n += 1 + v.iter().filter(|&&b| b < 0x80).count() as u64;
        }
        Ok(n)
    }
}

impl<T: View + ?Sized> LinkRead for T {}

/// A page's `links_out` record, decompressed (None: it links nowhere).
fn link_list<V: View + ?Sized>(view: &V, page: PageId) -> Result<Option<Vec<u8>>> {
    page_records::get(view, view.dbs().links_out, page)?
        .map(|frame| dictionary::decompress(view, Kind::Links, page, frame))
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

    /// Writes this transaction's parents records, in key order at the end
    /// of the table (its segment is the newest).
    pub(super) fn flush_parents(&mut self) -> Result<()> {
        let mut children: Vec<(PageId, Vec<PageId>)> = self.pending.parents.drain().collect();
        let Some(segment) = self.pending.segment else {
            return Ok(());
        };
        children.sort_unstable_by_key(|(c, _)| *c);
        for (child, mut parents) in children {
            parents.sort_unstable();
            parents.dedup();
            for (k, v) in parent_records(segment, child, &parents) {
                self.append(self.dbs.links_in, &k, &v)?;
            }
        }
        Ok(())
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
                    self.unlink_parent(segment, c, page)?;
                }
            }
        }
        Ok(())
    }

    /// Rewrites the record of `child`'s parents in `segment` that holds
    /// `parent` without it.
    fn unlink_parent(&mut self, segment: u32, child: PageId, parent: PageId) -> Result<()> {
        let wanted = triple_key(segment, child, parent);
        let within = codec::pair_key(segment, child);
        let Some((k, v)) = self.record_holding(self.dbs.links_in, &wanted, &within)? else {
            return Ok(());
        };
        let key = k.to_vec();
        let mut parents = Vec::new();
        record_parents(&key, v, &mut parents)?;
        if !parents.contains(&parent) {
            return Ok(());
        }
        parents.retain(|&p| p != parent);
        self.dbs.links_in.delete(&mut self.txn, &key)?;
        for (k, v) in parent_records(segment, child, &parents) {
            self.dbs.links_in.put(&mut self.txn, &k, &v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_are_cut_into_records_and_read_back() {
        let parents: Vec<PageId> = (0..3000).map(|p| p * 3 + 100).collect();
        let records = parent_records(2, 9, &parents);
        assert!(records.len() > 1, "cut below the overflow size");
        assert!(records.iter().all(|(_, v)| v.len() <= LEAF_VALUE_BYTES));
        let mut back = Vec::new();
        for (k, v) in &records {
            assert_eq!(split_triple_key(k).unwrap().0, 2);
            record_parents(k, v, &mut back).unwrap();
        }
        assert_eq!(back, parents);
        let merged =
            merge_parent_records(5, 9, &[(7, vec![2]), (4, vec![]), (100, vec![1])]).unwrap();
        assert_eq!(merged, vec![(triple_key(5, 9, 4), vec![3, 2, 91, 1])]);
        // A repeated parent is corruption, not a loop or a panic.
        assert!(record_parents(&triple_key(0, 1, 5), &[0], &mut back).is_err());
        assert!(record_parents(&[1, 2], &[], &mut back).is_err());
    }
}

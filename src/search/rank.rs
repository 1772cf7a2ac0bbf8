//! Ranking: the vector space model over the inverted index, with a title
//! boost, positional phrase matching and exclusions.
//!
//! A term is a stem or a quoted phrase. Its weight in a page is
//! `tf / max_tf × idf` with `idf = log2(N / df)`, N the number of pages (each
//! has a forward index) and df from `doc_freq` (for a phrase: the pages it
//! matches). The score is the cosine between the query (`qtf × idf`) and the
//! page, plus [`TITLE_BOOST`] × the share of the query's weight found in the
//! page's title.
//!
//! The cosine's page norm is an approximation. Stored norms (`PageRecord::norm`)
//! are the norm of the `tf / max_tf` vector *without* idf, because idf changes
//! with every page crawled and re-weighting every page each time is not an
//! option. The idf-weighted norm is taken as `norm × idf_max`, idf_max being
//! the largest idf among the query's terms: per query a constant, so the
//! ranking is exactly "dot product / stored norm", while the cosine part stays
//! within [0, 1] (Cauchy–Schwarz) and the title boost keeps its meaning.
//!
//! Cost: one `postings_tf` range scan per word (positions are decoded only
//! for phrase candidates), scores accumulated by merging page-ordered lists,
//! then each candidate's `1 / (max_tf × norm)` from the store's `norms`
//! table (a thousand pages per read); page records are read for the top-k
//! only.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::query::{Exclusion, Phrase, Query};
use crate::store::{
    PageId, PageRead, PageRecord, PostingEntry, StoreError, TitleEntry, WordId, WordRead,
};

/// How much a title holding the whole query adds: more than any body match
/// can score (the cosine part is at most 1), so a title match wins when the
/// bodies are alike.
pub const TITLE_BOOST: f32 = 1.0;

/// A term on every page has idf 0; it still finds pages, it only weighs
/// (almost) nothing, so a one-page store answers its own words.
const IDF_FLOOR: f64 = 1e-3;

/// One `posting(word, page)` look-up reads the segment from the page's forward record and
/// walks a posting block: about this many entries of a full posting scan.
/// With fewer candidates than df / LOOKUP_COST, look-ups win.
const LOOKUP_COST: usize = 32;

/// One term's matches: body (page, tf) and title pages, both in page order.
#[derive(Debug, Default)]
struct Matches {
    body: Vec<(PageId, u32)>,
    title: Vec<PageId>,
}

impl Matches {
    /// Pages matching in body or title: the term's document frequency.
    fn pages(&self) -> Vec<PageId> {
        let mut all: Vec<PageId> = self.body.iter().map(|&(p, _)| p).collect();
        all.extend_from_slice(&self.title);
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// A page's partial score before the page record is read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Acc {
    page: PageId,
    /// Σ c_t × tf: divided by `max_tf × norm` once the record is read.
    body: f32,
    /// Σ over title terms of the query weight share.
    title: f32,
}

/// A ranked page with its record.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    pub page: PageId,
    pub score: f32,
    pub record: PageRecord,
}

/// Ranks the pages matching `q`: the best `limit`, best first, ties by page
/// id ascending, and how many pages match in all.
pub(crate) fn rank<R: PageRead + WordRead>(
    r: &R,
    q: &Query,
    limit: usize,
) -> Result<(Vec<Ranked>, usize), StoreError> {
    let n_pages = r.page_count()?.max(1) as f64;

    // (matches, query tf, df) of every term that occurs somewhere.
    let mut terms: Vec<(Matches, u32, u32)> = Vec::new();
    for (stem, qtf) in &q.words {
        let Some(w) = r.word_id(stem)? else { continue };
        let m = Matches {
            body: r.postings_tf(w)?,
            title: r
                .title_postings_raw(w)?
                .into_iter()
                .map(|e| e.page)
                .collect(),
        };
        let df = r.doc_freq(w)?;
        if !m.body.is_empty() || !m.title.is_empty() {
            terms.push((m, *qtf, df));
        }
    }
    for (phrase, qtf) in &q.phrases {
        let m = phrase_matches(r, phrase)?;
        let df = m.pages().len() as u32;
        if df > 0 {
            terms.push((m, *qtf, df));
        }
    }
    if terms.is_empty() {
        return Ok((Vec::new(), 0));
    }

    let idfs: Vec<f64> = terms
        .iter()
        .map(|&(_, _, df)| {
            let df = f64::from(df.max(1)).min(n_pages);
            (n_pages / df).log2().max(IDF_FLOOR)
        })
        .collect();
    let weights: Vec<f64> = terms
        .iter()
        .zip(&idfs)
        .map(|((_, qtf, _), idf)| f64::from(*qtf) * idf)
        .collect();
    let q_norm_sq: f64 = weights.iter().map(|w| w * w).sum();
    let q_norm = q_norm_sq.sqrt();
    let idf_max = idfs.iter().copied().fold(IDF_FLOOR, f64::max);

    let mut acc: Vec<Acc> = Vec::new();
    for (((m, _, _), idf), w) in terms.iter().zip(&idfs).zip(&weights) {
        let c = (w * idf / (q_norm * idf_max)) as f32;
        let title_share = (w * w / q_norm_sq) as f32;
        let body = m.body.iter().map(|&(page, tf)| Acc {
            page,
            body: c * tf as f32,
            title: 0.0,
        });
        let title = m.title.iter().map(|&page| Acc {
            page,
            body: 0.0,
            title: title_share,
        });
        let term = merge(body, title);
        acc = merge(acc.into_iter(), term.into_iter());
    }

    let excluded = excluded_pages(r, &q.excluded)?;
    if !excluded.is_empty() {
        acc.retain(|a| excluded.binary_search(&a.page).is_err());
    }
    let total = acc.len();
    if limit == 0 {
        return Ok((Vec::new(), total));
    }

    // Each candidate needs only its norm factor (a thousand pages per
    // read); page records are read for the winners alone.
    let mut top = TopK::new(limit);
    let pages: Vec<PageId> = acc.iter().map(|a| a.page).collect();
    for (a, factor) in acc.iter().zip(r.norm_factors(&pages)?) {
        top.offer(a, factor);
    }
    let mut out = Vec::with_capacity(limit);
    for c in top.into_best_first() {
        // Postings naming a page the snapshot does not hold are skipped
        // rather than failing the whole search.
        if let Some(record) = r.page(c.page)? {
            out.push(Ranked {
                page: c.page,
                score: c.score,
                record,
            });
        }
    }
    Ok((out, total))
}

/// The best `limit` pages seen so far.
struct TopK {
    limit: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    fn new(limit: usize) -> Self {
        TopK {
            limit,
            heap: BinaryHeap::with_capacity(limit + 1),
        }
    }

    /// `factor` is the page's `1 / (max_tf × norm)` (0 without a norm).
    fn offer(&mut self, a: &Acc, factor: f32) {
        let candidate = Worst(Candidate {
            page: a.page,
            score: a.body * factor + TITLE_BOOST * a.title,
        });
        if self.heap.len() < self.limit {
            self.heap.push(candidate);
        } else if self.heap.peek().is_some_and(|worst| candidate < *worst) {
            self.heap.pop();
            self.heap.push(candidate);
        }
    }

    fn into_best_first(self) -> Vec<Candidate> {
        // Ascending in `Worst`'s order is best first.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|w| w.0)
            .collect()
    }
}

/// A scored page before its record is read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Candidate {
    page: PageId,
    score: f32,
}

/// Orders candidates so that the *worst* is the greatest: the heap's top
/// is the one to evict. Better = higher score, then lower page id.
struct Worst(Candidate);

impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .score
            .total_cmp(&self.0.score)
            .then(self.0.page.cmp(&other.0.page))
    }
}

impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Worst {}

/// Merges two page-ordered lists, adding the parts of entries for the same
/// page (each input holds a page at most once).
fn merge(a: impl Iterator<Item = Acc>, b: impl Iterator<Item = Acc>) -> Vec<Acc> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    let mut out = Vec::with_capacity(a.size_hint().0 + b.size_hint().0);
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.page.cmp(&y.page) {
                Ordering::Less => a.next(),
                Ordering::Greater => b.next(),
                Ordering::Equal => {
                    let (x, y) = (*x, *y);
                    a.next();
                    b.next();
                    Some(Acc {
                        page: x.page,
                        body: x.body + y.body,
                        title: x.title + y.title,
                    })
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

/// Sorted, distinct pages holding any excluded word or phrase.
fn excluded_pages<R: PageRead + WordRead>(
    r: &R,
    excluded: &[Exclusion],
) -> Result<Vec<PageId>, StoreError> {
    let mut out = Vec::new();
    for e in excluded {
        match e {
            Exclusion::Word(stem) => {
                if let Some(w) = r.word_id(stem)? {
                    out.extend(r.postings_tf(w)?.into_iter().map(|(p, _)| p));
                    out.extend(r.title_postings_raw(w)?.into_iter().map(|e| e.page));
                }
            }
            Exclusion::Phrase(p) => out.extend(phrase_matches(r, p)?.pages()),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// A phrase's distinct stems as word ids, and for each phrase element the
/// index of its stem among them.
type Resolved = (Vec<WordId>, Vec<usize>);

/// None when a stem of the phrase was never indexed.
fn resolve<R: WordRead>(r: &R, phrase: &Phrase) -> Result<Option<Resolved>, StoreError> {
    let mut ids: Vec<WordId> = Vec::new();
    let mut element_stem = Vec::with_capacity(phrase.stems.len());
    for (stem, _) in &phrase.stems {
        let Some(w) = r.word_id(stem)? else {
            return Ok(None);
        };
        let i = match ids.iter().position(|&x| x == w) {
            Some(i) => i,
            None => {
                ids.push(w);
                ids.len() - 1
            }
        };
        element_stem.push(i);
    }
    Ok(Some((ids, element_stem)))
}

/// Where a phrase matches: body pages with the number of matches, and
/// title pages.
fn phrase_matches<R: PageRead + WordRead>(r: &R, phrase: &Phrase) -> Result<Matches, StoreError> {
    let Some((ids, element_stem)) = resolve(r, phrase)? else {
        return Ok(Matches::default());
    };
    let mut dfs = Vec::with_capacity(ids.len());
    for &w in &ids {
        dfs.push(r.doc_freq(w)?);
    }
    let plan = Plan {
        segments: r.segment_ids()?,
        ids,
        dfs,
        element_stem,
        offsets: phrase.stems.iter().map(|&(_, o)| o).collect(),
    };
    let body = plan.matches(
        |s, w, out| r.segment_postings_into(s, w, out),
        |s, w, page| r.segment_posting(s, w, page),
    )?;
    let title = plan.matches(
        |s, w, out| r.segment_title_postings_into(s, w, out),
        |s, w, page| r.segment_title_posting(s, w, page),
    )?;
    Ok(Matches {
        body,
        title: title.into_iter().map(|(p, _)| p).collect(),
    })
}

/// A phrase resolved against the store: its distinct stems with their
/// document frequencies, where each element sits, and the live segments.
struct Plan {
    segments: Vec<u32>,
    ids: Vec<WordId>,
    dfs: Vec<u32>,
    element_stem: Vec<usize>,
    offsets: Vec<u32>,
}

impl Plan {
    /// Pages of `table` where the phrase matches, with the number of
    /// matches, in page order. A page's entries all live in one segment,
    /// so each segment is walked on its own, its lists already in page
    /// order (no sort of whole posting lists). There the rarest stem's
    /// entries are the candidates; each other stem's come from a scan of
    /// the segment or, when its df dwarfs the rarest's, from one look-up
    /// per candidate. Positions stay encoded until a page holds every stem.
    /// `scan(segment, word, out)` appends a segment's entries of a word
    /// (body or title postings), `find(segment, word, page)` reads one.
    fn matches<E: Positional>(
        &self,
        scan: impl Fn(u32, WordId, &mut Vec<E>) -> Result<(), StoreError>,
        find: impl Fn(u32, WordId, PageId) -> Result<Option<E>, StoreError>,
    ) -> Result<Vec<(PageId, u32)>, StoreError> {
        let mut order: Vec<usize> = (0..self.ids.len()).collect();
        order.sort_by_key(|&i| self.dfs[i]);
        let Some((&rarest, others)) = order.split_first() else {
            return Ok(Vec::new());
        };
        let rare_df = self.dfs[rarest] as usize;
        let mut lists: Vec<Vec<E>> = self.ids.iter().map(|_| Vec::new()).collect();
        let mut walk = Walk::default();
        let mut out = Vec::new();
        'segments: for &segment in &self.segments {
            lists.iter_mut().for_each(Vec::clear);
            scan(segment, self.ids[rarest], &mut lists[rarest])?;
            if lists[rarest].is_empty() {
                continue;
            }
            for &i in others {
                let mut list = std::mem::take(&mut lists[i]);
                if rare_df.saturating_mul(LOOKUP_COST) < self.dfs[i] as usize {
                    for e in &lists[rarest] {
                        list.extend(find(segment, self.ids[i], e.page())?);
                    }
                } else {
                    scan(segment, self.ids[i], &mut list)?;
                }
                let empty = list.is_empty();
                lists[i] = list;
                if empty {
                    continue 'segments;
                }
            }
            walk.run(&lists, &order, &self.element_stem, &self.offsets, &mut out)?;
        }
        // Each segment's run is in page order; the segments are not.
        out.sort_unstable_by_key(|&(p, _)| p);
        Ok(out)
    }
}

/// An entry of a posting list whose positions are decoded on demand.
trait Positional: Copy {
    fn page(&self) -> PageId;
    fn positions_into(&self, out: &mut Vec<u32>) -> Result<(), StoreError>;
}

impl Positional for PostingEntry<'_> {
    fn page(&self) -> PageId {
        self.page
    }
    fn positions_into(&self, out: &mut Vec<u32>) -> Result<(), StoreError> {
        PostingEntry::positions_into(self, out)
    }
}

impl Positional for TitleEntry<'_> {
    fn page(&self) -> PageId {
        self.page
    }
    fn positions_into(&self, out: &mut Vec<u32>) -> Result<(), StoreError> {
        TitleEntry::positions_into(self, out)
    }
}

/// Buffers of a walk over page-ordered lists, kept across segments.
#[derive(Default)]
struct Walk {
    /// Per distinct stem: its list's cursor and its positions on the page.
    cursors: Vec<usize>,
    positions: Vec<Vec<u32>>,
    counting: Scratch,
}

impl Walk {
    /// Walks the page-ordered `lists` (one per stem) together, `order[0]`'s
    /// leading, and appends each page that holds every stem with the
    /// phrase's matches there: positions are decoded there only, so two
    /// frequent words cost a walk of their lists, not a decoded copy.
    fn run<T: Positional>(
        &mut self,
        lists: &[Vec<T>],
        order: &[usize],
        element_stem: &[usize],
        offsets: &[u32],
        out: &mut Vec<(PageId, u32)>,
    ) -> Result<(), StoreError> {
        let Some((&lead, rest)) = order.split_first() else {
            return Ok(());
        };
        self.cursors.clear();
        self.cursors.resize(lists.len(), 0);
        self.positions.resize_with(lists.len(), Vec::new);
        'pages: for base in &lists[lead] {
            let p = base.page();
            for &i in rest {
                let list = &lists[i];
                let c = &mut self.cursors[i];
                while list.get(*c).is_some_and(|e| e.page() < p) {
                    *c += 1;
                }
                if list.get(*c).is_none_or(|e| e.page() != p) {
                    continue 'pages;
                }
            }
            base.positions_into(&mut self.positions[lead])?;
            for &i in rest {
                lists[i][self.cursors[i]].positions_into(&mut self.positions[i])?;
            }
            let n = count_matches(&self.positions, element_stem, offsets, &mut self.counting);
            if n > 0 {
                out.push((p, n));
            }
        }
        Ok(())
    }
}

/// How many start positions place every phrase element `e` at
/// `start + offsets[e]`, given each distinct stem's ascending positions.
/// Where the starts are dense (a frequent pair in a page: tens of
/// positions within a few hundred) it intersects bitsets of the starts
/// each element allows; where they are sparse it walks the lists.
fn count_matches(
    lists: &[Vec<u32>],
    element_stem: &[usize],
    offsets: &[u32],
    scratch: &mut Scratch,
) -> u32 {
    let (Some(&first_stem), Some(&first_off)) = (element_stem.first(), offsets.first()) else {
        return 0;
    };
    let Some(first) = lists.get(first_stem) else {
        return 0;
    };
    let starts = first.iter().filter_map(|p| p.checked_sub(first_off));
    let (Some(lo), Some(hi)) = (starts.clone().next(), starts.clone().next_back()) else {
        return 0;
    };
    let words = (hi - lo) as usize / 64 + 1;
    let positions: usize = element_stem
        .iter()
        .map(|&s| lists.get(s).map_or(0, Vec::len))
        .sum();
    if words <= positions {
        count_dense(lists, element_stem, offsets, lo, hi, scratch)
    } else {
        count_sparse(lists, element_stem, offsets, &mut scratch.cursors)
    }
}

/// Buffers `count_matches` reuses from page to page.
#[derive(Default)]
struct Scratch {
    starts: Vec<u64>,
    allowed: Vec<u64>,
    cursors: Vec<usize>,
}

/// [`count_matches`] with one bit per start in `lo..=hi`: the first
/// element's starts, and with them each other element's allowed starts.
fn count_dense(
    lists: &[Vec<u32>],
    element_stem: &[usize],
    offsets: &[u32],
    lo: u32,
    hi: u32,
    scratch: &mut Scratch,
) -> u32 {
    let words = (hi - lo) as usize / 64 + 1;
    let fill = |bits: &mut Vec<u64>, stem: usize, off: u32| {
        bits.clear();
        bits.resize(words, 0);
        let list = lists.get(stem).map_or(&[][..], Vec::as_slice);
        // Positions ascend: skip those before `lo` at once, stop past `hi`.
        let first = u64::from(off) + u64::from(lo);
        let from = list.partition_point(|&q| u64::from(q) < first);
        for &q in &list[from..] {
            let i = (u64::from(q) - first) as usize;
            match bits.get_mut(i / 64) {
                Some(w) => *w |= 1 << (i % 64),
                None => break,
            }
        }
    };
    let Scratch {
        starts, allowed, ..
    } = scratch;
    let elements = element_stem.iter().zip(offsets);
    for (e, (&stem, &off)) in elements.enumerate() {
        if e == 0 {
            fill(starts, stem, off);
        } else {
            fill(allowed, stem, off);
            starts
                .iter_mut()
                .zip(allowed.iter())
                .for_each(|(s, a)| *s &= a);
        }
    }
    starts.iter().map(|w| w.count_ones()).sum()
}

/// [`count_matches`] by walking: the starts ascend, so each element's
/// wanted position does too, and one forward pass over each stem's
/// positions answers (`cursors` is scratch, one per element).
fn count_sparse(
    lists: &[Vec<u32>],
    element_stem: &[usize],
    offsets: &[u32],
    cursors: &mut Vec<usize>,
) -> u32 {
    let (Some(&first_stem), Some(&first_off)) = (element_stem.first(), offsets.first()) else {
        return 0;
    };
    let Some(first) = lists.get(first_stem) else {
        return 0;
    };
    cursors.clear();
    cursors.resize(element_stem.len(), 0);
    let mut n = 0;
    'starts: for &p in first {
        let Some(start) = p.checked_sub(first_off) else {
            continue;
        };
        for (e, (&s, &o)) in element_stem.iter().zip(offsets).enumerate().skip(1) {
            let (Some(want), Some(list)) = (start.checked_add(o), lists.get(s)) else {
                break 'starts;
            };
            let c = &mut cursors[e];
            while list.get(*c).is_some_and(|&q| q < want) {
                *c += 1;
            }
            match list.get(*c) {
                Some(&q) if q == want => {}
                Some(_) => continue 'starts,
                // Every later start wants a larger position still.
                None => break 'starts,
            }
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrase_positions_must_line_up() {
        let c = &mut Scratch::default();
        let lists = [vec![4, 10, 20], vec![7, 12, 23, 40]];
        assert_eq!(count_matches(&lists, &[0, 1], &[0, 3], c), 2);
        assert_eq!(count_matches(&lists, &[0, 1], &[0, 1], c), 0);
        // A repeated stem: "run run" in "run run run" matches twice.
        let lists = [vec![0, 1, 2]];
        assert_eq!(count_matches(&lists, &[0, 0], &[0, 1], c), 2);
        // Three elements, the last past a gap: "a b _ c".
        let lists = [vec![1, 5, 9], vec![2, 6, 10], vec![4, 12]];
        assert_eq!(count_matches(&lists, &[0, 1, 2], &[0, 1, 3], c), 2);
        // Sparse: two matches a million positions apart.
        let lists = [vec![3, 1_000_000], vec![4, 1_000_001]];
        assert_eq!(count_matches(&lists, &[0, 1], &[0, 1], c), 2);
        assert_eq!(count_matches(&[], &[], &[], c), 0);
    }

    proptest::proptest! {
        /// The bitset and the walk agree with a brute-force count, on
        /// phrases of up to four elements over up to three stems.
        #[test]
        fn both_counts_agree_with_brute_force(
            lists in proptest::collection::vec(
                proptest::collection::btree_set(0u32..300, 0..60), 1..4),
            elements in proptest::collection::vec((0usize..3, 0u32..6), 1..5),
        ) {
            let lists: Vec<Vec<u32>> = lists.into_iter().map(|s| s.into_iter().collect()).collect();
            let element_stem: Vec<usize> = elements.iter().map(|&(s, _)| s % lists.len()).collect();
            let mut offsets: Vec<u32> = elements.iter().map(|&(_, o)| o).collect();
            offsets.sort_unstable();
            let want = (0..400u32)
                .filter(|&start| {
                    element_stem.iter().zip(&offsets).all(|(&s, &o)| lists[s].contains(&(start + o)))
                })
                .count() as u32;
            let mut c = Scratch::default();
            proptest::prop_assert_eq!(count_matches(&lists, &element_stem, &offsets, &mut c), want);
            proptest::prop_assert_eq!(
                count_sparse(&lists, &element_stem, &offsets, &mut c.cursors),
                want
            );
            if let (Some(&lo), Some(&hi)) = (lists[element_stem[0]].first(), lists[element_stem[0]].last()) {
                if lo >= offsets[0] {
                    proptest::prop_assert_eq!(
                        count_dense(&lists, &element_stem, &offsets, lo - offsets[0], hi - offsets[0], &mut c),
                        want
                    );
                }
            }
        }
    }

    #[test]
    fn merge_adds_parts_of_the_same_page() {
        let a = |page, body, title| Acc { page, body, title };
        let got = merge(
            vec![a(1, 1.0, 0.0), a(3, 1.0, 0.0)].into_iter(),
            vec![a(2, 0.0, 0.5), a(3, 0.5, 0.5), a(9, 0.0, 1.0)].into_iter(),
        );
        assert_eq!(
            got,
            [
                a(1, 1.0, 0.0),
                a(2, 0.0, 0.5),
                a(3, 1.5, 0.5),
                a(9, 0.0, 1.0)
            ]
        );
    }

    #[test]
    fn worst_orders_best_first_and_ties_by_page() {
        let r = |page, score| Worst(Candidate { page, score });
        let mut v = [r(3, 0.5), r(1, 0.5), r(2, 0.9), r(4, 0.1)];
        v.sort();
        let got: Vec<PageId> = v.iter().map(|w| w.0.page).collect();
        assert_eq!(got, [2, 1, 3, 4]);
    }
}

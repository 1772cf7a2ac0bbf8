//! Positional phrase matching: the pages that hold a phrase and how many
//! times each does, from body or title postings.
//!
//! A page's entries all live in one segment, so each segment is read on
//! its own, its lists already in page order. Reading happens on the
//! caller's thread (a read transaction belongs to it); walking the lists
//! and counting positions is plain work on borrowed bytes, done by other
//! threads while the reading goes on when there is enough of it: a phrase
//! of two words found on every page decodes millions of positions.
//! Unless the segment keeps pairs of both (`store::PairRead`): a phrase of
//! two common words side by side is then read as one list of pages with
//! their counts.

use std::num::NonZeroUsize;
use std::ops::Range;
use std::sync::{mpsc, Arc, Mutex, PoisonError};

use super::query::Phrase;
use crate::store::{
    PageId, PairRead, Positions, PostingEntry, StoreError, Stream, WordId, WordRead,
};

/// One `posting(word, page)` look-up reads the segment from the page's
/// forward record, seeks the part and decodes up to one run's heads:
/// about this many entries of a full posting scan. With fewer candidates
/// than df / LOOKUP_COST, look-ups win. Measured at 100,000 pages: a
/// look-up 1.4 µs, a scanned entry 32 ns.
const LOOKUP_COST: usize = 48;

/// Below this many candidate pages one thread walks them all: a thread
/// costs tens of microseconds to start, a candidate page a few hundred
/// nanoseconds to count. Past it, the walk runs beside the reading, which
/// with bit-coded posting runs takes as long: a phrase
/// of a word on every page and one on a sixth of them took 9-12 ms at
/// 100,000 pages with 20,000 here, 8-9 ms with this.
const PARALLEL_WALK: usize = 4_096;

/// Candidates handed to a walker at a time: enough that taking the next
/// chunk costs nothing beside counting it, few enough that the walkers
/// finish together.
const CHUNK: usize = 2048;

/// How a walk may split: onto `threads` threads, in chunks of `chunk`
/// candidates, once `from` candidates are read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Split {
    pub from: usize,
    pub threads: usize,
    pub chunk: usize,
}

impl Split {
    /// From [`PARALLEL_WALK`] candidates, one thread per core.
    pub fn by_cores() -> Split {
        Split {
            from: PARALLEL_WALK,
            threads: std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            chunk: CHUNK,
        }
    }
}

/// Pages with how many times the phrase matches there, in page order.
pub(super) type PageCounts = Vec<(PageId, u32)>;

/// Where a phrase matches: body pages with the number of matches there,
/// and title pages; both in page order.
pub(super) fn phrase_matches<R: WordRead>(
    r: &R,
    phrase: &Phrase,
    split: Split,
) -> Result<(PageCounts, Vec<PageId>), StoreError> {
    let Some((ids, element_stem)) = resolve(r, phrase)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut dfs = Vec::with_capacity(ids.len());
    for &w in &ids {
        dfs.push(r.doc_freq(w)?);
    }
    let segments = r.segment_ids()?;
    let plan = Plan {
        ids,
        dfs,
        element_stem,
        offsets: phrase.stems.iter().map(|&(_, o)| o).collect(),
        split,
    };
    // The body: from pair postings where a segment keeps both words of a
    // two-word phrase, walked by position in every other segment.
    let mut from_pairs = Vec::new();
    let mut walked = Vec::with_capacity(segments.len());
    let pair = plan.side_by_side();
    for &segment in &segments {
        if let Some((a, b)) = pair {
            if let Some(kept) = r.pairs_kept(segment)?.filter(|k| k.holds(a) && k.holds(b)) {
                r.pair_counts(segment, &kept, (a, b), &mut from_pairs)?;
                continue;
            }
        }
        walked.push(segment);
    }
    let body = plan.matches(
        &walked,
        from_pairs,
        |s, w, only, out| match only {
            Some(pages) => r.segment_postings_at(Stream::Body, s, w, pages, out),
            None => r.segment_postings_into(s, w, out),
        },
        |s, w, page| r.segment_posting(s, w, page),
    )?;
    let title = plan.matches(
        &segments,
        Vec::new(),
        |s, w, only, out| match only {
            Some(pages) => r.segment_postings_at(Stream::Title, s, w, pages, out),
            None => r.segment_title_postings_into(s, w, out),
        },
        |s, w, page| r.segment_title_posting(s, w, page),
    )?;
    Ok((body, title.into_iter().map(|(p, _)| p).collect()))
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

/// A phrase resolved against the store: its distinct stems with their
/// document frequencies, and where each element sits.
struct Plan {
    ids: Vec<WordId>,
    dfs: Vec<u32>,
    element_stem: Vec<usize>,
    offsets: Vec<u32>,
    split: Split,
}

/// One segment's entries per distinct stem, each list in page order.
type SegmentLists<E> = Vec<Vec<E>>;

impl Plan {
    /// The two stems of a phrase of two words side by side ("a b", or "a
    /// a"): pair postings answer it where a segment keeps both.
    fn side_by_side(&self) -> Option<(WordId, WordId)> {
        match (&self.element_stem[..], &self.offsets[..]) {
            (&[x, y], &[o, p]) if o.checked_add(1) == Some(p) => {
                Some((*self.ids.get(x)?, *self.ids.get(y)?))
            }
            _ => None,
        }
    }

    /// Pages of a table where the phrase matches, with the number of
    /// matches, in page order. In each segment the rarest stem's entries
    /// are the candidates; each other stem's come from a scan of the
    /// segment or, when its df dwarfs the rarest's, from one look-up per
    /// candidate. `scan(segment, word, only, out)` appends a segment's
    /// entries of a word (body or title postings), only those for the
    /// pages `only` lists when it is given, `find(segment, word, page)`
    /// reads one.
    ///
    /// With enough candidates the walk runs beside the reading: this
    /// thread reads segment after segment and hands their candidates out
    /// in chunks, other threads count them, and once the reading is done
    /// this thread counts too. Reading belongs to this thread (the read
    /// transaction does); the bytes it returns can be walked anywhere.
    ///
    /// `segments` are walked; `found` are pages counted otherwise (from
    /// pair postings), merged in.
    fn matches<E: Positional + Send + Sync>(
        &self,
        segments: &[u32],
        found: PageCounts,
        scan: impl Fn(u32, WordId, Option<&[PageId]>, &mut Vec<E>) -> Result<(), StoreError>,
        find: impl Fn(u32, WordId, PageId) -> Result<Option<E>, StoreError>,
    ) -> Result<PageCounts, StoreError> {
        let mut order: Vec<usize> = (0..self.ids.len()).collect();
        order.sort_by_key(|&i| self.dfs[i]);
        // One shape per stem: each page lets its rarest stem lead. Every
        // stem has an element (`resolve` made the stems from them).
        let shapes: Vec<Shape> = (0..self.ids.len())
            .filter_map(|stem| Shape::new(&self.element_stem, &self.offsets, stem))
            .collect();
        if shapes.len() != self.ids.len() {
            return Err(StoreError::corrupt("a phrase stem without an element"));
        }
        let read = |segment| self.read(segment, &order, &scan, &find);
        let mut out = self.read_beside_walks(segments, read, &order, &shapes)?;
        out.extend(found);
        // Each segment's run is in page order; the segments (and the
        // chunks) are not. A stable sort finds the runs and merges them.
        out.sort_by_key(|&(p, _)| p);
        Ok(out)
    }

    /// One segment's lists, None when a stem has no entry there.
    fn read<E: Positional>(
        &self,
        segment: u32,
        order: &[usize],
        scan: &impl Fn(u32, WordId, Option<&[PageId]>, &mut Vec<E>) -> Result<(), StoreError>,
        find: &impl Fn(u32, WordId, PageId) -> Result<Option<E>, StoreError>,
    ) -> Result<Option<SegmentLists<E>>, StoreError> {
        let Some((&rarest, others)) = order.split_first() else {
            return Ok(None);
        };
        let rare_df = self.dfs[rarest] as usize;
        let mut lists: SegmentLists<E> = self.ids.iter().map(|_| Vec::new()).collect();
        scan(segment, self.ids[rarest], None, &mut lists[rarest])?;
        if lists[rarest].is_empty() {
            return Ok(None);
        }
        // The other stems are asked for the candidates' pages alone.
        let candidates: Vec<PageId> = lists[rarest].iter().map(Positional::page).collect();
        for &i in others {
            let mut list = Vec::new();
            if rare_df.saturating_mul(LOOKUP_COST) < self.dfs[i] as usize {
                for e in &lists[rarest] {
                    list.extend(find(segment, self.ids[i], e.page())?);
                }
            } else {
                scan(segment, self.ids[i], Some(&candidates), &mut list)?;
            }
            if list.is_empty() {
                return Ok(None);
            }
            lists[i] = list;
        }
        Ok(Some(lists))
    }

    /// Reads every segment on this thread, handing the candidates out in
    /// chunks; once `split.from` candidates are read, `split.threads - 1`
    /// other threads start walking them. Then walks what is left.
    fn read_beside_walks<E: Positional + Send + Sync>(
        &self,
        segments: &[u32],
        read: impl Fn(u32) -> Result<Option<SegmentLists<E>>, StoreError>,
        order: &[usize],
        shapes: &[Shape],
    ) -> Result<PageCounts, StoreError> {
        let Some(&lead) = order.first() else {
            return Ok(Vec::new());
        };
        let (chunks, inbox) = mpsc::channel::<Chunk<E>>();
        let inbox = Mutex::new(inbox);
        let counted = |inbox: &Mutex<mpsc::Receiver<Chunk<E>>>| {
            let mut walk = Walk::default();
            let mut out = Vec::new();
            // The lock is held only to take the next chunk.
            let next = || inbox.lock().unwrap_or_else(PoisonError::into_inner).recv();
            while let Ok((lists, range)) = next() {
                walk.run(&lists, range, order, shapes, &mut out)?;
            }
            Ok::<_, StoreError>(out)
        };
        std::thread::scope(|s| {
            let mut walkers = Vec::new();
            let mut candidates = 0;
            for &segment in segments {
                let Some(lists) = read(segment)? else {
                    continue;
                };
                let lists = Arc::new(lists);
                let len = lists[lead].len();
                for from in (0..len).step_by(self.split.chunk.max(1)) {
                    let to = len.min(from + self.split.chunk.max(1));
                    // The receiver lives in this frame: a send cannot fail.
                    let _ = chunks.send((Arc::clone(&lists), from..to));
                }
                candidates += len;
                if walkers.is_empty() && candidates >= self.split.from {
                    walkers = (1..self.split.threads)
                        .map(|_| s.spawn(|| counted(&inbox)))
                        .collect();
                }
            }
            drop(chunks);
            let mut out = counted(&inbox)?;
            for handle in walkers {
                match handle.join() {
                    Ok(part) => out.extend(part?),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            Ok(out)
        })
    }
}

/// Candidates of one segment to count: its lists and a range of the
/// lead's entries.
type Chunk<E> = (Arc<SegmentLists<E>>, Range<usize>);

/// An entry of a posting list whose positions stay encoded until needed.
trait Positional: Copy {
    fn page(&self) -> PageId;
    fn positions(&self) -> Result<Positions<'_>, StoreError>;
}

impl Positional for PostingEntry<'_> {
    fn page(&self) -> PageId {
        self.page
    }
    fn positions(&self) -> Result<Positions<'_>, StoreError> {
        Ok(self.encoded_positions())
    }
}

/// Buffers of a walk over page-ordered lists, kept from page to page.
#[derive(Default)]
struct Walk {
    /// Per distinct stem: its list's cursor.
    cursors: Vec<usize>,
    counting: Scratch,
}

impl Walk {
    /// Walks the candidates `range` of `lists[order[0]]` with the other
    /// page-ordered lists (one per stem) and appends each page that holds
    /// every stem with the phrase's matches there, counted from the stem
    /// rarest on that page (`shapes[stem]`: that stem leading).
    fn run<T: Positional>(
        &mut self,
        lists: &[Vec<T>],
        range: Range<usize>,
        order: &[usize],
        shapes: &[Shape],
        out: &mut Vec<(PageId, u32)>,
    ) -> Result<(), StoreError> {
        let Some((&lead, rest)) = order.split_first() else {
            return Ok(());
        };
        let Some(candidates) = lists[lead].get(range) else {
            return Ok(());
        };
        let Some(first) = candidates.first() else {
            return Ok(());
        };
        // A share may start mid-list: every list starts at its first page.
        self.cursors.clear();
        self.cursors.extend(
            lists
                .iter()
                .map(|l| l.partition_point(|e| e.page() < first.page())),
        );
        let mut stems: Vec<Positions<'_>> = Vec::with_capacity(lists.len());
        'pages: for base in candidates {
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
            stems.clear();
            let mut rarest = 0;
            for (i, list) in lists.iter().enumerate() {
                let entry = if i == lead {
                    base
                } else {
                    &list[self.cursors[i]]
                };
                let positions = entry.positions()?;
                if positions.count < stems.get(rarest).map_or(u32::MAX, |p: &Positions| p.count) {
                    rarest = i;
                }
                stems.push(positions);
            }
            let n = count_matches(&stems, &shapes[rarest], &mut self.counting)?;
            if n > 0 {
                out.push((p, n));
            }
        }
        Ok(())
    }
}

/// What the count asks of each page, fixed for the whole phrase: the
/// rarest stem's first element proposes the starts, every other element
/// asks its stem for a position at `start + offset`.
struct Shape {
    lead_stem: usize,
    lead_offset: u32,
    /// Elements other than the lead: (stem, offset).
    others: Vec<(usize, u32)>,
    /// Per distinct stem: the smallest and largest offset the other
    /// elements ask of it (None: no other element uses it).
    reach: Vec<Option<(u32, u32)>>,
}

impl Shape {
    /// None for an empty phrase or a lead stem no element uses.
    fn new(element_stem: &[usize], offsets: &[u32], lead_stem: usize) -> Option<Shape> {
        let lead = element_stem.iter().position(|&s| s == lead_stem)?;
        let stems = element_stem.iter().max()? + 1;
        let mut others = Vec::new();
        let mut reach: Vec<Option<(u32, u32)>> = vec![None; stems];
        for (e, (&stem, &off)) in element_stem.iter().zip(offsets).enumerate() {
            if e == lead {
                continue;
            }
            others.push((stem, off));
            let r = &mut reach[stem];
            *r = Some(r.map_or((off, off), |(lo, hi)| (lo.min(off), hi.max(off))));
        }
        Some(Shape {
            lead_stem,
            lead_offset: *offsets.get(lead)?,
            others,
            reach,
        })
    }
}

/// Buffers [`count_matches`] reuses from page to page.
#[derive(Default)]
struct Scratch {
    starts: Vec<u32>,
    /// Per distinct stem: where its positions may complete a match.
    sets: Vec<PositionSet>,
    /// Per other element: a cursor into its stem's sorted positions.
    cursors: Vec<usize>,
    /// The starts as bits, when every other stem is in bits too.
    lead_bits: Vec<u64>,
}

/// The count when every other element's stem is in bits: the starts as
/// bits, each other element's bits laid over them (shifted by its
/// offset), and the starts left standing counted. A word of 64 starts at
/// a time, with no branch per start.
fn count_in_bits(
    starts: &[u32],
    lo: u32,
    hi: u32,
    shape: &Shape,
    sets: &[PositionSet],
    bits: &mut Vec<u64>,
) -> u32 {
    bits.clear();
    bits.resize((hi - lo) as usize / 64 + 1, 0);
    for &start in starts {
        let i = (start - lo) as usize;
        bits[i / 64] |= 1 << (i % 64);
    }
    for &(stem, off) in &shape.others {
        let set = &sets[stem];
        // Start lo + i puts this element at lo + i + off: bit i + shift
        // of a set whose window begins at or before lo + off.
        let shift = (u64::from(lo) + u64::from(off)).saturating_sub(set.from);
        for (k, word) in bits.iter_mut().enumerate() {
            *word &= set.word_at(k as u64 * 64 + shift);
        }
    }
    bits.iter().map(|w| w.count_ones()).sum()
}

/// How many start positions place every phrase element at `start +
/// offset`, given each distinct stem's encoded positions on the page.
/// The lead proposes the starts; every other stem is decoded only across
/// the window those starts can reach, into bits where that window is
/// dense (a frequent pair in a page: tens of positions within a few
/// hundred), else into a sorted list walked with one cursor per element.
fn count_matches(
    stems: &[Positions<'_>],
    shape: &Shape,
    scratch: &mut Scratch,
) -> Result<u32, StoreError> {
    count_with(stems, shape, scratch, |words, positions| words <= positions)
}

/// [`count_matches`] with the choice of bits over a sorted list left to
/// `dense(window words, positions at stake)`, so tests can force either.
fn count_with(
    stems: &[Positions<'_>],
    shape: &Shape,
    scratch: &mut Scratch,
    dense: impl Fn(u64, u64) -> bool,
) -> Result<u32, StoreError> {
    let Some(lead) = stems.get(shape.lead_stem) else {
        return Ok(0);
    };
    let Scratch {
        starts,
        sets,
        cursors,
        lead_bits,
    } = scratch;
    starts.clear();
    lead.decode(|p| {
        if let Some(start) = p.checked_sub(shape.lead_offset) {
            starts.push(start);
        }
        true
    })?;
    let (Some(&lo), Some(&hi)) = (starts.first(), starts.last()) else {
        return Ok(0);
    };
    sets.resize_with(stems.len(), PositionSet::default);
    for (stem, ((encoded, set), reach)) in stems
        .iter()
        .zip(sets.iter_mut())
        .zip(&shape.reach)
        .enumerate()
    {
        let Some((min, max)) = *reach else { continue };
        let (from, to) = (
            u64::from(lo) + u64::from(min),
            u64::from(hi) + u64::from(max),
        );
        let words = (to - from) / 64 + 1;
        let at_stake = u64::from(encoded.count) + starts.len() as u64;
        let dense = dense(words, at_stake);
        // A stem repeated after the lead ("run run") is asked only for
        // positions at or past the lead's offset: the starts already hold
        // them, decoded once.
        if stem == shape.lead_stem && min >= shape.lead_offset {
            let again = Shifted {
                starts,
                by: shape.lead_offset,
            };
            set.fill(&again, from, to, dense)?;
        } else {
            set.fill(encoded, from, to, dense)?;
        }
    }
    if shape.others.iter().all(|&(stem, _)| sets[stem].dense) {
        return Ok(count_in_bits(starts, lo, hi, shape, sets, lead_bits));
    }
    cursors.clear();
    cursors.resize(shape.others.len(), 0);
    let mut n = 0;
    'starts: for &start in starts.iter() {
        for (&(stem, off), cursor) in shape.others.iter().zip(cursors.iter_mut()) {
            let want = u64::from(start) + u64::from(off);
            if !sets[stem].holds(want, cursor) {
                continue 'starts;
            }
        }
        n += 1;
    }
    Ok(n)
}

/// A stem's positions on a page, ascending.
trait Ascending {
    /// Calls `keep_going` with each position until it says stop.
    fn each(&self, keep_going: impl FnMut(u32) -> bool) -> Result<(), StoreError>;
}

impl Ascending for Positions<'_> {
    fn each(&self, keep_going: impl FnMut(u32) -> bool) -> Result<(), StoreError> {
        self.decode(keep_going)
    }
}

/// The lead stem's positions from the starts it proposed.
struct Shifted<'a> {
    starts: &'a [u32],
    by: u32,
}

impl Ascending for Shifted<'_> {
    fn each(&self, mut keep_going: impl FnMut(u32) -> bool) -> Result<(), StoreError> {
        for &start in self.starts {
            // A start is a position less the offset: adding it back fits.
            if !keep_going(start.saturating_add(self.by)) {
                break;
            }
        }
        Ok(())
    }
}

/// A stem's positions within a window `from..=to`: one bit each when
/// `dense`, else a sorted list.
#[derive(Default)]
struct PositionSet {
    from: u64,
    dense: bool,
    bits: Vec<u64>,
    sorted: Vec<u32>,
}

impl PositionSet {
    fn fill(
        &mut self,
        encoded: &impl Ascending,
        from: u64,
        to: u64,
        dense: bool,
    ) -> Result<(), StoreError> {
        self.from = from;
        self.dense = dense;
        if dense {
            let bits = &mut self.bits;
            bits.clear();
            bits.resize(((to - from) / 64 + 1) as usize, 0);
            encoded.each(|p| {
                let p = u64::from(p);
                if p >= from && p <= to {
                    let i = (p - from) as usize;
                    bits[i / 64] |= 1 << (i % 64);
                }
                p < to
            })
        } else {
            let sorted = &mut self.sorted;
            sorted.clear();
            encoded.each(|p| {
                let p64 = u64::from(p);
                if p64 >= from && p64 <= to {
                    sorted.push(p);
                }
                p64 < to
            })
        }
    }

    /// The 64 bits of a dense set from bit `at` on (0 past its end).
    fn word_at(&self, at: u64) -> u64 {
        let (q, r) = ((at / 64) as usize, at % 64);
        let low = self.bits.get(q).map_or(0, |w| w >> r);
        if r == 0 {
            return low;
        }
        low | self.bits.get(q + 1).map_or(0, |w| w << (64 - r))
    }

    /// Whether `want` is one of the positions. Sorted lists are asked in
    /// ascending order per cursor, so each cursor only moves forward.
    fn holds(&self, want: u64, cursor: &mut usize) -> bool {
        if self.dense {
            let Some(i) = want.checked_sub(self.from) else {
                return false;
            };
            let i = i as usize;
            self.bits
                .get(i / 64)
                .is_some_and(|w| w >> (i % 64) & 1 == 1)
        } else {
            let list = &self.sorted;
            while list.get(*cursor).is_some_and(|&q| u64::from(q) < want) {
                *cursor += 1;
            }
            list.get(*cursor).is_some_and(|&q| u64::from(q) == want)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::codec::put_positions;

    fn count(
        lists: &[Vec<u32>],
        element_stem: &[usize],
        offsets: &[u32],
        dense: Option<bool>,
    ) -> u32 {
        // Each list as the store writes title positions.
        let encoded: Vec<Vec<u8>> = lists
            .iter()
            .map(|l| {
                let mut out = Vec::new();
                put_positions(&mut out, l);
                out
            })
            .collect();
        let stems: Vec<Positions<'_>> = encoded
            .iter()
            .map(|bytes| Positions::counted(bytes).expect("well-formed"))
            .collect();
        // Every stem leads once: the count must not depend on which.
        let mut counts = (0..lists.len()).filter_map(|lead| {
            let shape = Shape::new(element_stem, offsets, lead)?;
            let c = &mut Scratch::default();
            Some(
                match dense {
                    None => count_matches(&stems, &shape, c),
                    Some(d) => count_with(&stems, &shape, c, |_, _| d),
                }
                .expect("well-formed positions"),
            )
        });
        let first = counts.next().unwrap_or(0);
        assert!(counts.all(|n| n == first), "the lead changed the count");
        first
    }

    #[test]
    fn phrase_positions_must_line_up() {
        for dense in [None, Some(true), Some(false)] {
            let lists = [vec![4, 10, 20], vec![7, 12, 23, 40]];
            assert_eq!(count(&lists, &[0, 1], &[0, 3], dense), 2);
            assert_eq!(count(&lists, &[0, 1], &[0, 1], dense), 0);
            // A repeated stem: "run run" in "run run run" matches twice.
            assert_eq!(count(&[vec![0, 1, 2]], &[0, 0], &[0, 1], dense), 2);
            // Three elements, the last past a gap: "a b _ c".
            let lists = [vec![1, 5, 9], vec![2, 6, 10], vec![4, 12]];
            assert_eq!(count(&lists, &[0, 1, 2], &[0, 1, 3], dense), 2);
            // Two matches a million positions apart.
            let lists = [vec![3, 1_000_000], vec![4, 1_000_001]];
            assert_eq!(count(&lists, &[0, 1], &[0, 1], dense), 2);
            assert_eq!(count(&[], &[], &[], dense), 0);
        }
    }

    #[test]
    fn positions_that_overflow_are_corrupt() {
        let stems = [Positions::new(2, &[0xff, 0xff, 0xff, 0xff, 0x0f, 0x01])];
        let shape = Shape::new(&[0], &[0], 0).expect("one element");
        assert!(count_matches(&stems, &shape, &mut Scratch::default()).is_err());
    }

    proptest::proptest! {
        /// The count agrees with a brute-force one, with bits, with
        /// sorted lists and as chosen, on phrases of up to four elements
        /// over up to three stems.
        #[test]
        fn counts_agree_with_brute_force(
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
            for dense in [None, Some(true), Some(false)] {
                proptest::prop_assert_eq!(count(&lists, &element_stem, &offsets, dense), want);
            }
        }
    }
}

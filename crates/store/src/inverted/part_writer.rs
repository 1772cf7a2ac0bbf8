//! Writing posting streams: [`PartWriter`] cuts a segment's entries,
//! given in (word, page) order, into runs and parts in the layout
//! [`super::run`] reads, choosing each run's Rice parameters as it
//! closes.

use crate::bits::BitWriter;
use crate::codec::put_varint;
use crate::schema::{PageId, WordId, LEAF_VALUE_BYTES};
use crate::{Result, StoreError};

use super::pending::{pending_entries, put_deltas};
use super::run::{part_key, Entry, Held, Part};

/// Entries a run holds at most. A look-up of one page reads the run's
/// first entry and span, and decodes the bits only of the run that spans
/// the page: with runs as long as a part (a thousand entries of a
/// frequent word), each look-up decoded hundreds of entries, and a
/// phrase of a rare and a frequent word makes thousands of look-ups. A
/// run's head and byte-coded first entry cost about nine bytes more than
/// its bit-coded entries, a few percent of a frequent word's postings.
pub(super) const RUN_ENTRIES: usize = 128;

/// The largest Rice parameter a run names (four bits of its parameter
/// byte): gaps and positions past 2^15 cost a few more unary bits.
const MAX_K: u32 = 15;

/// Cuts one segment's entries, given in (word, page) order, into parts.
pub struct PartWriter {
    segment: u32,
    done: Vec<Part>,
    /// The open part's closed runs, and its key's word and page.
    part: Vec<u8>,
    key: Option<(WordId, PageId)>,
    /// The word of the part's last closed run.
    last_word: WordId,
    run: OpenRun,
    /// The last entry pushed.
    last: Option<(WordId, PageId)>,
    /// Positions being encoded by [`PartWriter::push_positions`].
    scratch: Vec<u8>,
    /// A run being encoded by [`PartWriter::close_run`].
    encoded: Vec<u8>,
}

/// The run being gathered: its first entry in bytes, the later ones as
/// values (their Rice parameters are chosen when the run closes), with
/// the sums that bound the run's size meanwhile.
#[derive(Default)]
struct OpenRun {
    first: Vec<u8>,
    later: Vec<Later>,
    /// The position lists of the later entries with tf > 1.
    lists: Vec<u8>,
    tally: Tally,
}

#[derive(Debug, Clone, Copy)]
struct Later {
    /// The page's distance from the entry before, less one.
    gap: u32,
    tf: u32,
    /// The position when tf is 1, else the list's byte length.
    lone_or_bytes: u32,
}

/// What [`OpenRun::bound`] counts, kept so a push can be taken back.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    word: Option<WordId>,
    /// The first and the last entry's page.
    first: PageId,
    page: PageId,
    gap_sum: u64,
    lone_sum: u64,
    lones: u64,
    /// Gamma bits of the tfs > 1 among the later entries, and of their
    /// lists' lengths.
    tf_bits: u64,
    several: bool,
    /// The largest weight class of its entries.
    class: u8,
}

/// The Rice parameter a list of `n` values summing to `sum` starts from:
/// the log of their mean (found without dividing: a push asks for it),
/// where the cost of a value, `(v >> k) + 1 + k` bits, is least for
/// values spread around it.
fn centre_k(sum: u64, n: u64) -> u32 {
    if n == 0 || sum < n {
        return 0;
    }
    // The largest k with n << k <= sum: one below the bit lengths'
    // difference, or at it.
    let mut k = n.leading_zeros() - sum.leading_zeros();
    if n << k > sum {
        k -= 1;
    }
    k.min(MAX_K)
}

/// Bits a list of `n` values summing to `sum` takes at most with the
/// parameter [`centre_k`] gives: each `v >> k` is at most its share of
/// `sum >> k`. The parameter chosen at the close costs no more.
fn rice_bound(sum: u64, n: u64) -> u64 {
    let k = centre_k(sum, n);
    (sum >> k) + n * (1 + u64::from(k))
}

/// The parameter, [`centre_k`]'s or one either side, that codes `values`
/// in the fewest bits (one pass for the three).
fn best_k(values: impl Iterator<Item = u32>, sum: u64, n: u64) -> u32 {
    let centre = centre_k(sum, n);
    let below = centre.saturating_sub(1);
    let mut cost = [0u64; 3];
    for v in values {
        for (i, c) in cost.iter_mut().enumerate() {
            *c += u64::from(v >> (below + i as u32));
        }
    }
    (below..=(centre + 1).min(MAX_K))
        .zip(cost)
        .min_by_key(|&(k, c)| c + n * (1 + u64::from(k)))
        .map_or(centre, |(k, _)| k)
}

fn gamma_len(value: u32) -> u64 {
    u64::from(2 * (31 - value.leading_zeros()) + 1)
}

impl OpenRun {
    /// Adds an entry that comes after the run's last (the caller checked
    /// the order and that it has positions).
    fn add(&mut self, word: WordId, e: &Entry<'_>) {
        let t = &mut self.tally;
        t.class = t.class.max(e.class);
        if t.word.is_none() {
            t.word = Some(word);
            t.first = e.page;
            match e.held {
                Held::Lone(p) => {
                    put_varint(&mut self.first, u64::from(e.page) << 1);
                    put_varint(&mut self.first, u64::from(p));
                }
                Held::Deltas(deltas) => {
                    put_varint(&mut self.first, u64::from(e.page) << 1 | 1);
                    put_varint(&mut self.first, u64::from(e.tf));
                    self.first.extend_from_slice(deltas);
                }
            }
        } else {
            let gap = e.page - t.page - 1;
            t.gap_sum += u64::from(gap);
            let lone_or_bytes = match e.held {
                Held::Lone(p) => {
                    t.lone_sum += u64::from(p);
                    t.lones += 1;
                    p
                }
                Held::Deltas(deltas) => {
                    // A part's list fits in u32 (push checked it, and
                    // that it holds a byte per position at least).
                    let bytes = deltas.len() as u32;
                    t.several = true;
                    t.tf_bits += gamma_len(e.tf - 1) + gamma_len(bytes - e.tf + 1);
                    self.lists.extend_from_slice(deltas);
                    bytes
                }
            };
            self.later.push(Later {
                gap,
                tf: e.tf,
                lone_or_bytes,
            });
        }
        t.page = e.page;
    }

    /// The lengths to cut back to, with the tally, to take a push back.
    fn mark(&self) -> (Tally, usize, usize, usize) {
        (
            self.tally,
            self.first.len(),
            self.later.len(),
            self.lists.len(),
        )
    }

    fn undo(&mut self, (tally, first, later, lists): (Tally, usize, usize, usize)) {
        self.tally = tally;
        self.first.truncate(first);
        self.later.truncate(later);
        self.lists.truncate(lists);
    }

    /// Bytes the run takes at most once closed, its head in the part
    /// (word delta and byte length) counted.
    fn bound(&self) -> usize {
        let mut bytes = 10 + 1 + self.first.len();
        if !self.later.is_empty() {
            let t = &self.tally;
            let n = self.later.len() as u64;
            let mut bits = rice_bound(t.gap_sum, n) + rice_bound(t.lone_sum, t.lones);
            if t.several {
                bits += n + t.tf_bits;
            }
            // Span and list length (two varints), the parameter byte.
            bytes += 5 + 5 + 1 + bits.div_ceil(8) as usize + self.lists.len();
        }
        bytes
    }

    /// Writes the run as stored into `out` and empties it.
    fn encode(&mut self, out: &mut Vec<u8>) {
        out.push(self.tally.class);
        out.extend_from_slice(&self.first);
        if !self.later.is_empty() {
            let t = &self.tally;
            let n = self.later.len() as u64;
            put_varint(out, u64::from(t.page - t.first) << 1 | u64::from(t.several));
            if t.several {
                put_varint(out, self.lists.len() as u64);
            }
            let later = &self.later;
            let gap_k = best_k(later.iter().map(|l| l.gap), t.gap_sum, n);
            let lones = later.iter().filter(|l| l.tf == 1).map(|l| l.lone_or_bytes);
            let lone_k = best_k(lones, t.lone_sum, t.lones);
            out.push((gap_k << 4 | lone_k) as u8);
            let mut w = BitWriter::new(out);
            for l in later {
                w.put_rice(l.gap, gap_k);
                if t.several {
                    w.put(u32::from(l.tf != 1), 1);
                }
                if l.tf == 1 {
                    w.put_rice(l.lone_or_bytes, lone_k);
                } else {
                    w.put_gamma(l.tf - 1);
                    w.put_gamma(l.lone_or_bytes - l.tf + 1);
                }
            }
            w.finish();
            out.extend_from_slice(&self.lists);
        }
        self.first.clear();
        self.later.clear();
        self.lists.clear();
        self.tally = Tally::default();
    }
}

impl PartWriter {
    pub fn new(segment: u32) -> PartWriter {
        PartWriter {
            segment,
            done: Vec::new(),
            part: Vec::with_capacity(LEAF_VALUE_BYTES + 64),
            key: None,
            last_word: 0,
            run: OpenRun::default(),
            last: None,
            scratch: Vec::new(),
            encoded: Vec::new(),
        }
    }

    /// The segment whose entries it cuts.
    pub fn segment(&self) -> u32 {
        self.segment
    }

    /// Adds an entry; a segment's entries come in (word, page) order (an
    /// entry out of order, or one without positions, is an error: what
    /// the writer read was corrupt).
    pub fn push(&mut self, word: WordId, e: &Entry<'_>) -> Result<()> {
        if self.last.is_some_and(|last| last >= (word, e.page)) {
            return Err(StoreError::corrupt("postings out of (word, page) order"));
        }
        if e.tf == 0 {
            return Err(StoreError::corrupt("a posting without positions"));
        }
        if let Held::Deltas(deltas) = e.held {
            if deltas.len() < e.tf as usize || u32::try_from(deltas.len()).is_err() {
                return Err(StoreError::corrupt(
                    "a posting list shorter than its positions",
                ));
            }
        }
        self.last = Some((word, e.page));
        self.push_next(word, e);
        Ok(())
    }

    /// [`PartWriter::push`] of an entry given by its positions (a
    /// transaction's own, not yet encoded) and its weight class.
    pub fn push_positions(
        &mut self,
        word: WordId,
        page: PageId,
        positions: &[u32],
        class: u8,
    ) -> Result<()> {
        if let [only] = positions {
            let e = Entry {
                page,
                tf: 1,
                held: Held::Lone(*only),
                class,
            };
            return self.push(word, &e);
        }
        let mut raw = std::mem::take(&mut self.scratch);
        raw.clear();
        put_deltas(&mut raw, positions);
        let e = Entry {
            page,
            tf: positions.len() as u32,
            held: Held::Deltas(&raw),
            class,
        };
        let pushed = self.push(word, &e);
        self.scratch = raw;
        pushed
    }

    fn push_next(&mut self, word: WordId, e: &Entry<'_>) {
        if self.run.tally.word != Some(word) || self.run.later.len() + 1 >= RUN_ENTRIES {
            self.close_run();
        }
        let mark = self.run.mark();
        self.run.add(word, e);
        if self.key.is_some() && self.part.len() + self.run.bound() > LEAF_VALUE_BYTES {
            self.run.undo(mark);
            self.close_part();
            return self.push_next(word, e);
        }
        if self.key.is_none() {
            self.key = Some((word, e.page));
            self.last_word = word;
        }
    }

    /// Adds a stored run of `word` as it is, its pages `first..=last`
    /// coming after every entry pushed before.
    pub(super) fn push_run(
        &mut self,
        word: WordId,
        run: &[u8],
        first: PageId,
        last: PageId,
    ) -> Result<()> {
        if self.last.is_some_and(|l| l >= (word, first)) {
            return Err(StoreError::corrupt("postings out of (word, page) order"));
        }
        self.close_run();
        if self.key.is_some() && self.part.len() + 10 + run.len() > LEAF_VALUE_BYTES {
            self.close_part();
        }
        if self.key.is_none() {
            self.key = Some((word, first));
            self.last_word = word;
        }
        super::run::put_head(&mut self.part, word - self.last_word, run.len());
        self.part.extend_from_slice(run);
        self.last_word = word;
        self.last = Some((word, last));
        Ok(())
    }

    /// Adds one word's pending block; `ascending` when its pages were put
    /// in ascending order, as the writer puts a batch's pages: it is then
    /// read straight through, where listing and sorting its entries first
    /// (a list allocated per word and transaction, most words having one
    /// entry) was the larger part of writing a transaction's postings.
    pub fn push_block(&mut self, word: WordId, block: &[u8], ascending: bool) -> Result<()> {
        if ascending {
            for e in pending_entries(block) {
                self.push(word, &e?)?;
            }
            return Ok(());
        }
        let mut list: Vec<Entry<'_>> = pending_entries(block).collect::<Result<_>>()?;
        list.sort_unstable_by_key(|e| e.page);
        for e in &list {
            self.push(word, e)?;
        }
        Ok(())
    }

    /// The parts completed so far, in key order.
    pub fn take_done(&mut self) -> Vec<Part> {
        std::mem::take(&mut self.done)
    }

    /// Every remaining part, the open one closed.
    pub fn finish(mut self) -> Vec<Part> {
        self.close_part();
        self.done
    }

    fn close_run(&mut self) {
        if let Some(word) = self.run.tally.word {
            self.encoded.clear();
            self.run.encode(&mut self.encoded);
            super::run::put_head(&mut self.part, word - self.last_word, self.encoded.len());
            self.part.extend_from_slice(&self.encoded);
            self.last_word = word;
        }
    }

    fn close_part(&mut self) {
        self.close_run();
        if let Some((word, page)) = self.key.take() {
            let bytes =
                std::mem::replace(&mut self.part, Vec::with_capacity(LEAF_VALUE_BYTES + 64));
            self.done.push((part_key(self.segment, word, page), bytes));
        }
    }
}

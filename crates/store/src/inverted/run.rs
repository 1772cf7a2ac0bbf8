//! Body postings as one stream per *segment* (what one write transaction
//! indexed, or several segments merged): every (word, page) entry of the
//! segment in word then page order, cut into parts of at most
//! `LEAF_VALUE_BYTES` under `segment ‖ word id ‖ page` (big-endian) of
//! the part's first entry. A part is a sequence of *runs*, one word's entries
//! each, after a head: `varint length << 1 | 1` when the run's word is the
//! one after the last run's (99% of the runs: the stream holds most words
//! of the segment), else `varint length << 1, varint word delta`; the first
//! run's word is the key's (delta 0). Parts written before 2026-11-27 spell
//! every head `varint word delta, varint length`; such a part begins with a
//! 0 byte (its first delta), which a head of today's never is (its length
//! is at least 1), so both are read. Title postings and reverse links are
//! streams of the same kind.
//!
//! A run's first byte is its *weight class*: an upper bound, on a
//! logarithmic scale ([`weight_class`], [`class_bound`]), of what its
//! entries weigh in the ranking, `tf × norm factor` (`1 / (max_tf ×
//! norm)`, the page's, see the search's `rank` module), so a top-k search
//! passes a run that cannot enter its results unread (block-max
//! skipping, as Lucene and tantivy do). It is written from the pages'
//! norm factors when a transaction's postings are written, and a merge
//! or a rewritten part gives a run the largest class of the runs its
//! entries came from (still a bound, never lower). Streams that are not
//! ranked (title postings, reverse links) write 0.
//!
//! After it, a run's first entry is bytes: `page << 1 | several`, then either the
//! one position (tf 1: seven entries in eight on a real site) or `tf` and
//! the positions' deltas (varints). The entries after it, if any, are
//! bit-coded (see [`crate::bits`]): a varint `span << 1 | several` (the
//! last page less the first, so a merge knows a run's pages unread), then
//! when `several` the byte length of their position lists, a byte holding
//! two Rice parameters (for the page gaps, and for the lone positions),
//! then for each entry the Rice code of its page gap less one, a flag bit
//! for tf > 1 (only when `several`), and the lone position's Rice code or
//! tf − 1 and the list's bytes beyond tf, plus one, as gamma codes. The
//! lists of the entries with tf > 1 follow the bits as varint deltas, so
//! a phrase decodes them as it always did. Their lengths let a
//! reader pass lists unread: a word on every page has fifty positions a
//! page, and counting their varints to find the next list took a quarter
//! of a phrase's time.
//!
//! Why bits: on the 10k bench site the byte-aligned runs took 17.2 MB,
//! 28% of the store; most page gaps and lone positions are a few bits
//! over a byte or two, which varints round up to whole bytes. The first
//! entry stays in bytes because a third of the runs hold only it (rare
//! words), where two Rice parameters would cost more than they save.
//!
//! Parts hold many words' runs because most words are rare: one part per
//! word and segment made ~475,000 records of 12 bytes median on a 10k
//! site, each paying a 12-byte key and 10 bytes of LMDB node. A word's run
//! is cut where a part fills, and the next part starts with it, and after
//! `RUN_ENTRIES` entries, so a look-up decodes the bits of one run. A
//! word may have several runs in a row: a merge copies a long run whose pages
//! no other segment's interleave as it is (`RAW_RUN_BYTES`), where
//! decoding and coding it again made merges a tenth of a 100k crawl.
//!
//! The segment leads the key so that each transaction's postings are
//! appended at the end of the B-tree: a commit copies only the pages it
//! filled, however large the index has grown. [`super::segments`] keeps
//! the list of live segments and merges them, so a word is read from a
//! few. A page's postings live in one segment, which its forward record
//! names (through the merges since); the part holding a (word, page) is
//! the last keyed at or before it. A repacked small store keeps a
//! reference in a body part's place (`crate::body_blocks`, `Shelf::Postings`),
//! which every read resolves before it reads the part.

use crate::bits::BitReader;
use crate::codec::{self, Positions, VarintReader};
use crate::schema::{PageId, WordId};
use crate::{Result, StoreError};

/// The key of a part: its segment, then its first entry's word and page.
pub fn part_key(segment: u32, word: WordId, first_page: PageId) -> [u8; 12] {
    codec::triple_key(segment, word, first_page)
}

/// The class of a run none of whose entries' weights is known: never
/// passed over.
pub const UNBOUNDED: u8 = u8::MAX;

/// Classes per doubling of the weight: a bound within 4.4% of the weight.
const CLASSES_PER_OCTAVE: f64 = 16.0;

/// The class whose bound is 1, the most an entry weighs (tf ≤ max_tf and
/// norm ≥ 1); the classes above leave room for rounding.
const CLASS_OF_ONE: i32 = 239;

/// The smallest class whose [`class_bound`] is at least `weight`
/// ([`UNBOUNDED`] for a weight not known or too large to bound). Found
/// in the table of bounds: it runs for every posting a crawl writes,
/// where a logarithm and its inverse each time cost 2% of the crawl.
pub fn weight_class(weight: f32) -> u8 {
    if weight.is_nan() {
        return UNBOUNDED;
    }
    if weight <= 0.0 {
        return 0;
    }
    let w = f64::from(weight);
    // At most UNBOUNDED: the table holds the classes below it.
    bounds().partition_point(|&b| b < w) as u8
}

/// The most an entry of a run of class `class` weighs.
pub fn class_bound(class: u8) -> f64 {
    bounds()
        .get(usize::from(class))
        .copied()
        .unwrap_or(f64::INFINITY)
}

/// The bound of every class below [`UNBOUNDED`], rising.
fn bounds() -> &'static [f64; UNBOUNDED as usize] {
    static BOUNDS: std::sync::OnceLock<[f64; UNBOUNDED as usize]> = std::sync::OnceLock::new();
    BOUNDS.get_or_init(|| {
        std::array::from_fn(|c| ((c as i32 - CLASS_OF_ONE) as f64 / CLASSES_PER_OCTAVE).exp2())
    })
}

/// Where an entry's positions are: decoded already (a lone position),
/// or varint deltas.
#[derive(Debug, Clone, Copy)]
pub(super) enum Held<'a> {
    Lone(u32),
    Deltas(&'a [u8]),
}

/// One decoded entry; positions stay encoded until asked for.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub page: PageId,
    pub tf: u32,
    pub(super) held: Held<'a>,
    /// The weight class of the run it was read from (or of its own
    /// weight, for an entry being written).
    pub(crate) class: u8,
}

impl<'a> Entry<'a> {
    pub fn positions(&self) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(self.tf as usize);
        self.positions_into(&mut out)?;
        Ok(out)
    }

    /// The positions as stored, decoded only as far as a reader asks.
    pub fn encoded_positions(&self) -> Positions<'a> {
        match self.held {
            Held::Lone(p) => Positions::lone(p),
            Held::Deltas(deltas) => Positions::new(self.tf, deltas),
        }
    }

    /// Decodes the positions into `out` (cleared first), so a scan can
    /// reuse one buffer.
    pub fn positions_into(&self, out: &mut Vec<u32>) -> Result<()> {
        self.encoded_positions().decode_into(out)
    }
}

/// Iterates the entries of a stored run, failing on malformed bytes (and
/// stopping after the failure).
pub struct Entries<'a> {
    /// The run's bytes until its first entry is read.
    first: Option<&'a [u8]>,
    class: u8,
    prev: PageId,
    /// The run's last page, and how to read its bit-coded entries.
    last: PageId,
    several: bool,
    gap_k: u32,
    lone_k: u32,
    bits: BitReader<'a>,
    lists: VarintReader<'a>,
}

/// Entries of a stored run.
pub fn entries(run: &[u8]) -> Entries<'_> {
    // An empty run fails at its first entry.
    let (class, rest) = run.split_first().map_or((0, run), |(c, rest)| (*c, rest));
    Entries {
        first: Some(rest),
        class,
        prev: 0,
        last: 0,
        several: false,
        gap_k: 0,
        lone_k: 0,
        bits: BitReader::new(&[]),
        lists: VarintReader::new(&[]),
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let one = match self.first.take() {
            Some(run) => self.read_first(run),
            None if self.prev < self.last => self.read_later(),
            None => return None,
        };
        if one.is_err() {
            self.last = self.prev;
        }
        Some(one)
    }
}

impl<'a> Entries<'a> {
    /// The run's last page, once its first entry is read.
    pub fn last_page(&self) -> PageId {
        self.last
    }

    /// The run's weight class, known before any entry is read.
    pub fn class(&self) -> u8 {
        self.class
    }

    fn read_first(&mut self, run: &'a [u8]) -> Result<Entry<'a>> {
        let mut r = VarintReader::new(run);
        let head = r.next_u64()?;
        let page = u32::try_from(head >> 1)
            .map_err(|_| StoreError::corrupt("page id overflow in a posting part"))?;
        let (tf, held) = if head & 1 == 0 {
            (1, Held::Lone(r.next_u32()?))
        } else {
            let tf = r.next_u32()?;
            (tf, Held::Deltas(r.take_varints(tf)?))
        };
        (self.prev, self.last) = (page, page);
        if !r.is_empty() {
            let span = r.next_u64()?;
            self.last = u32::try_from(span >> 1)
                .ok()
                .filter(|&n| n > 0)
                .and_then(|n| page.checked_add(n))
                .ok_or_else(|| StoreError::corrupt("posting run with a bad page span"))?;
            self.several = span & 1 == 1;
            let lists = if self.several { r.next_u64()? } else { 0 };
            let ks = r.take(1)?[0];
            (self.gap_k, self.lone_k) = (u32::from(ks >> 4), u32::from(ks & 15));
            let rest = r.remaining();
            let split = usize::try_from(lists)
                .ok()
                .and_then(|l| rest.len().checked_sub(l))
                .ok_or_else(|| StoreError::corrupt("posting lists overrun their run"))?;
            self.bits = BitReader::new(&rest[..split]);
            self.lists = VarintReader::new(&rest[split..]);
        }
        Ok(Entry {
            page,
            tf,
            held,
            class: self.class,
        })
    }

    fn read_later(&mut self) -> Result<Entry<'a>> {
        let (page, coded) = self.read_later_head()?;
        let entry = match coded {
            Coded::Lone(p) => Entry {
                page,
                tf: 1,
                held: Held::Lone(p),
                class: self.class,
            },
            Coded::Several(tf, bytes) => Entry {
                page,
                tf,
                held: Held::Deltas(self.take_list(bytes)?),
                class: self.class,
            },
        };
        if page == self.last && !self.lists.is_empty() {
            return Err(StoreError::corrupt(
                "posting run holds more than its entries",
            ));
        }
        Ok(entry)
    }

    /// A later entry's page and its bit-coded rest, its position list (if
    /// any) left unread.
    #[inline]
    fn read_later_head(&mut self) -> Result<(PageId, Coded)> {
        let (gap, coded) = match self.head_in_one_load() {
            Some(head) => head,
            None => self.head_code_by_code()?,
        };
        let page = self
            .prev
            .checked_add(gap)
            .and_then(|p| p.checked_add(1))
            .filter(|&p| p <= self.last)
            .ok_or_else(|| StoreError::corrupt("posting run passes its last page"))?;
        self.prev = page;
        if page == self.last && !self.bits.at_end() {
            return Err(StoreError::corrupt(
                "posting run holds more than its entries",
            ));
        }
        Ok((page, coded))
    }

    /// An entry's gap and the rest of its codes from one load, when they
    /// fit in it (most do: a gap and a position take a dozen bits or two).
    #[inline]
    fn head_in_one_load(&mut self) -> Option<(u32, Coded)> {
        let mut w = self.bits.load();
        let gap = w.rice(self.gap_k)?;
        let coded = if self.several && w.bit()? == 1 {
            let tf = w.gamma()? + 1;
            // Both below 2^29 + 1: the sum fits.
            Coded::Several(tf, tf + w.gamma()? - 1)
        } else {
            Coded::Lone(w.rice(self.lone_k)?)
        };
        self.bits.consume(&w);
        Some((gap, coded))
    }

    /// [`Entries::head_in_one_load`] for codes that do not fit one load,
    /// or that fail.
    fn head_code_by_code(&mut self) -> Result<(u32, Coded)> {
        let gap = self.bits.get_rice(self.gap_k)?;
        let coded = if self.several && self.bits.get(1)? == 1 {
            let tf = self
                .bits
                .get_gamma()?
                .checked_add(1)
                .ok_or_else(|| StoreError::corrupt("posting tf overflow"))?;
            // Each position takes a byte at least: the code is what the
            // list takes beyond that, plus one.
            let beyond = self.bits.get_gamma()? - 1;
            let bytes = tf
                .checked_add(beyond)
                .ok_or_else(|| StoreError::corrupt("posting list length overflow"))?;
            Coded::Several(tf, bytes)
        } else {
            Coded::Lone(self.bits.get_rice(self.lone_k)?)
        };
        Ok((gap, coded))
    }

    /// Each entry's page and tf, position lists skipped unread: what a
    /// ranking asks of a word, where a frequent word's lists are most of
    /// its run.
    pub fn page_tfs(mut self) -> impl Iterator<Item = Result<(PageId, u32)>> + 'a {
        std::iter::from_fn(move || {
            let one = match self.first.take() {
                Some(run) => self.read_first(run).map(|e| (e.page, e.tf)),
                None if self.prev < self.last => self.read_later_head().map(|(page, coded)| {
                    let tf = match coded {
                        Coded::Lone(_) => 1,
                        Coded::Several(tf, _) => tf,
                    };
                    (page, tf)
                }),
                None => return None,
            };
            if one.is_err() {
                self.last = self.prev;
            }
            Some(one)
        })
    }

    /// The entry for `page`, if the run has one.
    pub fn find(self, page: PageId) -> Result<Option<Entry<'a>>> {
        let mut found = None;
        self.at_pages(&[page], &mut 0, |e| found = Some(e))?;
        Ok(found)
    }

    /// Calls `found` with the run's entries for `pages` (ascending) from
    /// `pages[*next]` on, and leaves `next` at the first page past the
    /// run (so a word's runs are read in turn). The other entries are
    /// read without their position lists, which are passed in one step,
    /// and a run whose span holds no page costs its first entry alone: a
    /// phrase asks a word on every page for the pages of a rarer one.
    pub fn at_pages(
        mut self,
        pages: &[PageId],
        next: &mut usize,
        mut found: impl FnMut(Entry<'a>),
    ) -> Result<()> {
        let Some(run) = self.first.take() else {
            return Ok(());
        };
        // Moves `next` past the pages before `page`, or up to it.
        let past = |next: &mut usize, page: PageId, including: bool| {
            while pages
                .get(*next)
                .is_some_and(|&p| p < page || including && p == page)
            {
                *next += 1;
            }
        };
        let first = self.read_first(run)?;
        past(next, first.page, false);
        if pages.get(*next) == Some(&first.page) {
            found(first);
        }
        past(next, first.page, true);
        // The bytes of the lists of the entries passed over.
        let mut passed_bytes = 0u64;
        // Stops where no page is left within the run.
        while pages.get(*next).is_some_and(|&p| p <= self.last) {
            let (at, coded) = self.read_later_head()?;
            past(next, at, false);
            let hit = pages.get(*next) == Some(&at);
            match coded {
                Coded::Lone(p) if hit => found(Entry {
                    page: at,
                    tf: 1,
                    held: Held::Lone(p),
                    class: self.class,
                }),
                Coded::Lone(_) => {}
                Coded::Several(tf, bytes) if hit => {
                    self.lists.take(passed_bytes)?;
                    passed_bytes = 0;
                    let held = Held::Deltas(self.take_list(bytes)?);
                    found(Entry {
                        page: at,
                        tf,
                        held,
                        class: self.class,
                    });
                }
                Coded::Several(_, bytes) => passed_bytes += u64::from(bytes),
            }
            past(next, at, true);
        }
        past(next, self.last, true);
        Ok(())
    }

    /// The next list of the run's lists, `bytes` long.
    fn take_list(&mut self, bytes: u32) -> Result<&'a [u8]> {
        self.lists.take(u64::from(bytes))
    }
}

/// A bit-coded entry past its page: its lone position, or its tf and the
/// byte length of its position list, the list still in the run's lists.
#[derive(Debug, Clone, Copy)]
pub(super) enum Coded {
    Lone(u32),
    Several(u32, u32),
}

/// One word's entries inside a part.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    pub word: WordId,
    pub bytes: &'a [u8],
}

impl<'a> Run<'a> {
    pub fn entries(&self) -> Entries<'a> {
        entries(self.bytes)
    }
}

/// The runs of a stored part whose key names `word`, failing on malformed
/// bytes (and stopping after the failure).
pub fn runs(word: WordId, part: &[u8]) -> Runs<'_> {
    Runs {
        r: VarintReader::new(part),
        word,
        delta_first: part.first() == Some(&0),
    }
}

/// Writes a run's head: its word's delta from the last run's and its
/// byte length (`len` ≥ 1).
pub(super) fn put_head(out: &mut Vec<u8>, delta: WordId, len: usize) {
    let len = len as u64;
    if delta == 1 {
        codec::put_varint(out, len << 1 | 1);
    } else {
        codec::put_varint(out, len << 1);
        codec::put_varint(out, u64::from(delta));
    }
}

pub struct Runs<'a> {
    r: VarintReader<'a>,
    word: WordId,
    /// The part spells its heads as written before 2026-11-27.
    delta_first: bool,
}

impl<'a> Iterator for Runs<'a> {
    type Item = Result<Run<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.r.is_empty() {
            return None;
        }
        let run = self.read_one();
        if run.is_err() {
            self.r = VarintReader::new(&[]);
        }
        Some(run)
    }
}

impl<'a> Runs<'a> {
    fn read_one(&mut self) -> Result<Run<'a>> {
        let (delta, len) = if self.delta_first {
            let delta = self.r.next_u32()?;
            (delta, self.r.next_u64()?)
        } else {
            let head = self.r.next_u64()?;
            let delta = if head & 1 == 1 { 1 } else { self.r.next_u32()? };
            (delta, head >> 1)
        };
        self.word = self
            .word
            .checked_add(delta)
            .ok_or_else(|| StoreError::corrupt("word id overflow in a posting part"))?;
        let bytes = self.r.take(len)?;
        if bytes.is_empty() {
            return Err(StoreError::corrupt("posting part holds an empty run"));
        }
        Ok(Run {
            word: self.word,
            bytes,
        })
    }
}

/// A stored part: its key and bytes.
pub type Part = ([u8; 12], Vec<u8>);

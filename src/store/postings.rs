//! Body postings as one stream per *segment* (what one write transaction
//! indexed, or several segments merged): every (word, page) entry of the
//! segment in word then page order, cut into parts of at most
//! [`LEAF_VALUE_BYTES`] under `segment ‖ word id ‖ page` (big-endian) of
//! the part's first entry. A part is a sequence of *runs*, one word's entries
//! each: `word delta, byte length, run`, the first run's word being the
//! key's. Title postings and reverse links are streams of the same kind.
//!
//! A run's first entry is bytes: `page << 1 | several`, then either the
//! one position (tf 1: seven entries in eight on a real site) or `tf` and
//! the positions' deltas (varints). The entries after it, if any, are
//! bit-coded (see [`super::bits`]): a varint `span << 1 | several` (the
//! last page less the first, so a merge knows a run's pages unread), then
//! when `several` the byte length of their position lists, a byte holding
//! two Rice parameters (for the page gaps, and for the lone positions),
//! then for each entry the Rice code of its page gap less one, a flag bit
//! for tf > 1 (only when `several`), and the lone position's Rice code or
//! tf − 1 and the list's bytes beyond tf, plus one, as gamma codes. The
//! lists of the entries with tf > 1 follow the bits as varint deltas, so
//! a phrase decodes them as it always did. Their lengths (schema 15) let a
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
//! [`RUN_ENTRIES`] entries, so a look-up decodes the bits of one run. A
//! word may have several runs in a row: a merge copies a long run whose pages
//! no other segment's interleave as it is ([`RAW_RUN_BYTES`]), where
//! decoding and coding it again made merges a tenth of a 100k crawl.
//!
//! The segment leads the key so that each transaction's postings are
//! appended at the end of the B-tree: a commit copies only the pages it
//! filled, however large the index has grown. [`super::segments`] keeps
//! the list of live segments and merges them, so a word is read from a
//! few. A page's postings live in one segment, which its forward record
//! names (through the merges since); the part holding a (word, page) is
//! the last keyed at or before it.

use rustc_hash::FxHashMap as HashMap;

use super::bits::{BitReader, BitWriter};
use super::codec::{self, put_varint, Positions, VarintReader};
use super::schema::{PageId, WordId, LEAF_VALUE_BYTES};
use super::segments::SegmentList;
use super::{Result, StoreError};

/// Runs of at least this many bytes that a merge finds whole before the
/// other segments' pages are copied as they are: their head and byte-coded
/// first entry cost a few percent of such a run, and coding the entries
/// again cost more CPU than the rest of the merge.
const RAW_RUN_BYTES: usize = 128;

/// Entries a run holds at most. A look-up of one page reads the run's
/// first entry and span, and decodes the bits only of the run that spans
/// the page: with runs as long as a part (a thousand entries of a
/// frequent word), each look-up decoded hundreds of entries, and a
/// phrase of a rare and a frequent word makes thousands of look-ups. A
/// run's head and byte-coded first entry cost about nine bytes more than
/// its bit-coded entries, a few percent of a frequent word's postings.
const RUN_ENTRIES: usize = 128;

/// The largest Rice parameter a run names (four bits of its parameter
/// byte): gaps and positions past 2^15 cost a few more unary bits.
const MAX_K: u32 = 15;

pub fn part_key(segment: u32, word: WordId, first_page: PageId) -> [u8; 12] {
    codec::triple_key(segment, word, first_page)
}

/// Appends one page's posting to a pending (unsorted) block, in the
/// byte layout schemas 7 to 13 stored: `page << 1 | several`, then the
/// one position or `tf, byte length, deltas`; `page` is stored whole.
pub fn push_entry(block: &mut Vec<u8>, page: PageId, positions: &[u32]) {
    if let [only] = positions {
        put_head(block, page, 1, 0);
        put_varint(block, u64::from(*only));
        return;
    }
    // The byte length comes first, so measure the deltas before writing.
    let mut len = 0u64;
    let mut prev = 0u32;
    for &p in positions {
        len += varint_len(u64::from(p.wrapping_sub(prev))) as u64;
        prev = p;
    }
    put_head(block, page, positions.len() as u32, len);
    put_deltas(block, positions);
}

/// Ascending positions as stored: each one's distance from the one
/// before (the first's from 0), as varints.
fn put_deltas(out: &mut Vec<u8>, positions: &[u32]) {
    let mut prev = 0u32;
    for &p in positions {
        put_varint(out, u64::from(p.wrapping_sub(prev)));
        prev = p;
    }
}

/// A byte-coded entry's head: the page (or its delta) with a flag for
/// "more than one position", then tf and byte length only when flagged:
/// a lone position is one varint, which delimits itself.
fn put_head(out: &mut Vec<u8>, page: PageId, tf: u32, len: u64) {
    let several = tf != 1;
    put_varint(out, u64::from(page) << 1 | u64::from(several));
    if several {
        put_varint(out, u64::from(tf));
        put_varint(out, len);
    }
}

fn varint_len(v: u64) -> usize {
    ((64 - v.leading_zeros()).max(1) as usize).div_ceil(7)
}

/// Where an entry's positions are: decoded already (a lone position),
/// or varint deltas.
#[derive(Debug, Clone, Copy)]
enum Held<'a> {
    Lone(u32),
    Deltas(&'a [u8]),
}

/// One decoded entry; positions stay encoded until asked for.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub page: PageId,
    pub tf: u32,
    held: Held<'a>,
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

    /// The entry in the pending blocks' byte layout, its page whole.
    fn put_bytes(&self, out: &mut Vec<u8>) {
        match self.held {
            Held::Lone(p) => {
                put_head(out, self.page, 1, 0);
                put_varint(out, u64::from(p));
            }
            Held::Deltas(deltas) => {
                put_head(out, self.page, self.tf, deltas.len() as u64);
                out.extend_from_slice(deltas);
            }
        }
    }
}

/// Iterates byte-coded entries, failing on malformed bytes: a pending
/// block's (whole page ids) or a run as schemas 7 to 13 stored it (page
/// deltas), which an upgrade reads.
pub struct ByteEntries<'a> {
    rest: &'a [u8],
    delta: bool,
    prev: PageId,
}

/// Entries of a run in the byte layout schemas 7 to 13 stored.
pub fn old_entries(run: &[u8]) -> ByteEntries<'_> {
    ByteEntries {
        rest: run,
        delta: true,
        prev: 0,
    }
}

fn pending_entries(block: &[u8]) -> ByteEntries<'_> {
    ByteEntries {
        rest: block,
        delta: false,
        prev: 0,
    }
}

impl<'a> Iterator for ByteEntries<'a> {
    type Item = Result<Entry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let one = self.read_one();
        if one.is_err() {
            self.rest = &[];
        }
        Some(one)
    }
}

impl<'a> ByteEntries<'a> {
    fn read_one(&mut self) -> Result<Entry<'a>> {
        let mut r = VarintReader::new(self.rest);
        let head = r.next_u64()?;
        let mut page = u32::try_from(head >> 1)
            .map_err(|_| StoreError::corrupt("page id overflow in a posting part"))?;
        if self.delta {
            page = self
                .prev
                .checked_add(page)
                .ok_or_else(|| StoreError::corrupt("page id overflow in a posting part"))?;
            self.prev = page;
        }
        if head & 1 == 0 {
            let held = Held::Lone(r.next_u32()?);
            self.rest = r.remaining();
            return Ok(Entry { page, tf: 1, held });
        }
        let tf = r.next_u32()?;
        let len = r.next_u64()?;
        let deltas = r.take(len)?;
        self.rest = r.remaining();
        if VarintReader::new(deltas).take_varints(tf)?.len() != deltas.len() {
            return Err(StoreError::corrupt(
                "posting tf disagrees with its positions",
            ));
        }
        Ok(Entry {
            page,
            tf,
            held: Held::Deltas(deltas),
        })
    }
}

/// Iterates the entries of a stored run, failing on malformed bytes (and
/// stopping after the failure).
pub struct Entries<'a> {
    /// The run's bytes until its first entry is read.
    first: Option<&'a [u8]>,
    prev: PageId,
    /// The run's last page, and how to read its bit-coded entries.
    last: PageId,
    several: bool,
    gap_k: u32,
    lone_k: u32,
    bits: BitReader<'a>,
    lists: VarintReader<'a>,
    /// Whether a list's byte length follows its tf in the bits (schema
    /// 15 on), so a reader passes a list without reading it.
    sized: bool,
}

/// Entries of a stored run.
pub fn entries(run: &[u8]) -> Entries<'_> {
    Entries {
        sized: true,
        ..schema_14_entries(run)
    }
}

/// Entries of a run as schema 14 stored it, its lists' lengths found by
/// counting their varints; the upgrade reads them.
pub fn schema_14_entries(run: &[u8]) -> Entries<'_> {
    Entries {
        sized: false,
        first: Some(run),
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
        Ok(Entry { page, tf, held })
    }

    fn read_later(&mut self) -> Result<Entry<'a>> {
        let (page, coded) = self.read_later_head()?;
        let entry = match coded {
            Coded::Lone(p) => Entry {
                page,
                tf: 1,
                held: Held::Lone(p),
            },
            Coded::Several(tf, bytes) => Entry {
                page,
                tf,
                held: Held::Deltas(self.take_list(tf, bytes)?),
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
            let bytes = if self.sized {
                Some(tf + w.gamma()? - 1)
            } else {
                None
            };
            Coded::Several(tf, bytes)
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
            let bytes = if self.sized {
                // Each position takes a byte at least: the code is what
                // the list takes beyond that, plus one.
                let beyond = self.bits.get_gamma()? - 1;
                Some(
                    tf.checked_add(beyond)
                        .ok_or_else(|| StoreError::corrupt("posting list length overflow"))?,
                )
            } else {
                None
            };
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
        // The lists of the entries passed over: bytes where the run
        // sizes its lists, else varints.
        let (mut passed_bytes, mut passed_varints) = (0u64, 0u32);
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
                }),
                Coded::Lone(_) => {}
                Coded::Several(tf, bytes) if hit => {
                    self.lists.take(passed_bytes)?;
                    self.lists.take_varints(passed_varints)?;
                    (passed_bytes, passed_varints) = (0, 0);
                    let held = Held::Deltas(self.take_list(tf, bytes)?);
                    found(Entry { page: at, tf, held });
                }
                Coded::Several(_, Some(bytes)) => passed_bytes += u64::from(bytes),
                Coded::Several(tf, None) => {
                    passed_varints = passed_varints
                        .checked_add(tf)
                        .ok_or_else(|| StoreError::corrupt("posting tf overflow"))?;
                }
            }
            past(next, at, true);
        }
        past(next, self.last, true);
        Ok(())
    }

    /// The next list of the run's lists: `bytes` long, or (schema 14)
    /// `tf` varints.
    fn take_list(&mut self, tf: u32, bytes: Option<u32>) -> Result<&'a [u8]> {
        match bytes {
            Some(bytes) => self.lists.take(u64::from(bytes)),
            None => self.lists.take_varints(tf),
        }
    }
}

/// A bit-coded entry past its page: its lone position, or its tf and the
/// byte length of its position list (None: not stored, schema 14), the
/// list still in the run's lists.
#[derive(Debug, Clone, Copy)]
enum Coded {
    Lone(u32),
    Several(u32, Option<u32>),
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
    }
}

pub struct Runs<'a> {
    r: VarintReader<'a>,
    word: WordId,
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
        let delta = self.r.next_u32()?;
        self.word = self
            .word
            .checked_add(delta)
            .ok_or_else(|| StoreError::corrupt("word id overflow in a posting part"))?;
        let len = self.r.next_u64()?;
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
    /// Leaves the lists' lengths out, as schema 14 did: tests make old
    /// stores with it.
    lengths_left_out: bool,
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
                    t.tf_bits += gamma_len(e.tf - 1);
                    if !self.lengths_left_out {
                        t.tf_bits += gamma_len(bytes - e.tf + 1);
                    }
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
        let mut bytes = 10 + self.first.len();
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
                    if !self.lengths_left_out {
                        w.put_gamma(l.lone_or_bytes - l.tf + 1);
                    }
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

/// A run of `entries` (pages ascending, each with its positions) as
/// schema 14 stored it, its lists' lengths left out: tests make old
/// stores with it.
#[cfg(test)]
pub fn schema_14_run(entries: &[(PageId, Vec<u32>)]) -> Vec<u8> {
    let mut run = OpenRun {
        lengths_left_out: true,
        ..OpenRun::default()
    };
    let mut deltas = Vec::new();
    for (page, positions) in entries {
        deltas.clear();
        put_deltas(&mut deltas, positions);
        let held = match positions[..] {
            [only] => Held::Lone(only),
            _ => Held::Deltas(&deltas),
        };
        let tf = positions.len() as u32;
        run.add(
            0,
            &Entry {
                page: *page,
                tf,
                held,
            },
        );
    }
    let mut out = Vec::new();
    run.encode(&mut out);
    out
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
    /// transaction's own, not yet encoded).
    pub fn push_positions(&mut self, word: WordId, page: PageId, positions: &[u32]) -> Result<()> {
        if let [only] = positions {
            let e = Entry {
                page,
                tf: 1,
                held: Held::Lone(*only),
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
    fn push_run(&mut self, word: WordId, run: &[u8], first: PageId, last: PageId) -> Result<()> {
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
        put_varint(&mut self.part, u64::from(word - self.last_word));
        put_varint(&mut self.part, run.len() as u64);
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
            put_varint(&mut self.part, u64::from(word - self.last_word));
            put_varint(&mut self.part, self.encoded.len() as u64);
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

/// Merges one word's stored runs into a [`PartWriter`] in page order, for
/// a merge of segments (each run in page order, no page in two runs).
/// Consecutive segments' pages mostly follow one another, interleaving
/// only where a slow page finished late, so the run with the lowest page
/// gives entries until another run's next page comes first.
#[derive(Default)]
struct RunMerger<'a> {
    cursors: Vec<Cursor<'a>>,
}

/// A run being merged: its bytes, its entries, the current one, and
/// whether that is the run's first.
struct Cursor<'a> {
    bytes: &'a [u8],
    entries: Entries<'a>,
    current: Option<Entry<'a>>,
    at_start: bool,
}

impl<'a> RunMerger<'a> {
    /// Writes `word`'s entries from `runs` to `out` in page order; a page
    /// in two runs, or out of order in one, is corrupt.
    fn merge(
        &mut self,
        out: &mut PartWriter,
        word: WordId,
        runs: impl Iterator<Item = &'a [u8]>,
    ) -> Result<()> {
        self.cursors.clear();
        for bytes in runs {
            let mut entries = entries(bytes);
            let current = entries.next().transpose()?;
            self.cursors.push(Cursor {
                bytes,
                entries,
                current,
                at_start: true,
            });
        }
        loop {
            // The run with the lowest next page, and the lowest next page
            // of the others: the first entry that must come from elsewhere.
            let mut pick: Option<(usize, PageId)> = None;
            let mut bound = u64::MAX;
            for (i, c) in self.cursors.iter().enumerate() {
                let Some(page) = c.current.map(|e| e.page) else {
                    continue;
                };
                match pick {
                    Some((_, best)) if page >= best => bound = bound.min(u64::from(page)),
                    _ => {
                        if let Some((_, best)) = pick {
                            bound = bound.min(u64::from(best));
                        }
                        pick = Some((i, page));
                    }
                }
            }
            let Some((i, _)) = pick else {
                return Ok(());
            };
            let c = &mut self.cursors[i];
            let last = c.entries.last_page();
            if let (true, Some(first)) = (c.at_start, c.current) {
                if u64::from(last) < bound && c.bytes.len() >= RAW_RUN_BYTES {
                    out.push_run(word, c.bytes, first.page, last)?;
                    c.current = None;
                    continue;
                }
            }
            c.at_start = false;
            // The pick's first entry goes whatever the bound: a page in two
            // runs then meets the writer's order check.
            while let Some(e) = c.current {
                out.push(word, &e)?;
                c.current = c.entries.next().transpose()?;
                if c.current.is_some_and(|next| u64::from(next.page) >= bound) {
                    break;
                }
            }
        }
    }
}

/// One step of a segment merge: every run of `parts` (stored parts, each
/// with its key's word, each segment's in key order) whose word `keep`
/// takes, merged word by word into `out`.
pub fn merge_parts<'a>(
    out: &mut PartWriter,
    parts: impl Iterator<Item = (WordId, &'a [u8])>,
    keep: impl Fn(WordId) -> bool,
) -> Result<()> {
    let mut kept: Vec<(WordId, &[u8])> = Vec::new();
    for (key_word, part) in parts {
        for run in runs(key_word, part) {
            let run = run?;
            if keep(run.word) {
                kept.push((run.word, run.bytes));
            }
        }
    }
    // Each segment's runs are in word order already: the stable sort
    // merges those sequences instead of sorting from scratch.
    kept.sort_by_key(|&(word, _)| word);
    let mut merger = RunMerger::default();
    for group in kept.chunk_by(|a, b| a.0 == b.0) {
        merger.merge(out, group[0].0, group.iter().map(|&(_, bytes)| bytes))?;
    }
    Ok(())
}

/// A part as schemas 6 and before wrote it (one word's `page delta, tf,
/// byte length, positions` for every entry) as the bytes of one run in
/// schema 7's layout ([`old_entries`] reads it), for the upgrade.
pub fn part_from_schema_6(old: &[u8]) -> Result<Vec<u8>> {
    let mut r = VarintReader::new(old);
    let mut out = Vec::with_capacity(old.len());
    while !r.is_empty() {
        let delta = r.next_u32()?;
        let tf = r.next_u32()?;
        let len = r.next_u64()?;
        let positions = r.take(len)?;
        if tf == 1 && VarintReader::new(positions).next_raw()?.len() != positions.len() {
            return Err(StoreError::corrupt(
                "posting of tf 1 holds other than one position",
            ));
        }
        put_head(&mut out, delta, tf, len);
        out.extend_from_slice(positions);
    }
    Ok(out)
}

/// The parts that replace the part `key` without the entry of (`word`,
/// `page`), fewer when it was the part's only one; None when the part
/// does not hold it.
pub fn part_without(
    key: &[u8],
    part: &[u8],
    word: WordId,
    page: PageId,
) -> Result<Option<Vec<Part>>> {
    let (segment, key_word, _) = codec::split_triple_key(key)?;
    let mut out = PartWriter::new(segment);
    let mut found = false;
    for run in runs(key_word, part) {
        let run = run?;
        for e in run.entries() {
            let e = e?;
            if run.word == word && e.page == page {
                found = true;
            } else {
                out.push(run.word, &e)?;
            }
        }
    }
    Ok(found.then(|| out.finish()))
}

/// A pending block without one page's entry.
pub fn pending_without_page(block: &[u8], page: PageId) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(block.len());
    for e in pending_entries(block) {
        let e = e?;
        if e.page != page {
            e.put_bytes(&mut out);
        }
    }
    Ok(out)
}

/// One word's title postings in a transaction, as [`push_entry`] writes
/// them (a title's words are few, so they keep a map of their own rather
/// than widening every body word's entry).
#[derive(Debug, Default)]
pub struct TitleBlock {
    pub block: Vec<u8>,
    last_page: PageId,
    /// Whether an entry came after one of a later page.
    pub out_of_order: bool,
}

impl TitleBlock {
    pub fn push(&mut self, page: PageId, positions: &[u32]) {
        self.out_of_order |= !self.block.is_empty() && page <= self.last_page;
        self.last_page = page;
        push_entry(&mut self.block, page, positions);
    }
}

/// What one write transaction accumulates before it commits: the blocks of
/// its segment and the doc-freq changes, written once each at the end.
#[derive(Default)]
pub struct Pending {
    pub segment: Option<u32>,
    /// Pages indexed in `segment` by this transaction.
    pub segment_pages: u32,
    /// The live segments, once this transaction changed them.
    pub segments: Option<SegmentList>,
    /// Bodies of this transaction's pages.
    pub bodies: super::bodies::PendingBodies,
    /// This transaction's links: child -> parents, written at the end.
    pub parents: HashMap<PageId, Vec<PageId>>,
    /// Body postings as the pages put them, with the spellings they wrote.
    pub hits: super::hits::Hits,
    /// Changes of document frequency other than the body hits': words
    /// of a title alone, and pages removed.
    pub df: HashMap<WordId, i32>,
    /// Title postings, by word: written as the segment's title stream.
    pub titles: HashMap<WordId, TitleBlock>,
    /// Words (by their stem's 128-bit hash) this transaction found or
    /// gave an id.
    pub new_words: HashMap<u128, WordId>,
    /// The stems of the words this transaction gave an id, in id order
    /// (ids are handed out one after another): their `doc_freq` records,
    /// which hold the stem, are written at the commit.
    pub new_stems: Vec<(WordId, Box<str>)>,
    /// URLs (by their 128-bit hash) this transaction gave a page id or
    /// found without a user to record.
    pub new_urls: HashMap<u128, PageId>,
    /// `norms` chunks touched by this transaction.
    pub norms: HashMap<u32, Vec<f32>>,
    /// Compression dictionaries this transaction made sure the store holds.
    pub dictionaries: Vec<(super::dictionary::Kind, u32)>,
    /// Next values of the `meta` id counters used in this transaction.
    pub counters: HashMap<&'static [u8], u64>,
    /// The www rule's decisions of this transaction, by a URL's text up
    /// to its path: the host of the `www.` twin it goes on, or None for
    /// its own (see `Writer::on_first_seen_site_once`).
    pub first_seen_sites: HashMap<String, Option<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    type Row = (WordId, PageId, u32, Vec<u32>);

    fn decode(key: &[u8], part: &[u8]) -> Vec<Row> {
        let (_, word, _) = codec::split_triple_key(key).unwrap();
        let mut out = Vec::new();
        for run in runs(word, part) {
            let run = run.unwrap();
            for e in run.entries() {
                let e = e.unwrap();
                out.push((run.word, e.page, e.tf, e.positions().unwrap()));
            }
        }
        out
    }

    fn decode_all(parts: &[Part]) -> Vec<Row> {
        parts.iter().flat_map(|(k, p)| decode(k, p)).collect()
    }

    fn first_of(key: &[u8]) -> (WordId, PageId) {
        let (_, w, p) = codec::split_triple_key(key).unwrap();
        (w, p)
    }

    #[test]
    fn words_share_parts_in_word_then_page_order() {
        let mut writer = PartWriter::new(7);
        let mut alpha = Vec::new();
        push_entry(&mut alpha, 300_000, &[0]);
        push_entry(&mut alpha, 7, &[1, 5, 9]);
        let mut beta = Vec::new();
        push_entry(&mut beta, 9, &[2, 3]);
        writer.push_block(4, &alpha, false).unwrap();
        writer.push_block(90, &beta, true).unwrap();
        let parts = writer.finish();
        assert_eq!(parts.len(), 1, "two rare words, one part");
        assert_eq!(parts[0].0, part_key(7, 4, 7), "keyed by its first entry");
        let rows = vec![
            (4, 7, 3, vec![1, 5, 9]),
            (4, 300_000, 1, vec![0]),
            (90, 9, 2, vec![2, 3]),
        ];
        assert_eq!(decode_all(&parts), rows);
        // Without its first entry the part is keyed by the next one.
        let (k, p) = &parts[0];
        let rest = part_without(k, p, 4, 7).unwrap().unwrap();
        assert_eq!(rest.len(), 1);
        assert_eq!(first_of(&rest[0].0), (4, 300_000));
        assert_eq!(decode_all(&rest), rows[1..].to_vec());
        assert!(part_without(k, p, 90, 7).unwrap().is_none(), "not there");
        let only = part_without(&rest[0].0, &rest[0].1, 4, 300_000)
            .unwrap()
            .unwrap();
        let last = part_without(&only[0].0, &only[0].1, 90, 9)
            .unwrap()
            .unwrap();
        assert!(last.is_empty(), "an emptied part is dropped");
        let pending = pending_without_page(&alpha, 7).unwrap();
        let pages: Vec<PageId> = pending_entries(&pending).map(|e| e.unwrap().page).collect();
        assert_eq!(pages, vec![300_000]);
    }

    #[test]
    fn a_long_run_is_cut_below_the_overflow_size_and_carried_on() {
        let mut writer = PartWriter::new(1);
        let positions: Vec<u32> = (0..50).map(|i| i * 3).collect();
        let mut short = Vec::new();
        push_entry(&mut short, 5, &[1]);
        writer.push_block(2, &short, true).unwrap();
        let mut long = Vec::new();
        for page in (0..400u32).rev() {
            push_entry(&mut long, page * 2, &positions);
        }
        writer.push_block(3, &long, false).unwrap();
        writer.push_block(8, &short, true).unwrap();
        let parts = writer.finish();
        assert!(parts.len() > 1);
        assert!(parts.iter().all(|(_, p)| p.len() <= LEAF_VALUE_BYTES));
        for (k, p) in &parts {
            let rows = decode(k, p);
            assert_eq!((rows[0].0, rows[0].1), first_of(k));
        }
        assert_eq!(
            first_of(&parts[1].0).0,
            3,
            "the run goes on in the next part"
        );
        let rows = decode_all(&parts);
        let mut want = vec![(2, 5, 1, vec![1])];
        want.extend((0..400u32).map(|p| (3, p * 2, 50, positions.clone())));
        want.push((8, 5, 1, vec![1]));
        assert_eq!(rows, want);
    }

    #[test]
    fn later_entries_cost_bits_not_bytes() {
        let mut b = Vec::new();
        for page in 0..10 {
            push_entry(&mut b, page, &[page + 3]);
        }
        push_entry(&mut b, 10, &[1, 2]);
        let mut writer = PartWriter::new(0);
        writer.push_block(1, &b, true).unwrap();
        let parts = writer.finish();
        // The run's head (word delta, length: 2 bytes). Its first entry
        // in bytes (page, position: 2). Count with the several flag, the
        // lists' length, the parameter byte (3). Bits: nine gaps of 0 at
        // k 0 (10), the flags (10), positions 4..=12 at k 3 (41), the
        // gamma code of tf - 1 (1): 62 bits in 8 bytes. The list's two
        // deltas (2). The byte layout took 27.
        assert_eq!(parts[0].1.len(), 2 + 2 + 3 + 8 + 2);
        let rows = decode_all(&parts);
        assert_eq!(rows[4], (1, 4, 1, vec![7]));
        assert_eq!(rows[10], (1, 10, 2, vec![1, 2]));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Entries of any gaps (to the top of the page ids), tfs and
        /// positions read back as written, in parts that fit a leaf.
        #[test]
        fn any_entries_read_back_from_parts_that_fit(
            rows in proptest::collection::vec(
                (0u32..3, proptest::prelude::any::<u32>(),
                 proptest::collection::vec(0u32..100_000, 1..30)), 1..400),
        ) {
            let mut want: Vec<Row> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for (word, page, mut positions) in rows {
                positions.sort_unstable();
                positions.dedup();
                if seen.insert((word, page)) {
                    want.push((word, page, positions.len() as u32, positions));
                }
            }
            want.sort_unstable_by_key(|r| (r.0, r.1));
            let mut writer = PartWriter::new(3);
            for (word, page, _, positions) in &want {
                writer.push_positions(*word, *page, positions).unwrap();
            }
            let parts = writer.finish();
            proptest::prop_assert!(parts.iter().all(|(_, p)| p.len() <= LEAF_VALUE_BYTES));
            proptest::prop_assert_eq!(decode_all(&parts), want);
        }
    }

    #[test]
    fn a_lying_bit_coded_run_is_an_error_not_a_panic() {
        let mut b = Vec::new();
        push_entry(&mut b, 7, &[1]);
        push_entry(&mut b, 9, &[2, 5]);
        let mut writer = PartWriter::new(0);
        writer.push_block(1, &b, true).unwrap();
        let parts = writer.finish();
        let run = runs(1, &parts[0].1).next().unwrap().unwrap().bytes.to_vec();
        assert_eq!(entries(&run).count(), 2);
        // The first entry (page 7, position 1), then: a span of 2 pages
        // with the several flag, the lists' length, parameters, bits, lists.
        assert_eq!(&run[..3], &[14, 1, 5]);
        let lie = |at: usize, byte: u8| {
            let mut bad = run.clone();
            bad[at] = byte;
            entries(&bad).collect::<Result<Vec<_>>>().is_err()
        };
        assert!(lie(2, 1), "a span of no pages");
        assert!(lie(2, 3), "a span that ends before the last entry");
        assert!(lie(2, 7), "a span that ends after it");
        assert!(lie(3, 40), "lists longer than the run");
        assert!(lie(3, 1), "a list shorter than its tf");
        let mut longer = run.clone();
        longer.push(0);
        assert!(entries(&longer).collect::<Result<Vec<_>>>().is_err());
        // A gap past the last page id.
        let mut top = Vec::new();
        put_varint(&mut top, u64::from(u32::MAX) << 1);
        put_varint(&mut top, 0);
        top.extend_from_slice(&[2, 0, 0x80]);
        assert!(entries(&top).any(|e| e.is_err()));
    }

    #[test]
    fn schema_6_parts_are_rewritten_and_lying_ones_refused() {
        // Page 3 (tf 1, position 300), then page 5 (tf 2, positions 1, 2).
        let old = [3, 1, 2, 0xac, 0x02, 2, 2, 2, 1, 1];
        let run = part_from_schema_6(&old).unwrap();
        let rows: Vec<(PageId, u32, Vec<u32>)> = old_entries(&run)
            .map(|e| {
                let e = e.unwrap();
                (e.page, e.tf, e.positions().unwrap())
            })
            .collect();
        assert_eq!(rows, vec![(3, 1, vec![300]), (5, 2, vec![1, 2])]);
        // tf 1 with two positions' bytes.
        assert!(part_from_schema_6(&[3, 1, 2, 1, 1]).is_err());
        assert!(part_from_schema_6(&[3, 1, 9, 1]).is_err());
    }

    #[test]
    fn a_lying_part_is_an_error_not_a_panic() {
        let bad = [5u8, 2, 200, 1];
        assert!(entries(&bad).any(|e| e.is_err()));
        // A run longer than its part, an empty run.
        assert!(runs(1, &[0, 9, 1]).any(|r| r.is_err()));
        assert!(runs(1, &[0, 0]).any(|r| r.is_err()));
        let key = part_key(0, 1, 0);
        assert!(part_without(&key, &[0, 4, 5, 2, 200, 1], 1, 0).is_err());
        assert!(PartWriter::new(0).push_block(1, &bad, false).is_err());
        assert!(PartWriter::new(0).push_block(1, &bad, true).is_err());
        // Entries out of (word, page) order: a corrupt source, refused.
        let mut one = Vec::new();
        push_entry(&mut one, 4, &[1]);
        let mut w = PartWriter::new(0);
        w.push_block(5, &one, true).unwrap();
        assert!(w.push_block(5, &one, true).is_err(), "the same page again");
        assert!(w.push_block(2, &one, false).is_err(), "an earlier word");
        // A block said to ascend that does not: refused, not written
        // out of order.
        let mut down = Vec::new();
        push_entry(&mut down, 9, &[1]);
        push_entry(&mut down, 3, &[1]);
        assert!(PartWriter::new(0).push_block(1, &down, true).is_err());
        assert!(PartWriter::new(0).push_block(1, &down, false).is_ok());
    }

    /// Each segment's parts for `(word, page, tf)` rows, positions made
    /// up from the page and tf.
    fn segment_parts(segment: u32, rows: &[(WordId, PageId, u32)]) -> Vec<Part> {
        let mut rows = rows.to_vec();
        rows.sort_unstable();
        let mut writer = PartWriter::new(segment);
        for group in rows.chunk_by(|a, b| a.0 == b.0) {
            let mut block = Vec::new();
            for &(_, page, tf) in group {
                let positions: Vec<u32> = (0..tf).map(|i| page % 7 + i * 3).collect();
                push_entry(&mut block, page, &positions);
            }
            writer.push_block(group[0].0, &block, true).unwrap();
        }
        writer.finish()
    }

    /// What a merge did before [`RunMerger`], entry by entry: decode all,
    /// sort, encode again.
    fn merged_entry_by_entry(segments: &[Vec<Part>]) -> Result<Vec<Part>> {
        let mut rows: Vec<(WordId, Entry<'_>)> = Vec::new();
        for (k, p) in segments.iter().flatten() {
            let (_, word, _) = codec::split_triple_key(k)?;
            for run in runs(word, p) {
                let run = run?;
                for e in run.entries() {
                    rows.push((run.word, e?));
                }
            }
        }
        rows.sort_by_key(|(w, e)| (*w, e.page));
        let mut out = PartWriter::new(99);
        for (w, e) in &rows {
            out.push(*w, e)?;
        }
        Ok(out.finish())
    }

    fn merged_by_runs(segments: &[Vec<Part>]) -> Result<Vec<Part>> {
        let mut parts = Vec::new();
        for (k, p) in segments.iter().flatten() {
            parts.push((codec::split_triple_key(k)?.1, p.as_slice()));
        }
        let mut out = PartWriter::new(99);
        merge_parts(&mut out, parts.into_iter(), |_| true)?;
        Ok(out.finish())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Segments whose pages interleave a little (a late page) or a lot,
        /// long runs cut across parts among them: merging by runs (long
        /// runs copied whole) writes the entries that merging entry by
        /// entry wrote, in parts that fit a leaf and begin at their key.
        #[test]
        fn merging_by_runs_writes_what_merging_entry_by_entry_wrote(
            pages in proptest::collection::vec(
                (0u32..4, 0u32..3_000, 1u32..40, 0usize..4), 1..300),
        ) {
            let mut seen = std::collections::HashSet::new();
            let mut segments: Vec<Vec<(WordId, PageId, u32)>> = vec![Vec::new(); 4];
            for (word, page, tf, segment) in pages {
                // Pages mostly in the segment of their range, some late.
                let segment = if segment == 0 { (page / 800) as usize } else { segment };
                if seen.insert((word, page)) {
                    segments[segment].push((word * 5, page, if tf > 30 { tf * 4 } else { tf % 3 + 1 }));
                }
            }
            let parts: Vec<Vec<Part>> = segments
                .iter()
                .enumerate()
                .map(|(i, rows)| segment_parts(i as u32, rows))
                .collect();
            let want = merged_entry_by_entry(&parts).unwrap();
            let got = merged_by_runs(&parts).unwrap();
            proptest::prop_assert!(got.iter().all(|(_, p)| p.len() <= LEAF_VALUE_BYTES));
            for (k, p) in &got {
                let rows = decode(k, p);
                proptest::prop_assert_eq!((rows[0].0, rows[0].1), first_of(k));
            }
            proptest::prop_assert_eq!(decode_all(&got), decode_all(&want));
        }
    }

    #[test]
    fn a_merge_copies_a_long_run_no_other_interleaves_as_it_is() {
        let early: Vec<(WordId, PageId, u32)> = (0..200).map(|p| (4, p * 3, 3)).collect();
        let late: Vec<(WordId, PageId, u32)> = (0..200).map(|p| (4, 1_000 + p, 2)).collect();
        let short = [(4, 5_000, 1), (9, 7, 1)];
        let segments = [
            segment_parts(0, &early),
            segment_parts(1, &late),
            segment_parts(2, &short),
        ];
        let got = merged_by_runs(&segments).unwrap();
        let want = merged_entry_by_entry(&segments).unwrap();
        assert_eq!(decode_all(&got), decode_all(&want));
        let copied: Vec<&[u8]> = got
            .iter()
            .flat_map(|(k, p)| runs(first_of(k).0, p).map(|r| r.unwrap().bytes))
            .collect();
        for (_, part) in segments[..2].iter().flatten() {
            // 200 entries: two runs, both long.
            for run in runs(4, part) {
                let run = run.unwrap().bytes;
                assert!(run.len() >= RAW_RUN_BYTES);
                assert!(copied.contains(&run), "a long run copied as it was");
            }
        }
        // The short runs' entries were coded again: one run of word 4,
        // one of word 9.
        assert_eq!(copied.len(), 6);
    }

    #[test]
    fn runs_are_cut_to_run_entries_and_found_across_them() {
        // Lone positions, then lists whose entries a look-up passes over.
        let rows: Vec<(WordId, PageId, u32)> = (0..300).map(|p| (6, p * 2, 1 + p % 3)).collect();
        let parts = segment_parts(0, &rows);
        let lens: Vec<usize> = parts
            .iter()
            .flat_map(|(k, p)| runs(first_of(k).0, p).map(|r| r.unwrap().entries().count()))
            .collect();
        assert_eq!(lens, [RUN_ENTRIES, RUN_ENTRIES, 300 - 2 * RUN_ENTRIES]);
        let all = decode_all(&parts);
        for page in 0..600 {
            let found = parts.iter().find_map(|(k, p)| {
                runs(first_of(k).0, p)
                    .find_map(|r| r.unwrap().entries().find(page).unwrap())
                    .map(|e| (e.page, e.positions().unwrap()))
            });
            let want = all
                .iter()
                .find(|row| row.1 == page)
                .map(|row| (row.1, row.3.clone()));
            assert_eq!(found, want, "page {page}");
        }
        // Pages asked of every run in turn: absent ones, ones in the
        // first entry, lists passed and taken, pages past the last run.
        let asked: Vec<PageId> = (0..700).filter(|p| p % 3 == 0 || p % 7 == 0).collect();
        let mut next = 0;
        let mut got = Vec::new();
        for (k, p) in &parts {
            for run in runs(first_of(k).0, p) {
                run.unwrap()
                    .entries()
                    .at_pages(&asked, &mut next, |e| {
                        got.push((e.page, e.positions().unwrap()))
                    })
                    .unwrap();
            }
        }
        let want: Vec<(PageId, Vec<u32>)> = all
            .iter()
            .filter(|row| asked.contains(&row.1))
            .map(|row| (row.1, row.3.clone()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(next, asked.partition_point(|&p| p <= 598));
    }

    #[test]
    fn a_page_in_two_merged_runs_is_corrupt() {
        let one = segment_parts(0, &[(3, 10, 1), (3, 20, 2)]);
        let two = segment_parts(1, &[(3, 15, 1), (3, 20, 1)]);
        assert!(merged_by_runs(&[one.clone(), two]).is_err());
        assert!(merged_by_runs(&[one]).is_ok());
    }
}

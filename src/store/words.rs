//! Words (stems) ↔ ids, document frequencies (with each word's stem and
//! forms), and reading the inverted index: body and title postings (tf +
//! positions, each in one stream of parts per segment, see `postings`):
//! one range scan per live segment (see `segments`).

use std::ops::Bound::{Included, Unbounded};
use std::sync::atomic::Ordering;

use heed::types::Bytes;

use super::codec::{self, u32_key, VarintReader};
use super::hits::{Grouped, WordCounts};
use super::postings::{self, Entry as PostingEntry};
use super::schema::{meta_keys, Db, PageId, WordId};
use super::sealed::View;
use super::segments::SegmentRead;
use super::terms::Term;
use super::{Result, StoreError, Writer};

/// One body posting: how often a word occurs in a page and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub tf: u32,
    pub positions: Vec<u32>,
}

/// Word and inverted-index look-ups.
pub trait WordRead: View {
    fn word_id(&self, stem: &str) -> Result<Option<WordId>> {
        self.dbs()
            .word_ids
            .get(self.txn(), stem.as_bytes())?
            .map(codec::read_u32)
            .transpose()
    }

    /// Every stem that begins with `prefix` (every stem when it is
    /// empty), in stem order, with its id and document frequency; at most
    /// `limit`.
    fn stems_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<(String, WordId, u32)>> {
        let mut out = Vec::new();
        // LMDB refuses an empty key to seek to, even as a prefix.
        let from = match prefix {
            "" => Unbounded,
            _ => Included(prefix.as_bytes()),
        };
        for item in self.dbs().word_ids.range(self.txn(), &(from, Unbounded))? {
            if out.len() >= limit {
                break;
            }
            let (stem, id) = item?;
            if !stem.starts_with(prefix.as_bytes()) {
                break;
            }
            let id = codec::read_u32(id)?;
            out.push((
                String::from_utf8_lossy(stem).into_owned(),
                id,
                self.doc_freq(id)?,
            ));
        }
        Ok(out)
    }

    /// The stem of word `id`, kept in its `doc_freq` record.
    fn word(&self, id: WordId) -> Result<Option<String>> {
        let Some(v) = self.dbs().doc_freq.get(self.txn(), &u32_key(id))? else {
            return Ok(None);
        };
        let (_, stem, _) = split_doc_freq(v)?;
        Ok(Some(String::from_utf8_lossy(stem).into_owned()))
    }

    /// Pages whose body or title holds the word.
    fn doc_freq(&self, id: WordId) -> Result<u32> {
        Ok(self
            .dbs()
            .doc_freq
            .get(self.txn(), &u32_key(id))?
            .map(|v| codec::read_u32(v.get(..4).unwrap_or(v)))
            .transpose()?
            .unwrap_or(0))
    }

    /// The word as most pages write it (lowercased), for showing people
    /// words rather than stems; None when no page said.
    fn word_form(&self, id: WordId) -> Result<Option<String>> {
        let Some(v) = self.dbs().doc_freq.get(self.txn(), &u32_key(id))? else {
            return Ok(None);
        };
        Ok(DocFreq::decode(v)?.forms.into_iter().next().map(|(f, _)| f))
    }

    /// Body postings of a word in page order, tf only (the ranking scan).
    fn postings_tf(&self, id: WordId) -> Result<Vec<(PageId, u32)>> {
        Ok(self
            .postings_raw(id)?
            .into_iter()
            .map(|e| (e.page, e.tf))
            .collect())
    }

    /// Body postings of a word in page order, with positions.
    fn postings(&self, id: WordId) -> Result<Vec<(PageId, Posting)>> {
        self.postings_raw(id)?
            .into_iter()
            .map(|e| {
                Ok((
                    e.page,
                    Posting {
                        tf: e.tf,
                        positions: e.positions()?,
                    },
                ))
            })
            .collect()
    }

    /// Body postings of a word in page order, positions still encoded
    /// (read from the map, nothing copied).
    fn postings_raw(&self, id: WordId) -> Result<Vec<PostingEntry<'_>>> {
        // df counts title-only pages too: an upper bound, read in one get.
        let mut out = Vec::with_capacity((self.doc_freq(id)? as usize).min(1 << 20));
        for segment in self.segment_ids()? {
            self.segment_postings_into(segment, id, &mut out)?;
        }
        // Each segment's run is in page order: a stable sort merges runs.
        out.sort_by_key(|e| e.page);
        Ok(out)
    }

    /// The live segments in order. A page's entries all live in one
    /// segment, so a query over several words can be answered segment by
    /// segment, each segment's lists already in page order.
    fn segment_ids(&self) -> Result<Vec<u32>> {
        Ok(self.live_segments()?.ids().collect())
    }

    /// One segment's body postings of a word, in page order, appended to
    /// `out` with their positions still encoded.
    fn segment_postings_into<'t>(
        &'t self,
        segment: u32,
        id: WordId,
        out: &mut Vec<PostingEntry<'t>>,
    ) -> Result<()> {
        self.segment_stream_into(self.dbs().postings, segment, id, out)
    }

    /// One segment's entries of a word in the posting stream of `db` (body
    /// or title postings), in page order.
    fn segment_stream_into<'t>(
        &'t self,
        db: Db,
        segment: u32,
        id: WordId,
        out: &mut Vec<PostingEntry<'t>>,
    ) -> Result<()> {
        let start = self.postings_start(db, segment, id)?;
        let end = postings::part_key(segment, id, PageId::MAX);
        let range = (Included(&start[..]), Included(&end[..]));
        for item in db.range(self.txn(), &range)? {
            let (k, part) = item?;
            for run in postings::runs(codec::split_triple_key(k)?.1, part) {
                let run = run?;
                if run.word > id {
                    return Ok(());
                }
                if run.word == id {
                    for e in run.entries() {
                        out.push(e?);
                    }
                }
            }
        }
        Ok(())
    }

    /// The body posting of one word in one page.
    fn posting(&self, word: WordId, page: PageId) -> Result<Option<Posting>> {
        let Some(segment) = self.page_segment(page)? else {
            return Ok(None);
        };
        self.segment_posting(segment, word, page)?
            .map(|e| {
                Ok(Posting {
                    tf: e.tf,
                    positions: e.positions()?,
                })
            })
            .transpose()
    }

    /// The body posting of one word in one page of `segment` (the live
    /// segment that holds the page), positions still encoded: one seek.
    fn segment_posting(
        &self,
        segment: u32,
        word: WordId,
        page: PageId,
    ) -> Result<Option<PostingEntry<'_>>> {
        self.segment_stream_entry(self.dbs().postings, segment, word, page)
    }

    /// One word's entry for one page in the posting stream of `db` (body or
    /// title postings) in `segment`: one seek.
    fn segment_stream_entry(
        &self,
        db: Db,
        segment: u32,
        word: WordId,
        page: PageId,
    ) -> Result<Option<PostingEntry<'_>>> {
        let key = postings::part_key(segment, word, page);
        let Some((k, part)) = self.record_holding(db, &key, &u32_key(segment))? else {
            return Ok(None);
        };
        for run in postings::runs(codec::split_triple_key(k)?.1, part) {
            let run = run?;
            if run.word > word {
                break;
            }
            if run.word < word {
                continue;
            }
            for e in run.entries() {
                let e = e?;
                if e.page == page {
                    return Ok(Some(e));
                }
                if e.page > page {
                    break;
                }
            }
        }
        Ok(None)
    }

    /// Title postings of a word in page order: positions in the title.
    fn title_postings(&self, id: WordId) -> Result<Vec<(PageId, Vec<u32>)>> {
        self.title_postings_raw(id)?
            .into_iter()
            .map(|e| Ok((e.page, e.positions()?)))
            .collect()
    }

    /// Title postings of a word in page order, positions still encoded.
    fn title_postings_raw(&self, id: WordId) -> Result<Vec<PostingEntry<'_>>> {
        let mut out = Vec::new();
        for segment in self.segment_ids()? {
            self.segment_title_postings_into(segment, id, &mut out)?;
        }
        // Each segment's run is in page order: a stable sort merges runs.
        out.sort_by_key(|e| e.page);
        Ok(out)
    }

    /// One segment's title postings of a word, in page order, appended to
    /// `out`.
    fn segment_title_postings_into<'t>(
        &'t self,
        segment: u32,
        id: WordId,
        out: &mut Vec<PostingEntry<'t>>,
    ) -> Result<()> {
        self.segment_stream_into(self.dbs().title_postings, segment, id, out)
    }

    fn title_posting(&self, word: WordId, page: PageId) -> Result<Option<Vec<u32>>> {
        let Some(segment) = self.page_segment(page)? else {
            return Ok(None);
        };
        self.segment_title_posting(segment, word, page)?
            .map(|e| e.positions())
            .transpose()
    }

    /// The title posting of one word in one page of `segment`: one seek.
    fn segment_title_posting(
        &self,
        segment: u32,
        word: WordId,
        page: PageId,
    ) -> Result<Option<PostingEntry<'_>>> {
        self.segment_stream_entry(self.dbs().title_postings, segment, word, page)
    }

    /// Words with at least one page (a word none holds keeps its record,
    /// at 0: one pass over the table, ~1 ms for 60,000 words).
    fn word_count(&self) -> Result<u64> {
        let mut n = 0;
        for item in self.dbs().doc_freq.iter(self.txn())? {
            let (_, v) = item?;
            n += u64::from(split_doc_freq(v)?.0 > 0);
        }
        Ok(n)
    }
}

impl<T: View + ?Sized> WordRead for T {}

/// Forms kept per word: enough to tell the usual spelling from a stray one.
const FORMS_KEPT: usize = 3;

/// A `doc_freq` value, one per word id the store has handed out: the
/// document frequency (4 bytes, big-endian, so the ranking reads it alone;
/// 0 once no page holds the word), the stem (`varint len, bytes`: the
/// record is where a word id leads to its stem), then the word's most
/// written forms with their page counts, most first, each as `varint
/// count, varint shared, varint len, bytes`: the form is the stem's first
/// `shared` bytes followed by those bytes, the longest such split (a
/// form written as the stem itself, the usual case, takes three bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DocFreq {
    pub df: u32,
    pub stem: String,
    pub forms: Vec<(String, u32)>,
}

impl DocFreq {
    pub fn decode(v: &[u8]) -> Result<DocFreq> {
        let (df, stem, forms) = split_doc_freq(v)?;
        let mut out = DocFreq {
            df,
            stem: String::from_utf8_lossy(stem).into_owned(),
            forms: Vec::new(),
        };
        for form in forms {
            let form = form?;
            let mut bytes = stem[..form.shared].to_vec();
            bytes.extend_from_slice(form.rest);
            out.forms
                .push((String::from_utf8_lossy(&bytes).into_owned(), form.count));
        }
        Ok(out)
    }
}

/// A `doc_freq` value's count, stem and forms, still in the record.
fn split_doc_freq(v: &[u8]) -> Result<(u32, &[u8], StoredForms<'_>)> {
    let (head, rest) = v
        .split_at_checked(4)
        .ok_or_else(|| StoreError::corrupt("doc_freq record shorter than 4 bytes"))?;
    let mut r = VarintReader::new(rest);
    let len = r.next_u64()?;
    let stem = r.take(len)?;
    Ok((codec::read_u32(head)?, stem, StoredForms { r, stem }))
}

/// One form of a word: the stem's first `shared` bytes, then `rest`.
#[derive(Debug, Clone, Copy)]
struct Form<'a> {
    shared: usize,
    rest: &'a [u8],
    count: u32,
}

impl<'a> Form<'a> {
    /// `form` split against `stem` (the longest shared beginning), so
    /// that two spellings are equal exactly when their splits are.
    fn of(stem: &[u8], form: &'a [u8], count: u32) -> Form<'a> {
        let shared = stem.iter().zip(form).take_while(|(a, b)| a == b).count();
        Form {
            shared,
            rest: &form[shared..],
            count,
        }
    }

    fn same_spelling(&self, other: &Form<'_>) -> bool {
        self.shared == other.shared && self.rest == other.rest
    }

    fn spelling<'s>(&'s self, stem: &'s [u8]) -> impl Iterator<Item = &'s u8> + 's {
        stem[..self.shared].iter().chain(self.rest)
    }
}

/// The forms of a `doc_freq` value, as stored.
struct StoredForms<'a> {
    r: VarintReader<'a>,
    stem: &'a [u8],
}

impl<'a> Iterator for StoredForms<'a> {
    type Item = Result<Form<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.r.is_empty() {
            return None;
        }
        let mut form = || {
            let count = self.r.next_u32()?;
            let shared = self.r.next_u64()?;
            let len = self.r.next_u64()?;
            let shared = usize::try_from(shared)
                .ok()
                .filter(|&n| n <= self.stem.len())
                .ok_or_else(|| StoreError::corrupt("doc_freq form longer than its stem"))?;
            Ok(Form {
                shared,
                rest: self.r.take(len)?,
                count,
            })
        };
        Some(form())
    }
}

/// Writes into `out` the `doc_freq` value of a word counted on `df` pages
/// whose record was `old` (empty: none yet, and `new_stem` is its stem)
/// and that this transaction's pages wrote as the stem `stem_votes` times
/// and as `votes`: the old forms' counts plus the votes (the stem's text
/// is the record's, so a page that wrote it need not keep a copy), the
/// most written [`FORMS_KEPT`] kept, ties by
/// spelling (none at a count of 0). Works on the record's bytes: decoding forms into strings was
/// a third of the commit's word bookkeeping.
fn write_doc_freq<'a>(
    old: &'a [u8],
    new_stem: Option<&'a [u8]>,
    df: u32,
    stem_votes: u32,
    votes: impl Iterator<Item = (&'a str, u32)>,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut forms: Vec<Form<'_>> = Vec::with_capacity(FORMS_KEPT + 1);
    let stem = if old.is_empty() {
        new_stem.ok_or_else(|| StoreError::corrupt("a new word without its stem"))?
    } else {
        let (_, stem, stored) = split_doc_freq(old)?;
        for form in stored {
            forms.push(form?);
        }
        stem
    };
    let stem_vote = (stem_votes > 0).then_some((stem, stem_votes));
    for (form, n) in stem_vote
        .into_iter()
        .chain(votes.map(|(f, n)| (f.as_bytes(), n)))
    {
        let vote = Form::of(stem, form, n);
        match forms.iter_mut().find(|f| f.same_spelling(&vote)) {
            Some(f) => f.count = f.count.saturating_add(n),
            None => forms.push(vote),
        }
    }
    forms.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.spelling(stem).cmp(b.spelling(stem)))
    });
    // A word no page holds starts its votes afresh when one does again.
    forms.truncate(if df == 0 { 0 } else { FORMS_KEPT });
    out.clear();
    out.extend_from_slice(&df.to_be_bytes());
    codec::put_varint(out, stem.len() as u64);
    out.extend_from_slice(stem);
    for f in forms {
        codec::put_varint(out, u64::from(f.count));
        codec::put_varint(out, f.shared as u64);
        codec::put_varint(out, f.rest.len() as u64);
        out.extend_from_slice(f.rest);
    }
    Ok(())
}

/// A schema-10 `doc_freq` value (`old`: count, then whole forms; empty:
/// the word had none, no page holding it) as this schema keeps it, with
/// the stem that schema kept in `words` (for the upgrade).
pub(super) fn doc_freq_from_schema_10(old: &[u8], stem: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let mut df = 0;
    let mut forms: Vec<(&str, u32)> = Vec::new();
    if !old.is_empty() {
        let (head, rest) = old
            .split_at_checked(4)
            .ok_or_else(|| StoreError::corrupt("doc_freq record shorter than 4 bytes"))?;
        df = codec::read_u32(head)?;
        let mut r = VarintReader::new(rest);
        while !r.is_empty() {
            let count = r.next_u32()?;
            let len = r.next_u64()?;
            let form = std::str::from_utf8(r.take(len)?)
                .map_err(|_| StoreError::corrupt("doc_freq form is not UTF-8"))?;
            forms.push((form, count));
        }
    }
    write_doc_freq(&[], Some(stem), df, 0, forms.into_iter(), out)
}

/// A cursor walk over `doc_freq` crosses at most this many ids to reach
/// the next word it rewrites; farther, a new search from the root costs
/// less.
const WALK_GAP: u32 = 32;

/// Writes a transaction's changes to `doc_freq`, `words` in id order, and
/// the records of its new words (`new_stems`, in id order). One
/// cursor walks the table and rewrites each record where it stands (in
/// place while its size holds), where a get and a put each searched the
/// B-tree from its root: 5% of a crawl's CPU. Words without a record are
/// put after the walk.
fn write_doc_freqs(
    txn: &mut heed::RwTxn<'_>,
    db: super::schema::Db,
    grouped: &Grouped<'_>,
    new_stems: &[(WordId, Box<str>)],
) -> Result<()> {
    let mut value = Vec::new();
    let mut unrecorded = Vec::new();
    let is_new = |w: WordId| new_stems.binary_search_by_key(&w, |(id, _)| *id).is_ok();
    let changed: Vec<(WordId, &WordCounts)> = grouped
        .words
        .iter()
        .filter(|(w, t)| t.df != 0 || t.stem_votes > 0 || !t.votes.is_empty() || is_new(*w))
        .map(|(w, t)| (*w, t))
        .collect();
    let votes = |t: &WordCounts| grouped.votes[t.votes.clone()].iter().copied();
    // The record the walk stands on and its value, copied: the cursor's
    // own bytes go stale once it writes.
    let mut old = Vec::new();
    let mut next = 0;
    while let Some(&(first, _)) = changed.get(next) {
        // A walk from the first record at or after `first`.
        let start = u32_key(first);
        let mut cursor = db.range_mut(txn, &(Included(&start[..]), Unbounded))?;
        // None once the walk is past the table's last record: every word
        // left then has none.
        let mut here = step(&mut cursor, &mut old)?;
        while let Some(&(w, t)) = changed.get(next) {
            if here.is_some_and(|k| k < w && w - k > WALK_GAP) {
                break;
            }
            while here.is_some_and(|k| k < w) {
                here = step(&mut cursor, &mut old)?;
            }
            next += 1;
            if here != Some(w) {
                unrecorded.push((w, t));
                continue;
            }
            // A word no page holds any more keeps its record (and its
            // stem) at 0.
            let df = i64::from(split_doc_freq(&old)?.0) + i64::from(t.df);
            let df = u32::try_from(df.max(0)).unwrap_or(u32::MAX);
            write_doc_freq(&old, None, df, t.stem_votes, votes(t), &mut value)?;
            // SAFETY: no bytes of the table are held (`old` is a copy),
            // and the key is the record's own.
            unsafe { cursor.put_current(&u32_key(w), &value)? };
        }
    }
    for (w, t) in unrecorded {
        let stem = new_stems
            .binary_search_by_key(&w, |(id, _)| *id)
            .map(|i| new_stems[i].1.as_bytes())
            .map_err(|_| StoreError::corrupt(format!("word {w} has no doc_freq record")))?;
        let df = u32::try_from(t.df.max(0)).unwrap_or(u32::MAX);
        write_doc_freq(&[], Some(stem), df, t.stem_votes, votes(t), &mut value)?;
        db.put(txn, &u32_key(w), &value)?;
    }
    Ok(())
}

/// Moves a `doc_freq` walk to its next record: that record's word, its
/// value copied into `old`; None past the end.
fn step(cursor: &mut heed::RwRange<'_, Bytes, Bytes>, old: &mut Vec<u8>) -> Result<Option<WordId>> {
    let Some((k, v)) = cursor.next().transpose()? else {
        return Ok(None);
    };
    old.clear();
    old.extend_from_slice(v);
    Ok(Some(codec::read_u32(k)?))
}

impl Writer<'_> {
    /// A page term's word id: the one a parser thread found, or looked up.
    pub(super) fn term_id(&mut self, term: &Term<'_>) -> Result<WordId> {
        match term.id {
            Some(id) => Ok(id),
            None => self.word_id_keyed(term.stem, term.key),
        }
    }

    /// The id of `stem`, whose [`super::stem_key`] is `key`, made when new.
    pub fn word_id_keyed(&mut self, stem: &str, key: u128) -> Result<WordId> {
        // Keyed by the stem's hash, the caches compare no strings: a string
        // key is a pointer to chase into a cold heap line, 4% of a crawl's
        // CPU in the compare alone.
        // Committed words first: after the first pages nearly all are.
        if let Some(id) = self.word_cache.get(&key) {
            return Ok(id);
        }
        if let Some(&id) = self.pending.new_words.get(&key) {
            return Ok(id);
        }
        let id = match self.word_id(stem)? {
            Some(id) => id,
            None => {
                let id = self.next_id32(meta_keys::NEXT_WORD)?;
                self.dbs
                    .word_ids
                    .put(&mut self.txn, stem.as_bytes(), &id.to_be_bytes())?;
                self.pending.new_stems.push((id, stem.into()));
                id
            }
        };
        // Committed ids go to the shared cache only after the commit.
        self.pending.new_words.insert(key, id);
        Ok(id)
    }

    /// Sizes the transaction's hit log, on its first page, for as many
    /// hits as the last transaction had.
    pub(super) fn expect_hits(&mut self) {
        if self.pending.hits.len() == 0 {
            let expected = self.hits_per_txn.load(Ordering::Relaxed);
            self.pending.hits.reserve(expected);
        }
    }

    /// `delta` pages came to hold word `id` (or lost it, below zero),
    /// other than by a body hit.
    pub(super) fn add_doc_freq(&mut self, id: WordId, delta: i32) {
        *self.pending.df.entry(id).or_default() += delta;
    }

    /// The posting segment of this transaction, allocated on first use.
    pub(super) fn segment(&mut self) -> Result<u32> {
        if let Some(s) = self.pending.segment {
            return Ok(s);
        }
        let s = self.next_id32(meta_keys::NEXT_SEGMENT)?;
        self.pending.segment = Some(s);
        Ok(s)
    }

    /// Appends `segment`'s posting stream to `db` (body or title postings,
    /// reverse links) from each word's block, in word order: (word, block,
    /// whether its pages came out of order).
    pub(super) fn write_stream<'b>(
        &mut self,
        db: Db,
        segment: u32,
        blocks: impl Iterator<Item = (WordId, &'b [u8], bool)>,
    ) -> Result<()> {
        let mut parts = postings::PartWriter::new(segment);
        for (w, block, out_of_order) in blocks {
            if !block.is_empty() {
                parts.push_block(w, block, !out_of_order)?;
            }
        }
        for (key, part) in parts.finish() {
            self.append(db, &key, &part)?;
        }
        Ok(())
    }

    /// Writes what the transaction accumulated, in key order.
    pub(super) fn flush(&mut self) -> Result<()> {
        let hits = std::mem::take(&mut self.pending.hits);
        if hits.len() > 0 {
            self.hits_per_txn.store(hits.len(), Ordering::Relaxed);
        }
        let mut grouped = match self.pending.segment {
            Some(segment) => {
                let mut parts = postings::PartWriter::new(segment);
                let grouped = hits.group(&mut parts)?;
                for (key, part) in parts.finish() {
                    self.append(self.dbs.postings, &key, &part)?;
                }
                let mut titles: Vec<_> = self.pending.titles.drain().collect();
                titles.sort_unstable_by_key(|(w, _)| *w);
                let title = titles
                    .iter()
                    .map(|(w, t)| (*w, &t.block[..], t.out_of_order));
                self.write_stream(self.dbs.title_postings, segment, title)?;
                grouped
            }
            // Only indexing a page takes a segment: no hits without one.
            None => Grouped::default(),
        };
        // Every new word gets its record, the one place its stem is kept,
        // even if no page of this transaction holds it any more; and the
        // changes of words no body hit counted.
        let extra = self
            .pending
            .df
            .drain()
            .chain((self.pending.new_stems.iter()).map(|&(w, _)| (w, 0)));
        let hit_words = grouped.words.len();
        grouped.words.extend(extra.map(|(w, df)| {
            let counts = WordCounts {
                df,
                ..WordCounts::default()
            };
            (w, counts)
        }));
        if grouped.words.len() > hit_words {
            // Stable: the hits' entry of a word (which has its votes) comes
            // first, and the others add to its count.
            grouped.words.sort_by_key(|&(w, _)| w);
            grouped.words.dedup_by(|later, first| {
                let same = later.0 == first.0;
                if same {
                    first.1.df += later.1.df;
                }
                same
            });
        }
        self.flush_parents()?;
        self.flush_bodies()?;
        // Merges take segment ids: counters are written after them.
        self.settle_segments()?;
        let counters: Vec<(&'static [u8], u64)> = self.pending.counters.drain().collect();
        for (key, next) in counters {
            self.dbs.meta.put(&mut self.txn, key, &next.to_be_bytes())?;
        }
        let mut norms: Vec<(u32, Vec<f32>)> = self.pending.norms.drain().collect();
        norms.sort_unstable_by_key(|(c, _)| *c);
        for (c, values) in norms {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.dbs.norms.put(&mut self.txn, &u32_key(c), &bytes)?;
        }
        let new_stems = std::mem::take(&mut self.pending.new_stems);
        write_doc_freqs(&mut self.txn, self.dbs.doc_freq, &grouped, &new_stems)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_freq_keeps_the_stem_and_the_most_written_forms() {
        let mut first = Vec::new();
        let votes = [("movies", 3), ("movie", 1)];
        write_doc_freq(&[], Some(b"movi"), 7, 0, votes.into_iter(), &mut first).unwrap();
        let mut rec = Vec::new();
        let votes = [("movie", 1), ("moving", 1), ("movi", 1)];
        write_doc_freq(&first, None, 8, 0, votes.into_iter(), &mut rec).unwrap();
        let got = DocFreq::decode(&rec).unwrap();
        assert_eq!(got.stem, "movi");
        assert_eq!(
            got.forms,
            [
                ("movies".into(), 3),
                ("movie".into(), 2),
                ("movi".into(), 1)
            ],
            "most votes first, ties by spelling, three kept"
        );
        // The ranking reads the count alone from the first four bytes.
        assert_eq!(&rec[..4], &8u32.to_be_bytes());
        assert_eq!(got.df, 8);
        // Forms are written against the stem: "movi" and "movie" take
        // three and four bytes, "movies" five, the stem itself five.
        assert_eq!(rec.len(), 4 + 5 + 5 + 4 + 3);
        // Forms that share less than the stem, or nothing, or are longer.
        let mut odd = Vec::new();
        let votes = [("mov", 2), ("Écran", 1), ("movingly", 1)];
        write_doc_freq(&[], Some(b"movi"), 3, 0, votes.into_iter(), &mut odd).unwrap();
        let got = DocFreq::decode(&odd).unwrap();
        assert_eq!(
            got.forms,
            [
                ("mov".into(), 2),
                ("movingly".into(), 1),
                ("Écran".into(), 1)
            ]
        );
        // A word's first record needs its stem; a broken one is an error.
        assert!(write_doc_freq(&[], None, 1, 0, std::iter::empty(), &mut odd).is_err());
        assert!(DocFreq::decode(&[0, 0, 1]).is_err());
        assert!(
            DocFreq::decode(&[0, 0, 0, 1, 5, b'a']).is_err(),
            "stem past the end"
        );
        assert!(
            DocFreq::decode(&[0, 0, 0, 1, 1, b'a', 1, 2, 0]).is_err(),
            "a form sharing more than the stem has"
        );
        let mut out = Vec::new();
        assert!(
            write_doc_freq(
                &[0, 0, 0, 1, 1, b'a', 1, 0, 5, 200],
                None,
                2,
                0,
                std::iter::empty(),
                &mut out
            )
            .is_err(),
            "a broken record is not rewritten as if whole"
        );
    }

    #[test]
    fn a_schema_10_doc_freq_gains_its_stem_and_keeps_its_forms() {
        let mut old = 5u32.to_be_bytes().to_vec();
        for (form, n) in [("running", 4u64), ("run", 1)] {
            codec::put_varint(&mut old, n);
            codec::put_varint(&mut old, form.len() as u64);
            old.extend_from_slice(form.as_bytes());
        }
        let mut new = Vec::new();
        doc_freq_from_schema_10(&old, b"run", &mut new).unwrap();
        let got = DocFreq::decode(&new).unwrap();
        assert_eq!((got.df, got.stem.as_str()), (5, "run"));
        assert_eq!(got.forms, [("running".into(), 4), ("run".into(), 1)]);
        // No record: no page held the word.
        doc_freq_from_schema_10(&[], b"run", &mut new).unwrap();
        let got = DocFreq::decode(&new).unwrap();
        assert_eq!((got.df, got.stem.as_str(), got.forms.len()), (0, "run", 0));
    }
}

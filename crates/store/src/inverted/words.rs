//! Words (stems) ↔ ids (`word_ids`, see `stem_index`, and `words` back
//! to the record holding the stem, see `stems`), their document frequencies and spellings (`doc_freq`,
//! packed as [`super::doc_freq`] says), and reading the inverted index:
//! body and title postings (tf + positions, each in one stream of parts
//! per segment, see `run`): one range scan per live segment (see
//! `segments`).

use std::ops::Bound::Included;

use super::doc_freq::{self, block_key, Change, BLOCK_WORDS};
use super::hits::Grouped;
use super::run::{self, Entry as PostingEntry};
use super::segments::SegmentRead;
use super::spelling::Spelling;
use super::stem_index;
use super::stems;
use crate::body_blocks::{self, BlockCache, Shelf};
use crate::codec;
use crate::schema::{meta_keys, Dbs, PageId, Stream, WordId};
use crate::sealed::{self, View};
use crate::terms::Term;
use crate::{Result, Writer};

/// One body posting: how often a word occurs in a page and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub tf: u32,
    pub positions: Vec<u32>,
}

/// Word and inverted-index look-ups.
pub trait WordRead: View {
    fn word_id(&self, stem: &str) -> Result<Option<WordId>> {
        stem_index::find(self, stem.as_bytes())
    }

    /// Every stem that begins with `prefix` (every stem when it is
    /// empty), in stem order, with its id and document frequency; at most
    /// `limit`.
    fn stems_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<(String, WordId, u32)>> {
        let mut out = Vec::new();
        stem_index::each_from(self, prefix.as_bytes(), |stem, id| {
            if out.len() >= limit || !stem.starts_with(prefix.as_bytes()) {
                return Ok(false);
            }
            out.push((
                String::from_utf8_lossy(stem).into_owned(),
                id,
                self.doc_freq(id)?,
            ));
            Ok(true)
        })?;
        Ok(out)
    }

    /// The stem of word `id`, from the `word_ids` record `words` names.
    fn word(&self, id: WordId) -> Result<Option<String>> {
        Ok(stems::stem(self, id)?.map(|stem| String::from_utf8_lossy(&stem).into_owned()))
    }

    /// Pages whose body or title holds the word.
    fn doc_freq(&self, id: WordId) -> Result<u32> {
        match self.dbs().doc_freq.get(self.txn(), &block_key(id))? {
            Some(block) => Ok(doc_freq::entry_of(counts(self, block)?, id)?.df),
            None => Ok(0),
        }
    }

    /// The word as most pages write it (lowercased), for showing people
    /// words rather than stems: its `stem` (the caller has it: a spelling
    /// is kept as what it adds to it) when no page said.
    fn word_form(&self, id: WordId, stem: &str) -> Result<String> {
        let Some(block) = self.dbs().doc_freq.get(self.txn(), &block_key(id))? else {
            return Ok(stem.to_owned());
        };
        match doc_freq::entry_of(counts(self, block)?, id)?
            .forms()
            .next()
            .transpose()?
        {
            None | Some((Spelling::Stem, _)) => Ok(stem.to_owned()),
            Some((other, _)) => {
                let written = other.written(stem.as_bytes())?;
                Ok(String::from_utf8_lossy(&written).into_owned())
            }
        }
    }

    /// Body postings of a word in page order, tf only (the ranking scan).
    fn postings_tf(&self, id: WordId) -> Result<Vec<(PageId, u32)>> {
        let mut out = Vec::with_capacity((self.doc_freq(id)? as usize).min(1 << 20));
        for segment in self.segment_ids()? {
            each_run(self, Stream::Body, segment, id, |run| {
                for e in run.entries().page_tfs() {
                    out.push(e?);
                }
                Ok(())
            })?;
        }
        // Each segment's run is in page order: a stable sort merges runs.
        out.sort_by_key(|&(p, _)| p);
        Ok(out)
    }

    /// A word's body postings run by run, segment by segment (a run holds
    /// at most 128 entries, in page order), each run's weight class known
    /// before an entry is decoded: a top-k ranking passes the runs that
    /// cannot enter it unread.
    fn body_runs(
        &self,
        id: WordId,
        each: &mut dyn FnMut(run::Entries<'_>) -> Result<()>,
    ) -> Result<()> {
        for segment in self.segment_ids()? {
            each_run(self, Stream::Body, segment, id, |run| each(run.entries()))?;
        }
        Ok(())
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
        self.segment_stream_into(Stream::Body, segment, id, out)
    }

    /// One segment's body or title postings of a word for `pages`
    /// (ascending), in page order, appended to `out`: the entries of the
    /// other pages are passed with their lists unread.
    fn segment_postings_at<'t>(
        &'t self,
        stream: Stream,
        segment: u32,
        id: WordId,
        pages: &[PageId],
        out: &mut Vec<PostingEntry<'t>>,
    ) -> Result<()> {
        let mut next = 0;
        each_run(self, stream, segment, id, |run| {
            if next < pages.len() {
                run.entries().at_pages(pages, &mut next, |e| out.push(e))?;
            }
            Ok(())
        })
    }

    /// One segment's entries of a word (or a child's parents) in
    /// `stream`, in page order.
    fn segment_stream_into<'t>(
        &'t self,
        stream: Stream,
        segment: u32,
        id: WordId,
        out: &mut Vec<PostingEntry<'t>>,
    ) -> Result<()> {
        each_run(self, stream, segment, id, |run| {
            for e in run.entries() {
                out.push(e?);
            }
            Ok(())
        })
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
        self.segment_stream_entry(Stream::Body, segment, word, page)
    }

    /// One word's entry for one page in `stream` (body or title
    /// postings) in `segment`: one seek.
    fn segment_stream_entry(
        &self,
        stream: Stream,
        segment: u32,
        word: WordId,
        page: PageId,
    ) -> Result<Option<PostingEntry<'_>>> {
        let key = run::part_key(segment, word, page);
        let Some((k, part)) = self.record_holding(stream, &key)? else {
            return Ok(None);
        };
        for run in run::runs(codec::split_triple_key(k)?.1, part) {
            let run = run?;
            if run.word > word {
                break;
            }
            if run.word < word {
                continue;
            }
            // A word may have several runs in a part, each naming its span.
            if let Some(e) = run.entries().find(page)? {
                return Ok(Some(e));
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
        self.segment_stream_into(Stream::Title, segment, id, out)
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
        self.segment_stream_entry(Stream::Title, segment, word, page)
    }

    /// Words with at least one page (one pass over the packed counts).
    fn word_count(&self) -> Result<u64> {
        let mut n = 0;
        for item in self.dbs().doc_freq.iter(self.txn())? {
            let (k, v) = item?;
            doc_freq::each_entry(codec::read_u32(k)?, counts(self, v)?, |_, e| {
                n += u64::from(e.df > 0);
                Ok(())
            })?;
        }
        Ok(n)
    }
}

impl<T: View + ?Sized> WordRead for T {}

/// Calls `each` with every run of word `id` in `segment` of `stream`,
/// in page order.
fn each_run<'t, V: View + ?Sized>(
    v: &'t V,
    stream: Stream,
    segment: u32,
    id: WordId,
    mut each: impl FnMut(run::Run<'t>) -> Result<()>,
) -> Result<()> {
    let db = v.dbs().stream(stream, segment);
    let start = v.postings_start(stream, segment, id)?;
    let end = run::part_key(segment, id, PageId::MAX);
    let range = (Included(&start[..]), Included(&end[..]));
    for item in db.range(v.txn(), &range)? {
        let (k, stored) = item?;
        let part = body_blocks::plain(v, Shelf::Postings, stored)?;
        for run in run::runs(codec::split_triple_key(k)?.1, part) {
            let run = run?;
            if run.word > id {
                return Ok(());
            }
            if run.word == id {
                each(run)?;
            }
        }
    }
    Ok(())
}

/// Writes a transaction's new stems to `word_ids` (and where they, and
/// any stems a cut record moved, live to `words`) and its count changes
/// to `doc_freq`, a record (a block of words) at a time; `blocks` (the
/// writer's) reads a repacked store's records.
pub(crate) fn write_doc_freqs(
    txn: &mut heed::RwTxn<'_>,
    dbs: &Dbs,
    blocks: &BlockCache,
    grouped: &Grouped<'_>,
    new_stems: &[(WordId, Box<str>)],
) -> Result<()> {
    let mut by_stem: Vec<(&[u8], WordId)> = (new_stems.iter())
        .map(|(id, stem)| (stem.as_bytes(), *id))
        .collect();
    let mut placed = stem_index::insert(txn, dbs, blocks, &mut by_stem)?;
    stems::set(txn, dbs.words, &mut placed)?;
    let changed: Vec<(WordId, Change<'_>)> = grouped
        .words
        .iter()
        .filter(|(_, t)| t.df != 0 || t.stem_votes > 0 || !t.votes.is_empty())
        .map(|(w, t)| {
            let change = Change {
                df: t.df,
                stem_votes: t.stem_votes,
                votes: &grouped.votes[t.votes.clone()],
                stem: t.stem,
            };
            (*w, change)
        })
        .collect();
    let (mut old, mut value) = (Vec::new(), Vec::new());
    for block in changed.chunk_by(|a, b| a.0 / BLOCK_WORDS == b.0 / BLOCK_WORDS) {
        let key = block_key(block[0].0);
        // A copy: the record's own bytes go stale once the put writes.
        old.clear();
        let existed = match dbs.doc_freq.get(txn, &key)? {
            Some(v) => {
                old.extend_from_slice(blocks.plain(txn, dbs, Shelf::Counts, v)?);
                true
            }
            None => false,
        };
        doc_freq::rewrite_block(&old, block.iter().copied(), &mut value)?;
        if existed {
            dbs.doc_freq.put(txn, &key, &value)?;
        } else {
            sealed::put_appending(txn, dbs.doc_freq, &key, &value)?;
        }
    }
    Ok(())
}

/// A `doc_freq` record as stored, or from its block (a repacked store's).
fn counts<'t, V: View + ?Sized>(view: &'t V, stored: &'t [u8]) -> Result<&'t [u8]> {
    body_blocks::plain(view, Shelf::Counts, stored)
}

impl Writer<'_> {
    /// A page term's word id: the one a parser thread found, or looked up.
    pub(crate) fn term_id(&mut self, term: &Term<'_>) -> Result<WordId> {
        match term.id {
            Some(id) => Ok(id),
            None => self.word_id_keyed(term.stem, term.key),
        }
    }

    /// The id of `stem`, whose [`crate::stem_key`] is `key`, made when new.
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
                // Its `word_ids` and `words` entries are written at the
                // commit, with the transaction's other new words.
                let id = self.next_id32(meta_keys::NEXT_WORD)?;
                self.pending.new_stems.push((id, stem.into()));
                id
            }
        };
        // Committed ids go to the shared cache only after the commit.
        self.pending.new_words.insert(key, id);
        Ok(id)
    }
}

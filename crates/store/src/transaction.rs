//! One write transaction: the [`Writer`] every write goes through, what
//! it gathers until the commit ([`Pending`]), and the commit, where
//! [`Writer::flush`] writes the gathered records in key order and the
//! caches learn the ids the transaction made only once it committed.
//!
//! Why gather: a crawl's transaction indexes hundreds of pages, and each
//! page's postings, doc-freq changes, links and norms would otherwise be a
//! get and a put apiece, all over the B-trees; gathered, each table is
//! written once, in key order, mostly appended at its end.

use std::sync::atomic::{AtomicUsize, Ordering};

use heed::{RoTxn, RwTxn};
use rustc_hash::FxHashMap as HashMap;

use super::bodies::PendingBodies;
use super::codec::{self, u32_key};
use super::committed::Committed;
use super::dictionary::{Dictionaries, Kind};
use super::inverted::{
    write_doc_freqs, Grouped, Hits, PartWriter, SegmentList, TitleBlock, WordCounts,
};
use super::schema::{meta_keys, Dbs, PageId, Stream, WordId, NORMS_PER_CHUNK};
use super::{sealed, Result, Store, StoreError};

/// One write transaction; see [`Store::update`].
pub struct Writer<'s> {
    pub(super) txn: RwTxn<'s>,
    pub(super) dbs: Dbs,
    pub(super) pending: Pending,
    pub(super) word_cache: &'s Committed<u128, WordId>,
    pub(super) url_cache: &'s Committed<u128, PageId>,
    pub(super) dictionaries: &'s Dictionaries,
    pub(super) body_leaf_room: &'s AtomicUsize,
    pub(super) hits_per_txn: &'s AtomicUsize,
    /// Whether its merges count phrase pairs ([`Store::count_pairs`]).
    pub(super) pair_postings: bool,
    pub(super) pair_min_pages: u32,
    /// [`super::StoreOptions::final_pages`].
    pub(super) final_pages: u32,
    /// The blocks it decompressed (only a repack writes blocks, so they
    /// stay true until it ends).
    pub(super) blocks: super::body_blocks::BlockCache,
}

/// What one write transaction accumulates before it commits: the blocks of
/// its segment and the doc-freq changes, written once each at the end.
#[derive(Default)]
pub struct Pending {
    pub(super) segment: Option<u32>,
    /// Pages indexed in `segment` by this transaction.
    pub(super) segment_pages: u32,
    /// The live segments, once this transaction changed them.
    pub(super) segments: Option<SegmentList>,
    /// Bodies of this transaction's pages.
    pub(super) bodies: PendingBodies,
    /// This transaction's links: child -> parents, written at the end.
    pub(super) parents: HashMap<PageId, Vec<PageId>>,
    /// Body postings as the pages put them, with the spellings they wrote.
    pub(super) hits: Hits,
    /// Changes of document frequency other than the body hits': words
    /// of a title alone, and pages removed.
    pub(super) df: HashMap<WordId, i32>,
    /// Title postings, by word: written as the segment's title stream.
    pub(super) titles: HashMap<WordId, TitleBlock>,
    /// Words (by their stem's 128-bit hash) this transaction found or
    /// gave an id.
    pub(super) new_words: HashMap<u128, WordId>,
    /// The stems of the words this transaction gave an id, in id order
    /// (ids are handed out one after another): their `doc_freq` records,
    /// which hold the stem, are written at the commit.
    pub(super) new_stems: Vec<(WordId, Box<str>)>,
    /// URLs (by their 128-bit hash) this transaction gave a page id or
    /// found without a user to record.
    pub(super) new_urls: HashMap<u128, PageId>,
    /// `norms` chunks touched by this transaction.
    pub(super) norms: HashMap<u32, Vec<f32>>,
    /// Compression dictionaries this transaction made sure the store holds.
    pub(super) dictionaries: Vec<(Kind, u32)>,
    /// The transaction changes nothing a kept figure counts (`kept`).
    pub(super) keeps_figures: bool,
    /// Next values of the `meta` id counters used in this transaction.
    pub(super) counters: HashMap<&'static [u8], u64>,
    /// The www rule's decisions of this transaction, by a URL's text up
    /// to its path: the host of the `www.` twin it goes on, or None for
    /// its own (see `Writer::on_first_seen_site_once`).
    pub(super) first_seen_sites: HashMap<String, Option<String>>,
}

impl sealed::View for Writer<'_> {
    fn txn(&self) -> &RoTxn<'_> {
        &self.txn
    }
    fn dbs(&self) -> &Dbs {
        &self.dbs
    }
    fn dictionaries(&self) -> &Dictionaries {
        self.dictionaries
    }
    fn block_cache(&self) -> &super::body_blocks::BlockCache {
        &self.blocks
    }
}

impl<'s> Writer<'s> {
    /// A writer on `txn`, a write transaction of `store`.
    pub(super) fn begin(store: &'s Store, txn: RwTxn<'s>) -> Writer<'s> {
        Writer {
            txn,
            dbs: store.dbs,
            pending: Pending::default(),
            word_cache: &store.word_cache,
            url_cache: &store.url_cache,
            dictionaries: &store.dictionaries,
            body_leaf_room: &store.body_leaf_room,
            hits_per_txn: &store.hits_per_txn,
            pair_postings: store.pair_postings.load(Ordering::Relaxed),
            pair_min_pages: store.pair_min_pages,
            final_pages: store.final_pages,
            blocks: super::body_blocks::BlockCache::default(),
        }
    }

    /// Flushes and commits the transaction; only then do the caches learn
    /// the ids it made, so a failed one leaves none behind.
    pub(super) fn commit(mut self) -> Result<()> {
        // Every commit counts, so a figure kept as of one is stale after
        // the next (`kept`), unless it only moved what no figure counts.
        if !self.pending.keeps_figures {
            self.next_id(meta_keys::WRITE_SEQ)?;
        }
        self.flush()?;
        let new_words = std::mem::take(&mut self.pending.new_words);
        let new_urls = std::mem::take(&mut self.pending.new_urls);
        self.txn.commit()?;
        self.word_cache.remember(new_words);
        self.url_cache.remember(new_urls);
        Ok(())
    }
}

impl Writer<'_> {
    /// Takes the next value of a counter kept in `meta`. Counters are read
    /// once per transaction and written back by `flush`: a crawl takes
    /// several ids per page, each would otherwise be a get and a put.
    pub(super) fn next_id(&mut self, key: &'static [u8]) -> Result<u64> {
        let current = match self.pending.counters.get(key) {
            Some(&v) => v,
            None => match self.dbs.meta.get(&self.txn, key)? {
                Some(v) => codec::read_u64(v)?,
                None => 1,
            },
        };
        self.pending.counters.insert(key, current + 1);
        Ok(current)
    }

    pub(super) fn next_id32(&mut self, key: &'static [u8]) -> Result<u32> {
        u32::try_from(self.next_id(key)?).map_err(|_| StoreError::corrupt("id space exhausted"))
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

    /// Writes what the transaction accumulated, in key order.
    fn flush(&mut self) -> Result<()> {
        let hits = std::mem::take(&mut self.pending.hits);
        if hits.len() > 0 {
            self.hits_per_txn.store(hits.len(), Ordering::Relaxed);
        }
        let mut grouped = match self.pending.segment {
            Some(segment) => {
                let mut parts = PartWriter::new(segment);
                let norms = &self.pending.norms;
                let factor = |page: PageId| {
                    (norms.get(&(page / NORMS_PER_CHUNK)))
                        .and_then(|chunk| chunk.get((page % NORMS_PER_CHUNK) as usize))
                        .map_or(f32::NAN, |&f| f)
                };
                let grouped = hits.group(&mut parts, factor)?;
                for (key, part) in parts.finish() {
                    self.append(self.dbs.stream(Stream::Body, segment), &key, &part)?;
                }
                let mut titles: Vec<_> = self.pending.titles.drain().collect();
                titles.sort_unstable_by_key(|(w, _)| *w);
                let title = titles
                    .iter()
                    .map(|(w, t)| (*w, &t.block[..], t.out_of_order));
                self.write_stream(Stream::Title, segment, title)?;
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
        write_doc_freqs(&mut self.txn, &self.dbs, &self.blocks, &grouped, &new_stems)?;
        Ok(())
    }
}

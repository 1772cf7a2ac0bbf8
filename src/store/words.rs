//! Words (stems) ↔ ids, document frequencies, and reading the inverted
//! index: body postings (tf + positions, in blocks per segment, see
//! `postings`) and title postings (positions, keyed `word id ‖ page id`), so
//! a word's postings are one ordered range scan.

use super::codec::{self, pair_key, split_pair_key, u32_key, VarintReader};
use super::postings;
use super::schema::{meta_keys, PageId, WordId};
use super::sealed::View;
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

    /// Every stem that begins with `prefix`, with its document frequency.
    fn stems_with_prefix(&self, prefix: &str) -> Result<Vec<(String, u32)>> {
        let mut out = Vec::new();
        for item in self
            .dbs()
            .word_ids
            .prefix_iter(self.txn(), prefix.as_bytes())?
        {
            let (stem, id) = item?;
            let df = self.doc_freq(codec::read_u32(id)?)?;
            out.push((String::from_utf8_lossy(stem).into_owned(), df));
        }
        Ok(out)
    }

    fn word(&self, id: WordId) -> Result<Option<String>> {
        self.dbs()
            .words
            .get(self.txn(), &u32_key(id))?
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .map(Ok)
            .transpose()
    }

    /// Pages whose body or title holds the word.
    fn doc_freq(&self, id: WordId) -> Result<u32> {
        Ok(self
            .dbs()
            .doc_freq
            .get(self.txn(), &u32_key(id))?
            .map(codec::read_u32)
            .transpose()?
            .unwrap_or(0))
    }

    /// Body postings of a word in page order, tf only (the ranking scan).
    fn postings_tf(&self, id: WordId) -> Result<Vec<(PageId, u32)>> {
        let mut out = Vec::new();
        for item in self.dbs().postings.prefix_iter(self.txn(), &u32_key(id))? {
            for e in postings::entries(item?.1) {
                let e = e?;
                out.push((e.page, e.tf));
            }
        }
        out.sort_unstable_by_key(|&(p, _)| p);
        Ok(out)
    }

    /// Body postings of a word in page order, with positions.
    fn postings(&self, id: WordId) -> Result<Vec<(PageId, Posting)>> {
        let mut out = Vec::new();
        for item in self.dbs().postings.prefix_iter(self.txn(), &u32_key(id))? {
            for e in postings::entries(item?.1) {
                let e = e?;
                out.push((
                    e.page,
                    Posting {
                        tf: e.tf,
                        positions: e.positions()?,
                    },
                ));
            }
        }
        out.sort_unstable_by_key(|(p, _)| *p);
        Ok(out)
    }

    /// The body posting of one word in one page.
    fn posting(&self, word: WordId, page: PageId) -> Result<Option<Posting>> {
        // Only the segment is needed: it leads the forward record, so the
        // rest of it (hundreds of varints) is not decoded.
        let Some(fwd) = self.dbs().forward.get(self.txn(), &u32_key(page))? else {
            return Ok(None);
        };
        let segment = VarintReader::new(fwd).next_u32()?;
        let prefix = postings::block_prefix(word, segment);
        for item in self.dbs().postings.prefix_iter(self.txn(), &prefix)? {
            for e in postings::entries(item?.1) {
                let e = e?;
                if e.page == page {
                    return Ok(Some(Posting {
                        tf: e.tf,
                        positions: e.positions()?,
                    }));
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
        let mut out = Vec::new();
        for item in self
            .dbs()
            .title_postings
            .prefix_iter(self.txn(), &u32_key(id))?
        {
            let (k, v) = item?;
            let positions = codec::read_positions(&mut VarintReader::new(v))?;
            out.push((split_pair_key(k)?.1, positions));
        }
        Ok(out)
    }

    fn title_posting(&self, word: WordId, page: PageId) -> Result<Option<Vec<u32>>> {
        self.dbs()
            .title_postings
            .get(self.txn(), &pair_key(word, page))?
            .map(|v| codec::read_positions(&mut VarintReader::new(v)))
            .transpose()
    }

    /// Words with at least one page.
    fn word_count(&self) -> Result<u64> {
        Ok(self.dbs().doc_freq.len(self.txn())?)
    }
}

impl<T: View + ?Sized> WordRead for T {}

impl Writer<'_> {
    pub fn word_id_for(&mut self, stem: &str) -> Result<WordId> {
        if let Some(&id) = self.pending.new_words.get(stem) {
            return Ok(id);
        }
        let cached = self
            .word_cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(stem)
            .copied();
        if let Some(id) = cached {
            return Ok(id);
        }
        let id = match self.word_id(stem)? {
            Some(id) => id,
            None => {
                let id = self.next_id32(meta_keys::NEXT_WORD)?;
                self.dbs
                    .word_ids
                    .put(&mut self.txn, stem.as_bytes(), &id.to_be_bytes())?;
                self.dbs
                    .words
                    .put(&mut self.txn, &u32_key(id), stem.as_bytes())?;
                id
            }
        };
        // Committed ids go to the shared cache only after the commit.
        self.pending.new_words.insert(stem.to_string(), id);
        Ok(id)
    }

    pub(super) fn add_doc_freq(&mut self, id: WordId, delta: i64) {
        *self.pending.doc_freq.entry(id).or_default() += delta;
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
    pub(super) fn flush(&mut self) -> Result<()> {
        let counters: Vec<(&'static [u8], u64)> = self.pending.counters.drain().collect();
        for (key, next) in counters {
            self.dbs.meta.put(&mut self.txn, key, &next.to_be_bytes())?;
        }
        let mut blocks: Vec<(WordId, Vec<u8>)> = self.pending.blocks.drain().collect();
        blocks.sort_unstable_by_key(|(w, _)| *w);
        if let Some(segment) = self.pending.segment {
            for (w, block) in blocks {
                for (i, part) in postings::into_parts(&block)?.into_iter().enumerate() {
                    let part_no = u16::try_from(i).map_err(|_| {
                        StoreError::corrupt("a posting block needs over 65,535 parts")
                    })?;
                    let key = postings::part_key(w, segment, part_no);
                    self.dbs.postings.put(&mut self.txn, &key, &part)?;
                }
            }
        }
        let mut norms: Vec<(u32, Vec<f32>)> = self.pending.norms.drain().collect();
        norms.sort_unstable_by_key(|(c, _)| *c);
        for (c, values) in norms {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.dbs.norms.put(&mut self.txn, &u32_key(c), &bytes)?;
        }
        let mut deltas: Vec<(WordId, i64)> = self.pending.doc_freq.drain().collect();
        deltas.sort_unstable_by_key(|(w, _)| *w);
        for (w, delta) in deltas {
            if delta == 0 {
                continue;
            }
            let df = i64::from(self.doc_freq(w)?) + delta;
            if df <= 0 {
                self.dbs.doc_freq.delete(&mut self.txn, &u32_key(w))?;
            } else {
                let df = u32::try_from(df).unwrap_or(u32::MAX);
                self.dbs
                    .doc_freq
                    .put(&mut self.txn, &u32_key(w), &df.to_be_bytes())?;
            }
        }
        Ok(())
    }
}

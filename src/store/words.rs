//! Words (stems) ↔ ids, document frequencies, and the inverted index:
//! body postings (tf + positions) and title postings (positions), keyed
//! `word id ‖ page id` so a word's postings are one ordered range scan.

use super::codec::{self, pair_key, split_pair_key, u32_key, VarintReader};
use super::schema::{meta_keys, PageId, WordId};
use super::sealed::View;
use super::{Result, Writer};

/// One body posting: how often a word occurs in a page and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub tf: u32,
    pub positions: Vec<u32>,
}

impl Posting {
    fn decode(bytes: &[u8]) -> Result<Posting> {
        let mut r = VarintReader::new(bytes);
        let tf = r.next_u32()?;
        let positions = codec::read_positions(&mut r)?;
        Ok(Posting { tf, positions })
    }
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
            let (k, v) = item?;
            let (_, page) = split_pair_key(k)?;
            out.push((page, VarintReader::new(v).next_u32()?));
        }
        Ok(out)
    }

    /// Body postings of a word in page order, with positions.
    fn postings(&self, id: WordId) -> Result<Vec<(PageId, Posting)>> {
        let mut out = Vec::new();
        for item in self.dbs().postings.prefix_iter(self.txn(), &u32_key(id))? {
            let (k, v) = item?;
            out.push((split_pair_key(k)?.1, Posting::decode(v)?));
        }
        Ok(out)
    }

    fn posting(&self, word: WordId, page: PageId) -> Result<Option<Posting>> {
        self.dbs()
            .postings
            .get(self.txn(), &pair_key(word, page))?
            .map(Posting::decode)
            .transpose()
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
        if let Some(id) = self.word_id(stem)? {
            return Ok(id);
        }
        let id = self.next_id32(meta_keys::NEXT_WORD)?;
        self.dbs
            .word_ids
            .put(&mut self.txn, stem.as_bytes(), &id.to_be_bytes())?;
        self.dbs
            .words
            .put(&mut self.txn, &u32_key(id), stem.as_bytes())?;
        Ok(id)
    }

    pub(super) fn add_doc_freq(&mut self, id: WordId, delta: i64) -> Result<()> {
        let df = i64::from(self.doc_freq(id)?) + delta;
        if df <= 0 {
            self.dbs.doc_freq.delete(&mut self.txn, &u32_key(id))?;
        } else {
            let df = u32::try_from(df).unwrap_or(u32::MAX);
            self.dbs
                .doc_freq
                .put(&mut self.txn, &u32_key(id), &df.to_be_bytes())?;
        }
        Ok(())
    }
}

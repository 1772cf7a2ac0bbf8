//! A write transaction's body postings as its pages put them: one *hit*
//! per (word, page) appended to a flat log, grouped by word only at the
//! commit, where they become the segment's posting stream and each word's
//! change of document frequency and forms.
//!
//! A map from word to its block, looked up for each of a page's ~500
//! distinct words, cost a cache miss or three a term (the map outgrew
//! the caches at ~20,000 words a transaction) and a growing allocation a
//! word: a sixth of the writer's CPU. Appending is sequential, and sorting
//! the hits' (word, place) keys once at the commit costs less.

use super::part_writer::PartWriter;
use super::run::weight_class;
use crate::schema::{PageId, WordId};
use crate::terms::Term;
use crate::Result;

/// `Hit::form_at` of a page that wrote the word as its stem.
const WROTE_STEM: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Hit {
    word: WordId,
    page: PageId,
    tf: u32,
    /// The lone position when `tf` is 1, else where the positions start
    /// in [`Hits::positions`].
    at: u32,
    /// The page's spelling in [`Hits::forms`] and then its word's stem
    /// (which `doc_freq` codes the spelling by), or [`WROTE_STEM`].
    form_at: u32,
    form_len: u16,
    stem_len: u8,
    /// False once the page was put again (or removed) in the same
    /// transaction: its entry is not written, but its counts stand, as
    /// the removal counted them off.
    live: bool,
}

/// The log; see the module doc.
#[derive(Debug, Default)]
pub struct Hits {
    hits: Vec<Hit>,
    positions: Vec<u32>,
    forms: String,
}

/// What a transaction's hits of one word change in its `doc_freq`
/// record: pages counted, and the spellings they wrote (the stem's
/// apart, its text being in the record), as a range of [`Grouped::votes`],
/// with the stem when there are any (empty when not).
#[derive(Debug, Default, Clone)]
pub struct WordCounts<'a> {
    pub df: i32,
    pub stem_votes: u32,
    pub votes: std::ops::Range<usize>,
    pub stem: &'a str,
}

/// The hits grouped by word: each word's counts, in word order.
#[derive(Default)]
pub struct Grouped<'a> {
    pub words: Vec<(WordId, WordCounts<'a>)>,
    /// The distinct spellings of each word and their pages.
    pub votes: Vec<(&'a str, u32)>,
}

impl Hits {
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    pub fn reserve(&mut self, hits: usize) {
        self.hits.reserve(hits);
    }

    /// Page `page` holds word `word` at `term`'s positions.
    pub fn push(&mut self, word: WordId, page: PageId, term: &Term<'_>) {
        let tf = term.positions.len() as u32;
        let at = match term.positions {
            [only] => *only,
            all => {
                let at = self.positions.len() as u32;
                self.positions.extend_from_slice(all);
                at
            }
        };
        // A spelling or stem too long for its length's field (the analyser
        // makes none: 40 characters at most) is counted as the stem.
        let lens = term.written.and_then(|form| {
            Some((
                form,
                u16::try_from(form.len()).ok()?,
                u8::try_from(term.stem.len()).ok()?,
            ))
        });
        let (form_at, form_len, stem_len) = match lens {
            Some((form, form_len, stem_len)) => {
                let at = self.forms.len() as u32;
                self.forms.push_str(form);
                self.forms.push_str(term.stem);
                (at, form_len, stem_len)
            }
            None => (WROTE_STEM, 0, 0),
        };
        self.hits.push(Hit {
            word,
            page,
            tf,
            at,
            form_at,
            form_len,
            stem_len,
            live: true,
        });
    }

    /// Page `page`'s hits so far are not written (it is put again, or
    /// removed).
    pub fn drop_page(&mut self, page: PageId) {
        for h in self.hits.iter_mut().filter(|h| h.page == page) {
            h.live = false;
        }
    }

    fn positions<'a>(&'a self, h: &'a Hit) -> &'a [u32] {
        if h.tf == 1 {
            return std::slice::from_ref(&h.at);
        }
        let at = h.at as usize;
        self.positions
            .get(at..at + h.tf as usize)
            .unwrap_or_default()
    }

    fn form(&self, h: &Hit) -> &str {
        let at = h.form_at as usize;
        self.forms
            .get(at..at + usize::from(h.form_len))
            .unwrap_or_default()
    }

    fn stem(&self, h: &Hit) -> &str {
        let at = h.form_at as usize + usize::from(h.form_len);
        self.forms
            .get(at..at + usize::from(h.stem_len))
            .unwrap_or_default()
    }

    /// Writes every live hit to `parts` in word then page order, each
    /// with the weight class of its tf times its page's norm factor
    /// (`factor`: NaN when not known), and counts each word's pages and
    /// spellings.
    pub fn group(
        &self,
        parts: &mut PartWriter,
        factor: impl Fn(PageId) -> f32,
    ) -> Result<Grouped<'_>> {
        // (word, place): the places of one word stay in put order, which
        // is page order but where a batch put a page out of id order.
        let mut order: Vec<u64> = (self.hits.iter().enumerate())
            .map(|(i, h)| u64::from(h.word) << 32 | i as u64)
            .collect();
        order.sort_unstable();
        let mut grouped = Grouped {
            words: Vec::new(),
            votes: Vec::new(),
        };
        let mut live: Vec<&Hit> = Vec::new();
        for group in order.chunk_by(|a, b| a >> 32 == b >> 32) {
            let word = (group[0] >> 32) as WordId;
            let start = grouped.votes.len();
            let mut counts = WordCounts::default();
            live.clear();
            for &k in group {
                let h = &self.hits[(k & u64::from(u32::MAX)) as usize];
                counts.df += 1;
                if h.form_at == WROTE_STEM {
                    counts.stem_votes += 1;
                } else {
                    counts.stem = self.stem(h);
                    let form = self.form(h);
                    match grouped.votes[start..].iter_mut().find(|(f, _)| *f == form) {
                        Some((_, n)) => *n += 1,
                        None => grouped.votes.push((form, 1)),
                    }
                }
                if h.live {
                    live.push(h);
                }
            }
            counts.votes = start..grouped.votes.len();
            if !live.is_sorted_by_key(|h| h.page) {
                live.sort_unstable_by_key(|h| h.page);
            }
            for h in &live {
                let positions = self.positions(h);
                let class = weight_class(positions.len() as f32 * factor(h.page));
                parts.push_positions(word, h.page, positions, class)?;
            }
            grouped.words.push((word, counts));
        }
        Ok(grouped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverted::run;

    fn term<'a>(written: Option<&'a str>, positions: &'a [u32]) -> Term<'a> {
        Term {
            stem: "movi",
            key: 0,
            written,
            positions,
            id: None,
        }
    }

    #[test]
    fn hits_are_written_in_word_then_page_order_and_counted_with_their_spellings() {
        let mut hits = Hits::default();
        hits.push(9, 30, &term(Some("movies"), &[4, 8]));
        hits.push(2, 30, &term(None, &[1]));
        // A batch may put a later page first.
        hits.push(9, 10, &term(None, &[0]));
        hits.push(9, 20, &term(Some("movies"), &[7]));
        hits.push(2, 20, &term(Some("movie"), &[3, 5, 6]));
        // Page 20 is put again: its first hits are not written, but stay
        // counted (the removal counts them off).
        hits.drop_page(20);
        hits.push(9, 20, &term(Some("moving"), &[2]));
        let mut parts = PartWriter::new(1);
        let grouped = hits.group(&mut parts, |_| 1.0).unwrap();
        let mut rows = Vec::new();
        for (key, part) in parts.finish() {
            let (_, word, _) = crate::codec::split_triple_key(&key).unwrap();
            for run in run::runs(word, &part) {
                let run = run.unwrap();
                for e in run.entries() {
                    let e = e.unwrap();
                    rows.push((run.word, e.page, e.positions().unwrap()));
                }
            }
        }
        assert_eq!(
            rows,
            [
                (2, 30, vec![1]),
                (9, 10, vec![0]),
                (9, 20, vec![2]),
                (9, 30, vec![4, 8]),
            ]
        );
        let counts: Vec<_> = (grouped.words.iter())
            .map(|(w, c)| {
                (
                    *w,
                    c.df,
                    c.stem_votes,
                    grouped.votes[c.votes.clone()].to_vec(),
                    c.stem,
                )
            })
            .collect();
        assert_eq!(
            counts,
            [
                (2, 2, 1, vec![("movie", 1)], "movi"),
                (9, 4, 1, vec![("movies", 2), ("moving", 1)], "movi"),
            ]
        );
    }
}

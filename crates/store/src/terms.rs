//! A page's analysed terms as the parser hands them to the writer: each
//! distinct stem with the form the page first wrote it in and its
//! positions. Every stem and form is kept in one string and every position
//! in one list: three heap blocks a page, where a list per stem made about
//! 1,200 on a 6 KB page, allocated on a parser thread and freed one by one
//! on the writer's (2.7% of a crawl's CPU, on the serial thread).
//!
//! Each stem carries its [`stem_key`], the writer's word caches' key,
//! hashed once per page instead of again by the writer.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::committed::Committed;
use super::schema::WordId;

/// What a stem is known by in the writer's caches and in a page's terms:
/// its 128-bit hash. Two of a store's stems share one with odds of about
/// 2^-89, and keyed by it a cache compares no strings.
pub fn stem_key(stem: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(stem.as_bytes())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    key: u128,
    /// `text[stem..form]` is the stem, `text[form..end]` the form (empty
    /// when the page wrote the stem itself).
    stem: u32,
    form: u32,
    end: u32,
    /// `positions[first..last]`.
    first: u32,
    last: u32,
    /// The word id, when [`KnownWords::resolve`] found it committed.
    id: Option<WordId>,
}

/// A page's terms, in the order the page first wrote them. No reader needs
/// them by stem (the writer sorts them by word id): sorting ~350 stems by
/// their bytes a page was 3.6% of a crawl's CPU.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms {
    text: String,
    spans: Vec<Span>,
    positions: Vec<u32>,
}

/// One term of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term<'a> {
    pub stem: &'a str,
    pub key: u128,
    /// The word as the page first wrote it; None when it wrote the stem.
    pub written: Option<&'a str>,
    /// Ascending.
    pub positions: &'a [u32],
    /// The stem's word id, when a parser thread found it committed.
    pub id: Option<WordId>,
}

impl Terms {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = Term<'_>> + '_ {
        self.spans.iter().map(|s| {
            let stem = &self.text[s.stem as usize..s.form as usize];
            let form = &self.text[s.form as usize..s.end as usize];
            Term {
                stem,
                key: s.key,
                written: (!form.is_empty()).then_some(form),
                positions: &self.positions[s.first as usize..s.last as usize],
                id: s.id,
            }
        })
    }

    /// Terms of `(stem, position)` pairs in text order, each stem its own
    /// form: what a query-side or test page needs.
    pub fn from_pairs<S: AsRef<str>>(pairs: impl IntoIterator<Item = (S, u32)>) -> Terms {
        let mut b = TermsBuilder::default();
        for (stem, pos) in pairs {
            let stem = stem.as_ref();
            b.add(stem, stem, pos);
        }
        b.finish()
    }
}

/// The word ids a store has committed, shared with the parser threads:
/// a page's terms arrive at the writer with the ids of the words the store
/// already knows, and the writer, the crawl's one serial thread, looks up
/// only the rest (the look-ups were a tenth of its time, a cache miss
/// each in a table of megabytes).
#[derive(Clone)]
pub struct KnownWords(pub(super) Arc<Committed<u128, WordId>>);

impl KnownWords {
    /// Fills in the ids of the committed words of `terms`, under one lock.
    pub fn resolve(&self, terms: &mut Terms) {
        self.0
            .get_each(&mut terms.spans, |s| s.key, |s, id| s.id = Some(id));
    }
}

/// Collects a page's terms as the analyser emits them.
#[derive(Debug, Default)]
pub struct TermsBuilder {
    index: HashMap<u128, u32>,
    terms: Terms,
    /// (term, position) in the order added.
    hits: Vec<(u32, u32)>,
}

impl TermsBuilder {
    /// A builder sized for the terms of `text`: growing its lists and map
    /// a page at a time was a quarter of the builder's cost. About eight
    /// bytes of text a token, and half the tokens repeat a word.
    pub fn for_text(text: &str) -> TermsBuilder {
        let tokens = text.len() / 8;
        let mut index = HashMap::default();
        index.reserve(tokens / 2);
        TermsBuilder {
            index,
            terms: Terms {
                text: String::with_capacity(text.len() / 2),
                spans: Vec::with_capacity(tokens / 2),
                positions: Vec::new(),
            },
            hits: Vec::with_capacity(tokens),
        }
    }

    /// One kept token: its stem, the word as written, its position
    /// (positions come in ascending order).
    pub fn add(&mut self, stem: &str, form: &str, position: u32) {
        let key = stem_key(stem);
        let terms = &mut self.terms;
        let next = terms.spans.len() as u32;
        let term = *self.index.entry(key).or_insert_with(|| {
            let start = terms.text.len() as u32;
            terms.text.push_str(stem);
            let form_at = terms.text.len() as u32;
            if form != stem {
                terms.text.push_str(form);
            }
            terms.spans.push(Span {
                key,
                stem: start,
                form: form_at,
                end: terms.text.len() as u32,
                first: 0,
                last: 0,
                id: None,
            });
            next
        });
        self.hits.push((term, position));
    }

    /// The terms in first-written order, each with its positions in the
    /// order added.
    pub fn finish(self) -> Terms {
        let TermsBuilder {
            mut terms, hits, ..
        } = self;
        // A counting sort by term keeps each term's positions in order.
        let mut at = vec![0u32; terms.spans.len() + 1];
        for &(t, _) in &hits {
            at[t as usize + 1] += 1;
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        for (span, w) in terms.spans.iter_mut().zip(at.windows(2)) {
            span.first = w[0];
            span.last = w[1];
        }
        let mut positions = vec![0u32; hits.len()];
        for (t, pos) in hits {
            let slot = &mut at[t as usize];
            positions[*slot as usize] = pos;
            *slot += 1;
        }
        terms.positions = positions;
        terms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(t: &Terms) -> Vec<(&str, &str, Vec<u32>)> {
        t.iter()
            .map(|t| (t.stem, t.written.unwrap_or(t.stem), t.positions.to_vec()))
            .collect()
    }

    #[test]
    fn terms_come_first_written_first_with_their_first_form_and_positions_in_order() {
        let mut b = TermsBuilder::default();
        for (i, (stem, form)) in [
            ("run", "running"),
            ("dog", "dog"),
            ("run", "runs"),
            ("cat", "cats"),
            ("dog", "dogs"),
            ("run", "run"),
        ]
        .into_iter()
        .enumerate()
        {
            b.add(stem, form, i as u32 * 2);
        }
        let t = b.finish();
        assert_eq!(
            listed(&t),
            [
                ("run", "running", vec![0, 4, 10]),
                ("dog", "dog", vec![2, 8]),
                ("cat", "cats", vec![6]),
            ]
        );
        assert!(t.iter().all(|term| term.key == stem_key(term.stem)));
        assert_eq!(t.iter().nth(1).map(|term| term.written), Some(None));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn no_terms() {
        let t = TermsBuilder::default().finish();
        assert!(t.is_empty());
        assert_eq!(t, Terms::from_pairs(Vec::<(&str, u32)>::new()));
    }
}

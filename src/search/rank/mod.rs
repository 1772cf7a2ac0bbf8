//! Ranking: the vector space model over the inverted index, with a title
//! boost, positional phrase matching and exclusions.
//!
//! A term is a stem or a quoted phrase. Its weight in a page is
//! `tf / max_tf × idf` with `idf = log2(N / df)`, N the number of pages (each
//! has a forward index) and df from `doc_freq` (for a phrase: the pages it
//! matches). The score is the cosine between the query (`qtf × idf`) and the
//! page, plus [`TITLE_BOOST`] × the share of the query's weight found in the
//! page's title.
//!
//! The cosine's page norm is an approximation. Stored norms (`PageRecord::norm`)
//! are the norm of the `tf / max_tf` vector *without* idf, because idf changes
//! with every page crawled and re-weighting every page each time is not an
//! option. The idf-weighted norm is taken as `norm × idf_max`, idf_max being
//! the largest idf among the query's terms: per query a constant, so the
//! ranking is exactly "dot product / stored norm", while the cosine part stays
//! within [0, 1] (Cauchy–Schwarz) and the title boost keeps its meaning.
//!
//! Cost: one `postings_tf` range scan per word (positions are decoded only
//! for phrase candidates), scores accumulated by merging page-ordered lists,
//! then each candidate's `1 / (max_tf × norm)` from the store's `norms`
//! table (a thousand pages per read); page records are read for the top-k
//! only.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::phrase;
use super::query::{Exclusion, Phrase, Query};
use crate::store::{PageId, PageRead, PageRecord, StoreError, WordRead};

/// How much a title holding the whole query adds: more than any body match
/// can score (the cosine part is at most 1), so a title match wins when the
/// bodies are alike.
pub const TITLE_BOOST: f32 = 1.0;

/// A term on every page has idf 0; it still finds pages, it only weighs
/// (almost) nothing, so a one-page store answers its own words.
const IDF_FLOOR: f64 = 1e-3;

/// One term's matches: body (page, tf) and title pages, both in page order.
#[derive(Debug, Default)]
struct Matches {
    body: Vec<(PageId, u32)>,
    title: Vec<PageId>,
}

impl Matches {
    /// Pages matching in body or title: the term's document frequency.
    fn pages(&self) -> Vec<PageId> {
        let mut all: Vec<PageId> = self.body.iter().map(|&(p, _)| p).collect();
        all.extend_from_slice(&self.title);
        // Two page-ordered runs: a stable sort merges them.
        all.sort();
        all.dedup();
        all
    }
}

/// A page's partial score before the page record is read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Acc {
    page: PageId,
    /// Σ c_t × tf: divided by `max_tf × norm` once the record is read.
    body: f32,
    /// Σ over title terms of the query weight share.
    title: f32,
}

/// A ranked page with its record.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    pub page: PageId,
    pub score: f32,
    pub record: PageRecord,
}

/// Ranks the pages matching `q`: the best `limit`, best first, ties by page
/// id ascending, and how many pages match in all.
pub(crate) fn rank<R: PageRead + WordRead>(
    r: &R,
    q: &Query,
    limit: usize,
) -> Result<(Vec<Ranked>, usize), StoreError> {
    exhaustive(r, q, limit)
}

/// Every match scored: the ranking the skipping one must equal.
fn exhaustive<R: PageRead + WordRead>(
    r: &R,
    q: &Query,
    limit: usize,
) -> Result<(Vec<Ranked>, usize), StoreError> {
    let n_pages = r.page_count()?.max(1) as f64;

    // (matches, query tf, df) of every term that occurs somewhere.
    let mut terms: Vec<(Matches, u32, u32)> = Vec::new();
    for (stem, qtf) in &q.words {
        let Some(w) = r.word_id(stem)? else { continue };
        let m = Matches {
            body: r.postings_tf(w)?,
            title: r
                .title_postings_raw(w)?
                .into_iter()
                .map(|e| e.page)
                .collect(),
        };
        let df = r.doc_freq(w)?;
        if !m.body.is_empty() || !m.title.is_empty() {
            terms.push((m, *qtf, df));
        }
    }
    for (phrase, qtf) in &q.phrases {
        let m = phrase_matches(r, phrase)?;
        let df = m.pages().len() as u32;
        if df > 0 {
            terms.push((m, *qtf, df));
        }
    }
    if terms.is_empty() {
        return Ok((Vec::new(), 0));
    }

    let idfs: Vec<f64> = terms
        .iter()
        .map(|&(_, _, df)| {
            let df = f64::from(df.max(1)).min(n_pages);
            (n_pages / df).log2().max(IDF_FLOOR)
        })
        .collect();
    let weights: Vec<f64> = terms
        .iter()
        .zip(&idfs)
        .map(|((_, qtf, _), idf)| f64::from(*qtf) * idf)
        .collect();
    let q_norm_sq: f64 = weights.iter().map(|w| w * w).sum();
    let q_norm = q_norm_sq.sqrt();
    let idf_max = idfs.iter().copied().fold(IDF_FLOOR, f64::max);

    let mut acc: Vec<Acc> = Vec::new();
    for (((m, _, _), idf), w) in terms.iter().zip(&idfs).zip(&weights) {
        let c = (w * idf / (q_norm * idf_max)) as f32;
        let title_share = (w * w / q_norm_sq) as f32;
        let body = m.body.iter().map(|&(page, tf)| Acc {
            page,
            body: c * tf as f32,
            title: 0.0,
        });
        let title = m.title.iter().map(|&page| Acc {
            page,
            body: 0.0,
            title: title_share,
        });
        let term = merge(body, title);
        acc = merge(acc.into_iter(), term.into_iter());
    }

    let excluded = excluded_pages(r, &q.excluded)?;
    if !excluded.is_empty() {
        acc.retain(|a| excluded.binary_search(&a.page).is_err());
    }
    let total = acc.len();
    if limit == 0 {
        return Ok((Vec::new(), total));
    }

    // Each candidate needs only its norm factor (a thousand pages per
    // read); page records are read for the winners alone.
    let mut top = TopK::new(limit);
    let pages: Vec<PageId> = acc.iter().map(|a| a.page).collect();
    for (a, factor) in acc.iter().zip(r.norm_factors(&pages)?) {
        top.offer(a, factor);
    }
    let mut out = Vec::with_capacity(limit);
    for c in top.into_best_first() {
        // Postings naming a page the snapshot does not hold are skipped
        // rather than failing the whole search.
        if let Some(record) = r.page(c.page)? {
            out.push(Ranked {
                page: c.page,
                score: c.score,
                record,
            });
        }
    }
    Ok((out, total))
}

/// The best `limit` pages seen so far.
struct TopK {
    limit: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    fn new(limit: usize) -> Self {
        TopK {
            limit,
            heap: BinaryHeap::with_capacity(limit + 1),
        }
    }

    /// `factor` is the page's `1 / (max_tf × norm)` (0 without a norm).
    fn offer(&mut self, a: &Acc, factor: f32) {
        let candidate = Worst(Candidate {
            page: a.page,
            score: a.body * factor + TITLE_BOOST * a.title,
        });
        if self.heap.len() < self.limit {
            self.heap.push(candidate);
        } else if self.heap.peek().is_some_and(|worst| candidate < *worst) {
            self.heap.pop();
            self.heap.push(candidate);
        }
    }

    fn into_best_first(self) -> Vec<Candidate> {
        // Ascending in `Worst`'s order is best first.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|w| w.0)
            .collect()
    }
}

/// A scored page before its record is read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Candidate {
    page: PageId,
    score: f32,
}

/// Orders candidates so that the *worst* is the greatest: the heap's top
/// is the one to evict. Better = higher score, then lower page id.
struct Worst(Candidate);

impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .score
            .total_cmp(&self.0.score)
            .then(self.0.page.cmp(&other.0.page))
    }
}

impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Worst {}

/// Merges two page-ordered lists, adding the parts of entries for the same
/// page (each input holds a page at most once).
fn merge(a: impl Iterator<Item = Acc>, b: impl Iterator<Item = Acc>) -> Vec<Acc> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    let mut out = Vec::with_capacity(a.size_hint().0 + b.size_hint().0);
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.page.cmp(&y.page) {
                Ordering::Less => a.next(),
                Ordering::Greater => b.next(),
                Ordering::Equal => {
                    let (x, y) = (*x, *y);
                    a.next();
                    b.next();
                    Some(Acc {
                        page: x.page,
                        body: x.body + y.body,
                        title: x.title + y.title,
                    })
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

/// Sorted, distinct pages holding any excluded word or phrase.
fn excluded_pages<R: PageRead + WordRead>(
    r: &R,
    excluded: &[Exclusion],
) -> Result<Vec<PageId>, StoreError> {
    let mut out = Vec::new();
    for e in excluded {
        match e {
            Exclusion::Word(stem) => {
                if let Some(w) = r.word_id(stem)? {
                    out.extend(r.postings_tf(w)?.into_iter().map(|(p, _)| p));
                    out.extend(r.title_postings_raw(w)?.into_iter().map(|e| e.page));
                }
            }
            Exclusion::Phrase(p) => out.extend(phrase_matches(r, p)?.pages()),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// A phrase's matches as a term's.
fn phrase_matches<R: WordRead>(r: &R, phrase: &Phrase) -> Result<Matches, StoreError> {
    let (body, title) = phrase::phrase_matches(r, phrase, phrase::Split::by_cores())?;
    Ok(Matches { body, title })
}

#[cfg(test)]
mod differential;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_parts_of_the_same_page() {
        let a = |page, body, title| Acc { page, body, title };
        let got = merge(
            vec![a(1, 1.0, 0.0), a(3, 1.0, 0.0)].into_iter(),
            vec![a(2, 0.0, 0.5), a(3, 0.5, 0.5), a(9, 0.0, 1.0)].into_iter(),
        );
        assert_eq!(
            got,
            [
                a(1, 1.0, 0.0),
                a(2, 0.0, 0.5),
                a(3, 1.5, 0.5),
                a(9, 0.0, 1.0)
            ]
        );
    }

    #[test]
    fn worst_orders_best_first_and_ties_by_page() {
        let r = |page, score| Worst(Candidate { page, score });
        let mut v = [r(3, 0.5), r(1, 0.5), r(2, 0.9), r(4, 0.1)];
        v.sort();
        let got: Vec<PageId> = v.iter().map(|w| w.0.page).collect();
        assert_eq!(got, [2, 1, 3, 4]);
    }
}

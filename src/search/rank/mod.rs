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
//! Top k, skipping: every body posting run carries its *weight class*, a
//! bound on `tf / (max_tf × norm)` over its entries (see
//! `store::inverted::run`), so a page's score is bounded before its norm
//! is read: Σ over the query's terms found on it of `c_t × bound` (the
//! cosine part, `c_t` the term's query weight over `q_norm × idf_max`),
//! plus [`TITLE_BOOST`] × the title share of each term in its title (known
//! exactly: title postings are read whole). Once k pages are held, a page
//! or a run whose bound is below the k-th score cannot enter and is not
//! scored; the bound includes the norm and the title boost, so the
//! results, scores and order are exactly those of scoring every match
//! (the differential test holds it to that). A quoted phrase's count is
//! at most its first word's tf, so its bound is `c_t` itself.
//!
//! One word without exclusions: its runs are read segment by segment and
//! a run that cannot enter is passed unread; the count of matching pages
//! is the word's document frequency. Several terms, a phrase or an
//! exclusion: the count needs every matching page, so every run's pages
//! are decoded (tf only) and merged in page order, but only the pages
//! whose bound can still enter have their norm read (a thousand pages per
//! record, in page order) and are scored. A phrase's pages are all found
//! (pair postings or positions, see `phrase`): its idf needs its exact
//! count. Page records are read for the top k only.
//!
//! Several words when no count is wanted (`search --json`, [`best`]):
//! the strongest word (the largest `c_t`: a page's body weight for a
//! word is at most 1) is ranked alone first, as a one-word query; its
//! k-th best score is a floor under the k-th best of all, since a page's
//! score only grows with more words. The weakest words whose `c_t`
//! together stay under the floor are weak (MaxScore's non-essential
//! terms): a page holding only them, and no query word in its title,
//! cannot enter, so of their postings only the entries of pages a strong
//! word or a title holds become candidates. Every page that can enter is
//! scored with every word, its parts added in the terms' order, so the
//! results equal the counted ranking's (the differential test holds it
//! to that).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::phrase;
use super::query::{Exclusion, Query};
use crate::store::{class_bound, PageId, PageRead, PageRecord, StoreError, WordId, WordRead};

/// How much a title holding the whole query adds: more than any body match
/// can score (the cosine part is at most 1), so a title match wins when the
/// bodies are alike.
pub const TITLE_BOOST: f32 = 1.0;

/// A term on every page has idf 0; it still finds pages, it only weighs
/// (almost) nothing, so a one-page store answers its own words.
const IDF_FLOOR: f64 = 1e-3;

/// Scores are sums of f32 products: a bound is taken as at least this
/// much larger (relative, and absolute) before it rules a page out, far
/// more than their rounding and far less than a weight class's step.
const BOUND_SLACK: f64 = 1e-4;

/// Candidates whose norms are read in one go.
const NORM_BATCH: usize = 256;

/// What a term's body matches are.
#[derive(Debug)]
enum Body {
    /// A word: its posting runs, read as the ranking goes.
    Word(WordId),
    /// A phrase's pages with their counts, in page order.
    Phrase(Vec<(PageId, u32)>),
}

/// A term of the query with its weights.
#[derive(Debug)]
struct Term {
    body: Body,
    /// Pages holding it in their title, in page order.
    title: Vec<PageId>,
    /// Its document frequency.
    df: u32,
    /// Multiplies tf into the cosine part: `w × idf / (q_norm × idf_max)`.
    c: f32,
    /// Its share of the query's weight, what a title holding it adds
    /// (times [`TITLE_BOOST`]).
    share: f32,
}

/// A page's partial score before its norm is read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Acc {
    page: PageId,
    /// Σ c_t × tf: multiplied by `1 / (max_tf × norm)` once the norm is read.
    body: f32,
    /// Σ over title terms of the query weight share.
    title: f32,
    /// The most the page can score.
    bound: f32,
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
    let (top, total) = top_k(r, q, limit, true)?;
    Ok((records(r, top)?, total))
}

/// The best `limit` pages matching `q`, best first, ties by page id
/// ascending, without counting every match ([`best_k`]).
pub(crate) fn best<R: PageRead + WordRead>(
    r: &R,
    q: &Query,
    limit: usize,
) -> Result<Vec<Ranked>, StoreError> {
    records(r, best_k(r, q, limit)?)
}

/// Every match scored: the ranking the skipping one must equal.
#[cfg(test)]
fn exhaustive<R: PageRead + WordRead>(
    r: &R,
    q: &Query,
    limit: usize,
) -> Result<(Vec<Ranked>, usize), StoreError> {
    let (top, total) = top_k(r, q, limit, false)?;
    Ok((records(r, top)?, total))
}

/// The best `limit` pages and how many match; `skip`: pass the pages and
/// runs whose bound cannot enter (only the test's oracle scores all).
fn top_k<R: PageRead + WordRead>(
    r: &R,
    q: &Query,
    limit: usize,
    skip: bool,
) -> Result<(TopK, usize), StoreError> {
    top_k_of(r, &weighed_terms(r, q)?, q, limit, skip)
}

/// [`top_k`] of `q`'s terms as weighed.
fn top_k_of<R: PageRead + WordRead>(
    r: &R,
    terms: &[Term],
    q: &Query,
    limit: usize,
    skip: bool,
) -> Result<(TopK, usize), StoreError> {
    let mut top = TopK::new(limit);
    if let ([term], true, true) = (terms, q.excluded.is_empty(), skip) {
        if let Body::Word(id) = term.body {
            if limit > 0 {
                one_word(r, term, id, &mut top)?;
            }
            return Ok((top, term.df as usize));
        }
    }
    let mut acc = all_accs(r, terms)?;
    let excluded = excluded_pages(r, &q.excluded)?;
    if !excluded.is_empty() {
        acc.retain(|a| excluded.binary_search(&a.page).is_err());
    }
    if limit > 0 {
        score_accs(r, &acc, skip, &mut top)?;
    }
    Ok((top, acc.len()))
}

/// The best `limit` pages, not counting how many match: several words
/// (no phrase, no exclusion) keep the weak words' entries only on pages
/// that can enter (see the module); anything else is ranked as [`top_k`]
/// ranks it.
fn best_k<R: PageRead + WordRead>(r: &R, q: &Query, limit: usize) -> Result<TopK, StoreError> {
    let terms = weighed_terms(r, q)?;
    let words: Option<Vec<WordId>> = terms
        .iter()
        .map(|t| match t.body {
            Body::Word(id) => Some(id),
            Body::Phrase(_) => None,
        })
        .collect();
    let (Some(words), true, true) = (words, q.excluded.is_empty(), terms.len() > 1) else {
        return Ok(top_k_of(r, &terms, q, limit, true)?.0);
    };
    let mut top = TopK::new(limit);
    if limit == 0 {
        return Ok(top);
    }
    // A page's body weight for a word, `tf / (max_tf × norm)`, is at
    // most 1: a word adds at most its `c` to a page's body score.
    let strongest = (0..terms.len())
        .max_by(|&a, &b| terms[a].c.total_cmp(&terms[b].c))
        .unwrap_or_default();
    // A page's score only grows with more words: the strongest word's
    // k-th best alone is a floor under the k-th best of all.
    let mut alone = TopK::new(limit);
    one_word(r, &terms[strongest], words[strongest], &mut alone)?;
    let mut weak = vec![false; terms.len()];
    if let Some(floor) = alone.worst_held() {
        // The weakest words whose bodies together stay under the floor
        // (MaxScore's non-essential ones): a page holding only them, and
        // no query word in its title, cannot enter.
        let mut weakest_first: Vec<usize> = (0..terms.len()).collect();
        weakest_first.sort_by(|&a, &b| terms[a].c.total_cmp(&terms[b].c));
        let mut sum = 0.0;
        for &i in &weakest_first {
            sum += terms[i].c;
            if !beaten(sum, floor) {
                break;
            }
            weak[i] = true;
        }
    }
    if !weak.contains(&true) {
        // Every word may lift a page into the top: nothing to filter.
        score_accs(r, &all_accs(r, &terms)?, true, &mut top)?;
        return Ok(top);
    }
    let mut accs: Vec<Option<Vec<Acc>>> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (!weak[i]).then(|| term_accs(r, t, None)).transpose())
        .collect::<Result<_, _>>()?;
    let mut candidates: Vec<PageId> = accs.iter().flatten().flatten().map(|a| a.page).collect();
    candidates.extend(terms.iter().flat_map(|t| t.title.iter().copied()));
    candidates.sort_unstable();
    candidates.dedup();
    for (i, t) in terms.iter().enumerate() {
        if weak[i] {
            accs[i] = Some(term_accs(r, t, Some(&candidates))?);
        }
    }
    // Merged in the terms' order, as the counted ranking merges them, so
    // that each page's parts add up to the same score.
    let acc = accs.into_iter().flatten().fold(Vec::new(), |acc, term| {
        merge(acc.into_iter(), term.into_iter())
    });
    score_accs(r, &acc, true, &mut top)?;
    Ok(top)
}

/// What a title holding `t` adds, when a page of it may have one.
fn titled(t: &Term) -> f32 {
    match t.title.is_empty() {
        true => 0.0,
        false => TITLE_BOOST * t.share,
    }
}

/// Every term's matches merged in page order, their parts added.
fn all_accs<R: WordRead>(r: &R, terms: &[Term]) -> Result<Vec<Acc>, StoreError> {
    let mut acc: Vec<Acc> = Vec::new();
    for t in terms {
        acc = merge(acc.into_iter(), term_accs(r, t, None)?.into_iter());
    }
    Ok(acc)
}

/// A term's matches, body and title, in page order; with `only` (sorted),
/// its body entries of those pages alone.
fn term_accs<R: WordRead>(
    r: &R,
    t: &Term,
    only: Option<&[PageId]>,
) -> Result<Vec<Acc>, StoreError> {
    let body = match &t.body {
        Body::Word(id) => word_accs(r, *id, t.c, only)?,
        Body::Phrase(list) => list
            .iter()
            .map(|&(page, n)| Acc {
                page,
                body: t.c * n as f32,
                title: 0.0,
                bound: t.c,
            })
            .collect(),
    };
    let title = t.title.iter().map(|&page| Acc {
        page,
        body: 0.0,
        title: t.share,
        bound: TITLE_BOOST * t.share,
    });
    Ok(merge(body.into_iter(), title))
}

/// Scores `acc` into `top`, in batches of norms; `skip`: pass the pages
/// whose bound cannot enter.
fn score_accs<R: PageRead>(
    r: &R,
    acc: &[Acc],
    skip: bool,
    top: &mut TopK,
) -> Result<(), StoreError> {
    let mut batch = Vec::with_capacity(NORM_BATCH);
    for a in acc {
        if skip && top.cannot_enter(a.bound) {
            continue;
        }
        batch.push(*a);
        if batch.len() == NORM_BATCH {
            score(r, &mut batch, top)?;
        }
    }
    score(r, &mut batch, top)
}

/// The query's terms that occur somewhere, weighed.
fn weighed_terms<R: PageRead + WordRead>(r: &R, q: &Query) -> Result<Vec<Term>, StoreError> {
    let n_pages = r.page_count()?.max(1) as f64;
    // (body, title, query tf, df) of every term that occurs somewhere.
    let mut found: Vec<(Body, Vec<PageId>, u32, u32)> = Vec::new();
    for (stem, qtf) in &q.words {
        let Some(w) = r.word_id(stem)? else { continue };
        let df = r.doc_freq(w)?;
        if df > 0 {
            let title = r.title_postings_raw(w)?.into_iter().map(|e| e.page);
            found.push((Body::Word(w), title.collect(), *qtf, df));
        }
    }
    for (phrase, qtf) in &q.phrases {
        let (body, title) = phrase::phrase_matches(r, phrase, phrase::Split::by_cores())?;
        let df = pages_of(&body, &title).len() as u32;
        if df > 0 {
            found.push((Body::Phrase(body), title, *qtf, df));
        }
    }
    let idfs: Vec<f64> = found
        .iter()
        .map(|&(_, _, _, df)| {
            let df = f64::from(df.max(1)).min(n_pages);
            (n_pages / df).log2().max(IDF_FLOOR)
        })
        .collect();
    let weights: Vec<f64> = found
        .iter()
        .zip(&idfs)
        .map(|((_, _, qtf, _), idf)| f64::from(*qtf) * idf)
        .collect();
    let q_norm_sq: f64 = weights.iter().map(|w| w * w).sum();
    let q_norm = q_norm_sq.sqrt();
    let idf_max = idfs.iter().copied().fold(IDF_FLOOR, f64::max);
    Ok(found
        .into_iter()
        .zip(idfs.iter().zip(&weights))
        .map(|((body, title, _, df), (idf, w))| Term {
            body,
            title,
            df,
            c: (w * idf / (q_norm * idf_max)) as f32,
            share: (w * w / q_norm_sq) as f32,
        })
        .collect())
}

/// Pages matching in body or title.
fn pages_of(body: &[(PageId, u32)], title: &[PageId]) -> Vec<PageId> {
    let mut all: Vec<PageId> = body.iter().map(|&(p, _)| p).collect();
    all.extend_from_slice(title);
    // Two page-ordered runs: a stable sort merges them.
    all.sort();
    all.dedup();
    all
}

/// A word's body matches in page order, each bounded by its run's class;
/// with `only` (sorted), those of these pages alone.
fn word_accs<R: WordRead>(
    r: &R,
    id: WordId,
    c: f32,
    only: Option<&[PageId]>,
) -> Result<Vec<Acc>, StoreError> {
    let mut out = Vec::new();
    r.body_runs(id, &mut |run| {
        let bound = (f64::from(c) * class_bound(run.class())) as f32;
        for e in run.page_tfs() {
            let (page, tf) = e?;
            if only.is_some_and(|pages| pages.binary_search(&page).is_err()) {
                continue;
            }
            out.push(Acc {
                page,
                body: c * tf as f32,
                title: 0.0,
                bound,
            });
        }
        Ok(())
    })?;
    // Each segment's runs are in page order: a stable sort merges them.
    out.sort_by_key(|a| a.page);
    Ok(out)
}

/// Ranks a one-word query's pages into `top`, passing unread every run
/// that cannot enter.
fn one_word<R: PageRead + WordRead>(
    r: &R,
    term: &Term,
    id: WordId,
    top: &mut TopK,
) -> Result<(), StoreError> {
    let titled = titled(term);
    let in_title = |page: PageId| term.title.binary_search(&page).is_ok();
    // Title pages whose body entry was read: the others score their title.
    let mut met: Vec<PageId> = Vec::new();
    let mut batch: Vec<Acc> = Vec::new();
    r.body_runs(id, &mut |mut run| {
        let body_bound = (f64::from(term.c) * class_bound(run.class())) as f32;
        if top.cannot_enter(body_bound + titled) {
            return Ok(());
        }
        let Some(first) = run.next().transpose()? else {
            return Ok(());
        };
        let (from, to) = (first.page, run.last_page());
        let spans_title =
            term.title.partition_point(|&p| p < from) < term.title.partition_point(|&p| p <= to);
        if !spans_title && top.cannot_enter(body_bound) {
            return Ok(());
        }
        for e in std::iter::once(Ok((first.page, first.tf))).chain(run.page_tfs()) {
            let (page, tf) = e?;
            let title = if in_title(page) {
                met.push(page);
                term.share
            } else {
                0.0
            };
            let bound = body_bound + TITLE_BOOST * title;
            if !top.cannot_enter(bound) {
                batch.push(Acc {
                    page,
                    body: term.c * tf as f32,
                    title,
                    bound,
                });
            }
        }
        score(r, &mut batch, top)
    })?;
    met.sort_unstable();
    for &page in &term.title {
        if met.binary_search(&page).is_err() && !top.cannot_enter(titled) {
            // No body: the norm multiplies nothing.
            let a = Acc {
                page,
                body: 0.0,
                title: term.share,
                bound: titled,
            };
            top.offer(&a, 0.0);
        }
    }
    Ok(())
}

/// Reads the norms of `batch` (in page order) and offers its pages.
fn score<R: PageRead>(r: &R, batch: &mut Vec<Acc>, top: &mut TopK) -> Result<(), StoreError> {
    if batch.is_empty() {
        return Ok(());
    }
    let pages: Vec<PageId> = batch.iter().map(|a| a.page).collect();
    for (a, factor) in batch.iter().zip(r.norm_factors(&pages)?) {
        top.offer(a, factor);
    }
    batch.clear();
    Ok(())
}

/// The winners' page records, best first.
fn records<R: PageRead>(r: &R, top: TopK) -> Result<Vec<Ranked>, StoreError> {
    let mut out = Vec::with_capacity(top.limit);
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
    Ok(out)
}

/// The best `limit` pages seen so far.
struct TopK {
    limit: usize,
    heap: BinaryHeap<Worst>,
    /// Pages scored (their norm read), for the tests to see what was
    /// passed.
    scored: usize,
}

impl TopK {
    fn new(limit: usize) -> Self {
        TopK {
            limit,
            heap: BinaryHeap::with_capacity(limit + 1),
            scored: 0,
        }
    }

    /// Whether a page scoring at most `bound` is sure to stay out: k
    /// pages are held and the worst of them scores more.
    fn cannot_enter(&self, bound: f32) -> bool {
        self.worst_held().is_some_and(|worst| beaten(bound, worst))
    }

    /// The k-th best score, once k pages are held.
    fn worst_held(&self) -> Option<f32> {
        match self.heap.len() >= self.limit {
            true => self.heap.peek().map(|worst| worst.0.score),
            false => None,
        }
    }

    /// `factor` is the page's `1 / (max_tf × norm)` (0 without a norm).
    fn offer(&mut self, a: &Acc, factor: f32) {
        self.scored += 1;
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

/// Whether a page scoring at most `bound` stays below `worst`, by more
/// than the rounding of sums of f32 products.
fn beaten(bound: f32, worst: f32) -> bool {
    f64::from(bound) * (1.0 + BOUND_SLACK) + BOUND_SLACK < f64::from(worst)
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
                        bound: x.bound + y.bound,
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
            Exclusion::Phrase(p) => {
                let (body, title) = phrase::phrase_matches(r, p, phrase::Split::by_cores())?;
                out.extend(pages_of(&body, &title));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod differential;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_parts_of_the_same_page() {
        let a = |page, body, title| Acc {
            page,
            body,
            title,
            bound: body + title,
        };
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

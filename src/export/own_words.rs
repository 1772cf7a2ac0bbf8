//! A page's keywords as the page itself writes them: its most frequent
//! stems (the forward index's tfs), each shown in the form the page writes
//! most often. The store keeps one form a stem, the one most pages write,
//! so a page that says "List" would read "listing"; the page's own form is
//! found by analysing its stored text again, which an export can afford.

use rustc_hash::FxHashMap;

use super::page::{keywords_json, KeywordJson};
use crate::index::Analyzer;
use crate::store::{PageId, Reader, StoreError};

/// Forms only: every token counts, whatever a point's stopwords were (a
/// stem in the forward record was kept by them already).
pub fn form_analyzer() -> Analyzer {
    Analyzer::with_stopwords(&[])
}

/// The `n` most frequent keywords of page `id`, each `word` as the page
/// writes it most often (the first written of equally frequent forms);
/// the store-wide form where the page's text is not kept.
pub fn keywords_as_written(
    r: &Reader<'_>,
    id: PageId,
    n: usize,
    forms: &Analyzer,
) -> Result<Vec<KeywordJson>, StoreError> {
    let mut keywords = keywords_json(r, id, n)?;
    if keywords.is_empty() {
        return Ok(keywords);
    }
    let Some(text) = crate::search::page_text(r, id)? else {
        return Ok(keywords);
    };
    let mut seen: FxHashMap<String, Vec<(String, u32)>> = keywords
        .iter()
        .map(|k| (k.stem.clone(), Vec::new()))
        .collect();
    forms.analyze_forms(&text, 0, |stem, form, _| {
        let Some(counts) = seen.get_mut(stem) else {
            return;
        };
        match counts.iter_mut().find(|(f, _)| f == form) {
            Some((_, n)) => *n += 1,
            None => counts.push((form.to_string(), 1)),
        }
    });
    for k in &mut keywords {
        let Some(counts) = seen.remove(&k.stem) else {
            continue;
        };
        // `max_by_key` keeps the last of equals: walk from the end.
        if let Some((form, _)) = counts.into_iter().rev().max_by_key(|&(_, n)| n) {
            k.word = form;
        }
    }
    Ok(keywords)
}

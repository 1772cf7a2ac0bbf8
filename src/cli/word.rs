//! `word WORD` / `word --id N`: the stem WORD is indexed under (analysed
//! exactly like page text) or word N, with its document frequency and body
//! postings; `words [PREFIX]`: the vocabulary, the id map read both ways.

use serde::Serialize;

use super::{print_json, CliError, CliResult};
use crate::index::Analyzer;
use crate::store::prelude::*;
use crate::store::{Store, WordId};

#[derive(Serialize)]
struct PostingJson {
    url: String,
    freq: u32,
    positions: Vec<u32>,
}

#[derive(Serialize)]
struct WordJson {
    /// What was asked (`--id`: the word as most often written).
    word: String,
    id: Option<WordId>,
    /// Null when WORD is not one word, or a stopword no point indexes:
    /// nothing is indexed under it.
    stem: Option<String>,
    df: u32,
    postings: Vec<PostingJson>,
}

pub fn run(store: &Store, word: Option<&str>, id: Option<WordId>, json: bool) -> CliResult {
    let r = store.read()?;
    let (word, stem, id) = match (word, id) {
        (_, Some(id)) => {
            let stem = r.word(id)?.ok_or(CliError::NoSuchWord(id))?;
            let written = r.word_form(id, &stem)?;
            (written, Some(stem), Some(id))
        }
        (Some(word), None) => {
            let (stem, id) = match Analyzer::global().stem_word(word) {
                Some(stem) => {
                    let id = r.word_id(&stem)?;
                    (Some(stem), id)
                }
                // A built-in stopword is indexed on the pages of a point
                // whose own `--stopwords` list leaves it out.
                None => match Analyzer::with_stopwords(&[]).stem_word(word) {
                    Some(stem) => match r.word_id(&stem)? {
                        Some(id) => (Some(stem), Some(id)),
                        None => (None, None),
                    },
                    None => (None, None),
                },
            };
            (word.to_string(), stem, id)
        }
        // clap requires one of the two.
        (None, None) => return Ok(()),
    };
    let mut out = WordJson {
        word: word.clone(),
        id,
        stem: stem.clone(),
        df: 0,
        postings: Vec::new(),
    };
    if let Some(w) = id {
        out.df = r.doc_freq(w)?;
        for (page, p) in r.postings(w)? {
            let Some(url) = r.url_of(page)? else { continue };
            out.postings.push(PostingJson {
                url,
                freq: p.tf,
                positions: p.positions,
            });
        }
    }
    if json {
        return print_json(&out);
    }
    let Some(stem) = &out.stem else {
        outln!("{word:?} is a stopword no point indexes, or not a single word: nothing is indexed under it");
        return Ok(());
    };
    outln!("word   {word}");
    outln!("stem   {stem}");
    if let Some(id) = out.id {
        outln!("id     {id}");
    }
    outln!("df     {}", out.df);
    for p in &out.postings {
        let positions: Vec<String> = p.positions.iter().map(u32::to_string).collect();
        outln!("{:>6}  {}  [{}]", p.freq, p.url, positions.join(" "));
    }
    Ok(())
}

#[derive(Serialize)]
struct VocabJson {
    id: WordId,
    stem: String,
    /// The form most pages write.
    word: String,
    df: u32,
}

/// The vocabulary in stem order, from `prefix` on.
pub fn list(store: &Store, prefix: Option<&str>, limit: usize, json: bool) -> CliResult {
    let r = store.read()?;
    let mut rows = Vec::new();
    for (stem, id, df) in r.stems_with_prefix(&prefix.unwrap_or("").to_lowercase(), limit)? {
        let word = r.word_form(id, &stem)?;
        rows.push(VocabJson { id, stem, word, df });
    }
    if json {
        return print_json(&rows);
    }
    for v in &rows {
        outln!("{:>8}  {:<24} {:<24} df {}", v.id, v.word, v.stem, v.df);
    }
    Ok(())
}

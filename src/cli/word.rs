//! `word WORD`: the stem WORD is indexed under (analysed exactly like page
//! text) and that stem's document frequency and body postings.

use serde::Serialize;

use super::{print_json, CliResult};
use crate::index::Analyzer;
use crate::store::prelude::*;
use crate::store::Store;

#[derive(Serialize)]
struct PostingJson {
    url: String,
    freq: u32,
    positions: Vec<u32>,
}

#[derive(Serialize)]
struct WordJson {
    word: String,
    /// Null when WORD is a stopword or not one word: nothing is indexed
    /// under it.
    stem: Option<String>,
    df: u32,
    postings: Vec<PostingJson>,
}

pub fn run(store: &Store, word: &str, json: bool) -> CliResult {
    let stem = Analyzer::global().stem_word(word);
    let r = store.read()?;
    let mut out = WordJson {
        word: word.to_string(),
        stem: stem.clone(),
        df: 0,
        postings: Vec::new(),
    };
    if let Some(w) = stem.as_deref().map(|s| r.word_id(s)).transpose()?.flatten() {
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
        outln!("{word:?} is a stopword or not a single word: nothing is indexed under it");
        return Ok(());
    };
    outln!("word   {word}");
    outln!("stem   {stem}");
    outln!("df     {}", out.df);
    for p in &out.postings {
        let positions: Vec<String> = p.positions.iter().map(u32::to_string).collect();
        outln!("{:>6}  {}  [{}]", p.freq, p.url, positions.join(" "));
    }
    Ok(())
}

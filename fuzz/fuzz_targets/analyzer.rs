//! The analyzer: any text yields non-empty, bounded stems at strictly
//! increasing positions that count every token; `terms` agrees with
//! `analyze` (cached or not); and a token analysed alone (a query word)
//! gets the stem it has inside the text (a page).

#![no_main]

use crawlscope::index::{tokens, Analyzer, MAX_TOKEN_CHARS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let a = Analyzer::global();

    let mut got: Vec<(String, u32)> = Vec::new();
    let end = a.analyze(&text, 0, |stem, pos| {
        assert!(!stem.is_empty(), "empty stem at {pos}");
        assert!(
            stem.len() <= 4 * MAX_TOKEN_CHARS,
            "stem of {} bytes at {pos}",
            stem.len()
        );
        if let Some(&(_, last)) = got.last() {
            assert!(pos > last, "position {pos} after {last}");
        }
        got.push((stem.to_owned(), pos));
    });
    let toks: Vec<&str> = tokens(&text).collect();
    assert_eq!(
        end as usize,
        toks.len(),
        "end position is not the token count"
    );

    // Second run: the stems now come from the per-thread cache.
    assert_eq!(a.terms(&text), got, "terms() disagrees with analyze()");
    // And from inside `emit`, where the cache is busy: the uncached path.
    let mut nested = Vec::new();
    a.analyze("warm up the cache", 0, |_, _| nested = a.terms(&text));
    assert_eq!(nested, got, "uncached analysis disagrees");

    for (stem, pos) in &got {
        let token = toks[*pos as usize];
        assert_eq!(
            a.stem_word(token).as_deref(),
            Some(stem.as_str()),
            "token {token:?} alone does not get its stem"
        );
    }
});

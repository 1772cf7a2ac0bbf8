//! The query parser: any query string parses (or says why it is empty)
//! without a panic, and what it yields is consistent: stems non-empty,
//! counts positive, phrases of two or more stems relative to their first.

#![no_main]

use crawlscope::search::query::{parse, Empty, Exclusion};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let q = String::from_utf8_lossy(data);
    match parse(&q) {
        Ok(query) => {
            assert!(!query.words.is_empty() || !query.phrases.is_empty());
            for (stem, n) in &query.words {
                assert!(!stem.is_empty() && *n > 0, "word {stem:?} x{n}");
            }
            for (phrase, n) in &query.phrases {
                assert!(*n > 0);
                assert!(phrase.stems.len() >= 2, "phrase of one stem {phrase:?}");
                assert_eq!(
                    phrase.stems[0].1, 0,
                    "phrase not relative to its first stem"
                );
                assert!(phrase.stems.windows(2).all(|w| w[0].1 < w[1].1));
            }
            for ex in &query.excluded {
                match ex {
                    Exclusion::Word(w) => assert!(!w.is_empty()),
                    Exclusion::Phrase(p) => assert!(p.stems.len() >= 2),
                }
            }
            let stems = query.positive_stems();
            assert!(!stems.is_empty());
        }
        Err(empty) => {
            assert!(!empty.message().is_empty());
            if q.trim().is_empty() {
                assert_eq!(empty, Empty::Blank);
            }
        }
    }
});

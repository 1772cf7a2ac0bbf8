//! The English stopword list (assets/stopwords.txt, compiled in): words too
//! common to be worth indexing.

use rustc_hash::FxHashSet as HashSet;

const LIST: &str = include_str!("../../assets/stopwords.txt");

/// A set of lowercase stopwords.
#[derive(Debug, Clone)]
pub(crate) struct Stopwords(HashSet<&'static str>);

impl Stopwords {
    /// The built-in English list; blank lines and `#` comments are skipped.
    pub(crate) fn english() -> Self {
        Stopwords(
            LIST.lines()
                .map(str::trim)
                .filter(|w| !w.is_empty() && !w.starts_with('#'))
                .collect(),
        )
    }

    pub(crate) fn contains(&self, lowercase_token: &str) -> bool {
        self.0.contains(lowercase_token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::tokens;

    #[test]
    fn classic_english_list() {
        let stop = Stopwords::english();
        assert!(stop.0.len() > 120, "{}", stop.0.len());
        for w in ["the", "a", "and", "of", "is", "don", "t", "s", "yourselves"] {
            assert!(stop.contains(w), "{w}");
        }
        for w in ["The", "quick", "fox", "search", ""] {
            assert!(!stop.contains(w), "{w}");
        }
    }

    #[test]
    fn every_entry_is_a_single_lowercase_token() {
        // Entries the tokenizer can never produce would be dead weight.
        for w in Stopwords::english().0 {
            assert_eq!(tokens(w).collect::<Vec<_>>(), [w]);
            assert_eq!(w.to_lowercase(), w);
        }
    }
}

//! Stopword lists: the built-in English one (assets/stopwords.txt,
//! compiled in), words too common to be worth indexing, and a list a
//! crawl point reads from a file (`--stopwords FILE`) to replace it.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use rustc_hash::FxHashSet as HashSet;

use super::tokenize::push_lowercase;

const LIST: &str = include_str!("../../assets/stopwords.txt");

/// A set of lowercase stopwords.
#[derive(Debug, Clone)]
pub(crate) struct Stopwords(HashSet<Cow<'static, str>>);

impl Stopwords {
    /// The built-in English list, built once.
    pub(crate) fn english() -> &'static Stopwords {
        static ENGLISH: OnceLock<Stopwords> = OnceLock::new();
        ENGLISH.get_or_init(|| Stopwords(entries(LIST).map(Cow::Borrowed).collect()))
    }

    /// A list of its own (words as [`parse_list`] gives them).
    pub(crate) fn of(words: &[String]) -> Stopwords {
        Stopwords(words.iter().map(|w| Cow::Owned(w.clone())).collect())
    }

    pub(crate) fn contains(&self, lowercase_token: &str) -> bool {
        self.0.contains(lowercase_token)
    }
}

/// The entries of a list: one a line, trimmed; blank lines and `#`
/// comments skipped.
fn entries(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|w| !w.is_empty() && !w.starts_with('#'))
}

/// The words of a stopword file's text, lowercased as tokens are (a list
/// entry `The` stops the token `THE`), each once, in file order.
pub fn parse_list(text: &str) -> Vec<String> {
    let mut seen = HashSet::default();
    let mut words: Vec<String> = Vec::new();
    for entry in entries(text) {
        let mut word = String::with_capacity(entry.len());
        push_lowercase(entry, &mut word);
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    words
}

/// [`parse_list`] of the file at `path`; the error is one line naming it.
pub fn read_list(path: &Path) -> Result<Vec<String>, String> {
    std::fs::read_to_string(path)
        .map(|text| parse_list(&text))
        .map_err(|e| format!("cannot read stopwords file {}: {e}", path.display()))
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
        for w in &Stopwords::english().0 {
            assert_eq!(tokens(w).collect::<Vec<_>>(), [w.as_ref()]);
            assert_eq!(&w.to_lowercase(), w);
        }
    }

    #[test]
    fn a_file_list_is_one_lowercase_word_a_line() {
        let text = "# my list\n\nThe\n  Fox  \n# not a word\nfox\nÉTÉ\n";
        assert_eq!(parse_list(text), ["the", "fox", "été"]);
        let missing = Path::new("/nonexistent/stop.txt");
        let e = read_list(missing).unwrap_err();
        assert!(
            e.contains("/nonexistent/stop.txt") && !e.contains('\n'),
            "{e}"
        );
    }
}

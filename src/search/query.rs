//! The query language: plain words (OR-ed), `"quoted phrases"` and
//! `-word` / `-"phrase"` exclusions, analysed by the same [`Analyzer`] as
//! pages, so that a query word meets the stems its pages were indexed under.

use crate::index::Analyzer;

/// A quoted phrase: its stems with their offsets from the first kept stem.
/// Stopwords are dropped but keep their gap, because page positions count
/// every token: "state of the art" is `state@0, art@3`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Phrase {
    pub stems: Vec<(String, u32)>,
}

/// Something a page must not contain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    Word(String),
    Phrase(Phrase),
}

/// A parsed, analysed query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Distinct stems of the unquoted words with how often each was asked
    /// for (the query's term frequency), in first-seen order.
    pub words: Vec<(String, u32)>,
    /// Distinct phrases of two or more stems, with how often each was asked.
    pub phrases: Vec<(Phrase, u32)>,
    pub excluded: Vec<Exclusion>,
}

/// Why a query has nothing to search for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Empty {
    /// No word at all.
    Blank,
    /// Words, but each one a stopword (or too long to be indexed).
    OnlyStopwords,
    /// Only `-word`s: nothing to rank.
    OnlyExclusions,
}

impl Empty {
    pub fn message(self) -> &'static str {
        match self {
            Empty::Blank => "the query is empty: nothing to search for",
            Empty::OnlyStopwords => {
                "the query holds only stopwords (words too common to be indexed): nothing to search for"
            }
            Empty::OnlyExclusions => "the query only excludes words: nothing to search for",
        }
    }
}

/// One lexical piece of the query string.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Words(&'a str),
    Phrase(&'a str),
    NotWords(&'a str),
    NotPhrase(&'a str),
}

/// Splits the raw query: `"..."` runs to the next quote (or the end, when
/// unterminated); a `-` starting a piece negates it; anything else runs to
/// whitespace or a quote.
fn pieces(q: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = q;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        let negated = rest.starts_with('-') && rest.len() > 1;
        let body = if negated { &rest[1..] } else { rest };
        if let Some(inner) = body.strip_prefix('"') {
            let end = inner.find('"').unwrap_or(inner.len());
            let text = &inner[..end];
            out.push(if negated {
                Piece::NotPhrase(text)
            } else {
                Piece::Phrase(text)
            });
            rest = inner.get(end + 1..).unwrap_or("");
        } else {
            let end = body
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(body.len());
            let text = &body[..end];
            out.push(if negated && !text.is_empty() {
                Piece::NotWords(text)
            } else {
                Piece::Words(text)
            });
            // A lone '-' followed by a space is just punctuation.
            rest = &body[end..];
        }
    }
}

/// Analyses `text` into a phrase (offsets relative to the first kept stem).
fn phrase_of(analyzer: &Analyzer, text: &str) -> Option<Phrase> {
    let terms = analyzer.terms(text);
    let first = terms.first()?.1;
    Some(Phrase {
        stems: terms.into_iter().map(|(s, p)| (s, p - first)).collect(),
    })
}

fn bump<T: PartialEq>(list: &mut Vec<(T, u32)>, item: T) {
    match list.iter_mut().find(|(x, _)| *x == item) {
        Some((_, n)) => *n += 1,
        None => list.push((item, 1)),
    }
}

/// Parses and analyses a query. `Err` says why there is nothing to search.
pub fn parse(q: &str) -> Result<Query, Empty> {
    parse_with(q, Analyzer::global())
}

/// [`parse`] with the words analysed by `analyzer`.
pub fn parse_with(q: &str, analyzer: &Analyzer) -> Result<Query, Empty> {
    let mut query = Query::default();
    let mut any_token = false;
    for piece in pieces(q) {
        match piece {
            Piece::Words(text) => {
                any_token |= crate::index::tokens(text).next().is_some();
                analyzer.analyze(text, 0, |stem, _| bump(&mut query.words, stem.to_string()));
            }
            Piece::Phrase(text) => {
                any_token |= crate::index::tokens(text).next().is_some();
                match phrase_of(analyzer, text) {
                    // One stem left: an ordinary word, matched anywhere.
                    Some(p) if p.stems.len() == 1 => {
                        if let Some((stem, _)) = p.stems.into_iter().next() {
                            bump(&mut query.words, stem);
                        }
                    }
                    Some(p) => bump(&mut query.phrases, p),
                    None => {}
                }
            }
            Piece::NotWords(text) | Piece::NotPhrase(text) => {
                any_token |= crate::index::tokens(text).next().is_some();
                // "-e-mail" is a phrase too: its pieces must be adjacent.
                match phrase_of(analyzer, text) {
                    Some(p) if p.stems.len() == 1 => {
                        if let Some((stem, _)) = p.stems.into_iter().next() {
                            query.excluded.push(Exclusion::Word(stem));
                        }
                    }
                    Some(p) => query.excluded.push(Exclusion::Phrase(p)),
                    None => {}
                }
            }
        }
    }
    if query.words.is_empty() && query.phrases.is_empty() {
        return Err(if !query.excluded.is_empty() {
            Empty::OnlyExclusions
        } else if any_token {
            Empty::OnlyStopwords
        } else {
            Empty::Blank
        });
    }
    Ok(query)
}

/// Parses a query being typed: the query as [`parse`] reads it, and the
/// last word lowercased when the typing is still inside it (no space or
/// quote after it, not negated, at least two characters).
pub fn parse_typing(q: &str) -> (Result<Query, Empty>, Option<String>) {
    let prefix = match pieces(q).last() {
        Some(Piece::Words(text)) if !q.ends_with(char::is_whitespace) => {
            crate::index::tokens(text).last().map(|t| t.to_lowercase())
        }
        _ => None,
    };
    (parse(q), prefix.filter(|p| p.chars().count() >= 2))
}

impl Query {
    /// Every stem the query asks for (not the excluded ones), each once.
    pub fn positive_stems(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let all = self.words.iter().map(|(s, _)| s.as_str()).chain(
            self.phrases
                .iter()
                .flat_map(|(p, _)| p.stems.iter().map(|(s, _)| s.as_str())),
        );
        for s in all {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &Query) -> Vec<(&str, u32)> {
        q.words.iter().map(|(s, n)| (s.as_str(), *n)).collect()
    }

    fn stems(p: &Phrase) -> Vec<(&str, u32)> {
        p.stems.iter().map(|(s, n)| (s.as_str(), *n)).collect()
    }

    #[test]
    fn words_are_stemmed_stopwords_dropped_and_counted() {
        let q = parse("The running dogs run").expect("has words");
        assert_eq!(words(&q), [("run", 2), ("dog", 1)]);
        assert!(q.phrases.is_empty() && q.excluded.is_empty());
    }

    #[test]
    fn phrases_keep_stopword_gaps() {
        let q = parse("\"state of the art\" kiwi \"hong kong\"").expect("has words");
        assert_eq!(q.phrases.len(), 2);
        assert_eq!(stems(&q.phrases[0].0), [("state", 0), ("art", 3)]);
        assert_eq!(stems(&q.phrases[1].0), [("hong", 0), ("kong", 1)]);
        assert_eq!(words(&q), [("kiwi", 1)]);
    }

    #[test]
    fn a_phrase_starting_with_a_stopword_is_relative_to_its_first_stem() {
        let q = parse("\"the quick fox\"").expect("has words");
        assert_eq!(stems(&q.phrases[0].0), [("quick", 0), ("fox", 1)]);
    }

    #[test]
    fn one_word_phrases_are_words_and_unterminated_quotes_run_to_the_end() {
        let q = parse("\"running\" \"big apple").expect("has words");
        assert_eq!(words(&q), [("run", 1)]);
        assert_eq!(stems(&q.phrases[0].0), [("big", 0), ("appl", 1)]);
    }

    #[test]
    fn exclusions() {
        let q = parse("kiwi -bananas -\"red apple\" - half-moon").expect("has words");
        assert_eq!(
            q.excluded,
            [
                Exclusion::Word("banana".into()),
                Exclusion::Phrase(Phrase {
                    stems: vec![("red".into(), 0), ("appl".into(), 1)]
                })
            ]
        );
        // A '-' inside a word is not an exclusion.
        assert_eq!(words(&q), [("kiwi", 1), ("half", 1), ("moon", 1)]);
    }

    #[test]
    fn empty_queries_say_why() {
        assert_eq!(parse(""), Err(Empty::Blank));
        assert_eq!(parse("  \"\" -- ,.; "), Err(Empty::Blank));
        assert_eq!(parse("the of AND"), Err(Empty::OnlyStopwords));
        assert_eq!(parse("\"to be or not to be\""), Err(Empty::OnlyStopwords));
        assert_eq!(parse("-kiwi"), Err(Empty::OnlyExclusions));
    }

    #[test]
    fn positive_stems_are_distinct() {
        let q = parse("kiwi \"kiwi farm\" -farm").expect("has words");
        assert_eq!(q.positive_stems(), ["kiwi", "farm"]);
    }

    /// Lone quotes and dashes are punctuation, not syntax errors: what is
    /// left is the words around them, or the reason there are none.
    #[test]
    fn odd_quotes_and_dashes_leave_only_their_words() {
        for (q, why) in [
            ("\"", Empty::Blank),
            ("-", Empty::Blank),
            ("-\"", Empty::Blank),
            ("\"\"\"", Empty::Blank),
            ("\u{0}\"-\u{301}", Empty::Blank),
            // An excluded stopword excludes nothing.
            ("-\"a", Empty::OnlyStopwords),
        ] {
            assert_eq!(parse(q), Err(why), "{q:?}");
        }
        let q = parse("ü-\"x\"-").expect("has words");
        assert_eq!(words(&q), [("ü", 1), ("x", 1)]);
        assert!(q.phrases.is_empty() && q.excluded.is_empty());
    }
}

//! `--exclude-regex RE`: URLs a point never fetches nor checks, beside its
//! prefix excludes. A pattern is checked when a point is saved (an invalid
//! one is refused with the regex crate's message) and the point's patterns
//! are compiled into one set once per run, never per link.
//!
//! Unlike a prefix exclude, which can only cut into the point's root, a
//! pattern applies to every URL the point meets, in scope or not, so that
//! an external link (`--check-external`) can be left unchecked too, as
//! lychee's `--exclude` does.

use regex::{Regex, RegexSet};

/// A pattern as typed, refused with the reason when it does not compile.
pub fn parse(input: &str) -> Result<String, String> {
    Regex::new(input).map_err(|e| e.to_string())?;
    Ok(input.to_string())
}

/// A point's patterns together, refused when the set does not compile
/// (each may, and the set still be over the regex crate's size limit).
pub fn check_all(patterns: &[String]) -> Result<(), String> {
    RegexSet::new(patterns).map(drop).map_err(|e| e.to_string())
}

/// A point's patterns, compiled for a run: cheap to ask when there are none.
#[derive(Debug, Clone, Default)]
pub struct ExcludeRegex(Option<RegexSet>);

impl ExcludeRegex {
    /// The set of `patterns`, which [`check_all`] passed when their point
    /// was saved (a store holds no other).
    pub fn new(patterns: &[String]) -> ExcludeRegex {
        if patterns.is_empty() {
            return ExcludeRegex(None);
        }
        ExcludeRegex(RegexSet::new(patterns).ok())
    }

    /// Whether `url` (normalised, as stored) matches one of the patterns.
    pub fn matches(&self, url: &str) -> bool {
        self.0.as_ref().is_some_and(|set| set.is_match(url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile_once_and_match_anywhere() {
        assert!(parse("(unclosed").is_err());
        assert!(parse(r"\.pdf$").is_ok());
        let set = ExcludeRegex::new(&[r"\.pdf$".to_string(), "^https?://ads\\.".to_string()]);
        assert!(set.matches("http://a.test/doc.pdf"));
        assert!(set.matches("https://ads.example/x"));
        assert!(!set.matches("http://a.test/doc.html"));
        assert!(!ExcludeRegex::new(&[]).matches("http://a.test/"));
    }
}

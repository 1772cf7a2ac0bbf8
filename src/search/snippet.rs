//! Snippets: a one-line excerpt of a page's visible text around the first
//! place the query matches, cut at word boundaries.

use super::query::Query;
use crate::html;
use crate::index::{tokens, Analyzer};
use crate::store::{PageId, PageRead, StoreError};
use crate::url::Url;

/// Characters of text in a snippet (ellipses aside).
pub const SNIPPET_CHARS: usize = 160;
/// How much of the snippet comes before the match.
const LEAD_CHARS: usize = 50;

/// The page's visible text, decoded from its stored body as the crawler
/// parsed it, one space between words; None when no body was kept or it
/// is not text.
pub(crate) fn page_text<R: PageRead>(r: &R, page: PageId) -> Result<Option<String>, StoreError> {
    let Some(record) = r.page(page)? else {
        return Ok(None);
    };
    let Some(body) = r.body(page)? else {
        return Ok(None);
    };
    let content_type = match r.mime(record.mime)? {
        Some(m) => {
            let mut ct = m.essence;
            for (k, v) in m.params {
                ct.push_str(&format!("; {k}={v}"));
            }
            ct
        }
        None => String::new(),
    };
    let essence = content_type.split(';').next().unwrap_or("");
    let text = match essence {
        "text/plain" => html::parse_text(&body, Some(&content_type)).text,
        "" | "text/html" | "application/xhtml+xml" => {
            // The URL only resolves links, which a snippet does not need.
            let url = r
                .url_of(page)?
                .and_then(|u| Url::parse(&u).ok())
                .or_else(|| Url::parse("http://localhost/").ok());
            let Some(url) = url else { return Ok(None) };
            html::parse_html(&body, Some(&content_type), &url).text
        }
        _ => return Ok(None),
    };
    // One space between words, so that a snippet's length is all words.
    Ok(Some(html::collapse_whitespace(&text)))
}

/// The token position the snippet centres on: the first full phrase match,
/// else the first word of the query, else the first phrase stem.
fn anchor(text: &str, query: &Query) -> Option<u32> {
    let wanted = query.positive_stems();
    let mut found: Vec<(String, u32)> = Vec::new();
    Analyzer::global().analyze(text, 0, |stem, pos| {
        if wanted.contains(&stem) {
            found.push((stem.to_string(), pos));
        }
    });
    let at = |stem: &str, pos: u32| found.iter().any(|(s, p)| s == stem && *p == pos);
    for (phrase, _) in &query.phrases {
        let Some((head, _)) = phrase.stems.first() else {
            continue;
        };
        for (s, start) in &found {
            if s == head
                && phrase
                    .stems
                    .iter()
                    .all(|(stem, off)| start.checked_add(*off).is_some_and(|p| at(stem, p)))
            {
                return Some(*start);
            }
        }
    }
    let is_word = |s: &str| query.words.iter().any(|(w, _)| w == s);
    found
        .iter()
        .find(|(s, _)| is_word(s))
        .or(found.first())
        .map(|&(_, p)| p)
}

/// About [`SNIPPET_CHARS`] characters of `text` around byte `at`, on one
/// line, cut between words, with "…" where text was cut off.
pub(crate) fn excerpt(text: &str, at: usize) -> String {
    let at = floor_char(text, at.min(text.len()));
    // Back up LEAD_CHARS characters, then forward to a word start.
    let mut start = text[..at]
        .char_indices()
        .rev()
        .nth(LEAD_CHARS.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    if start > 0 {
        if let Some(ws) = text[start..at].find(char::is_whitespace) {
            start += ws;
        } else {
            start = at;
        }
    }
    let mut end = text[start..]
        .char_indices()
        .nth(SNIPPET_CHARS)
        .map_or(text.len(), |(i, _)| start + i);
    if end < text.len() {
        if let Some(ws) = text[start..end].rfind(char::is_whitespace) {
            if start + ws > at {
                end = start + ws;
            }
        }
    }
    let mut out = String::with_capacity(end - start + 8);
    if start > 0 {
        out.push('…');
    }
    let mut words = text[start..end].split_whitespace();
    if let Some(first) = words.next() {
        out.push_str(first);
        for w in words {
            out.push(' ');
            out.push_str(w);
        }
    }
    if end < text.len() {
        out.push('…');
    }
    out
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// See [`super::snippet`].
pub(crate) fn snippet<R: PageRead>(
    r: &R,
    page: PageId,
    query: Option<&Query>,
) -> Result<Option<String>, StoreError> {
    let Some(text) = page_text(r, page)? else {
        return Ok(None);
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let byte = query
        .and_then(|q| anchor(&text, q))
        .and_then(|pos| tokens(&text).nth(pos as usize))
        // Tokens are slices of `text`: their address gives their offset.
        .map_or(0, |t| t.as_ptr() as usize - text.as_ptr() as usize);
    Ok(Some(excerpt(&text, byte)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::query::parse;

    #[test]
    fn short_text_is_whole() {
        assert_eq!(excerpt("  a  short\n text ", 3), "a short text");
    }

    #[test]
    fn long_text_is_cut_between_words_around_the_match() {
        let words: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
        let text = words.join(" ");
        let at = text.find("w100").unwrap_or(0);
        let s = excerpt(&text, at);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("w100"), "{s}");
        let inner = s.trim_matches('…');
        assert!(inner.chars().count() <= SNIPPET_CHARS, "{s}");
        // Whole words only at both ends.
        assert!(
            inner.split(' ').all(|w| w.starts_with('w') && w.len() > 1),
            "{s}"
        );
    }

    #[test]
    fn multibyte_text_never_splits_a_char() {
        let text = "ü".repeat(500);
        for at in [0, 1, 3, 501, 999, 5000] {
            let s = excerpt(&text, at);
            assert!(s.chars().count() <= SNIPPET_CHARS + 2);
        }
    }

    #[test]
    fn anchor_prefers_a_full_phrase_match() {
        let text = "art today. the state was fine. state of the art machines";
        let q = parse("\"state of the art\"").expect("has words");
        // tokens: art0 today1 the2 state3 was4 fine5 state6 of7 the8 art9
        assert_eq!(anchor(text, &q), Some(6));
        let q = parse("fine state").expect("has words");
        assert_eq!(anchor(text, &q), Some(3));
        let q = parse("absent").expect("has words");
        assert_eq!(anchor(text, &q), None);
    }
}

//! Search: queries → ranked pages. Owns the query language ([`query`]), the
//! vector space ranking with title boost and phrases ([`rank`]), page
//! keywords and snippets. Everything reads one store snapshot (a
//! [`crate::store::Reader`]), so a search never blocks the crawler and never
//! sees half a page.

mod phrase;
pub mod query;
pub mod rank;
mod snippet;

use crate::store::{PageId, PageRead, StoreError, WordRead};

pub use query::{parse, Empty, Exclusion, Phrase, Query};
pub use rank::TITLE_BOOST;
pub(crate) use snippet::page_text;
pub use snippet::SNIPPET_CHARS;

/// Results a face shows when no limit is asked for.
pub const DEFAULT_LIMIT: usize = 50;

/// One ranked page.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub page: PageId,
    pub score: f32,
    pub url: String,
    pub title: Option<String>,
    /// Unix seconds: Last-Modified, else Date, else fetch time.
    pub last_modified: i64,
    pub size: u64,
}

/// The answer to a query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// Best first; equal scores by page id ascending.
    pub hits: Vec<Hit>,
    /// Why the result is empty when the query had nothing to search for
    /// (blank, only stopwords, only exclusions). None for an ordinary query,
    /// even one that matches nothing.
    pub note: Option<String>,
    /// Pages that match in all (`hits` holds the best `limit` of them).
    pub total: usize,
}

/// A score as every face prints it, so the console and `search` read the
/// same: `1.2600`.
pub fn score_text(score: f32) -> String {
    format!("{score:.4}")
}

/// Stems a half-typed last word expands to, at most: the most frequent
/// ones, so the expansion stays a few posting lists.
const PREFIX_EXPANSIONS: usize = 32;

/// Ranks the pages matching `query`, at most `limit` of them.
pub fn search<R: PageRead + WordRead>(
    r: &R,
    query: &str,
    limit: usize,
) -> Result<Results, StoreError> {
    search_with(r, query, limit, crate::index::Analyzer::global())
}

/// [`search`] with the query analysed by `analyzer` (a crawl point's own
/// stopwords), so that it meets the stems its pages were indexed under.
pub fn search_with<R: PageRead + WordRead>(
    r: &R,
    query: &str,
    limit: usize,
    analyzer: &crate::index::Analyzer,
) -> Result<Results, StoreError> {
    let q = match query::parse_with(query, analyzer) {
        Ok(q) => q,
        Err(empty) => {
            return Ok(Results {
                hits: Vec::new(),
                note: Some(empty.message().to_string()),
                total: 0,
            })
        }
    };
    ranked(r, &q, limit)
}

/// [`search_with`]'s best `limit` hits without the count of all matching
/// pages (`search --json` prints none): several words then pass unread
/// the posting runs that cannot reach the top (see `rank`). An empty or
/// stopword-only query has no hits.
pub fn search_best<R: PageRead + WordRead>(
    r: &R,
    query: &str,
    limit: usize,
    analyzer: &crate::index::Analyzer,
) -> Result<Vec<Hit>, StoreError> {
    match query::parse_with(query, analyzer) {
        Ok(q) => hits(r, rank::best(r, &q, limit)?),
        Err(_) => Ok(Vec::new()),
    }
}

/// Search as you type: like [`search`], but the last word, when the query
/// does not end with a space or a quote, also matches every indexed word it
/// begins (`north` finds "Northern"), so results follow the typing.
///
/// The query as typed is ranked exactly as [`search`] ranks it, scores
/// included, so the console and the CLI agree; the completions only add
/// pages after those, never reorder them: a rare completion weighs more
/// (higher idf) than the whole word and would otherwise outrank it.
pub fn search_typing<R: PageRead + WordRead>(
    r: &R,
    query: &str,
    limit: usize,
) -> Result<Results, StoreError> {
    let (parsed, prefix) = query::parse_typing(query);
    let Some(prefix) = prefix else {
        return search(r, query, limit);
    };
    let (mut exact, mut completed) = match parsed {
        Ok(q) => (ranked(r, &q, limit)?, q),
        // A half-typed word may be a stopword so far ("the" of "theatre").
        Err(_) => (Results::default(), Query::default()),
    };
    let mut expansions = r.stems_with_prefix(&prefix, usize::MAX)?;
    expansions.sort_unstable_by_key(|&(_, _, df)| std::cmp::Reverse(df));
    for (stem, _, _) in expansions.into_iter().take(PREFIX_EXPANSIONS) {
        if !completed.words.iter().any(|(s, _)| *s == stem) {
            completed.words.push((stem, 1));
        }
    }
    // The completed query matches every page the typed one does, and more:
    // its count is the union's, and its best pages not already listed fill
    // the rest of the limit.
    let more = ranked(r, &completed, limit + exact.hits.len())?;
    let room = limit - exact.hits.len();
    let extra: Vec<Hit> = more
        .hits
        .into_iter()
        .filter(|h| !exact.hits.iter().any(|e| e.page == h.page))
        .take(room)
        .collect();
    exact.hits.extend(extra);
    exact.total = more.total;
    Ok(exact)
}

fn ranked<R: PageRead + WordRead>(r: &R, q: &Query, limit: usize) -> Result<Results, StoreError> {
    let (best, total) = rank::rank(r, q, limit)?;
    Ok(Results {
        hits: hits(r, best)?,
        note: None,
        total,
    })
}

/// The ranked pages with their URLs.
fn hits<R: PageRead>(r: &R, best: Vec<rank::Ranked>) -> Result<Vec<Hit>, StoreError> {
    let mut hits = Vec::with_capacity(best.len());
    for ranked in best {
        let url = r
            .url_of(ranked.page)?
            .ok_or_else(|| StoreError::corrupt(format!("page {} has no URL", ranked.page)))?;
        hits.push(Hit {
            page: ranked.page,
            score: ranked.score,
            url,
            title: ranked.record.title,
            last_modified: ranked.record.last_modified,
            size: ranked.record.size,
        });
    }
    Ok(hits)
}

/// One keyword of a page: the word as most pages write it, its stem, and
/// how often the page holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyword {
    pub word: String,
    pub stem: String,
    pub tf: u32,
}

/// Top keywords of a page, by tf desc then stem.
pub fn keywords<R: PageRead + WordRead>(
    r: &R,
    page: PageId,
    n: usize,
) -> Result<Vec<Keyword>, StoreError> {
    let Some(forward) = r.forward(page)? else {
        return Ok(Vec::new());
    };
    if n == 0 || forward.terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut terms = forward.terms;
    terms.sort_unstable_by_key(|&(_, tf)| std::cmp::Reverse(tf));
    // Stems are looked up only for the words that can make the cut: those
    // at least as frequent as the nth, whose ties are broken by stem.
    let cut = terms[terms.len().min(n) - 1].1;
    let mut named = Vec::new();
    for &(w, tf) in terms.iter().take_while(|&&(_, tf)| tf >= cut) {
        let stem = r
            .word(w)?
            .ok_or_else(|| StoreError::corrupt(format!("word {w} has no stem")))?;
        named.push((w, stem, tf));
    }
    named.sort_unstable_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    named.truncate(n);
    let mut out = Vec::with_capacity(named.len());
    for (w, stem, tf) in named {
        let word = r.word_form(w, &stem)?;
        out.push(Keyword { word, stem, tf });
    }
    Ok(out)
}

/// A one-line snippet of the page's text (decoded body via crate::html)
/// around the first match of the query, about [`SNIPPET_CHARS`] characters;
/// the start of the text when the query does not occur. None when the page
/// has no stored text body.
pub fn snippet<R: PageRead + WordRead>(
    r: &R,
    page: PageId,
    query: &str,
) -> Result<Option<String>, StoreError> {
    let q = query::parse(query).ok();
    snippet::snippet(r, page, q.as_ref())
}

#[cfg(test)]
pub(crate) mod test_store;

#[cfg(test)]
mod tests {
    use super::test_store::{html, put, store};
    use super::*;
    use crate::store::{PairRead, Store};

    fn pages(s: &Store, q: &str) -> Vec<PageId> {
        let r = s.read().expect("read");
        search(&r, q, DEFAULT_LIMIT)
            .expect("search")
            .hits
            .iter()
            .map(|h| h.page)
            .collect()
    }

    #[test]
    fn a_one_page_store_finds_its_own_words() {
        // idf is log2(1/1) = 0 here: the floor keeps the match.
        let (_d, s, ids) = store(&[("Solo", "lonely kiwi")]);
        assert_eq!(pages(&s, "kiwi"), ids);
        assert_eq!(pages(&s, "solo"), ids);
    }

    #[test]
    fn phrases_across_merged_segments_match_a_brute_force_count() {
        // One page per transaction: hundreds of segments, merged in tiers,
        // so a phrase's pages sit in many segments; "rare" makes the
        // look-up path run ("rare common"), two frequent words the scan.
        let vocab = ["common", "blorf", "quix", "zamp", "trel", "vonk"];
        let mut seed = 11u64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let texts: Vec<(String, String)> = (0..300)
            .map(|i| {
                let mut words: Vec<&str> = (0..40)
                    .map(|_| match next(10) {
                        0..=3 => "common",
                        _ => vocab[1 + next(vocab.len() - 1)],
                    })
                    .collect();
                if i % 37 == 0 {
                    words.push("rare");
                    words.push("common");
                }
                let title = format!("{} {}", vocab[next(vocab.len())], vocab[next(vocab.len())]);
                (title, words.join(" "))
            })
            .collect();
        let dir = tempfile::tempdir().expect("temp dir");
        // Segments of 8 pages get pairs, as a million-page store's do.
        let options = crate::store::StoreOptions {
            pair_min_pages: 8,
            ..Default::default()
        };
        let s = Store::open_with(dir.path(), options).expect("open store");
        for (i, (title, body)) in texts.iter().enumerate() {
            s.update(|w| put(w, &format!("http://t.test/{i}"), &html(title, body)))
                .expect("index page");
        }
        let times = |text: &str, phrase: &[&str]| {
            let words: Vec<&str> = text.split(' ').collect();
            words.windows(phrase.len()).filter(|&w| w == phrase).count() as u32
        };
        let contains = |text: &str, phrase: &[&str]| times(text, phrase) > 0;
        let r = s.read().expect("read");
        let index_of = |page: PageId| -> usize {
            let url = r.url_of(page).unwrap().unwrap();
            url.rsplit('/').next().unwrap().parse().unwrap()
        };
        for phrase in [
            &["rare", "common"][..],
            &["common", "blorf"],
            &["blorf", "common", "quix"],
            &["zamp", "zamp"],
            &["vonk", "trel"],
        ] {
            let want: Vec<usize> = texts
                .iter()
                .enumerate()
                .filter(|(_, (t, b))| contains(t, phrase) || contains(b, phrase))
                .map(|(i, _)| i)
                .collect();
            let got = search(&r, &format!("\"{}\"", phrase.join(" ")), 1000).expect("search");
            let mut got_urls: Vec<usize> = got.hits.iter().map(|h| index_of(h.page)).collect();
            got_urls.sort_unstable();
            assert_eq!(got_urls, want, "{phrase:?}");
            assert_eq!(got.total, want.len(), "{phrase:?}");
            assert!(!want.is_empty(), "{phrase:?} should occur");
            // Walked on three threads from the first candidate, the
            // counts are the same as on one.
            let q = query::parse(&format!("\"{}\"", phrase.join(" "))).expect("a phrase");
            let walk = |from, threads| {
                phrase::phrase_matches(
                    &r,
                    &q.phrases[0].0,
                    phrase::Split {
                        from,
                        threads,
                        chunk: 2,
                    },
                )
                .expect("phrase matches")
            };
            let one = walk(usize::MAX, 1);
            assert_eq!(walk(1, 3), one, "{phrase:?}");
            // Each page's count in the body, whether from positions or
            // from pair postings, is the brute-force one.
            let mut counted: Vec<(usize, u32)> =
                one.0.iter().map(|&(p, n)| (index_of(p), n)).collect();
            counted.sort_unstable();
            let body: Vec<(usize, u32)> = texts
                .iter()
                .enumerate()
                .map(|(i, (_, b))| (i, times(b, phrase)))
                .filter(|&(_, n)| n > 0)
                .collect();
            assert_eq!(counted, body, "{phrase:?}");
        }
        assert!(r.segment_ids().unwrap().len() > 4, "several segments live");
        // The two-word phrases of common words were read from pairs in
        // the merged segments, and from positions in the rest.
        let common = r.word_id("common").unwrap().unwrap();
        let kept: Vec<u32> = r
            .segment_ids()
            .unwrap()
            .into_iter()
            .filter(|&seg| r.pairs_kept(seg).unwrap().is_some_and(|k| k.holds(common)))
            .collect();
        assert!(
            !kept.is_empty() && kept.len() < r.segment_ids().unwrap().len(),
            "{kept:?}"
        );
    }

    #[test]
    fn phrases_match_in_titles_and_can_be_excluded() {
        let (_d, s, ids) = store(&[
            ("Red Apple", "orchard fruit"),
            ("Fruit", "a red apple here"),
            ("Fruit", "apple red"),
        ]);
        assert_eq!(pages(&s, "\"red apple\""), [ids[0], ids[1]]);
        assert_eq!(pages(&s, "apple -\"red apple\""), [ids[2]]);
        assert_eq!(pages(&s, "\"apple red\""), [ids[2]]);
        assert!(pages(&s, "\"red zeppelin\"").is_empty());
    }

    #[test]
    fn limits_notes_and_hits() {
        let (_d, s, ids) = store(&[("One", "kiwi"), ("Two", "kiwi kiwi"), ("Three", "kiwi")]);
        let r = s.read().expect("read");
        let none = search(&r, "kiwi", 0).expect("search");
        assert!(none.hits.is_empty());
        assert_eq!(none.total, 3, "the count is true whatever the limit");
        let res = search(&r, "kiwi", 2).expect("search");
        assert_eq!(res.hits.len(), 2);
        assert_eq!(res.total, 3);
        assert_eq!(res.note, None);
        assert_eq!(res.hits[0].url, "http://t.test/0");
        assert_eq!(res.hits[0].title.as_deref(), Some("One"));
        assert_eq!(res.hits[0].last_modified, 1_717_200_000);
        // Equal scores: page id order.
        assert_eq!(res.hits[0].page, ids[0]);
        assert_eq!(res.hits[1].page, ids[1]);
        let res = search(&r, "the and", 10).expect("search");
        assert!(res.hits.is_empty());
        assert!(res.note.is_some_and(|n| n.contains("stopwords")));
        let res = search(&r, "zeppelin", 10).expect("search");
        assert_eq!(res, Results::default());
    }

    #[test]
    fn the_word_being_typed_matches_as_a_prefix() {
        let (_d, s, ids) = store(&[
            ("A", "the northern lights"),
            ("B", "a north wind"),
            ("C", "theatre tonight"),
            ("D", "southern cross"),
        ]);
        let r = s.read().expect("read");
        let ids_of = |res: Results| -> Vec<PageId> {
            let mut p: Vec<PageId> = res.hits.iter().map(|h| h.page).collect();
            p.sort_unstable();
            p
        };
        let typed = |q: &str| ids_of(search_typing(&r, q, 10).expect("search"));
        assert_eq!(typed("north"), [ids[0], ids[1]]);
        assert_eq!(
            ids_of(search(&r, "north", 10).expect("search")),
            [ids[1]],
            "a finished word is a word"
        );
        assert_eq!(typed("north "), [ids[1]], "a space ends the word");
        assert_eq!(typed("the"), [ids[2]], "a stopword so far, a prefix still");
        assert_eq!(typed("wind nort"), [ids[0], ids[1]]);
        assert_eq!(typed("\"north"), [ids[1]], "inside a phrase: no prefix");
        assert!(typed("zz").is_empty());
        assert!(typed("n").len() < 2, "one letter expands nothing");
    }

    #[test]
    fn typing_ranks_the_words_typed_as_search_does_and_completions_only_add() {
        // "homeless" is rarer than "home": as a completion weighing like a
        // word typed, it outranked every page holding the word typed.
        let (_d, s, ids) = store(&[
            ("At Home Among Strangers", "home sweet home"),
            ("Woman of the Year", "a homeless shelter"),
            ("Garden", "home garden"),
            ("Kitchen", "home kitchen"),
        ]);
        let r = s.read().expect("read");
        for limit in [1, 3, 10] {
            let exact = search(&r, "home", limit).expect("search");
            let typed = search_typing(&r, "home", limit).expect("search");
            let n = exact.hits.len();
            assert_eq!(typed.hits[..n], exact.hits[..], "limit {limit}");
            assert_eq!(typed.total, 4, "limit {limit}");
            assert_eq!(
                typed.hits[n..].iter().map(|h| h.page).collect::<Vec<_>>(),
                if n < limit { vec![ids[1]] } else { vec![] },
                "limit {limit}: the completion's page comes after"
            );
        }
        let exact = search(&r, "home", 10).expect("search");
        assert_eq!(exact.hits[0].page, ids[0], "the title boost wins");
    }

    #[test]
    fn keywords_by_tf_then_stem() {
        let (_d, s, ids) = store(&[("T", "pear fig fig kiwi kiwi apple")]);
        let r = s.read().expect("read");
        let k = keywords(&r, ids[0], 3).expect("keywords");
        let k: Vec<(&str, u32)> = k.iter().map(|k| (k.stem.as_str(), k.tf)).collect();
        assert_eq!(k, [("fig", 2), ("kiwi", 2), ("appl", 1)]);
        assert!(keywords(&r, ids[0], 0).expect("keywords").is_empty());
        assert_eq!(keywords(&r, 999, 5).expect("keywords"), []);
    }

    #[test]
    fn snippets_centre_on_the_match() {
        let filler = "lorem ".repeat(60);
        let body = format!("{filler} the kiwi orchard {filler}");
        let (_d, s, ids) = store(&[("T", &body)]);
        let r = s.read().expect("read");
        let sn = snippet(&r, ids[0], "orchards")
            .expect("snippet")
            .expect("some text");
        assert!(sn.contains("kiwi orchard"), "{sn}");
        assert!(sn.starts_with('…') && sn.ends_with('…'), "{sn}");
        let start = snippet(&r, ids[0], "zeppelin")
            .expect("snippet")
            .expect("some text");
        assert!(start.starts_with("lorem lorem"), "{start}");
        assert_eq!(snippet(&r, 999, "kiwi").expect("snippet"), None);
    }
}

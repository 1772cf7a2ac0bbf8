//! The analyzer: tokens -> lowercase -> stopwords out -> Porter2 stems, with
//! positions that count every token so that phrases stay adjacent. The
//! stopwords are the built-in list ([`Analyzer::global`]) or a crawl
//! point's own ([`Analyzer::with_stopwords`]); the stems are the same for
//! all.

use std::cell::RefCell;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

use super::stopwords::Stopwords;
use super::tokenize::{push_lowercase, tokens};

/// Longer tokens are dropped (they still take a position): base64 blobs,
/// hashes and run-together garbage, never words anyone searches for.
pub const MAX_TOKEN_CHARS: usize = 40;

/// Porter2 costs about 400 ns a word, several times the rest of the
/// pipeline, while words repeat (Zipf): each thread remembers the outcome
/// for the words it has seen: the stem, and whether the built-in list
/// stops the word. Sound for every analyzer, as all stem alike; one with
/// a list of its own asks its list instead of that flag.
///
/// The cache is a table of [`STEM_CACHE_SETS`] sets of two 32-byte
/// slots, a set one cache line holding the words and their stems inline:
/// a look-up touches one line whichever slot holds the word, and the
/// table is 2 MiB a thread. A map of boxed strings chased three pointers
/// (its table, the key to compare, the stem), 11.6% of a crawl's CPU.
/// A line for each slot cost a second line for a word not in the first
/// slot, and twice the memory. Within a set the slot used last comes
/// first and a new word takes the other's place, so a frequent word stays
/// while rare ones pass through.
///
/// Since look-ups come in batches whose misses overlap, a larger table
/// costs little more a look-up and stems less often: 2 MiB instead of 1
/// took 0.970 x a 10k crawl's CPU (10 pairs; the bench site's vocabulary
/// is 64,000 words), 4 MiB 0.992 x of that, within the noise.
const STEM_CACHE_SETS: usize = 32_768;

/// Bytes of a slot for the word and, unless it is the word's first bytes,
/// its stem: longer ones (a word of 13 bytes or so with a stem of its
/// own, or of over 26) are stemmed every time.
const SLOT_BYTES: usize = 26;

/// A `stem_len` flag: the built-in list stops the word.
const STOPWORD: u8 = 0x40;

/// The bits of `stem_len` that hold a length.
const LEN: u8 = 0x3F;

const _: () = assert!(SLOT_BYTES <= LEN as usize, "a length fits its bits");

/// A `stem_len` flag: the stem is that many first bytes of the word and
/// is not stored apart. Most stems are ("running" → "run", or the word
/// itself), and such a hit needs no UTF-8 check of stored bytes (2% of
/// the analysis) and leaves room for longer words.
const PREFIX: u8 = 0x80;

#[derive(Clone, Copy)]
#[repr(C)]
struct Slot {
    /// Hash bits the set index did not use, to skip most compares.
    tag: u32,
    /// 0: empty.
    word_len: u8,
    stem_len: u8,
    /// The word, then its stem.
    bytes: [u8; SLOT_BYTES],
}

impl Slot {
    const EMPTY: Slot = Slot {
        tag: 0,
        word_len: 0,
        stem_len: 0,
        bytes: [0; SLOT_BYTES],
    };

    /// Whether the slot holds `word` (an empty slot holds nothing).
    fn holds(&self, tag: u32, word: &str) -> bool {
        self.tag == tag
            && self.word_len != 0
            && usize::from(self.word_len) == word.len()
            && &self.bytes[..word.len()] == word.as_bytes()
    }

    /// The outcome kept for `word`, the word this slot [`Slot::holds`]:
    /// its stem and whether the built-in list stops it; None if the
    /// stem's bytes do not read back as text (they were copied from a
    /// `str`, so never: but a bad slot is a miss, not a lost word).
    fn outcome<'a>(&'a self, word: &'a str) -> Option<(&'a str, bool)> {
        let len = usize::from(self.stem_len & LEN);
        let stem = if self.stem_len & PREFIX != 0 {
            word.get(..len)?
        } else {
            let at = usize::from(self.word_len);
            std::str::from_utf8(self.bytes.get(at..at + len)?).ok()?
        };
        Some((stem, self.stem_len & STOPWORD != 0))
    }

    /// None when the pair does not fit.
    fn new(tag: u32, word: &str, stem: &str, stopword: bool) -> Option<Slot> {
        let prefix = word.starts_with(stem);
        let stored = if prefix { 0 } else { stem.len() };
        if word.is_empty() || word.len() + stored > SLOT_BYTES {
            return None;
        }
        let mut slot = Slot {
            tag,
            word_len: word.len() as u8,
            stem_len: stem.len() as u8
                | if prefix { PREFIX } else { 0 }
                | if stopword { STOPWORD } else { 0 },
            bytes: [0; SLOT_BYTES],
        };
        slot.bytes[..word.len()].copy_from_slice(word.as_bytes());
        if !prefix {
            slot.bytes[word.len()..word.len() + stem.len()].copy_from_slice(stem.as_bytes());
        }
        Some(slot)
    }
}

/// The two slots of a set, the one used last first.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Set([Slot; 2]);

const _: () = assert!(std::mem::size_of::<Set>() == 64, "a set is one cache line");

#[derive(Default)]
struct StemCache {
    /// Allocated on first use.
    sets: Vec<Set>,
    /// Kept between texts for its buffers.
    batch: Batch,
}

/// The stem cache's hash of a lowercase token.
fn hash_of(lower: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(lower.as_bytes())
}

/// The set that holds the token hashed to `hash`.
fn set_of(hash: u64) -> usize {
    hash as usize % STEM_CACHE_SETS
}

impl StemCache {
    fn sets(&mut self) -> &mut [Set] {
        if self.sets.is_empty() {
            self.sets = vec![Set([Slot::EMPTY; 2]); STEM_CACHE_SETS];
        }
        &mut self.sets
    }

    /// Reads the set of each hash before any word is looked up. The reads
    /// do not wait on one another, so their cache misses overlap; looked
    /// up one word at a time, each miss was waited out in turn: `perf
    /// annotate` put 70% of the analyser's own time on that one load.
    fn touch(&mut self, hashes: impl Iterator<Item = u64>) {
        let sets = self.sets();
        let mut tags = 0;
        for hash in hashes {
            tags ^= sets[set_of(hash)].0[0].tag;
        }
        std::hint::black_box(tags);
    }

    /// Calls `emit(stem, stopword)` for the lowercase token `lower` (whose
    /// [`hash_of`] is `hash`), `stopword` the built-in list's verdict;
    /// `stem` makes the outcome on a miss (the stem borrowed or owned: the
    /// slot copies it, so nothing need be allocated for it).
    fn stem_of<S: AsRef<str>>(
        &mut self,
        lower: &str,
        hash: u64,
        stem: impl FnOnce() -> (S, bool),
        emit: impl FnOnce(&str, bool),
    ) {
        let tag = (hash >> 32) as u32;
        let ways = &mut self.sets()[set_of(hash)].0;
        // The slot used last is looked at first; a hit in the other one
        // makes it the first.
        let hit = ways[0].holds(tag, lower) || {
            let second = ways[1].holds(tag, lower);
            if second {
                ways.swap(0, 1);
            }
            second
        };
        if let Some((s, stopword)) = hit.then(|| ways[0].outcome(lower)).flatten() {
            emit(s, stopword);
            return;
        }
        let (s, stopword) = stem();
        emit(s.as_ref(), stopword);
        if let Some(slot) = Slot::new(tag, lower, s.as_ref(), stopword) {
            ways[1] = ways[0];
            ways[0] = slot;
        }
    }
}

/// Tokens looked up together: enough for their cache misses to overlap,
/// few enough that their sets stay in the first-level cache.
const BATCH: usize = 64;

/// Up to [`BATCH`] kept tokens of a text, lowercased into one buffer.
#[derive(Default)]
struct Batch {
    lowered: String,
    /// Each token's end in `lowered`, position and [`hash_of`].
    words: Vec<(usize, u32, u64)>,
}

impl Batch {
    /// Takes the next tokens until [`BATCH`] are kept or the text ends
    /// (empty then); returns the position after the last token taken.
    fn fill<'a>(&mut self, tokens: &mut impl Iterator<Item = &'a str>, mut position: u32) -> u32 {
        self.lowered.clear();
        self.words.clear();
        while self.words.len() < BATCH {
            let Some(token) = tokens.next() else {
                break;
            };
            let here = position;
            position = position.saturating_add(1);
            if too_long(token) {
                continue;
            }
            let start = self.lowered.len();
            push_lowercase(token, &mut self.lowered);
            let hash = hash_of(self.lowered.get(start..).unwrap_or(""));
            self.words.push((self.lowered.len(), here, hash));
        }
        position
    }

    /// (lowercase token, position, hash) in text order.
    fn words(&self) -> impl Iterator<Item = (&str, u32, u64)> {
        let starts = std::iter::once(0).chain(self.words.iter().map(|w| w.0));
        starts
            .zip(&self.words)
            .map(|(start, &(end, position, hash))| {
                (self.lowered.get(start..end).unwrap_or(""), position, hash)
            })
    }
}

thread_local! {
    static STEM_CACHE: RefCell<StemCache> = RefCell::new(StemCache::default());
}

pub struct Analyzer {
    /// A list of its own; None: the built-in list, whose verdict the stem
    /// cache keeps with each word.
    own: Option<Stopwords>,
    stemmer: Stemmer,
}

impl Analyzer {
    fn new(own: Option<Stopwords>) -> Self {
        Analyzer {
            own,
            stemmer: Stemmer::create(Algorithm::English),
        }
    }

    /// The shared analyzer with the built-in stopwords: pages and queries
    /// must be analysed identically.
    pub fn global() -> &'static Analyzer {
        static GLOBAL: OnceLock<Analyzer> = OnceLock::new();
        GLOBAL.get_or_init(|| Analyzer::new(None))
    }

    /// An analyzer whose stopwords are `words` (lowercase, as
    /// [`super::parse_stopwords`] gives them) instead of the built-in list.
    pub fn with_stopwords(words: &[String]) -> Analyzer {
        Analyzer::new(Some(Stopwords::of(words)))
    }

    /// Calls `emit(stem, position)` for each kept token of `text`, positions
    /// starting at `first_position`; returns the position after the last
    /// token, so callers can continue counting across fields.
    pub fn analyze(&self, text: &str, first_position: u32, mut emit: impl FnMut(&str, u32)) -> u32 {
        self.analyze_forms(text, first_position, |stem, _, pos| emit(stem, pos))
    }

    /// Like [`Analyzer::analyze`], and also hands over each kept token as
    /// written (lowercased): `emit(stem, form, position)`, so the store can
    /// show people words rather than stems.
    pub fn analyze_forms(
        &self,
        text: &str,
        first_position: u32,
        mut emit: impl FnMut(&str, &str, u32),
    ) -> u32 {
        // An `emit` that analyses again on this thread, or a call during
        // thread teardown, finds the cache unavailable and goes uncached.
        let cached = STEM_CACHE.try_with(|cell| {
            cell.try_borrow_mut()
                .ok()
                .map(|mut cache| self.run(text, first_position, &mut emit, Some(&mut cache)))
        });
        match cached {
            Ok(Some(end)) => end,
            _ => self.run(text, first_position, &mut emit, None),
        }
    }

    fn run(
        &self,
        text: &str,
        first_position: u32,
        emit: &mut impl FnMut(&str, &str, u32),
        mut cache: Option<&mut StemCache>,
    ) -> u32 {
        let mut batch = cache
            .as_deref_mut()
            .map(|cache| std::mem::take(&mut cache.batch))
            .unwrap_or_default();
        let mut tokens = tokens(text);
        let mut position = first_position;
        loop {
            position = batch.fill(&mut tokens, position);
            if batch.words.is_empty() {
                break;
            }
            let Some(cache) = cache.as_deref_mut() else {
                for (lower, here, _) in batch.words() {
                    if !self.is_stopword(lower) {
                        emit(&self.stemmer.stem(lower), lower, here);
                    }
                }
                continue;
            };
            cache.touch(batch.words.iter().map(|w| w.2));
            for (lower, here, hash) in batch.words() {
                cache.stem_of(
                    lower,
                    hash,
                    || {
                        let builtin = Stopwords::english().contains(lower);
                        (self.stemmer.stem(lower), builtin)
                    },
                    |stem, builtin| {
                        if !self.stops(lower, builtin) {
                            emit(stem, lower, here);
                        }
                    },
                );
            }
        }
        if let Some(cache) = cache {
            cache.batch = batch;
        }
        position
    }

    /// Whether `lower` is left out, given the built-in list's verdict
    /// `builtin` (the one rule, cached or not).
    fn stops(&self, lower: &str, builtin: bool) -> bool {
        self.own.as_ref().map_or(builtin, |own| own.contains(lower))
    }

    /// Convenience for queries and tests: the (stem, position) pairs.
    pub fn terms(&self, text: &str) -> Vec<(String, u32)> {
        let mut terms = Vec::new();
        self.analyze(text, 0, |stem, pos| terms.push((stem.to_owned(), pos)));
        terms
    }

    /// The stem of one word; None when it is a stopword or not a single word
    /// ("", "--", "e-mail", an over-long token).
    pub fn stem_word(&self, word: &str) -> Option<String> {
        let mut stem = None;
        let end = self.analyze(word, 0, |s, _| stem = Some(s.to_owned()));
        if end == 1 {
            stem
        } else {
            None
        }
    }

    pub fn is_stopword(&self, lowercase_token: &str) -> bool {
        self.own
            .as_ref()
            .unwrap_or(Stopwords::english())
            .contains(lowercase_token)
    }
}

fn too_long(token: &str) -> bool {
    // A char takes at least one byte: short byte lengths need no counting.
    token.len() > MAX_TOKEN_CHARS && token.chars().nth(MAX_TOKEN_CHARS).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terms(text: &str) -> Vec<(String, u32)> {
        Analyzer::global().terms(text)
    }

    fn pairs(list: &[(&str, u32)]) -> Vec<(String, u32)> {
        list.iter().map(|&(s, p)| (s.to_owned(), p)).collect()
    }

    #[test]
    fn stopwords_keep_their_positions() {
        assert_eq!(terms("the quick fox"), pairs(&[("quick", 1), ("fox", 2)]));
        assert_eq!(
            terms("The end of the world, AND the start"),
            pairs(&[("end", 1), ("world", 4), ("start", 7)])
        );
        assert!(terms("to be or not to be").is_empty());
    }

    #[test]
    fn stems_collapse_inflections() {
        let a = Analyzer::global();
        for w in ["running", "runs", "run", "RUN"] {
            assert_eq!(a.stem_word(w).as_deref(), Some("run"), "{w}");
        }
        assert_eq!(a.stem_word("Connections").as_deref(), Some("connect"));
        assert_eq!(a.stem_word("generously"), a.stem_word("generous"));
    }

    #[test]
    fn unicode_text() {
        let got = terms("Straße Ünïcödé 東京 ΣΟΦΙΑ");
        let words: Vec<&str> = got.iter().map(|(s, _)| s.as_str()).collect();
        let positions: Vec<u32> = got.iter().map(|&(_, p)| p).collect();
        assert_eq!(positions, [0, 1, 2, 3]);
        // Porter2 leaves non-English words alone apart from lowercasing.
        assert_eq!(words, ["straße", "ünïcödé", "東京", "σοφια"]);
    }

    #[test]
    fn over_long_tokens_dropped_but_counted() {
        let long = "x".repeat(MAX_TOKEN_CHARS + 1);
        let exact = "é".repeat(MAX_TOKEN_CHARS);
        let text = format!("alpha {long} beta {exact}");
        let got = terms(&text);
        assert_eq!(got.len(), 3);
        assert_eq!((got[0].1, got[1].1, got[2].1), (0, 2, 3));
        assert_eq!(got[1].0, "beta");
        assert_eq!(got[2].0.chars().count(), MAX_TOKEN_CHARS);
        assert_eq!(Analyzer::global().stem_word(&long), None);
    }

    #[test]
    fn digits_kept() {
        assert_eq!(
            terms("HTTP 404 in 2024"),
            pairs(&[("http", 0), ("404", 1), ("2024", 3)])
        );
        assert_eq!(terms("v2"), pairs(&[("v2", 0)]));
    }

    #[test]
    fn positions_continue_across_fields() {
        let a = Analyzer::global();
        let mut got = Vec::new();
        let next = a.analyze("Title of page", 0, |s, p| got.push((s.to_owned(), p)));
        assert_eq!(next, 3);
        let end = a.analyze("the body text", next, |s, p| got.push((s.to_owned(), p)));
        assert_eq!(end, 6);
        assert_eq!(
            got,
            pairs(&[("titl", 0), ("page", 2), ("bodi", 4), ("text", 5)])
        );
        assert_eq!(a.analyze("", 7, |_, _| panic!("no tokens")), 7);
        assert_eq!(a.analyze("a b c", u32::MAX - 1, |_, _| {}), u32::MAX);
    }

    #[test]
    fn single_words() {
        let a = Analyzer::global();
        assert_eq!(a.stem_word("  Searching! ").as_deref(), Some("search"));
        assert_eq!(a.stem_word("the"), None);
        assert_eq!(a.stem_word("THE"), None);
        assert_eq!(a.stem_word(""), None);
        assert_eq!(a.stem_word("--"), None);
        assert_eq!(a.stem_word("e-mail"), None);
        assert!(a.is_stopword("the"));
        assert!(!a.is_stopword("fox"));
    }

    #[test]
    fn cached_and_uncached_agree() {
        let a = Analyzer::global();
        let text = "Running runners ran; the runner runs and running again";
        let first = a.terms(text);
        assert_eq!(a.terms(text), first);
        // emit re-entering the analyzer takes the uncached path
        let mut nested = Vec::new();
        a.analyze(text, 0, |stem, pos| {
            nested.push((stem.to_owned(), pos, a.terms(stem)))
        });
        for ((stem, pos, inner), (s, p)) in nested.iter().zip(&first) {
            assert_eq!((stem, pos), (s, p));
            assert_eq!(inner.len(), 1);
        }
        let from_other_thread = std::thread::spawn(move || Analyzer::global().terms(text))
            .join()
            .expect("thread");
        assert_eq!(from_other_thread, first);
    }

    #[test]
    fn a_list_of_its_own_replaces_the_built_in_one_through_the_shared_cache() {
        let own = Analyzer::with_stopwords(&["fox".to_string(), "été".to_string()]);
        let text = "The fox and the hound, été";
        let built_in = pairs(&[("fox", 1), ("hound", 4), ("été", 5)]);
        let with_own = pairs(&[("the", 0), ("and", 2), ("the", 3), ("hound", 4)]);
        // Interleaved on one thread, so each reads what the other cached,
        // and uncached (an `emit` that analyses again).
        for _ in 0..2 {
            assert_eq!(Analyzer::global().terms(text), built_in);
            assert_eq!(own.terms(text), with_own);
        }
        let mut nested = Vec::new();
        own.analyze("x", 0, |_, _| nested = own.terms(text));
        assert_eq!(nested, with_own);
        Analyzer::global().analyze("x", 0, |_, _| nested = Analyzer::global().terms(text));
        assert_eq!(nested, built_in);
        assert!(own.is_stopword("fox") && !own.is_stopword("the"));
        assert_eq!(own.stem_word("The").as_deref(), Some("the"));
    }

    #[test]
    fn texts_of_several_batches_keep_every_token_in_order() {
        let a = Analyzer::global();
        let long = "x".repeat(MAX_TOKEN_CHARS + 1);
        let forms = [
            "Running",
            "the",
            "connections",
            &long,
            "generously",
            "happy",
        ];
        let words: Vec<&str> = (0..3 * BATCH + 5).map(|i| forms[i % forms.len()]).collect();
        let want: Vec<(String, u32)> = words
            .iter()
            .enumerate()
            .filter_map(|(i, w)| Some((a.stem_word(w)?, i as u32)))
            .collect();
        assert!(
            want.len() > 2 * BATCH,
            "the kept tokens fill several batches"
        );
        assert_eq!(a.terms(&words.join(" ")), want);
    }

    #[test]
    fn cache_stays_bounded() {
        let a = Analyzer::global();
        let words = 2 * STEM_CACHE_SETS + 10;
        let text: String = (0..words).map(|i| format!("w{i} ")).collect();
        assert_eq!(a.terms(&text).len(), words);
        STEM_CACHE.with(|c| assert_eq!(c.borrow().sets.len(), STEM_CACHE_SETS));
        assert_eq!(a.stem_word("w3").as_deref(), Some("w3"));
    }

    /// Looks `word` up, counting the misses in `stemmed`.
    fn look_up(cache: &mut StemCache, word: &str, stemmed: &mut usize) -> Option<String> {
        let mut got = None;
        let make = || {
            *stemmed += 1;
            (word, word == "the")
        };
        cache.stem_of(word, hash_of(word), make, |s, stop| {
            got = (!stop).then(|| s.to_owned())
        });
        got
    }

    #[test]
    fn a_frequent_word_stays_while_rare_ones_pass() {
        let mut cache = StemCache::default();
        let mut stemmed = 0;
        let rare = 6 * STEM_CACHE_SETS;
        for i in 0..rare {
            if i % 100 == 0 {
                let got = look_up(&mut cache, "harbor", &mut stemmed);
                assert_eq!(got.as_deref(), Some("harbor"));
            }
            let word = format!("w{i}");
            assert_eq!(look_up(&mut cache, &word, &mut stemmed), Some(word));
        }
        assert_eq!(stemmed, rare + 1, "harbor stemmed once");
    }

    #[test]
    fn stopwords_and_long_words_are_cached_or_not_but_always_right() {
        let mut cache = StemCache::default();
        let mut stemmed = 0;
        let long = "ü".repeat(SLOT_BYTES / 2 + 1);
        // Its own stem: a prefix, so only the word is stored, and it fits.
        let mid = "ü".repeat(SLOT_BYTES / 4 + 1);
        for _ in 0..3 {
            assert_eq!(look_up(&mut cache, "the", &mut stemmed), None);
            assert_eq!(look_up(&mut cache, &long, &mut stemmed), Some(long.clone()));
            assert_eq!(look_up(&mut cache, &mid, &mut stemmed), Some(mid.clone()));
        }
        assert_eq!(
            stemmed,
            1 + 3 + 1,
            "the stopword once, the long word each time, the middling one once"
        );
    }

    #[test]
    fn stems_kept_as_a_prefix_or_apart_read_back_the_same() {
        let mut cache = StemCache::default();
        let pairs = [
            ("running", "run"),
            ("happy", "happi"),
            ("hoping", "hope"),
            ("café", "caf"),
            ("cafés", "café"),
            ("ünïcödé", "ünïcöd"),
        ];
        for round in 0..3 {
            for (word, stem) in pairs {
                let mut misses = 0;
                let mut got = None;
                let make = || {
                    misses += 1;
                    (stem, false)
                };
                cache.stem_of(word, hash_of(word), make, |s, _| got = Some(s.to_owned()));
                assert_eq!(got.as_deref(), Some(stem), "{word}");
                assert_eq!(
                    misses,
                    usize::from(round == 0),
                    "{word}: cached after the first"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn never_panics_and_positions_count_every_token(text in any::<String>(), first in 0u32..1000) {
            let a = Analyzer::global();
            let mut last = None;
            let end = a.analyze(&text, first, |stem, pos| {
                assert!(!stem.is_empty());
                assert!(last.is_none_or(|l| pos > l));
                last = Some(pos);
            });
            prop_assert_eq!(end as usize, first as usize + tokens(&text).count());
        }

        #[test]
        fn query_terms_match_page_terms(words in proptest::collection::vec("[a-zA-Zé]{1,12}", 1..8)) {
            // A word analysed alone gets the stem it has inside a page.
            let a = Analyzer::global();
            let page = words.join(" ");
            for (stem, pos) in a.terms(&page) {
                prop_assert_eq!(a.stem_word(&words[pos as usize]), Some(stem));
            }
        }
    }
}

//! The vocabulary (`assets/vocab.txt`, most frequent first) and the
//! Zipf–Mandelbrot word streams drawn from it with an alias table.

use std::sync::OnceLock;

use super::*;

pub(super) const VOCAB_TEXT: &str = include_str!("../../assets/vocab.txt");

/// Zipf–Mandelbrot offset: a plain 1/r law makes "the" a fifth of all text;
/// shifting the ranks flattens the head to something closer to real English.
pub(super) const ZIPF_SHIFT: f64 = 2.7;

pub(super) struct Vocab {
    pub(super) words: Vec<&'static str>,
    /// Walker/Vose alias table over the Zipf weights: a draw is one random
    /// number and two table reads, where a binary search over the cumulative
    /// weights cost most of a page's render time.
    alias: Vec<(u32, u16)>,
}

impl Vocab {
    pub(super) fn zipf(&self, rng: &mut Rng) -> &'static str {
        let r = rng.next_u64();
        let slot = ((r >> 32) * self.alias.len() as u64) >> 32;
        let coin = r as u32;
        let (keep, alias) = self
            .alias
            .get(slot as usize)
            .copied()
            .unwrap_or((u32::MAX, 0));
        // Branch-free select: the coin is random, so a branch would mispredict
        // half the time, on the hottest line of the renderer.
        let take_alias = usize::from(coin >= keep).wrapping_neg();
        let i = slot as usize ^ ((slot as usize ^ usize::from(alias)) & take_alias);
        self.words.get(i).copied().unwrap_or("word")
    }

    /// Uniform over content words: titles and keywords should be distinctive.
    pub(super) fn content_word(&self, rng: &mut Rng) -> &'static str {
        let content = self.words.get(FUNCTION_WORD_COUNT..).unwrap_or(&self.words);
        let i = rng.below(content.len() as u32) as usize;
        content.get(i).copied().unwrap_or("word")
    }
}

pub(super) fn vocab() -> &'static Vocab {
    static VOCAB: OnceLock<Vocab> = OnceLock::new();
    VOCAB.get_or_init(|| {
        let words: Vec<&'static str> = VOCAB_TEXT
            .lines()
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .take(usize::from(u16::MAX))
            .collect();
        let alias = alias_table(
            &(0..words.len())
                .map(|r| 1.0 / (r as f64 + ZIPF_SHIFT))
                .collect::<Vec<_>>(),
        );
        Vocab { words, alias }
    })
}

/// Vose's alias method: slot i keeps itself with probability keep/2^32 and
/// otherwise answers its alias. At most u16::MAX weights.
pub(super) fn alias_table(weights: &[f64]) -> Vec<(u32, u16)> {
    let n = weights.len();
    let total: f64 = weights.iter().sum();
    if n == 0 || total <= 0.0 {
        return Vec::new();
    }
    let mut scaled: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
    let mut table = vec![(u32::MAX, 0u16); n];
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
    while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
        table[s] = ((scaled[s] * 4_294_967_296.0) as u32, l as u16);
        scaled[l] -= 1.0 - scaled[s];
        if scaled[l] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    // Leftovers are 1.0 up to rounding: they keep themselves.
    for i in small.into_iter().chain(large) {
        table[i] = (u32::MAX, i as u16);
    }
    table
}

/// The Zipf-distributed words of one page's body, an endless stream; the
/// page consumes it in document order, which is what makes `words_of` exact.
#[derive(Clone)]
pub(super) struct WordStream {
    rng: Rng,
}

impl WordStream {
    pub(super) fn new(n: u32) -> Self {
        WordStream {
            rng: Rng::new(n, STREAM_WORDS),
        }
    }

    pub(super) fn next_word(&mut self) -> &'static str {
        vocab().zipf(&mut self.rng)
    }
}

impl Iterator for WordStream {
    type Item = &'static str;
    fn next(&mut self) -> Option<&'static str> {
        Some(self.next_word())
    }
}

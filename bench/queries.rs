//! Query sets drawn from the demo site's vocabulary, shared by
//! `bench/crawlbench.rs` and `benches/hot_paths.rs`, so their figures
//! compare.

use std::collections::HashMap;

use crawlscope::demo::DemoSite;
use crawlscope::index::Analyzer;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// Query sets from the demo site's own words (see [`queries_from`]).
pub fn queries(site: &DemoSite, per_class: usize) -> Vec<(&'static str, Vec<String>)> {
    let sample = site.pages().min(2000);
    queries_from(
        (0..sample).map(|n| site.words_of(n).map(str::to_string).collect()),
        per_class,
    )
}

/// Query sets from the words of sample pages, in page order:
/// content words ranked by how many of the pages hold them; half
/// the picks from the 100 most frequent, half from the rarer half. Multi-word
/// queries have 2 to 4 such words; phrases are adjacent word pairs of real
/// pages, topped up with pairs of frequent words (the costliest to verify).
pub fn queries_from(
    pages: impl Iterator<Item = Vec<String>>,
    per_class: usize,
) -> Vec<(&'static str, Vec<String>)> {
    let a = Analyzer::global();
    let mut df: HashMap<String, u32> = HashMap::new();
    let mut pairs: Vec<String> = Vec::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for words in pages {
        let mut seen = words.clone();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *df.entry(w).or_default() += 1;
        }
        if pairs.len() < per_class && words.len() > 2 {
            let i = rng.below(words.len() - 1);
            let (x, y) = (&words[i], &words[i + 1]);
            if !a.is_stopword(x) && !a.is_stopword(y) {
                pairs.push(format!("\"{x} {y}\""));
            }
        }
    }
    let mut vocab: Vec<(&str, u32)> = df
        .iter()
        .map(|(w, &n)| (w.as_str(), n))
        .filter(|(w, _)| !a.is_stopword(w) && a.stem_word(w).is_some())
        .collect();
    vocab.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let head = &vocab[..vocab.len().min(100)];
    let tail = &vocab[vocab.len().saturating_sub(vocab.len() / 2)..];
    let pick = |rng: &mut Rng| -> &str {
        if rng.below(2) == 0 {
            head[rng.below(head.len())].0
        } else {
            tail[rng.below(tail.len())].0
        }
    };
    let single = (0..per_class).map(|_| pick(&mut rng).to_string()).collect();
    let multi = (0..per_class)
        .map(|_| {
            let k = 2 + rng.below(3);
            (0..k).map(|_| pick(&mut rng)).collect::<Vec<_>>().join(" ")
        })
        .collect();
    while pairs.len() < per_class {
        let (x, y) = (head[rng.below(head.len())].0, head[rng.below(head.len())].0);
        pairs.push(format!("\"{x} {y}\""));
    }
    vec![("single", single), ("multi", multi), ("phrase", pairs)]
}

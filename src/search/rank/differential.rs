//! The differential test of the ranking: on a store of many segments, with
//! words from every page to a handful, pages of every length (so norms
//! differ), titles, ties and pages indexed again, the ranking that skips
//! must return what scoring every match returns: the same pages in the
//! same order, the same scores and the same count, for the kinds of query
//! the bench asks.

use super::{best, best_k, exhaustive, rank, top_k, Ranked};
use crate::search::query;
use crate::search::test_store::{html, put};
use crate::store::{PageId, Store, WordRead};

/// Made-up words (no stopword, no two with one stem), most frequent first.
fn vocabulary() -> Vec<String> {
    let syllables = ["ka", "lo", "mi", "nu", "pe", "ri", "so", "tu", "vex"];
    let mut out = Vec::new();
    for a in syllables {
        for b in syllables {
            if a != b {
                out.push(format!("{a}{b}z"));
            }
        }
    }
    out.truncate(60);
    out
}

/// A small deterministic generator (no dependency for a test's dice).
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }

    /// A word index by a Zipf-like law: word i about 1 / (i + 1) as often
    /// as the first.
    fn zipf(&mut self, n: usize) -> usize {
        let total: f64 = (1..=n).map(|i| 1.0 / i as f64).sum();
        let mut x = self.below(1 << 20) as f64 / f64::from(1 << 20) * total;
        for i in 0..n {
            x -= 1.0 / (i + 1) as f64;
            if x <= 0.0 {
                return i;
            }
        }
        n - 1
    }
}

fn page_text(dice: &mut Dice, vocab: &[String]) -> (String, String) {
    let longest = if dice.below(4) == 0 { 400 } else { 60 };
    let len = 3 + dice.below(longest);
    let body: Vec<&str> = (0..len)
        .map(|_| vocab[dice.zipf(vocab.len())].as_str())
        .collect();
    let title: Vec<&str> = (0..1 + dice.below(3))
        .map(|_| vocab[dice.zipf(vocab.len())].as_str())
        .collect();
    (title.join(" "), body.join(" "))
}

/// `got` lists the pages `want` lists, in its order, with its scores.
fn same_ranking(got: &[Ranked], want: &[Ranked], what: &str) {
    let pages = |v: &[Ranked]| v.iter().map(|h| h.page).collect::<Vec<PageId>>();
    assert_eq!(pages(got), pages(want), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (f64::from(g.score) - f64::from(w.score)).abs() <= 1e-9,
            "{what}: page {} scores {} and {}",
            g.page,
            g.score,
            w.score
        );
    }
}

#[test]
fn the_ranking_that_skips_equals_scoring_every_match() {
    let vocab = vocabulary();
    let mut dice = Dice(57);
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Store::open(dir.path()).expect("open store");
    let mut texts: Vec<(String, String)> = (0..420).map(|_| page_text(&mut dice, &vocab)).collect();
    // Twins score alike: their order is the page ids'.
    for i in (0..420).step_by(29) {
        texts[i + 1] = texts[i].clone();
    }
    // One page a transaction, then batches: segments of every tier.
    for (i, (title, body)) in texts.iter().enumerate().take(300) {
        s.update(|w| put(w, &format!("http://t.test/{i}"), &html(title, body)))
            .expect("index page");
    }
    for chunk in (300..texts.len()).collect::<Vec<_>>().chunks(15) {
        s.update(|w| {
            for &i in chunk {
                let (title, body) = &texts[i];
                put(w, &format!("http://t.test/{i}"), &html(title, body))?;
            }
            Ok(())
        })
        .expect("index pages");
    }
    // Pages indexed again with other words: their old entries leave.
    for i in (0..300).step_by(23) {
        let (title, body) = page_text(&mut dice, &vocab);
        s.update(|w| put(w, &format!("http://t.test/{i}"), &html(&title, &body)))
            .expect("index page again");
    }
    let r = s.read().expect("read");
    assert!(
        r.segment_ids().expect("segments").len() > 4,
        "several segments"
    );

    let v = |i: usize| vocab[i].as_str();
    let queries = [
        v(0).to_string(),
        v(3).to_string(),
        v(45).to_string(),
        format!("{} {}", v(0), v(1)),
        format!("{} {} {}", v(2), v(10), v(30)),
        format!("{} {} {}", v(0), v(0), v(7)),
        format!("{} {} {} {} {}", v(1), v(4), v(9), v(16), v(40)),
        format!("\"{} {}\"", v(0), v(1)),
        format!("\"{} {}\" {}", v(2), v(0), v(7)),
        format!("\"{} {} {}\"", v(0), v(0), v(1)),
        format!("{} -{}", v(1), v(4)),
        format!("{} {} -\"{} {}\"", v(0), v(5), v(1), v(0)),
        format!("{} {} -{}", v(5), v(9), v(0)),
        format!("{} nosuchwordz", v(12)),
    ];
    let mut compared = 0;
    for text in &queries {
        let q = query::parse(text).expect("a query");
        for k in [1, 10, 50] {
            let (want, want_total) = exhaustive(&r, &q, k).expect("exhaustive");
            let (got, got_total) = rank(&r, &q, k).expect("rank");
            same_ranking(&got, &want, &format!("{text:?} k {k}"));
            assert_eq!(got_total, want_total, "{text:?} k {k}");
            // Not counting, several words keep fewer candidates: the
            // same pages, order and scores all the same.
            let uncounted = best(&r, &q, k).expect("best");
            same_ranking(&uncounted, &want, &format!("{text:?} k {k}: best"));
            compared += usize::from(!want.is_empty());
            let scored = |skip| top_k(&r, &q, k, skip).expect("top k").0.scored;
            let (skipping, all) = (scored(true), scored(false));
            assert!(skipping <= all, "{text:?} k {k}: {skipping} > {all}");
            // The most frequent word's runs are mostly passed; two
            // frequent words are bounded page by page.
            if k == 1 && text == v(0) {
                assert!(skipping * 2 < all, "{text:?}: {skipping} of {all} scored");
            }
            if k == 1 && text == &format!("{} {}", v(0), v(1)) {
                assert!(skipping < all, "{text:?}: {skipping} of {all} scored");
            }
            // Two frequent words, uncounted: most of their pages are in
            // runs passed unread, and are never scored.
            if k == 1 && text == &format!("{} {}", v(0), v(1)) {
                let uncounted = best_k(&r, &q, k).expect("best k").scored;
                assert!(
                    uncounted < skipping,
                    "{text:?}: {uncounted} of {skipping} scored"
                );
            }
        }
    }
    assert!(compared >= 39, "nearly every query matches: {compared}");
}

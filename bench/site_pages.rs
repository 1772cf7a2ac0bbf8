//! The bench site's pages (see bench/sitegen.rs, which writes them as
//! files): shared with the extraction differential test and
//! bench/extractbench.rs, which read them in process.

use std::fmt::Write as _;

const VOCABULARY: usize = 64_000;
/// Words of text a page has unless told (the fourth argument).
pub const WORDS_PER_PAGE: usize = 560;
const LINKS_PER_PAGE: usize = 20;
const SECTIONS: usize = 20;
const DIRS_PER_SECTION: usize = 25;

/// xorshift64*: a deterministic stream (the same site on every machine).
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in 0..n.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Pronounceable invented words, all distinct.
fn vocabulary(s: &mut Stream) -> Vec<String> {
    const ONSETS: &[&str] = &[
        "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
        "br", "cl", "dr", "fl", "gr", "pl", "st", "tr", "sh", "ch", "th", "qu",
    ];
    const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y"];
    let mut seen = std::collections::HashSet::new();
    let mut words = Vec::with_capacity(VOCABULARY);
    while words.len() < VOCABULARY {
        let syllables = 1 + s.below(3) + usize::from(s.below(4) == 0);
        let mut w = String::new();
        for _ in 0..syllables {
            w.push_str(ONSETS[s.below(ONSETS.len())]);
            w.push_str(VOWELS[s.below(VOWELS.len())]);
        }
        if s.below(3) == 0 {
            w.push_str(["n", "s", "r", "t", "ng", "ck"][s.below(6)]);
        }
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    words
}

/// Cumulative Zipf (s = 1) weights over ranks, for sampling by bisection.
fn zipf_cdf(n: usize) -> Vec<f64> {
    let mut acc = 0.0;
    let mut cdf: Vec<f64> = (1..=n)
        .map(|rank| {
            acc += 1.0 / rank as f64;
            acc
        })
        .collect();
    for c in &mut cdf {
        *c /= acc;
    }
    cdf
}

fn path_of(page: usize) -> (usize, usize, String) {
    let section = page % SECTIONS;
    let dir = (page / SECTIONS) % DIRS_PER_SECTION;
    (section, dir, format!("/s{section}/d{dir}/p{page}.html"))
}

/// How `from` writes a link to `to`: the relative forms a real site mixes.
fn href(from: usize, to: usize, base: &str, s: &mut Stream) -> String {
    let (fs, fd, _) = path_of(from);
    let (ts, td, tpath) = path_of(to);
    let mut h = match s.below(5) {
        0 if (fs, fd) == (ts, td) => format!("./p{to}.html"),
        1 if fs == ts => format!("../d{td}/p{to}.html"),
        2 => format!("{base}{}", &tpath[1..]),
        _ => tpath,
    };
    match s.below(10) {
        0 => h.push_str("#part2"),
        // The same page under a second URL, as tracking parameters do.
        1 if to.is_multiple_of(50) => h.push_str("?ref=nav"),
        _ => {}
    }
    h
}

fn page_html(
    page: usize,
    pages: usize,
    base: &str,
    (words, cdf): (&[String], &[f64]),
    words_per_page: usize,
) -> String {
    let mut s = Stream(0x9E37_79B9_7F4A_7C15 ^ (page as u64 + 1).wrapping_mul(0x1000_0000_01B3));
    let word = |s: &mut Stream| -> &str {
        let u = s.unit();
        &words[cdf.partition_point(|&c| c < u).min(words.len() - 1)]
    };
    let title: Vec<&str> = (0..4 + s.below(5)).map(|_| word(&mut s)).collect();
    let title = title.join(" ");
    let mut html = String::with_capacity(7_000);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>{title}</title>\
         <meta name=description content=\"{}\"><link rel=stylesheet href=/site.css></head>\n\
         <body><nav><a href=/>Home</a> <a href=\"/s{}/\">Section</a></nav>\n<h1>{title}</h1>\n",
        title.to_uppercase(),
        page % SECTIONS
    );
    // Links go among the paragraphs, as in prose; one always leads on, so
    // every page is reachable from the first.
    let mut targets: Vec<usize> = vec![(page + 1) % pages];
    targets.extend((1..LINKS_PER_PAGE).map(|_| s.below(pages)));
    let per_paragraph = (words_per_page / 8).max(1);
    for p in 0..8 {
        html.push_str("<p>");
        for i in 0..per_paragraph {
            if i > 0 {
                html.push(' ');
            }
            html.push_str(word(&mut s));
        }
        for &t in targets
            .iter()
            .skip(p * LINKS_PER_PAGE / 8)
            .take(LINKS_PER_PAGE / 8 + 1)
        {
            let h = href(page, t, base, &mut s);
            let _ = write!(
                html,
                " <a href=\"{h}\">{} {}</a>",
                word(&mut s),
                word(&mut s)
            );
        }
        html.push_str(".</p>\n");
    }
    html.push_str("</body></html>\n");
    html
}

/// The site: its vocabulary drawn once, each page built on demand.
pub struct Site {
    pages: usize,
    base: String,
    words: Vec<String>,
    cdf: Vec<f64>,
    words_per_page: usize,
}

impl Site {
    /// A site of `pages` pages under `base` (ending in /).
    pub fn new(pages: usize, base: &str, words_per_page: usize) -> Site {
        let mut s = Stream(0x5EED);
        let words = vocabulary(&mut s);
        let cdf = zipf_cdf(words.len());
        Site {
            pages,
            base: base.to_owned(),
            words,
            cdf,
            words_per_page,
        }
    }

    /// Page `n`'s path (from /) and HTML.
    pub fn page(&self, n: usize) -> (String, String) {
        let html = page_html(
            n,
            self.pages,
            &self.base,
            (&self.words, &self.cdf),
            self.words_per_page,
        );
        (path_of(n).2, html)
    }

    /// The site's /index.html, which leads to the first page.
    pub fn index(&self) -> String {
        format!(
            "<!DOCTYPE html><title>Bench site</title><h1>Bench site</h1><a href=\"{}\">start</a>",
            path_of(0).2
        )
    }
}

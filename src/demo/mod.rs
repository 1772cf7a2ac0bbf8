//! The procedural demo site: a deterministic website of exactly `pages` HTML
//! pages, each generated on the fly from its number, and the small hyper
//! server that serves it. It backs `crawlscope demo`, `crawlscope serve-demo`,
//! the volume tests and the benchmarks, so it must never be the bottleneck:
//! nothing is precomputed per site, a page costs a few microseconds to build.
//!
//! Shape of the site (tests rely on it):
//! - page 0 is `/`; page n > 0 lives in a section chosen by n % 3:
//!   `/blog/2024/N.html` (0), `/p/N.html` (1), `/docs/N.html` (2). No other
//!   spelling of a page (query, leading zero, wrong section) exists.
//! - page n links to `/`, its parent (n-1)/10, its children 10n+1..=10n+10
//!   (those < pages), 5–10 random pages and one duplicate, in mixed forms
//!   (relative, `./`, `../`, root-relative, absolute on the request's Host),
//!   some with `#fragments`. Every page is therefore within
//!   ⌈log10(pages)⌉ + 1 hops of `/`.
//! - every page also links to `http://elsewhere.example/…` (off-site), a
//!   `mailto:` and `/private/N.html` (disallowed by `/robots.txt`, 404 if
//!   fetched anyway). Pages with n % 10 == 3 link `/files/N.txt` (text/plain,
//!   indexable words) and pages with n % 25 == 7 link `/files/N.bin`
//!   (application/octet-stream); see [`DemoSite::file_paths`].
//! - body words are drawn with a Zipf–Mandelbrot law from `assets/vocab.txt`
//!   (one word a line, most frequent first). Its first
//!   [`FUNCTION_WORD_COUNT`] entries are English function words, which most
//!   stopword lists drop: pick content words when a test needs a hit.
//! - `<script>`/`<style>` hold [`SCRIPT_MARKER`]/[`STYLE_MARKER`], tokens that
//!   appear nowhere else, so a test can prove they are never indexed.
//! - `Last-Modified` is 2024-06-01T00:00:00Z minus n minutes (mod one year);
//!   the `ETag` is a hash of what the body depends on. `If-None-Match` and
//!   `If-Modified-Since` get 304.

mod page;
mod rng;
mod server;
mod site;
#[cfg(test)]
mod tests;
mod vocab;

use bytes::Bytes;
use std::fmt::Write as _;
use std::time::SystemTime;

use page::*;
use rng::*;
pub use server::{serve, spawn};
use site::*;
use vocab::*;

/// A token found only inside each page's `<script>`: it must never be indexed.
pub const SCRIPT_MARKER: &str = "zqxscriptonly";

/// A token found only inside each page's `<style>`: it must never be indexed.
pub const STYLE_MARKER: &str = "zqxstyleonly";

/// How many of the most frequent vocabulary words are function words
/// ("the", "of", "and", …) rather than content words.
pub const FUNCTION_WORD_COUNT: usize = 95;

/// The demo site: `pages` HTML pages, numbered 0..pages.
#[derive(Debug, Clone)]
pub struct DemoSite {
    pages: u32,
}

/// One generated response: what [`serve`] sends for a path.
#[derive(Debug, Clone)]
pub struct DemoResponse {
    pub status: u16,
    pub content_type: &'static str,
    pub last_modified: SystemTime,
    pub body: Bytes,
}

impl DemoSite {
    /// A site of `pages` HTML pages; 0 is taken as 1 (the site always has `/`).
    pub fn new(pages: u32) -> Self {
        DemoSite {
            pages: pages.max(1),
        }
    }

    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// The path of page `n` ("/" for 0). Defined for any n; only n < pages is served.
    pub fn path_of(&self, n: u32) -> String {
        let mut s = String::with_capacity(24);
        push_path(&mut s, n);
        s
    }

    /// The response for a request target, with absolute links written
    /// root-relative (there is no Host to put in them); `None` means 404.
    pub fn render(&self, path_and_query: &str) -> Option<DemoResponse> {
        self.render_inner(path_and_query, None)
    }

    /// Like [`render`](Self::render), as served to a request whose `Host`
    /// header was `host`: absolute links point at that host. An unusable host
    /// (empty, or characters that do not belong in a host) is ignored.
    pub fn render_for_host(&self, host: &str, path_and_query: &str) -> Option<DemoResponse> {
        self.render_inner(path_and_query, usable_host(host))
    }

    /// The `<title>` of page n, e.g. "Harbor Lantern Orchard — page 17".
    pub fn title_of(&self, n: u32) -> String {
        let mut s = String::with_capacity(48);
        for (i, w) in title_words(n).iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            push_capitalized(&mut s, w);
        }
        let _ = write!(s, " \u{2014} page {n}");
        s
    }

    /// Every visible word of page n's `<body>`, in document order, as the
    /// vocabulary spells it (lowercase; the page capitalises sentence starts
    /// and adds punctuation). Script, style, head and URLs are not included;
    /// link texts are.
    pub fn words_of(&self, n: u32) -> impl Iterator<Item = &'static str> {
        title_words(n)
            .into_iter()
            .chain(WordStream::new(n).take(body_word_count(n)))
    }

    /// The paths of every non-HTML file the site links to (`/files/N.txt`
    /// and `/files/N.bin`), robots.txt excluded.
    pub fn file_paths(&self) -> impl Iterator<Item = String> {
        let pages = self.pages;
        let txt = (3..pages).step_by(10).map(|n| format!("/files/{n}.txt"));
        let bin = (7..pages).step_by(25).map(|n| format!("/files/{n}.bin"));
        txt.chain(bin)
    }
}

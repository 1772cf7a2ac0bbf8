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

use std::convert::Infallible;
use std::fmt::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A token found only inside each page's `<script>`: it must never be indexed.
pub const SCRIPT_MARKER: &str = "zqxscriptonly";
/// A token found only inside each page's `<style>`: it must never be indexed.
pub const STYLE_MARKER: &str = "zqxstyleonly";
/// How many of the most frequent vocabulary words are function words
/// ("the", "of", "and", …) rather than content words.
pub const FUNCTION_WORD_COUNT: usize = 95;

const VOCAB_TEXT: &str = include_str!("../assets/vocab.txt");

/// Zipf–Mandelbrot offset: a plain 1/r law makes "the" a fifth of all text;
/// shifting the ranks flattens the head to something closer to real English.
const ZIPF_SHIFT: f64 = 2.7;

/// 2024-06-01T00:00:00Z: every date on the site counts back from it, so
/// responses are the same on every run and every machine.
const SITE_EPOCH_SECS: u64 = 1_717_200_000;
const MINUTES_PER_YEAR: u32 = 525_600;

/// Section directories by n % 3, with their path segments for relative links.
const SECTIONS: [(&str, &[&str]); 3] = [
    ("/blog/2024/", &["blog", "2024"]),
    ("/p/", &["p"]),
    ("/docs/", &["docs"]),
];

const OFF_SITE: &str = "http://elsewhere.example/ref/";
const MAILTO: &str = "mailto:editor@example.com";
const ROBOTS_TXT: &str = "User-agent: *\nDisallow: /private/\n";

const AUTHORS: [&str; 12] = [
    "Ada Fairweather",
    "Basil Thornton",
    "Clara Whitlock",
    "Desmond Hale",
    "Edith Marlow",
    "Felix Ashby",
    "Greta Lindqvist",
    "Hugo Penrose",
    "Iris Calloway",
    "Jonah Brightwater",
    "Kit Okonkwo",
    "Lena Varga",
];

const STYLE: &str = "<style>\n\
body{font-family:Georgia,serif;margin:2em auto;max-width:42em;line-height:1.5;color:#222}\n\
nav.crumbs a{margin-right:.6em}\n\
h2{border-bottom:1px solid #ccc;font-size:1.2em}\n\
ul.related li{list-style:square}\n\
footer{font-size:.8em;color:#666}\n\
.zqxstyleonly{display:none}\n\
</style>\n";

// Independent random streams per purpose, so that e.g. changing the link
// layout never changes which words a page has.
const STREAM_LAYOUT: u64 = 1;
const STREAM_WORDS: u64 = 2;
const STREAM_LINKS: u64 = 3;
const STREAM_TITLE: u64 = 4;
const STREAM_DESC: u64 = 5;
const STREAM_TXT: u64 = 6;
const STREAM_BIN: u64 = 7;

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

/// What a path names on the site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resource {
    Page(u32),
    Robots,
    Txt(u32),
    Bin(u32),
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

    fn has_txt(&self, n: u32) -> bool {
        n < self.pages && n % 10 == 3
    }

    fn has_bin(&self, n: u32) -> bool {
        n < self.pages && n % 25 == 7
    }

    fn resolve(&self, path_and_query: &str) -> Option<Resource> {
        // The site links to no query and no alias, so none is served: that is
        // what keeps the page count exact.
        match path_and_query {
            "/" => return Some(Resource::Page(0)),
            "/robots.txt" => return Some(Resource::Robots),
            _ => {}
        }
        if let Some(file) = path_and_query.strip_prefix("/files/") {
            if let Some(n) = file.strip_suffix(".txt").and_then(parse_canonical) {
                return self.has_txt(n).then_some(Resource::Txt(n));
            }
            let n = file.strip_suffix(".bin").and_then(parse_canonical)?;
            return self.has_bin(n).then_some(Resource::Bin(n));
        }
        for (i, (dir, _)) in SECTIONS.iter().enumerate() {
            if let Some(rest) = path_and_query.strip_prefix(dir) {
                let n = rest.strip_suffix(".html").and_then(parse_canonical)?;
                let ok = n != 0 && n < self.pages && n % 3 == i as u32;
                return ok.then_some(Resource::Page(n));
            }
        }
        None
    }

    fn render_inner(&self, path_and_query: &str, host: Option<&str>) -> Option<DemoResponse> {
        let resource = self.resolve(path_and_query)?;
        let (content_type, body) = match resource {
            Resource::Page(n) => (
                "text/html; charset=utf-8",
                Bytes::from(self.page_html(n, host)),
            ),
            Resource::Robots => (
                "text/plain; charset=utf-8",
                Bytes::from_static(ROBOTS_TXT.as_bytes()),
            ),
            Resource::Txt(n) => ("text/plain; charset=utf-8", Bytes::from(text_file(n))),
            Resource::Bin(n) => ("application/octet-stream", Bytes::from(binary_file(n))),
        };
        Some(DemoResponse {
            status: 200,
            content_type,
            last_modified: last_modified(resource),
            body,
        })
    }

    /// A strong validator: a hash of everything the body is a function of.
    fn etag(&self, resource: Resource, host: Option<&str>) -> String {
        let mut h = Fnv::new();
        match resource {
            Resource::Page(n) => {
                h.bytes(b"page");
                h.bytes(&n.to_le_bytes());
                h.bytes(&self.pages.to_le_bytes());
                h.bytes(host.unwrap_or("").as_bytes());
            }
            Resource::Robots => h.bytes(b"robots"),
            Resource::Txt(n) => {
                h.bytes(b"txt");
                h.bytes(&n.to_le_bytes());
            }
            Resource::Bin(n) => {
                h.bytes(b"bin");
                h.bytes(&n.to_le_bytes());
            }
        }
        format!("\"cs-{:016x}\"", h.0)
    }

    fn links(&self, n: u32) -> PageLinks {
        let mut rng = Rng::new(n, STREAM_LINKS);
        let mut link = |target| Link::random(&mut rng, target);
        let mut nav = vec![link(Target::Page(0))];
        if n > 0 {
            nav.push(link(Target::Page((n - 1) / 10)));
        }
        let mut flow = Vec::with_capacity(28);
        let first_child = u64::from(n) * 10 + 1;
        for child in first_child..first_child + 10 {
            if child < u64::from(self.pages) {
                // In range: child < pages <= u32::MAX.
                flow.push(link(Target::Page(child as u32)));
            }
        }
        flow.push(link(Target::OffSite));
        flow.push(link(Target::Private));
        if self.has_txt(n) {
            flow.push(link(Target::Txt));
        }
        if self.has_bin(n) {
            flow.push(link(Target::Bin));
        }
        let footer = link(Target::Mailto);
        let randoms = 5 + rng.below(6);
        for _ in 0..randoms {
            let m = rng.below(self.pages);
            flow.push(Link::random(&mut rng, Target::Page(m)));
        }
        for i in (1..flow.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            flow.swap(i, j);
        }
        // A second link to a page already linked, in another spelling.
        let dup_of = rng.below(flow.len() as u32) as usize;
        let dup_at = rng.below(flow.len() as u32 + 1) as usize;
        if let Some(orig) = flow.get(dup_of).copied() {
            let dup = Link {
                form: (orig.form + 1 + rng.below(4) as u8) % 5,
                fragment: 1 + rng.below(9) as u8,
                ..orig
            };
            flow.insert(dup_at, dup);
        }
        PageLinks { nav, flow, footer }
    }

    fn page_html(&self, n: u32, host: Option<&str>) -> String {
        let mut layout = Rng::new(n, STREAM_LAYOUT);
        let total = body_word_count_from(&mut layout);
        let links = self.links(n);
        let link_count = links.nav.len() + links.flow.len() + 1;
        // Every link text is two words; the rest of the budget is prose.
        let mut prose = total.saturating_sub(2 * link_count);
        let mut words = WordStream::new(n);
        let title = self.title_of(n);

        let mut out = String::with_capacity(8 * 1024);
        out.push_str(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
        );
        out.push_str(&title);
        out.push_str("</title>\n<meta name=\"description\" content=\"");
        push_description(&mut out, n);
        out.push_str("\">\n<meta name=\"keywords\" content=\"");
        for (i, w) in title_words(n).iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(w);
        }
        out.push_str("\">\n<meta name=\"author\" content=\"");
        out.push_str(AUTHORS[n as usize % AUTHORS.len()]);
        out.push_str("\">\n<meta property=\"og:title\" content=\"");
        out.push_str(&title);
        out.push_str("\">\n");
        out.push_str(STYLE);
        // The heading comes first so that `words_of` can start with the title.
        out.push_str("</head>\n<body>\n<header><h1>");
        for (i, w) in title_words(n).iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            push_capitalized(&mut out, w);
        }
        out.push_str("</h1>\n<nav class=\"crumbs\">");
        for link in &links.nav {
            self.push_anchor(&mut out, n, link, host, &mut words);
            out.push(' ');
        }
        out.push_str("</nav></header>\n<main>\n");

        let mut flow = links.flow.iter();
        let mut section = 0u32;
        while prose > 0 {
            section += 1;
            let k = take(&mut prose, layout.range(2, 5));
            let _ = write!(out, "<h2 id=\"s{section}\">");
            push_sentence_words(&mut out, &mut words, k, false);
            out.push_str("</h2>\n");
            for _ in 0..layout.range(1, 3) {
                let k = take(&mut prose, layout.range(25, 90));
                if k == 0 {
                    break;
                }
                // An inline link sits between two words of the paragraph.
                let inline = if layout.below(3) == 0 {
                    flow.next()
                } else {
                    None
                };
                let at = layout.below(k as u32) as usize;
                out.push_str("<p>");
                let mut sentence_left = 0;
                for i in 0..k {
                    if i > 0 {
                        out.push(' ');
                    }
                    if i == at {
                        if let Some(link) = inline {
                            self.push_anchor(&mut out, n, link, host, &mut words);
                            out.push(' ');
                        }
                    }
                    let w = words.next_word();
                    if sentence_left == 0 {
                        sentence_left = layout.range(5, 16);
                        push_capitalized(&mut out, w);
                    } else {
                        out.push_str(w);
                    }
                    sentence_left -= 1;
                    if sentence_left == 0 || i + 1 == k {
                        out.push('.');
                        sentence_left = 0;
                    } else if layout.below(12) == 0 {
                        out.push(',');
                    }
                }
                out.push_str("</p>\n");
            }
            if prose > 0 && layout.below(2) == 0 {
                out.push_str("<ul>\n");
                for _ in 0..layout.range(2, 5) {
                    let link = if layout.below(4) != 0 {
                        flow.next()
                    } else {
                        None
                    };
                    let k = take(&mut prose, layout.range(3, 8));
                    if link.is_none() && k == 0 {
                        break;
                    }
                    out.push_str("<li>");
                    if let Some(link) = link {
                        self.push_anchor(&mut out, n, link, host, &mut words);
                        if k > 0 {
                            out.push_str(": ");
                        }
                    }
                    push_sentence_words(&mut out, &mut words, k, link.is_none());
                    out.push_str("</li>\n");
                }
                out.push_str("</ul>\n");
            }
        }
        let mut related = flow.peekable();
        if related.peek().is_some() {
            out.push_str("<ul class=\"related\">\n");
            for link in related {
                out.push_str("<li>");
                self.push_anchor(&mut out, n, link, host, &mut words);
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</main>\n<footer><p>");
        self.push_anchor(&mut out, n, &links.footer, host, &mut words);
        out.push_str("</p></footer>\n<script>\n(function(){var ");
        out.push_str(SCRIPT_MARKER);
        let _ = write!(
            out,
            "={{page:{n},words:{total}}};\
             document.documentElement.setAttribute(\"data-page\",String({SCRIPT_MARKER}.page));}})();"
        );
        out.push_str("\n</script>\n</body>\n</html>\n");
        out
    }

    fn push_anchor(
        &self,
        out: &mut String,
        from: u32,
        link: &Link,
        host: Option<&str>,
        words: &mut WordStream,
    ) {
        out.push_str("<a href=\"");
        push_href(out, from, link, host);
        out.push_str("\">");
        out.push_str(words.next_word());
        out.push(' ');
        out.push_str(words.next_word());
        out.push_str("</a>");
    }
}

#[derive(Debug, Clone, Copy)]
enum Target {
    Page(u32),
    Private,
    OffSite,
    Mailto,
    Txt,
    Bin,
}

#[derive(Debug, Clone, Copy)]
struct Link {
    target: Target,
    /// Which spelling of the URL: see `push_page_href`.
    form: u8,
    /// 0 = none, else `#sK`.
    fragment: u8,
}

impl Link {
    /// A link in a random spelling, one in five with a fragment.
    fn random(rng: &mut Rng, target: Target) -> Link {
        let form = rng.below(5) as u8;
        let fragment = if rng.below(5) == 0 {
            1 + rng.below(9) as u8
        } else {
            0
        };
        Link {
            target,
            form,
            fragment,
        }
    }
}

struct PageLinks {
    nav: Vec<Link>,
    flow: Vec<Link>,
    footer: Link,
}

fn push_path(out: &mut String, n: u32) {
    if n == 0 {
        out.push('/');
    } else {
        out.push_str(SECTIONS[n as usize % 3].0);
        let _ = write!(out, "{n}.html");
    }
}

fn dir_segments(n: u32) -> &'static [&'static str] {
    if n == 0 {
        &[]
    } else {
        SECTIONS[n as usize % 3].1
    }
}

fn push_href(out: &mut String, from: u32, link: &Link, host: Option<&str>) {
    let absolute = link.form == 3 && host.is_some();
    let push_root = |out: &mut String| {
        if let (true, Some(h)) = (absolute, host) {
            out.push_str("http://");
            out.push_str(h);
        }
    };
    match link.target {
        Target::Page(m) => push_page_href(out, from, m, link.form, host),
        Target::Private => {
            push_root(out);
            let _ = write!(out, "/private/{from}.html");
        }
        Target::OffSite => {
            let _ = write!(out, "{OFF_SITE}{from}.html");
        }
        Target::Mailto => {
            out.push_str(MAILTO);
            return;
        }
        Target::Txt => {
            push_root(out);
            let _ = write!(out, "/files/{from}.txt");
        }
        Target::Bin => {
            push_root(out);
            let _ = write!(out, "/files/{from}.bin");
        }
    }
    if link.fragment > 0 {
        let _ = write!(out, "#s{}", link.fragment);
    }
}

/// Forms: 0 relative to the current directory, 1 the same with `./`,
/// 2 root-relative, 3 absolute on `host` (root-relative without one),
/// 4 up to the root with `../` then down (`../p/17.html`).
fn push_page_href(out: &mut String, from: u32, to: u32, form: u8, host: Option<&str>) {
    let from_dir = dir_segments(from);
    match form {
        2 => push_path(out, to),
        3 => {
            if let Some(h) = host {
                out.push_str("http://");
                out.push_str(h);
            }
            push_path(out, to);
        }
        4 => {
            for _ in from_dir {
                out.push_str("../");
            }
            let before = out.len();
            push_path(out, to);
            // Drop the leading '/' of the path: it is relative to the root now.
            out.remove(before);
            if from_dir.is_empty() && to == 0 {
                out.push_str("./");
            }
        }
        _ => {
            let to_dir = dir_segments(to);
            let common = from_dir
                .iter()
                .zip(to_dir)
                .take_while(|(a, b)| a == b)
                .count();
            let ups = from_dir.len() - common;
            if form == 1 && ups == 0 {
                out.push_str("./");
            }
            for _ in 0..ups {
                out.push_str("../");
            }
            for seg in &to_dir[common..] {
                out.push_str(seg);
                out.push('/');
            }
            if to != 0 {
                let _ = write!(out, "{to}.html");
            } else if ups == 0 && form != 1 {
                // An empty href would mean "this document", not "/".
                out.push_str("./");
            }
        }
    }
}

/// Only hosts made of host characters go into links: the Host header is
/// outside data and must not be able to inject markup.
fn usable_host(host: &str) -> Option<&str> {
    let ok = !host.is_empty()
        && host.len() <= 255
        && host.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']' | b'_')
        });
    ok.then_some(host)
}

/// Decimal without sign or leading zeros, so each number has one spelling.
fn parse_canonical(s: &str) -> Option<u32> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if canonical {
        s.parse().ok()
    } else {
        None
    }
}

fn last_modified(resource: Resource) -> SystemTime {
    let minutes = match resource {
        Resource::Page(n) | Resource::Txt(n) | Resource::Bin(n) => n % MINUTES_PER_YEAR,
        Resource::Robots => 0,
    };
    UNIX_EPOCH + Duration::from_secs(SITE_EPOCH_SECS - u64::from(minutes) * 60)
}

fn body_word_count_from(layout: &mut Rng) -> usize {
    layout.range(300, 1200) as usize
}

fn body_word_count(n: u32) -> usize {
    body_word_count_from(&mut Rng::new(n, STREAM_LAYOUT))
}

fn title_words(n: u32) -> Vec<&'static str> {
    let mut rng = Rng::new(n, STREAM_TITLE);
    let count = rng.range(2, 4);
    (0..count).map(|_| vocab().content_word(&mut rng)).collect()
}

fn push_description(out: &mut String, n: u32) {
    let mut rng = Rng::new(n, STREAM_DESC);
    let count = rng.range(10, 20);
    for i in 0..count {
        let w = vocab().zipf(&mut rng);
        if i == 0 {
            push_capitalized(out, w);
        } else {
            out.push(' ');
            out.push_str(w);
        }
    }
    out.push('.');
}

fn take(budget: &mut usize, want: u32) -> usize {
    let k = (*budget).min(want as usize);
    *budget -= k;
    k
}

fn push_sentence_words(out: &mut String, words: &mut WordStream, k: usize, capitalize: bool) {
    for i in 0..k {
        if i > 0 {
            out.push(' ');
        }
        let w = words.next_word();
        if i == 0 && capitalize {
            push_capitalized(out, w);
        } else {
            out.push_str(w);
        }
    }
}

fn push_capitalized(out: &mut String, w: &str) {
    let mut chars = w.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_uppercase());
        out.push_str(chars.as_str());
    }
}

/// `/files/N.txt`: a few hundred words of plain prose, wrapped like a README.
fn text_file(n: u32) -> String {
    let mut rng = Rng::new(n, STREAM_TXT);
    let count = rng.range(200, 400);
    let mut out = String::with_capacity(count as usize * 7);
    let mut line = 0;
    let mut sentence_left = 0;
    for _ in 0..count {
        let w = vocab().zipf(&mut rng);
        if line + w.len() + 1 > 72 {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        if sentence_left == 0 {
            sentence_left = rng.range(6, 18);
            push_capitalized(&mut out, w);
        } else {
            out.push_str(w);
        }
        line += w.len();
        sentence_left -= 1;
        if sentence_left == 0 {
            out.push('.');
            line += 1;
        }
    }
    if !out.ends_with('.') {
        out.push('.');
    }
    out.push('\n');
    out
}

/// `/files/N.bin`: a few KB of noise.
fn binary_file(n: u32) -> Vec<u8> {
    let mut rng = Rng::new(n, STREAM_BIN);
    let len = rng.range(2048, 6143) as usize;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(len);
    out
}

struct Vocab {
    words: Vec<&'static str>,
    /// Walker/Vose alias table over the Zipf weights: a draw is one random
    /// number and two table reads, where a binary search over the cumulative
    /// weights cost most of a page's render time.
    alias: Vec<(u32, u16)>,
}

impl Vocab {
    fn zipf(&self, rng: &mut Rng) -> &'static str {
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
    fn content_word(&self, rng: &mut Rng) -> &'static str {
        let content = self.words.get(FUNCTION_WORD_COUNT..).unwrap_or(&self.words);
        let i = rng.below(content.len() as u32) as usize;
        content.get(i).copied().unwrap_or("word")
    }
}

fn vocab() -> &'static Vocab {
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
fn alias_table(weights: &[f64]) -> Vec<(u32, u16)> {
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
struct WordStream {
    rng: Rng,
}

impl WordStream {
    fn new(n: u32) -> Self {
        WordStream {
            rng: Rng::new(n, STREAM_WORDS),
        }
    }

    fn next_word(&mut self) -> &'static str {
        vocab().zipf(&mut self.rng)
    }
}

impl Iterator for WordStream {
    type Item = &'static str;
    fn next(&mut self) -> Option<&'static str> {
        Some(self.next_word())
    }
}

/// splitmix64: tiny, fast, and good enough that neighbouring page numbers
/// give unrelated pages.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(n: u32, stream: u64) -> Self {
        let mut r = Rng((u64::from(n) << 8) ^ stream ^ 0x6372_6177_6c73_636f);
        r.next_u64();
        r
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in 0..n (0 when n is 0).
    fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }

    /// Uniform in lo..=hi.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

type Body = Full<Bytes>;

fn respond(site: &DemoSite, req: &Request<hyper::body::Incoming>) -> Response<Body> {
    let method = req.method();
    if method != Method::GET && method != Method::HEAD {
        let mut resp = simple(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        resp.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return resp;
    }
    let path_and_query = req.uri().path_and_query().map_or("/", |pq| pq.as_str());
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
        .and_then(usable_host);
    let Some(resource) = site.resolve(path_and_query) else {
        return not_found(method == Method::HEAD);
    };
    let etag = site.etag(resource, host);
    let modified = last_modified(resource);
    if not_modified(req.headers(), &etag, modified) {
        let mut resp = Response::new(Body::default());
        *resp.status_mut() = StatusCode::NOT_MODIFIED;
        set_validators(resp.headers_mut(), &etag, modified);
        return resp;
    }
    let Some(page) = site.render_inner(path_and_query, host) else {
        return not_found(method == Method::HEAD);
    };
    let len = page.body.len();
    let mut resp = if method == Method::HEAD {
        let mut r = Response::new(Body::default());
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
        r
    } else {
        Response::new(Full::new(page.body))
    };
    *resp.status_mut() = StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK);
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(page.content_type),
    );
    set_validators(headers, &etag, modified);
    resp
}

fn set_validators(headers: &mut HeaderMap, etag: &str, modified: SystemTime) {
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(modified)) {
        headers.insert(header::LAST_MODIFIED, v);
    }
}

/// RFC 9110 §13.1: If-None-Match wins over If-Modified-Since when both are sent.
fn not_modified(headers: &HeaderMap, etag: &str, modified: SystemTime) -> bool {
    if let Some(inm) = headers.get(header::IF_NONE_MATCH) {
        let Ok(inm) = inm.to_str() else {
            return false;
        };
        return inm
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag);
    }
    headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
        .is_some_and(|since| modified <= since)
}

fn not_found(head: bool) -> Response<Body> {
    const BODY: &str = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
        <title>Not found</title></head><body><h1>Not found</h1>\
        <p>There is no such page on the demo site.</p><p><a href=\"/\">Home</a></p></body></html>\n";
    let mut resp = if head {
        let mut r = Response::new(Body::default());
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(BODY.len()));
        r
    } else {
        Response::new(Full::new(Bytes::from_static(BODY.as_bytes())))
    };
    *resp.status_mut() = StatusCode::NOT_FOUND;
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::ETAG, HeaderValue::from_static("\"cs-not-found\""));
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(
        UNIX_EPOCH + Duration::from_secs(SITE_EPOCH_SECS),
    )) {
        headers.insert(header::LAST_MODIFIED, v);
    }
    resp
}

fn simple(status: StatusCode, body: &'static str) -> Response<Body> {
    let mut resp = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// Serve the site on an already-bound listener until the future is dropped.
/// Dropping it also ends every open connection. Accept errors (out of file
/// descriptors, aborted handshakes) are waited out, never returned: a demo
/// server that stops under load would make a benchmark lie.
pub async fn serve(listener: TcpListener, site: Arc<DemoSite>) -> std::io::Result<()> {
    // Connections watch this channel; its sender dies with this future.
    let (_alive, alive_rx) = tokio::sync::watch::channel(());
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::Interrupted
                ) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                continue;
            }
        };
        // Small responses on a keep-alive connection must not wait for Nagle.
        let _ = stream.set_nodelay(true);
        let site = Arc::clone(&site);
        let mut alive = alive_rx.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                std::future::ready(Ok::<_, Infallible>(respond(&site, &req)))
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            // Biased: once the server is gone, a request already waiting on
            // this connection must not be answered.
            tokio::select! {
                biased;
                _ = alive.changed() => {}
                _ = conn => {}
            }
        });
    }
}

/// Bind 127.0.0.1:port (0 = any free port) and serve a site of `pages` pages
/// on the current tokio runtime; abort the handle to stop it.
pub async fn spawn(
    port: u16,
    pages: u32,
) -> std::io::Result<(SocketAddr, JoinHandle<std::io::Result<()>>)> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    let addr = listener.local_addr()?;
    let handle = tokio::spawn(serve(listener, Arc::new(DemoSite::new(pages))));
    Ok((addr, handle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet, VecDeque};

    const HOST: &str = "127.0.0.1:8080";

    fn hrefs(html: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = html;
        while let Some(i) = rest.find("href=\"") {
            rest = &rest[i + 6..];
            let Some(end) = rest.find('"') else { break };
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
        out
    }

    /// BFS over render_for_host from "/", as a crawler that obeys robots.txt
    /// would; returns (HTML pages, other files, max depth).
    fn crawl(site: &DemoSite) -> (HashSet<String>, HashSet<String>, usize) {
        let base = ::url::Url::parse(&format!("http://{HOST}/")).expect("base");
        let mut seen = HashSet::from(["/".to_string()]);
        let mut queue = VecDeque::from([("/".to_string(), 0usize)]);
        let (mut html, mut files, mut max_depth) = (HashSet::new(), HashSet::new(), 0);
        while let Some((path, depth)) = queue.pop_front() {
            let resp = site
                .render_for_host(HOST, &path)
                .unwrap_or_else(|| panic!("site links to missing {path}"));
            assert_eq!(resp.status, 200);
            if !resp.content_type.starts_with("text/html") {
                files.insert(path);
                continue;
            }
            max_depth = max_depth.max(depth);
            let page_url = base.join(&path).expect("join");
            let body = std::str::from_utf8(&resp.body).expect("utf8");
            let links = hrefs(body);
            assert!(
                (10..=30).contains(&links.len()),
                "{path} has {} links",
                links.len()
            );
            html.insert(path);
            for href in links {
                let url = page_url.join(&href).expect("href resolves");
                if url.scheme() != "http" || url.host_str() != Some("127.0.0.1") {
                    continue;
                }
                let target = url.path().to_string();
                assert!(url.query().is_none());
                if target.starts_with("/private/") {
                    assert!(site.render(&target).is_none());
                    continue;
                }
                if seen.insert(target.clone()) {
                    queue.push_back((target, depth + 1));
                }
            }
        }
        (html, files, max_depth)
    }

    #[test]
    fn vocabulary_is_large_distinct_and_plain() {
        let v = vocab();
        assert!(v.words.len() >= 2000, "{}", v.words.len());
        let distinct: HashSet<_> = v.words.iter().collect();
        assert_eq!(distinct.len(), v.words.len());
        assert!(v
            .words
            .iter()
            .all(|w| w.bytes().all(|b| b.is_ascii_lowercase())));
        assert_eq!(v.words[0], "the");
        assert_eq!(v.words[FUNCTION_WORD_COUNT - 1], "much");
        assert!(!v.words.contains(&SCRIPT_MARKER) && !v.words.contains(&STYLE_MARKER));
    }

    #[test]
    fn pages_are_deterministic() {
        let a = DemoSite::new(1000);
        let b = DemoSite::new(1000);
        for n in [0, 1, 2, 3, 7, 99, 999] {
            let path = a.path_of(n);
            let x = a.render_for_host(HOST, &path).expect("page");
            let y = b.render_for_host(HOST, &path).expect("page");
            assert_eq!(x.body, y.body);
            assert_eq!(x.last_modified, y.last_modified);
            assert_eq!(
                a.render(&path).expect("page").body,
                a.render(&path).expect("page").body
            );
        }
        assert_ne!(
            a.render("/p/1.html").expect("page").body,
            a.render("/docs/2.html").expect("page").body
        );
    }

    #[test]
    fn every_page_is_reachable_and_nothing_else() {
        for pages in [1, 7, 250] {
            let site = DemoSite::new(pages);
            let (html, files, depth) = crawl(&site);
            assert_eq!(html.len(), pages as usize, "pages={pages}");
            let expected: HashSet<String> = (0..pages).map(|n| site.path_of(n)).collect();
            assert_eq!(html, expected);
            let expected_files: HashSet<String> = site.file_paths().collect();
            assert_eq!(files, expected_files, "pages={pages}");
            // Children of n are 10n+1..: depth of the last page is its digit count.
            let bound = pages.saturating_sub(1).to_string().len();
            assert!(depth <= bound, "pages={pages} depth={depth}");
        }
        assert_eq!(DemoSite::new(250).file_paths().count(), 25 + 10);
    }

    #[test]
    fn only_canonical_paths_exist() {
        let site = DemoSite::new(50);
        for n in 0..50 {
            assert!(site.render(&site.path_of(n)).is_some(), "{n}");
        }
        for bad in [
            "/p/50.html",
            "/p/0.html",
            "/p/01.html",
            "/docs/1.html",
            "/p/1.html?x=1",
            "/?",
            "/p/1.htm",
            "/p/",
            "/p/-1.html",
            "/p/+1.html",
            "/p/99999999999999999999.html",
            "/private/1.html",
            "/files/4.txt",
            "/files/53.txt",
            "/files/3.bin",
            "/files/.txt",
            "",
            "index.html",
            "/robots.txt?x",
        ] {
            assert!(site.render(bad).is_none(), "{bad}");
        }
        let robots = site.render("/robots.txt").expect("robots");
        assert_eq!(&robots.body[..], ROBOTS_TXT.as_bytes());
        let txt = site.render("/files/3.txt").expect("txt");
        assert!(txt.content_type.starts_with("text/plain"));
        let words = std::str::from_utf8(&txt.body)
            .expect("utf8")
            .split_whitespace()
            .count();
        assert!((200..=400).contains(&words), "{words}");
        let bin = site.render("/files/7.bin").expect("bin");
        assert_eq!(bin.content_type, "application/octet-stream");
        assert!((2048..6144).contains(&bin.body.len()));
    }

    #[test]
    fn words_of_are_the_visible_body_text() {
        let site = DemoSite::new(500);
        for n in [0, 1, 2, 3, 42, 499] {
            let resp = site.render_for_host(HOST, &site.path_of(n)).expect("page");
            let html = std::str::from_utf8(&resp.body).expect("utf8");
            let body = &html[html.find("<body>").expect("body")..];
            let body = &body[..body.find("<script>").expect("script")];
            let mut text = String::new();
            let mut in_tag = false;
            for c in body.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => {
                        in_tag = false;
                        text.push(' ');
                    }
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            let seen: Vec<String> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|t| !t.is_empty())
                .map(str::to_lowercase)
                .collect();
            let expected: Vec<&str> = site.words_of(n).collect();
            assert_eq!(seen, expected, "page {n}");
            let body_words = expected.len() - title_words(n).len();
            assert!((300..=1200).contains(&body_words));
            assert!(html.contains(&format!("<title>{}</title>", site.title_of(n))));
            assert!(site.title_of(n).ends_with(&format!(" page {n}")));
            assert!(html.contains(SCRIPT_MARKER) && html.contains(STYLE_MARKER));
            assert!(!text.contains(SCRIPT_MARKER) && !text.contains(STYLE_MARKER));
            for meta in [
                "name=\"description\"",
                "name=\"keywords\"",
                "name=\"author\"",
                "property=\"og:title\"",
            ] {
                assert!(html.contains(meta), "{meta}");
            }
        }
    }

    #[test]
    fn links_come_in_every_form() {
        let site = DemoSite::new(10_000);
        let mut all = Vec::new();
        for n in 0..200 {
            let resp = site.render_for_host(HOST, &site.path_of(n)).expect("page");
            all.extend(hrefs(std::str::from_utf8(&resp.body).expect("utf8")));
        }
        let has = |pred: &dyn Fn(&str) -> bool| all.iter().any(|h| pred(h));
        assert!(has(&|h| h.starts_with("../")));
        assert!(has(&|h| h.starts_with("./")));
        assert!(has(&|h| h.as_bytes()[0].is_ascii_digit()));
        assert!(has(&|h| h.starts_with('/')));
        assert!(has(&|h| h.starts_with(&format!("http://{HOST}/"))));
        assert!(has(&|h| h.contains('#')));
        assert!(has(&|h| h.starts_with("mailto:")));
        assert!(has(&|h| h.starts_with(OFF_SITE)));
        // Without a Host, nothing points at a made-up origin.
        let plain = site.render("/p/1.html").expect("page");
        let plain = std::str::from_utf8(&plain.body).expect("utf8");
        assert!(hrefs(plain)
            .iter()
            .all(|h| !h.starts_with("http://") || h.starts_with(OFF_SITE)));
        // A hostile Host header is not echoed into the page.
        let evil = site
            .render_for_host("x\"><script>", "/p/1.html")
            .expect("page");
        assert_eq!(evil.body, site.render("/p/1.html").expect("page").body);
    }

    #[test]
    fn word_frequencies_are_zipf_like() {
        let site = DemoSite::new(1000);
        let mut freq: HashMap<&str, usize> = HashMap::new();
        for n in 0..300 {
            for w in site.words_of(n) {
                *freq.entry(w).or_default() += 1;
            }
        }
        let mut counts: Vec<usize> = freq.values().copied().collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top = counts[0];
        let median = counts[counts.len() / 2];
        assert!(top > 50 * median, "top {top} median {median}");
        assert!(freq.len() > 1500, "only {} distinct words", freq.len());
        let total: usize = counts.iter().sum();
        assert!(top * 4 < total, "the top word is {top} of {total}");
    }

    #[test]
    fn average_page_is_around_six_kilobytes() {
        let site = DemoSite::new(100_000);
        let sample = 2000u32;
        let bytes: usize = (0..sample)
            .map(|i| {
                let n = i * 50 + 1;
                site.render_for_host(HOST, &site.path_of(n))
                    .expect("page")
                    .body
                    .len()
            })
            .sum();
        let avg = bytes / sample as usize;
        assert!((4096..=8192).contains(&avg), "average {avg} bytes");
    }

    #[test]
    fn dates_and_validators_are_stable() {
        let site = DemoSite::new(100);
        let lm0 = site.render("/").expect("page").last_modified;
        let lm1 = site.render("/p/1.html").expect("page").last_modified;
        assert_eq!(lm0, UNIX_EPOCH + Duration::from_secs(SITE_EPOCH_SECS));
        assert_eq!(lm0.duration_since(lm1).ok(), Some(Duration::from_secs(60)));
        let e1 = site.etag(Resource::Page(1), Some(HOST));
        assert_eq!(e1, site.etag(Resource::Page(1), Some(HOST)));
        assert_ne!(e1, site.etag(Resource::Page(2), Some(HOST)));
        assert_ne!(e1, site.etag(Resource::Page(1), None));
        assert_ne!(e1, DemoSite::new(101).etag(Resource::Page(1), Some(HOST)));
        assert!(DemoSite::new(0).pages() == 1 && DemoSite::new(0).render("/").is_some());
    }
}

//! A page's HTML and the site's other files, generated from the page number:
//! title, description, Zipf-distributed body words, links in mixed forms.

use std::fmt::Write as _;

use super::*;

pub(super) const AUTHORS: [&str; 12] = [
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

pub(super) const STYLE: &str = "<style>\n\
body{font-family:Georgia,serif;margin:2em auto;max-width:42em;line-height:1.5;color:#222}\n\
nav.crumbs a{margin-right:.6em}\n\
h2{border-bottom:1px solid #ccc;font-size:1.2em}\n\
ul.related li{list-style:square}\n\
footer{font-size:.8em;color:#666}\n\
.zqxstyleonly{display:none}\n\
</style>\n";

pub(super) fn body_word_count_from(layout: &mut Rng) -> usize {
    layout.range(300, 1200) as usize
}

pub(super) fn body_word_count(n: u32) -> usize {
    body_word_count_from(&mut Rng::new(n, STREAM_LAYOUT))
}

pub(super) fn title_words(n: u32) -> Vec<&'static str> {
    let mut rng = Rng::new(n, STREAM_TITLE);
    let count = rng.range(2, 4);
    (0..count).map(|_| vocab().content_word(&mut rng)).collect()
}

pub(super) fn push_description(out: &mut String, n: u32) {
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

pub(super) fn take(budget: &mut usize, want: u32) -> usize {
    let k = (*budget).min(want as usize);
    *budget -= k;
    k
}

pub(super) fn push_sentence_words(
    out: &mut String,
    words: &mut WordStream,
    k: usize,
    capitalize: bool,
) {
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

pub(super) fn push_capitalized(out: &mut String, w: &str) {
    let mut chars = w.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_uppercase());
        out.push_str(chars.as_str());
    }
}

/// `/files/N.txt`: a few hundred words of plain prose, wrapped like a README.
pub(super) fn text_file(n: u32) -> String {
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
pub(super) fn binary_file(n: u32) -> Vec<u8> {
    let mut rng = Rng::new(n, STREAM_BIN);
    let len = rng.range(2048, 6143) as usize;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(len);
    out
}

impl DemoSite {
    pub(super) fn page_html(&self, n: u32, host: Option<&str>) -> String {
        let mut layout = Rng::new(n, STREAM_LAYOUT);
        let total = body_word_count_from(&mut layout);
        let links = self.links(n);
        let link_count = links.nav.len() + links.flow.len() + 1;
        // Every link text is two words; the rest of the budget is prose.
        let prose = total.saturating_sub(2 * link_count);
        let mut page = PageWriter {
            n,
            host,
            layout,
            words: WordStream::new(n),
            out: String::with_capacity(8 * 1024),
        };
        page.head(&self.title_of(n));
        page.header(&links.nav);
        let mut flow = links.flow.iter();
        page.sections(prose, &mut flow);
        page.related(flow);
        page.footer(&links.footer, total);
        page.out
    }
}

/// One page being written: its number and the host its links name, the
/// layout and word streams it draws from (in the order the page is
/// read, so a page is the same on every request), and the HTML so far.
struct PageWriter<'a> {
    n: u32,
    host: Option<&'a str>,
    layout: Rng,
    words: WordStream,
    out: String,
}

impl PageWriter<'_> {
    /// `<head>`: title, description, keywords, author, Open Graph, style.
    fn head(&mut self, title: &str) {
        let (n, out) = (self.n, &mut self.out);
        out.push_str(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
        );
        out.push_str(title);
        out.push_str("</title>\n<meta name=\"description\" content=\"");
        push_description(out, n);
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
        out.push_str(title);
        out.push_str("\">\n");
        out.push_str(STYLE);
    }

    /// The heading and the breadcrumb links.
    fn header(&mut self, nav: &[Link]) {
        // The heading comes first so that `words_of` can start with the title.
        self.out.push_str("</head>\n<body>\n<header><h1>");
        for (i, w) in title_words(self.n).iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            push_capitalized(&mut self.out, w);
        }
        self.out.push_str("</h1>\n<nav class=\"crumbs\">");
        for link in nav {
            self.anchor(link);
            self.out.push(' ');
        }
        self.out.push_str("</nav></header>\n<main>\n");
    }

    /// Sections of headed paragraphs and lists until `prose` words are
    /// spent, taking their links from `flow`.
    fn sections<'l>(&mut self, mut prose: usize, flow: &mut impl Iterator<Item = &'l Link>) {
        let mut section = 0u32;
        while prose > 0 {
            section += 1;
            let k = take(&mut prose, self.layout.range(2, 5));
            let _ = write!(self.out, "<h2 id=\"s{section}\">");
            push_sentence_words(&mut self.out, &mut self.words, k, false);
            self.out.push_str("</h2>\n");
            for _ in 0..self.layout.range(1, 3) {
                let k = take(&mut prose, self.layout.range(25, 90));
                if k == 0 {
                    break;
                }
                // An inline link sits between two words of the paragraph.
                let inline = if self.layout.below(3) == 0 {
                    flow.next()
                } else {
                    None
                };
                self.paragraph(k, inline);
            }
            if prose > 0 && self.layout.below(2) == 0 {
                self.list(&mut prose, flow);
            }
        }
    }

    /// A paragraph of `k` words in sentences, with `inline` at a random word.
    fn paragraph(&mut self, k: usize, inline: Option<&Link>) {
        let at = self.layout.below(k as u32) as usize;
        self.out.push_str("<p>");
        let mut sentence_left = 0;
        for i in 0..k {
            if i > 0 {
                self.out.push(' ');
            }
            if i == at {
                if let Some(link) = inline {
                    self.anchor(link);
                    self.out.push(' ');
                }
            }
            let w = self.words.next_word();
            if sentence_left == 0 {
                sentence_left = self.layout.range(5, 16);
                push_capitalized(&mut self.out, w);
            } else {
                self.out.push_str(w);
            }
            sentence_left -= 1;
            if sentence_left == 0 || i + 1 == k {
                self.out.push('.');
                sentence_left = 0;
            } else if self.layout.below(12) == 0 {
                self.out.push(',');
            }
        }
        self.out.push_str("</p>\n");
    }

    /// A list whose items are a link, words from `prose`, or both.
    fn list<'l>(&mut self, prose: &mut usize, flow: &mut impl Iterator<Item = &'l Link>) {
        self.out.push_str("<ul>\n");
        for _ in 0..self.layout.range(2, 5) {
            let link = if self.layout.below(4) != 0 {
                flow.next()
            } else {
                None
            };
            let k = take(prose, self.layout.range(3, 8));
            if link.is_none() && k == 0 {
                break;
            }
            self.out.push_str("<li>");
            if let Some(link) = link {
                self.anchor(link);
                if k > 0 {
                    self.out.push_str(": ");
                }
            }
            push_sentence_words(&mut self.out, &mut self.words, k, link.is_none());
            self.out.push_str("</li>\n");
        }
        self.out.push_str("</ul>\n");
    }

    /// The links the prose left over, as a list of related pages.
    fn related<'l>(&mut self, flow: impl Iterator<Item = &'l Link>) {
        let mut related = flow.peekable();
        if related.peek().is_some() {
            self.out.push_str("<ul class=\"related\">\n");
            for link in related {
                self.out.push_str("<li>");
                self.anchor(link);
                self.out.push_str("</li>\n");
            }
            self.out.push_str("</ul>\n");
        }
    }

    /// The footer link and the script that marks the page as rendered.
    fn footer(&mut self, footer: &Link, total: usize) {
        self.out.push_str("</main>\n<footer><p>");
        self.anchor(footer);
        self.out
            .push_str("</p></footer>\n<script>\n(function(){var ");
        self.out.push_str(SCRIPT_MARKER);
        let n = self.n;
        let _ = write!(
            self.out,
            "={{page:{n},words:{total}}};\
             document.documentElement.setAttribute(\"data-page\",String({SCRIPT_MARKER}.page));}})();"
        );
        self.out.push_str("\n</script>\n</body>\n</html>\n");
    }

    /// A link whose text is the next two words.
    fn anchor(&mut self, link: &Link) {
        self.out.push_str("<a href=\"");
        push_href(&mut self.out, self.n, link, self.host);
        self.out.push_str("\">");
        self.out.push_str(self.words.next_word());
        self.out.push(' ');
        self.out.push_str(self.words.next_word());
        self.out.push_str("</a>");
    }
}

//! The parsed tree walked once, without recursion: title, every meta tag,
//! the `<h1>` headings, the canonical link, links with their anchor text and
//! `rel=nofollow` (resolved against `<base href>`, deduplicated, capped) and
//! the visible text, node after node.

use rustc_hash::FxHashMap as HashMap;

use scraper::node::Element;
use scraper::{ElementRef, Html, Node};

use super::resources::{self, RawResource};
use super::{
    Document, Link, MetaTag, MAX_ANCHOR_CHARS, MAX_H1, MAX_LINKS_PER_PAGE, MAX_META_CONTENT_CHARS,
    MAX_META_NAME_CHARS, MAX_META_TAGS, MAX_TITLE_CHARS,
};
use crate::url::{resolve, Url};

pub(super) const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";

pub(super) fn parse_source(source: &str, page_url: &Url) -> Document {
    let html = Html::parse_document(source);

    let mut doc = Document {
        text: String::with_capacity(source.len() / 2),
        ..Document::default()
    };
    let mut base: Option<&str> = None;
    let mut canonical: Option<&str> = None;
    // Raw hrefs are resolved after the walk: a <base href> applies to every
    // link of the document, including links that come before it.
    let mut hrefs: Vec<RawLink> = Vec::new();
    // Resources as written, resolved with the links for the same reason.
    let mut raw_resources: Vec<RawResource> = Vec::new();
    let mut h1: Vec<String> = Vec::new();
    // Elements whose text is being gathered (anchors, headings), each with
    // the walk depth it was opened at: its subtree is everything deeper.
    let mut open: Vec<(usize, Capture)> = Vec::new();

    // Iterative pre-order walk: pages nested 100,000 deep must not overflow
    // the stack. Ancestors are kept on an explicit stack rather than read
    // back through `parent()`: ego-tree 0.6 (under scraper 0.20) left stale
    // parent links on nodes the parser moves during misnested-tag recovery
    // ("<em><div><p/></em>word"), and climbing through those lost the rest
    // of the page. Sibling links stay right; the stack costs nothing.
    let root = html.tree.root();
    let mut ancestors = vec![root];
    let mut next = root.first_child();
    loop {
        let Some(node) = next else {
            match ancestors.pop() {
                Some(ancestor) => {
                    next = ancestor.next_sibling();
                    continue;
                }
                None => break,
            }
        };
        let mut descend = true;
        let depth = ancestors.len();
        open.retain(|&(at, _)| depth > at);
        match node.value() {
            Node::Element(el) => {
                let name = el.name();
                // An svg <title> is a tooltip and may hold HTML content.
                let html_title = name == "title" && &*el.name.ns == XHTML_NS;
                doc.fragments.element(el);
                // Only a <source> depends on its parent (picture or media).
                let parent = match name {
                    "source" => ancestors.last().and_then(|n| n.value().as_element()),
                    _ => None,
                };
                resources::collect(
                    name,
                    parent.map_or("", |p| p.name()),
                    el,
                    &mut raw_resources,
                );
                match name {
                    "title" if html_title && doc.title.is_none() => {
                        doc.title = ElementRef::wrap(node).and_then(|e| title_text(e.text()));
                    }
                    "meta" => push_meta(&mut doc.meta, el),
                    "base" if base.is_none() => base = el.attr("href"),
                    "link" if canonical.is_none() && has_token(el.attr("rel"), "canonical") => {
                        canonical = el.attr("href");
                    }
                    "a" | "area" => {
                        if let Some(href) = el.attr("href") {
                            doc.fragments.href(href);
                            let nofollow = has_token(el.attr("rel"), "nofollow");
                            let mut anchor = String::new();
                            if name == "area" {
                                push_words(&mut anchor, el.attr("alt").unwrap_or(""));
                            } else {
                                open.push((depth, Capture::Anchor(hrefs.len())));
                            }
                            hrefs.push(RawLink {
                                href,
                                anchor,
                                nofollow,
                            });
                        }
                    }
                    "frame" | "iframe" => hrefs.extend(el.attr("src").map(|href| RawLink {
                        href,
                        anchor: String::new(),
                        nofollow: false,
                    })),
                    "h1" if h1.len() < MAX_H1 => {
                        open.push((depth, Capture::H1(h1.len())));
                        h1.push(String::new());
                    }
                    "h2" => doc.h2 = doc.h2.saturating_add(1),
                    // An image is the anchor text of the link around it.
                    "img" => {
                        if let Some(alt) = el.attr("alt") {
                            capture(&open, &mut hrefs, &mut h1, alt);
                        }
                    }
                    _ => {}
                }
                // Nothing visible or linkable lives inside these (the parser
                // keeps their content as raw text, or as template contents).
                descend = !html_title
                    && !matches!(
                        name,
                        "script" | "style" | "noscript" | "template" | "iframe"
                    );
            }
            // The head needs no case of its own: the parser moves non-blank
            // text out of it into the body, and its title, script, style,
            // noscript and template contents are not descended into.
            Node::Text(text) => {
                push_node(&mut doc.text, text);
                capture(&open, &mut hrefs, &mut h1, text);
            }
            _ => {}
        }
        match node.first_child() {
            Some(child) if descend => {
                ancestors.push(node);
                next = Some(child);
            }
            _ => next = node.next_sibling(),
        }
    }

    let base_url = base.and_then(|href| resolve(page_url, href).ok());
    let base_url = base_url.as_ref().unwrap_or(page_url);
    doc.links = resolve_links(base_url, hrefs);
    doc.fragments.resolve(base_url, &doc.links);
    doc.resources = resources::resolve_resources(base_url, raw_resources);
    doc.canonical = canonical.and_then(|href| resolve(base_url, href).ok());
    doc.h1 = h1
        .iter()
        .map(|h| clean(h, MAX_TITLE_CHARS))
        .filter(|h| !h.is_empty())
        .collect();
    doc.description = doc
        .meta
        .iter()
        .find(|m| m.attr == "name" && m.name == "description")
        .map(|m| m.content.clone())
        .filter(|d| !d.is_empty());
    doc
}

/// An `<a>`, `<area>` or frame as written, before resolving.
struct RawLink<'a> {
    href: &'a str,
    anchor: String,
    nofollow: bool,
}

/// Where text inside an open element goes.
#[derive(Clone, Copy)]
enum Capture {
    Anchor(usize),
    H1(usize),
}

/// Adds text to every element that is gathering it, each kept short: the
/// text is cleaned and cut later, this only bounds the work.
fn capture(open: &[(usize, Capture)], links: &mut [RawLink], h1: &mut [String], text: &str) {
    for &(_, c) in open {
        let (out, max) = match c {
            Capture::Anchor(i) => (links.get_mut(i).map(|l| &mut l.anchor), MAX_ANCHOR_CHARS),
            Capture::H1(i) => (h1.get_mut(i), MAX_TITLE_CHARS),
        };
        if let Some(out) = out.filter(|o| o.len() < max * 4) {
            push_words(out, text);
        }
    }
}

/// Whether a space-separated attribute (`rel`) holds `token`, in any case.
pub(super) fn has_token(value: Option<&str>, token: &str) -> bool {
    value.is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

pub(super) fn title_text<'a>(pieces: impl Iterator<Item = &'a str>) -> Option<String> {
    let raw: String = pieces.collect();
    let title = clean(&raw, MAX_TITLE_CHARS);
    (!title.is_empty()).then_some(title)
}

/// The attributes that name a meta tag, in the order they are looked for.
const META_NAMING: [&str; 4] = ["name", "property", "http-equiv", "itemprop"];

fn push_meta(meta: &mut Vec<MetaTag>, el: &Element) {
    if meta.len() >= MAX_META_TAGS {
        return;
    }
    // `<meta charset>` has no content: the charset is its value.
    let named = META_NAMING
        .iter()
        .find_map(|&attr| Some((attr, el.attr(attr)?, el.attr("content")?)))
        .or_else(|| Some(("charset", "charset", el.attr("charset")?)));
    let Some((attr, name, content)) = named else {
        return;
    };
    let name = clean(name, MAX_META_NAME_CHARS).to_lowercase();
    if !name.is_empty() {
        meta.push(MetaTag {
            attr: attr.to_string(),
            name,
            content: clean(content, MAX_META_CONTENT_CHARS),
        });
    }
}

/// Whitespace runs collapsed to one space, trimmed, control characters
/// (NUL included) dropped, at most `max_chars` characters.
pub(super) fn clean(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars));
    let mut chars = 0;
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = chars > 0;
        } else if !c.is_control() {
            let needed = 1 + usize::from(space);
            if chars + needed > max_chars {
                break;
            }
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
            chars += needed;
        }
    }
    out
}

/// Appends a text node after one space, so that "<p>a</p><p>b</p>" gives
/// "a b" and never "ab"; the node's own whitespace stays as written, for
/// the analyzer and snippets split words themselves (collapsing it here
/// was 3% of a crawl's CPU). Blank nodes (indentation) add nothing.
fn push_node(out: &mut String, text: &str) {
    if text.trim_ascii_start().is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(text);
}

/// Appends a text node's words, one space between words and between nodes,
/// so that "<p>a</p><p>b</p>" gives "a b" and never "ab". Whitespace is
/// Unicode's (`char::is_whitespace`, so &nbsp; separates words); a byte loop
/// rather than `split_whitespace`, which costs a char decode per byte.
pub(super) fn push_words(out: &mut String, text: &str) {
    let mut word_start = None;
    let mut i = 0;
    while i < text.len() {
        let space = whitespace_len(text, i);
        if space == 0 {
            word_start.get_or_insert(i);
            i += 1;
            continue;
        }
        if let Some(start) = word_start.take() {
            push_word(out, text.get(start..i).unwrap_or(""));
        }
        i += space;
    }
    if let Some(start) = word_start {
        push_word(out, text.get(start..).unwrap_or(""));
    }
}

pub(super) fn push_word(out: &mut String, word: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(word);
}

/// Byte length of the whitespace char at byte `i` of `s`, 0 when there is
/// none. Only the lead bytes 0xC2, 0xE1, 0xE2 and 0xE3 can begin a non-ASCII
/// whitespace char; continuation bytes never match, so a word's bytes can be
/// stepped over one at a time.
pub(super) fn whitespace_len(s: &str, i: usize) -> usize {
    match s.as_bytes().get(i) {
        Some(b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') => 1,
        Some(0xC2 | 0xE1..=0xE3) => s
            .get(i..)
            .and_then(|rest| rest.chars().next())
            .filter(|c| c.is_whitespace())
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// Resolves, drops rejects, deduplicates in first-seen order, caps. A URL
/// linked several times keeps its first anchor text, and is nofollow only
/// if every link to it is.
fn resolve_links(base: &Url, hrefs: Vec<RawLink>) -> Vec<Link> {
    let mut links: Vec<Link> = Vec::new();
    let mut seen = HashMap::default();
    for raw in hrefs {
        if links.len() >= MAX_LINKS_PER_PAGE {
            break;
        }
        let Ok(url) = resolve(base, raw.href) else {
            continue;
        };
        // Only an href that may hold `user@` pays for a second join.
        let userinfo = raw
            .href
            .contains('@')
            .then(|| base.join(raw.href).ok())
            .flatten()
            .and_then(|u| crate::url::userinfo(&u));
        if let Some(&i) = seen.get(url.as_str()) {
            let link: &mut Link = &mut links[i];
            link.nofollow &= raw.nofollow;
            link.userinfo = link.userinfo.take().or(userinfo);
            if link.anchor.is_empty() {
                link.anchor = clean(&raw.anchor, MAX_ANCHOR_CHARS);
            }
            continue;
        }
        seen.insert(url.as_str().to_owned(), links.len());
        links.push(Link {
            url,
            anchor: clean(&raw.anchor, MAX_ANCHOR_CHARS),
            nofollow: raw.nofollow,
            userinfo,
        });
    }
    links
}

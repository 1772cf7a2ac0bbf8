//! What a pass over a page keeps, whichever pass reads it (the streaming
//! one of [`super::stream`], or the tree walk that is its test oracle):
//! each element handed here by name and attributes gives the title, meta
//! tags, `<h1>` headings, canonical and base links, links with their anchor
//! text, element, `rel=nofollow` and position, resources and ids;
//! [`Gathered::finish`] then resolves the links against `<base href>`,
//! keeps each as an occurrence and folds them one per target, capped.

use rustc_hash::FxHashMap as HashMap;

use super::audit_facts::RawFacts;
use super::resources::{self, RawResource};
use super::text::{clean, has_token};
use super::{
    Document, Link, LinkElement, MetaTag, Occurrence, Position, Rel, MAX_ANCHOR_CHARS, MAX_H1,
    MAX_LINKS_PER_PAGE, MAX_META_CONTENT_CHARS, MAX_META_NAME_CHARS, MAX_META_TAGS,
    MAX_OCCURRENCES_PER_PAGE, MAX_TITLE_CHARS,
};
use crate::url::{resolve, Url};

/// What the elements of a page gave, as written, before resolving: a
/// `<base href>` applies to every link of the document, including links
/// that come before it.
#[derive(Default)]
pub(super) struct Gathered {
    base: Option<String>,
    canonical: Option<String>,
    hrefs: Vec<RawLink>,
    resources: Vec<RawResource>,
    h1: Vec<String>,
    facts: RawFacts,
}

/// What the pass must do about an element it handed to [`Gathered::element`].
pub(super) enum Visit<'a> {
    Nothing,
    /// The element's text is the page title (if not blank).
    Title,
    /// The element's text (its subtree's) goes to this anchor or heading.
    Capture(Capture),
    /// An image: its alt text goes to the anchors and headings around it.
    Alt(&'a str),
    /// A JSON-LD script: its text goes to [`Gathered::script_text`].
    JsonLd,
}

impl Gathered {
    /// Notes element `name` (inside `parent`, with attributes `attr`);
    /// `html_title` tells an HTML `<title>` from an svg one, a tooltip;
    /// `position` says where a link would be (asked of links only: it
    /// walks the open elements).
    pub(super) fn element<'a>(
        &mut self,
        doc: &mut Document,
        (name, parent, html_title): (&str, &str, bool),
        attr: impl Fn(&str) -> Option<&'a str>,
        position: impl FnOnce() -> Position,
    ) -> Visit<'a> {
        doc.fragments.element(&attr);
        resources::collect(name, parent, &attr, &mut self.resources);
        if self.facts.element(name, &attr) {
            return Visit::JsonLd;
        }
        match name {
            "title" if html_title && doc.title.is_none() => return Visit::Title,
            "meta" => push_meta(&mut doc.meta, &attr),
            "base" if self.base.is_none() => self.base = attr("href").map(str::to_owned),
            "link" if self.canonical.is_none() && has_token(attr("rel"), "canonical") => {
                self.canonical = attr("href").map(str::to_owned);
            }
            "a" | "area" => {
                if let Some(href) = attr("href") {
                    doc.fragments.href(href);
                    let rel = Rel::parse(attr("rel"));
                    let mut anchor = String::new();
                    let (capture, element) = if name == "area" {
                        push_words(&mut anchor, attr("alt").unwrap_or(""));
                        (Visit::Nothing, LinkElement::Area)
                    } else {
                        let at = Capture::Anchor(self.hrefs.len());
                        (Visit::Capture(at), LinkElement::A)
                    };
                    self.hrefs.push(RawLink {
                        href: href.to_owned(),
                        anchor,
                        rel,
                        element,
                        position: position(),
                    });
                    return capture;
                }
            }
            "frame" | "iframe" => {
                if let Some(href) = attr("src") {
                    self.hrefs.push(RawLink {
                        href: href.to_owned(),
                        anchor: String::new(),
                        rel: Rel::default(),
                        element: if name == "frame" {
                            LinkElement::Frame
                        } else {
                            LinkElement::Iframe
                        },
                        position: position(),
                    });
                }
            }
            "h1" if self.h1.len() < MAX_H1 => {
                self.h1.push(String::new());
                return Visit::Capture(Capture::H1(self.h1.len() - 1));
            }
            "h2" => doc.h2 = doc.h2.saturating_add(1),
            "img" => {
                if let Some(alt) = attr("alt") {
                    return Visit::Alt(alt);
                }
            }
            _ => {}
        }
        Visit::Nothing
    }

    /// Adds text to one element that is gathering it, kept short: the text
    /// is cleaned and cut later, this only bounds the work.
    pub(super) fn capture(&mut self, c: Capture, text: &str) {
        let (out, max) = match c {
            Capture::Anchor(i) => (
                self.hrefs.get_mut(i).map(|l| &mut l.anchor),
                MAX_ANCHOR_CHARS,
            ),
            Capture::H1(i) => (self.h1.get_mut(i), MAX_TITLE_CHARS),
        };
        if let Some(out) = out.filter(|o| o.len() < max * 4) {
            push_words(out, text);
        }
    }

    /// Text of the JSON-LD script being read.
    pub(super) fn script_text(&mut self, text: &str) {
        self.facts.script_text(text);
    }

    /// How much text a capture holds so far.
    pub(super) fn captured_len(&self, c: Capture) -> usize {
        match c {
            Capture::Anchor(i) => self.hrefs.get(i).map_or(0, |l| l.anchor.len()),
            Capture::H1(i) => self.h1.get(i).map_or(0, String::len),
        }
    }

    /// An anchor split at `at` by the tree builder (an `<a>` around a block
    /// it moves out): the link keeps its text before `at`, or, when that is
    /// blank, the text after it (which the copy of the `<a>` got).
    pub(super) fn cut_anchor(&mut self, c: Capture, at: usize) {
        let Capture::Anchor(i) = c else {
            return;
        };
        let Some(anchor) = self.hrefs.get_mut(i).map(|l| &mut l.anchor) else {
            return;
        };
        match (anchor.get(..at), anchor.get(at..)) {
            (Some(head), _) if !head.trim().is_empty() => anchor.truncate(at),
            (_, Some(tail)) => *anchor = tail.trim_start().to_owned(),
            _ => {}
        }
    }

    /// The document, its links, resources, fragments and canonical link
    /// resolved against the base.
    pub(super) fn finish(self, mut doc: Document, page_url: &Url) -> Document {
        let base_url = self
            .base
            .as_deref()
            .and_then(|href| resolve(page_url, href).ok());
        let base_url = base_url.as_ref().unwrap_or(page_url);
        (doc.links, doc.occurrences) = resolve_links(base_url, self.hrefs);
        doc.fragments.resolve(base_url, &doc.links);
        doc.resources = resources::resolve_resources(base_url, self.resources);
        doc.audit = self.facts.finish(base_url, page_url);
        doc.canonical = self
            .canonical
            .and_then(|href| resolve(base_url, &href).ok());
        doc.h1 = self
            .h1
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
}

/// An `<a>`, `<area>` or frame as written, before resolving.
struct RawLink {
    href: String,
    anchor: String,
    rel: Rel,
    element: LinkElement,
    position: Position,
}

/// Where text inside an open element goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Capture {
    Anchor(usize),
    H1(usize),
}

pub(super) fn title_text<'a>(pieces: impl Iterator<Item = &'a str>) -> Option<String> {
    let raw: String = pieces.collect();
    let title = clean(&raw, MAX_TITLE_CHARS);
    (!title.is_empty()).then_some(title)
}

/// The attributes that name a meta tag, in the order they are looked for.
const META_NAMING: [&str; 4] = ["name", "property", "http-equiv", "itemprop"];

fn push_meta<'a>(meta: &mut Vec<MetaTag>, attr: impl Fn(&str) -> Option<&'a str>) {
    if meta.len() >= MAX_META_TAGS {
        return;
    }
    // `<meta charset>` has no content: the charset is its value.
    let named = META_NAMING
        .iter()
        .find_map(|&naming| Some((naming, attr(naming)?, attr("content")?)))
        .or_else(|| Some(("charset", "charset", attr("charset")?)));
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

/// Resolves, drops rejects, keeps each link as an occurrence and folds
/// them one per target in first-seen order, both capped. A URL linked
/// several times keeps its first anchor text, and the `rel` tokens every
/// link to it has: nofollow only if every link to it is.
fn resolve_links(base: &Url, hrefs: Vec<RawLink>) -> (Vec<Link>, Vec<Occurrence>) {
    let mut links: Vec<Link> = Vec::new();
    let mut occurrences = Vec::new();
    let mut seen = HashMap::default();
    for raw in hrefs {
        if links.len() >= MAX_LINKS_PER_PAGE {
            break;
        }
        let Ok(url) = resolve(base, &raw.href) else {
            continue;
        };
        let anchor = clean(&raw.anchor, MAX_ANCHOR_CHARS);
        let occurrence = |link| Occurrence {
            link,
            anchor: anchor.clone(),
            element: raw.element,
            rel: raw.rel,
            fragment: super::fragments::fragment_of(&raw.href),
            position: raw.position,
        };
        // Only an href that may hold `user@` pays for a second join.
        let userinfo = raw
            .href
            .contains('@')
            .then(|| base.join(&raw.href).ok())
            .flatten()
            .and_then(|u| crate::url::userinfo(&u));
        let keep = occurrences.len() < MAX_OCCURRENCES_PER_PAGE;
        if let Some(&i) = seen.get(url.as_str()) {
            if keep {
                occurrences.push(occurrence(i));
            }
            let link: &mut Link = &mut links[i];
            link.rel = link.rel.common(raw.rel);
            link.userinfo = link.userinfo.take().or(userinfo);
            if link.anchor.is_empty() {
                link.anchor = anchor;
            }
            continue;
        }
        seen.insert(url.as_str().to_owned(), links.len());
        if keep {
            occurrences.push(occurrence(links.len()));
        }
        links.push(Link {
            url,
            anchor,
            rel: raw.rel,
            userinfo,
        });
    }
    (links, occurrences)
}

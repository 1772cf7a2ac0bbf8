//! One fetched body turned into a `Document`: charset decoding, title, meta
//! tags, outgoing links and visible text. Pure functions, no I/O; hostile
//! input (binary garbage, absurd nesting, link floods) is bounded, never fatal.

use rustc_hash::FxHashSet as HashSet;
use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};
use scraper::node::Element;
use scraper::{ElementRef, Html, Node};

use crate::url::{resolve, Url};

pub const MAX_TITLE_CHARS: usize = 300;
/// Links beyond this many distinct ones are ignored (hostile pages).
pub const MAX_LINKS_PER_PAGE: usize = 5_000;
pub const MAX_META_TAGS: usize = 100;
pub const MAX_META_CONTENT_CHARS: usize = 1_000;
/// Meta names are keys, not prose: a long one is garbage.
pub const MAX_META_NAME_CHARS: usize = 100;

/// html5ever has quadratic corners that a hostile page can hit: its tree
/// builder scans the stack of open elements on most start tags (100,000
/// nested divs: most of a minute) and its tokenizer checks each attribute
/// against the tag's earlier ones (100,000 attributes: 15 s). Pages with more
/// tags than this, or a tag with more attributes than the next bound, are
/// flattened first (see `flatten`); below both bounds the worst case found
/// (2,048 nested formatting tags, each distinct) takes about 0.15 s.
/// Ordinary pages have a few hundred tags.
const FLATTEN_ABOVE_TAGS: usize = 2048;
/// Flattening also cuts tags down to this many attributes.
const MAX_ATTRIBUTES: usize = 128;

/// How far into the body a `<meta charset>` is looked for, as browsers do.
const PRESCAN_BYTES: usize = 1024;
const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub title: Option<String>,
    pub meta: Vec<(String, String)>,
    pub links: Vec<Url>,
    pub text: String,
}

/// Decode bytes to text. The encoding comes from a byte order mark, else the
/// Content-Type header's charset parameter, else a `<meta charset>` or
/// `<meta http-equiv=content-type content="...charset=...">` in the first
/// 1024 bytes, else UTF-8. Malformed bytes become U+FFFD; NUL bytes are
/// removed.
pub fn decode(body: &[u8], content_type: Option<&str>) -> String {
    decode_with(body, content_type, true)
}

/// Parse an HTML body fetched from `page_url`.
pub fn parse_html(body: &[u8], content_type: Option<&str>, page_url: &Url) -> Document {
    let mut source = decode(body, content_type);
    if needs_flatten(&source) {
        source = flatten(&source);
    }
    parse_source(&source, page_url)
}

fn parse_source(source: &str, page_url: &Url) -> Document {
    let html = Html::parse_document(source);

    let mut doc = Document {
        text: String::with_capacity(source.len() / 2),
        ..Document::default()
    };
    let mut base: Option<&str> = None;
    // Raw hrefs are resolved after the walk: a <base href> applies to every
    // link of the document, including links that come before it.
    let mut hrefs: Vec<&str> = Vec::new();

    // Iterative pre-order walk: pages nested 100,000 deep must not overflow
    // the stack. Ancestors are kept on an explicit stack rather than read
    // back through `parent()`: ego-tree 0.6 (under scraper 0.20) leaves stale
    // parent links on nodes the parser moves during misnested-tag recovery
    // ("<em><div><p/></em>word"), and climbing through those loses the rest
    // of the page. Sibling links stay right.
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
        match node.value() {
            Node::Element(el) => {
                let name = el.name();
                // An svg <title> is a tooltip and may hold HTML content.
                let html_title = name == "title" && &*el.name.ns == XHTML_NS;
                match name {
                    "title" if html_title && doc.title.is_none() => {
                        doc.title = ElementRef::wrap(node).and_then(|e| title_text(e.text()));
                    }
                    "meta" => push_meta(&mut doc.meta, el),
                    "base" if base.is_none() => base = el.attr("href"),
                    "a" | "area" => hrefs.extend(el.attr("href")),
                    "frame" | "iframe" => hrefs.extend(el.attr("src")),
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
            Node::Text(text) => push_words(&mut doc.text, text),
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
    doc.links = resolve_links(base_url.as_ref().unwrap_or(page_url), &hrefs);
    doc
}

/// A text/plain body: no title, no links, the decoded text.
pub fn parse_text(body: &[u8], content_type: Option<&str>) -> Document {
    Document {
        // Plain text is never sniffed for <meta>: a .txt quoting HTML would
        // otherwise pick the quoted page's charset.
        text: decode_with(body, content_type, false),
        ..Document::default()
    }
}

fn decode_with(body: &[u8], content_type: Option<&str>, prescan: bool) -> String {
    let encoding = content_type
        .and_then(charset_param)
        .and_then(Encoding::for_label)
        .or_else(|| prescan.then(|| prescan_meta(body)).flatten())
        .unwrap_or(UTF_8);
    // encoding_rs lets a BOM override the chosen encoding, as browsers do: a
    // BOM is stronger evidence than a server's (often defaulted) header.
    let (text, _, _) = encoding.decode(body);
    match text {
        Cow::Borrowed(s) if !s.contains('\0') => s.to_owned(),
        Cow::Owned(s) if !s.contains('\0') => s,
        text => text.replace('\0', ""),
    }
}

/// The charset parameter of a Content-Type value, quotes removed.
fn charset_param(content_type: &str) -> Option<&[u8]> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| {
            value
                .trim()
                .trim_matches(|c| c == '"' || c == '\'')
                .as_bytes()
        })
    })
}

/// The WHATWG "prescan a byte stream to determine its encoding" algorithm,
/// limited to the first 1024 bytes. Comments and other tags' attributes are
/// skipped so that a quoted "<meta charset>" does not count.
fn prescan_meta(body: &[u8]) -> Option<&'static Encoding> {
    let s = &body[..body.len().min(PRESCAN_BYTES)];
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.first() != Some(&b'<') {
            i += 1;
        } else if rest.starts_with(b"<!--") {
            // "<!-->" closes at once: the "--" of the opener counts.
            i += find(&rest[2..], b"-->").map_or(rest.len(), |p| p + 5);
        } else if starts_with_ignore_case(rest, b"<meta")
            && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/')
        {
            let (encoding, end) = meta_encoding(s, i + 5);
            if encoding.is_some() {
                return encoding;
            }
            i = end;
        } else if is_tag_start(rest) {
            let mut j = i + 2;
            while j < s.len() && !is_space(s[j]) && s[j] != b'>' {
                j += 1;
            }
            loop {
                let (attr, end) = attribute(s, j);
                j = end;
                if attr.is_none() {
                    break;
                }
            }
            i = j + 1;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += find(rest, b">").map_or(rest.len(), |p| p + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// Reads the attributes of a `<meta` tag starting at `i`; returns the
/// encoding it declares, if any, and the position after the tag.
fn meta_encoding(s: &[u8], mut i: usize) -> (Option<&'static Encoding>, usize) {
    let (mut charset, mut http_equiv, mut content) = (None, None, None);
    loop {
        let (attr, end) = attribute(s, i);
        i = end;
        let Some((name, value)) = attr else { break };
        let slot = if name.eq_ignore_ascii_case(b"charset") {
            &mut charset
        } else if name.eq_ignore_ascii_case(b"http-equiv") {
            &mut http_equiv
        } else if name.eq_ignore_ascii_case(b"content") {
            &mut content
        } else {
            continue;
        };
        // The first occurrence of an attribute wins.
        slot.get_or_insert(value);
    }
    let label = charset.or_else(|| {
        http_equiv
            .filter(|v| v.eq_ignore_ascii_case(b"content-type"))
            .and(content)
            .and_then(charset_from_content)
    });
    let encoding = label.and_then(Encoding::for_label).map(|e| {
        // A page readable as ASCII to find this tag cannot be UTF-16.
        if e == UTF_16LE || e == UTF_16BE {
            UTF_8
        } else if e == X_USER_DEFINED {
            WINDOWS_1252
        } else {
            e
        }
    });
    (encoding, i + 1)
}

/// An attribute's (name, value) bytes, as written.
type Attribute<'a> = (&'a [u8], &'a [u8]);

/// One attribute of a tag at `i`: `Some((name, value))`, or None at the end
/// of the tag (`>` or end of input); and the position after what was read.
fn attribute(s: &[u8], mut i: usize) -> (Option<Attribute<'_>>, usize) {
    while i < s.len() && (is_space(s[i]) || s[i] == b'/') {
        i += 1;
    }
    if i >= s.len() || s[i] == b'>' {
        return (None, i);
    }
    let name_start = i;
    while i < s.len() {
        let b = s[i];
        if (b == b'=' && i > name_start) || is_space(b) || b == b'/' || b == b'>' {
            break;
        }
        i += 1;
    }
    let name = &s[name_start..i];
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    if s.get(i) != Some(&b'=') {
        return (Some((name, &[])), i);
    }
    i += 1;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let value = match s.get(i) {
        Some(&quote) if quote == b'"' || quote == b'\'' => {
            let start = i + 1;
            let end = find(&s[start..], &[quote]).map_or(s.len(), |p| start + p);
            i = (end + 1).min(s.len());
            &s[start..end]
        }
        _ => {
            let start = i;
            while i < s.len() && !is_space(s[i]) && s[i] != b'>' {
                i += 1;
            }
            &s[start..i]
        }
    };
    (Some((name, value)), i)
}

/// The WHATWG "extract a character encoding from a meta element" algorithm.
fn charset_from_content(content: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        i += find_ignore_case(&content[i..], b"charset")? + b"charset".len();
        while content.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        if content.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while content.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        let rest = &content[i.min(content.len())..];
        return match rest.first() {
            Some(&quote) if quote == b'"' || quote == b'\'' => {
                find(&rest[1..], &[quote]).map(|end| &rest[1..1 + end])
            }
            Some(_) => {
                let end = rest
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(rest.len());
                Some(&rest[..end])
            }
            None => None,
        };
    }
}

/// Elements that `flatten` keeps: everything `parse_html` extracts, the raw
/// text elements (their content must stay unparsed), and the skeleton.
#[rustfmt::skip]
const FLATTEN_KEEP: &[&str] = &[
    "html", "head", "body", "title", "meta", "base", "a", "area", "frameset", "frame", "iframe",
    "script", "style", "noscript", "textarea", "xmp", "noembed", "noframes", "plaintext",
];
/// Of those, the ones whose content is raw text up to their end tag.
const RAW_TEXT: &[&str] = &[
    "title", "script", "style", "noscript", "textarea", "xmp", "noembed", "noframes", "iframe",
];
/// Inside svg these are not the HTML elements of the same name, which they
/// would turn into once the svg tags are gone: `flatten` drops their tags,
/// and for the last two, whose text `parse_html` skips, their content too.
const SVG_NOT_HTML: &[&str] = &["title", "style", "script"];
const SVG_HIDDEN: &[&str] = &["style", "script"];
/// HTML start tags that end foreign content: the parser closes the svg.
#[rustfmt::skip]
const BREAKOUT: &[&str] = &[
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
    "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing",
    "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike",
    "sub", "sup", "table", "tt", "u", "ul", "var",
];

/// Whether `src` has more than `FLATTEN_ABOVE_TAGS` tags or a tag with more
/// than `MAX_ATTRIBUTES` attributes. One linear pass that reads tags the way
/// the tokenizer does; where it cannot be exact it errs towards seeing more
/// tags, never fewer.
fn needs_flatten(src: &str) -> bool {
    let s = src.as_bytes();
    let mut tags = 0;
    // In svg and math, <style>, <script> and <title> are not raw text, and
    // where foreign content ends takes the tree builder to know: after the
    // first one, everything is scanned for tags.
    let mut foreign_seen = false;
    let mut i = 0;
    while let Some(lt) = next_lt(s, i) {
        let rest = &s[lt..];
        let Some(tag) = Tag::at(rest) else {
            i = lt + markup_len(rest);
            continue;
        };
        tags += 1;
        if tags > FLATTEN_ABOVE_TAGS || tag.cut.is_some() {
            return true;
        }
        i = lt + tag.len;
        foreign_seen |= is_one_of(tag.name, &["svg", "math"]);
        if !tag.closing && !foreign_seen {
            if tag.name.eq_ignore_ascii_case(b"plaintext") {
                return false;
            }
            if is_one_of(tag.name, RAW_TEXT) {
                i = raw_text_end(s, i, tag.name);
            }
        }
    }
    false
}

/// Rewrites a hostile document so that the tree builder never sees deep
/// nesting or attribute floods: every tag outside `FLATTEN_KEEP` becomes a
/// space (so words on either side stay apart), template subtrees and svg's
/// style/script are removed, kept tags lose attributes beyond
/// `MAX_ATTRIBUTES`. Text, comments, character references and kept tags are
/// otherwise copied verbatim, so the title, meta tags, links and visible
/// words come out as before; only the structure, which `parse_html` does not
/// use, is lost. Linear time.
fn flatten(src: &str) -> String {
    let s = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    // Every index used to slice `src` sits on an ASCII byte ('<', '>', the
    // space before an attribute) or just after one: always a char boundary.
    let mut copied = 0;
    let mut svg_depth = 0usize;
    let mut i = 0;
    while let Some(lt) = next_lt(s, i) {
        let rest = &s[lt..];
        let Some(tag) = Tag::at(rest) else {
            i = lt + markup_len(rest);
            continue;
        };
        let tag_end = lt + tag.len;
        let name = tag.name;
        if name.eq_ignore_ascii_case(b"svg") {
            if tag.closing {
                svg_depth = svg_depth.saturating_sub(1);
            } else if !tag.self_closing {
                svg_depth += 1;
            }
        } else if !tag.closing && is_one_of(name, BREAKOUT) {
            svg_depth = 0;
        }
        let in_svg = svg_depth > 0;
        if is_one_of(name, FLATTEN_KEEP) && !(in_svg && is_one_of(name, SVG_NOT_HTML)) {
            if let Some(cut) = tag.cut {
                out.push_str(src.get(copied..lt + cut).unwrap_or(""));
                out.push('>');
                copied = tag_end;
            }
            if tag.closing {
                // An end tag the tree builder ignores (its element already
                // closed by flattening) must still keep words apart.
                out.push_str(src.get(copied..tag_end).unwrap_or(""));
                out.push(' ');
                copied = tag_end;
            }
            i = tag_end;
            if !tag.closing && name.eq_ignore_ascii_case(b"plaintext") {
                break;
            }
            if !tag.closing && is_one_of(name, RAW_TEXT) {
                i = raw_text_end(s, i, name);
            }
            continue;
        }
        let drop_subtree =
            (in_svg && is_one_of(name, SVG_HIDDEN)) || name.eq_ignore_ascii_case(b"template");
        let end = if drop_subtree && !tag.closing && !tag.self_closing {
            subtree_end(s, tag_end, name)
        } else {
            tag_end
        };
        out.push_str(src.get(copied..lt).unwrap_or(""));
        out.push(' ');
        copied = end;
        i = end;
    }
    out.push_str(src.get(copied..).unwrap_or(""));
    out
}

fn next_lt(s: &[u8], from: usize) -> Option<usize> {
    s.get(from..)?
        .iter()
        .position(|&b| b == b'<')
        .map(|p| p + from)
}

/// A start or end tag as the HTML tokenizer reads it.
struct Tag<'a> {
    name: &'a [u8],
    closing: bool,
    self_closing: bool,
    /// Bytes up to and including the closing '>' (or to the end of input).
    len: usize,
    /// Where the attribute after the first `MAX_ATTRIBUTES` begins, if any.
    cut: Option<usize>,
}

impl<'a> Tag<'a> {
    /// The tag starting at `s[0] == b'<'`, None when it is not a tag.
    fn at(s: &'a [u8]) -> Option<Tag<'a>> {
        let closing = s.get(1) == Some(&b'/');
        let start = 1 + usize::from(closing);
        if !s.get(start).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut i = start;
        while i < s.len() && !is_space(s[i]) && s[i] != b'/' && s[i] != b'>' {
            i += 1;
        }
        let name = &s[start..i];
        let mut attributes = 0;
        let mut cut = None;
        loop {
            let before = i;
            let (attr, end) = attribute(s, i);
            i = end;
            if attr.is_none() {
                break;
            }
            attributes += 1;
            if attributes > MAX_ATTRIBUTES && cut.is_none() {
                cut = Some(before);
            }
        }
        Some(Tag {
            name,
            closing,
            self_closing: i > 0 && s.get(i - 1) == Some(&b'/'),
            len: (i + 1).min(s.len()),
            cut,
        })
    }
}

/// Length of the non-tag markup starting at `s[0] == b'<'`: a comment, a
/// doctype or bogus comment, or a lone '<' of text.
fn markup_len(s: &[u8]) -> usize {
    if s.starts_with(b"<!--") {
        if s.starts_with(b"<!-->") {
            return 5;
        }
        if s.starts_with(b"<!--->") {
            return 6;
        }
        let body = &s[4..];
        let end = [
            find(body, b"-->").map(|p| p + 3),
            find(body, b"--!>").map(|p| p + 4),
        ]
        .into_iter()
        .flatten()
        .min();
        return 4 + end.unwrap_or(body.len());
    }
    if s.starts_with(b"<!") || s.starts_with(b"<?") || s.starts_with(b"</") {
        return find(s, b">").map_or(s.len(), |p| p + 1);
    }
    1
}

/// Where the raw text of element `name` that starts at `from` ends: at its
/// end tag, or at the end of input.
fn raw_text_end(s: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(p) = find(&s[i..], b"</") {
        let at = i + p;
        let after = at + 2 + name.len();
        if s.get(at + 2..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && s.get(after)
                .is_none_or(|&b| is_space(b) || b == b'/' || b == b'>')
        {
            return at;
        }
        i = at + 2;
    }
    s.len()
}

/// The end (after its end tag's '>') of the element `name` whose start tag
/// ends at `from`, counting nested elements of the same name.
fn subtree_end(s: &[u8], from: usize, name: &[u8]) -> usize {
    let mut depth = 1usize;
    let mut i = from;
    while let Some(lt) = next_lt(s, i) {
        match Tag::at(&s[lt..]) {
            Some(tag) if tag.name.eq_ignore_ascii_case(name) => {
                i = lt + tag.len;
                if tag.closing {
                    depth -= 1;
                    if depth == 0 {
                        return i;
                    }
                } else if !tag.self_closing {
                    depth += 1;
                }
            }
            Some(tag) => i = lt + tag.len,
            None => i = lt + markup_len(&s[lt..]),
        }
    }
    s.len()
}

fn is_one_of(name: &[u8], set: &[&str]) -> bool {
    set.iter().any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn is_tag_start(rest: &[u8]) -> bool {
    match rest.get(1) {
        Some(b) if b.is_ascii_alphabetic() => true,
        Some(b'/') => rest.get(2).is_some_and(u8::is_ascii_alphabetic),
        _ => false,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

fn title_text<'a>(pieces: impl Iterator<Item = &'a str>) -> Option<String> {
    let raw: String = pieces.collect();
    let title = clean(&raw, MAX_TITLE_CHARS);
    (!title.is_empty()).then_some(title)
}

fn push_meta(meta: &mut Vec<(String, String)>, el: &Element) {
    if meta.len() >= MAX_META_TAGS {
        return;
    }
    let Some(name) = el.attr("name").or_else(|| el.attr("property")) else {
        return;
    };
    let Some(content) = el.attr("content") else {
        return;
    };
    let name = clean(name, MAX_META_NAME_CHARS).to_lowercase();
    if !name.is_empty() {
        meta.push((name, clean(content, MAX_META_CONTENT_CHARS)));
    }
}

/// Whitespace runs collapsed to one space, trimmed, control characters
/// (NUL included) dropped, at most `max_chars` characters.
fn clean(s: &str, max_chars: usize) -> String {
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

/// Appends a text node's words, one space between words and between nodes,
/// so that "<p>a</p><p>b</p>" gives "a b" and never "ab". Whitespace is
/// Unicode's (`char::is_whitespace`, so &nbsp; separates words); a byte loop
/// rather than `split_whitespace`, which costs a char decode per byte.
fn push_words(out: &mut String, text: &str) {
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

fn push_word(out: &mut String, word: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(word);
}

/// Byte length of the whitespace char at byte `i` of `s`, 0 when there is
/// none. Only the lead bytes 0xC2, 0xE1, 0xE2 and 0xE3 can begin a non-ASCII
/// whitespace char; continuation bytes never match, so a word's bytes can be
/// stepped over one at a time.
fn whitespace_len(s: &str, i: usize) -> usize {
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

/// Resolves, drops rejects, deduplicates in first-seen order, caps.
fn resolve_links(base: &Url, hrefs: &[&str]) -> Vec<Url> {
    let mut links = Vec::new();
    let mut seen = HashSet::default();
    for href in hrefs {
        if links.len() >= MAX_LINKS_PER_PAGE {
            break;
        }
        if let Ok(url) = resolve(base, href) {
            if seen.insert(url.as_str().to_owned()) {
                links.push(url);
            }
        }
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Url {
        Url::parse("http://h/dir/page.html").expect("test URL")
    }

    fn parse(html: &str) -> Document {
        parse_html(html.as_bytes(), Some("text/html"), &page())
    }

    fn link_strings(doc: &Document) -> Vec<&str> {
        doc.links.iter().map(Url::as_str).collect()
    }

    #[test]
    fn charset_from_header() {
        let body = b"caf\xe9";
        assert_eq!(
            decode(body, Some("text/html; charset=windows-1252")),
            "café"
        );
        assert_eq!(
            decode(body, Some("text/html;CHARSET=\"ISO-8859-1\"")),
            "café"
        );
        // an unknown label falls through to the default
        assert_eq!(
            decode(b"caf\xc3\xa9", Some("text/html; charset=bogus")),
            "café"
        );
    }

    #[test]
    fn charset_from_bom() {
        let mut body = vec![0xFF, 0xFE];
        for unit in "héllo 東京".encode_utf16() {
            body.extend_from_slice(&unit.to_le_bytes());
        }
        assert_eq!(decode(&body, None), "héllo 東京");
        assert_eq!(decode(&body, Some("text/html")), "héllo 東京");
        assert_eq!(
            decode(b"\xEF\xBB\xBFok", Some("text/html; charset=iso-8859-1")),
            "ok"
        );
    }

    #[test]
    fn charset_from_meta() {
        let body =
            b"<html><head><meta charset=\"iso-8859-1\"><title>\xe9t\xe9</title></head></html>";
        let doc = parse_html(body, Some("text/html"), &page());
        assert_eq!(doc.title.as_deref(), Some("été"));
        let body = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">\x93q\x94";
        assert!(decode(body, None).ends_with("\u{201c}q\u{201d}"));
        let body = b"<META HTTP-EQUIV=content-type CONTENT='text/html;charset = koi8-r'>\xc1";
        assert!(decode(body, None).ends_with('а'));
        // the header wins over meta
        let body = b"<meta charset=iso-8859-1>\xc3\xa9";
        assert!(decode(body, Some("text/html; charset=utf-8")).ends_with('é'));
        // a meta claiming UTF-16 means UTF-8
        assert!(decode(b"<meta charset=utf-16>\xc3\xa9", None).ends_with('é'));
    }

    #[test]
    fn meta_charset_must_be_a_real_tag_in_the_first_1024_bytes() {
        let commented = b"<!-- <meta charset=iso-8859-1> -->\xc3\xa9";
        assert!(decode(commented, None).ends_with('é'));
        let quoted = b"<div title='<meta charset=iso-8859-1>'>\xc3\xa9";
        assert!(decode(quoted, None).ends_with('é'));
        let mut late = vec![b' '; PRESCAN_BYTES];
        late.extend_from_slice(b"<meta charset=iso-8859-1>\xc3\xa9");
        assert!(decode(&late, None).ends_with('é'));
        let not_meta = b"<metadata charset=iso-8859-1>\xc3\xa9";
        assert!(decode(not_meta, None).ends_with('é'));
        let truncated = b"<meta charset=\"iso-8859-1";
        assert_eq!(decode(truncated, None), "<meta charset=\"iso-8859-1");
    }

    #[test]
    fn invalid_bytes_replaced_and_nul_removed() {
        assert_eq!(decode(b"a\xff\xfeb", None), "a\u{fffd}\u{fffd}b");
        assert_eq!(decode(b"a\0b", None), "ab");
        assert_eq!(decode(b"a\0\xe9", Some("text/plain; charset=latin1")), "aé");
    }

    #[test]
    fn title_handling() {
        let doc = parse("<title>  Hello \n\t  World  </title><p>body");
        assert_eq!(doc.title.as_deref(), Some("Hello World"));
        assert_eq!(parse("<p>no title").title, None);
        assert_eq!(parse("<title> \n </title>").title, None);
        let doc = parse("<title>first</title><title>second</title>");
        assert_eq!(doc.title.as_deref(), Some("first"));
        let long = format!("<title>{}</title>", "é".repeat(1000));
        let title = parse(&long).title.expect("title");
        assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
        let doc = parse("<title>a &amp; b</title>");
        assert_eq!(doc.title.as_deref(), Some("a & b"));
        // an svg title is a tooltip: text, not the page title
        let doc = parse("<body><svg><title>icon</title></svg><p>x</p></body>");
        assert_eq!(doc.title, None);
        assert_eq!(doc.text, "icon x");
    }

    #[test]
    fn meta_tags() {
        let doc = parse(concat!(
            "<meta name='Description' content='  A   page\n about\tthings '>",
            "<meta property='og:title' content='OG'>",
            "<meta name=keywords content=\"a\u{1}b\">",
            "<meta charset=utf-8><meta http-equiv=refresh content=5>",
            "<meta name=nocontent><meta name='' content=x>",
        ));
        assert_eq!(
            doc.meta,
            vec![
                ("description".to_string(), "A page about things".to_string()),
                ("og:title".to_string(), "OG".to_string()),
                ("keywords".to_string(), "ab".to_string()),
            ]
        );
        let many: String = (0..300)
            .map(|i| format!("<meta name=m{i} content=c>"))
            .collect();
        assert_eq!(parse(&many).meta.len(), MAX_META_TAGS);
        let long = format!("<meta name=x content='{}'>", "y ".repeat(5000));
        let content = &parse(&long).meta[0].1;
        assert!(content.chars().count() <= MAX_META_CONTENT_CHARS && !content.ends_with(' '));
    }

    #[test]
    fn link_kinds_and_rejects() {
        let doc = parse(concat!(
            "<a href='a.html'>a</a><a>no href</a>",
            "<map><area href='/area'></map>",
            "<iframe src='//cdn.example/frame'></iframe>",
            "<frameset><frame src='f.html'></frameset>",
            "<a href='mailto:x@y'>m</a><a href='javascript:void(0)'>j</a>",
            "<a href='http://[bad'>b</a><a href='#top'>top</a>",
            "<link href='/style.css'><img src='/img.png'><script src='/s.js'></script>",
        ));
        assert_eq!(
            link_strings(&doc),
            vec![
                "http://h/dir/a.html",
                "http://h/area",
                "http://cdn.example/frame",
                "http://h/dir/page.html",
            ]
        );
        let frames = parse("<frameset><frame src='f.html'><frame src='/g'></frameset>");
        assert_eq!(
            link_strings(&frames),
            vec!["http://h/dir/f.html", "http://h/g"]
        );
    }

    #[test]
    fn base_href() {
        let doc = parse("<head><base href='http://other/sub/'></head><a href='x'>x</a>");
        assert_eq!(link_strings(&doc), vec!["http://other/sub/x"]);
        // relative base, resolved against the page; only the first counts,
        // and it applies to links before it too
        let doc = parse("<a href='y'>y</a><base href='../b/'><base href='/c/'><a href='x'>");
        assert_eq!(link_strings(&doc), vec!["http://h/b/y", "http://h/b/x"]);
        let doc = parse("<base target=_blank><base href='javascript:x'><a href='x'>");
        assert_eq!(link_strings(&doc), vec!["http://h/dir/x"]);
    }

    #[test]
    fn links_deduplicated_and_capped() {
        let doc = parse("<a href='b'>1</a><a href='a'>2</a><a href='./b#f'>3</a><a href='B'>4</a>");
        assert_eq!(
            link_strings(&doc),
            vec!["http://h/dir/b", "http://h/dir/a", "http://h/dir/B"]
        );
        let many: String = (0..MAX_LINKS_PER_PAGE + 50)
            .map(|i| format!("<a href='/p{i}'>x</a><a href='/p0'>dup</a>"))
            .collect();
        let doc = parse(&many);
        assert_eq!(doc.links.len(), MAX_LINKS_PER_PAGE);
        assert_eq!(doc.links[1].as_str(), "http://h/p1");
    }

    #[test]
    fn text_excludes_hidden_elements() {
        let doc = parse(concat!(
            "<html><head><title>T</title><style>p{color:red}</style>",
            "<script>var head = 1;</script></head><body>",
            "<h1>Hello</h1><p>visible <b>bold</b>text</p>",
            "<script>var x = 'hidden';</script><noscript>nojs</noscript>",
            "<template><p>tmpl</p></template><style>.a{}</style>",
            "<iframe src='/f'>fallback</iframe><!-- comment -->",
            "<p>a</p><p>b</p>end</body></html>",
        ));
        assert_eq!(doc.text, "Hello visible bold text a b end");
        assert_eq!(doc.title.as_deref(), Some("T"));
    }

    #[test]
    fn words_split_on_unicode_whitespace_only() {
        let mut out = String::new();
        push_words(
            &mut out,
            "\u{a0} a\u{3000}b\u{2009}c\u{85}d\u{1680}e\u{200b}f é\u{2028}東京 \t\r\n",
        );
        assert_eq!(out, "a b c d e\u{200b}f é 東京");
        push_words(&mut out, "ü");
        assert_eq!(out, "a b c d e\u{200b}f é 東京 ü");
        for c in (0..=0x3000).filter_map(char::from_u32) {
            let (mut split, text) = (String::new(), format!("x{c}y"));
            push_words(&mut split, &text);
            let want: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(split, want.join(" "), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn misnested_tags_lose_no_text() {
        let doc = parse("<em><div class=a><br><area href=three><p/></em>word <a href=x>y</a>");
        assert_eq!(doc.text, "word y");
        assert_eq!(
            link_strings(&doc),
            vec!["http://h/dir/three", "http://h/dir/x"]
        );
        let doc = parse("<b>1<p>2</b>3<i>4<div>5</i>6</div><u><div><p>7</u>8");
        assert_eq!(doc.text, "1 2 3 4 5 6 7 8");
    }

    #[test]
    fn text_collapses_whitespace_and_entities() {
        let doc = parse("<p>  one\n\n two&nbsp;three &lt;four&gt; </p><div>five</div>six");
        assert_eq!(doc.text, "one two three <four> five six");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 100_000;
        let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        assert_eq!(parse(&html).text, "deep");
        let html = format!(
            "<title>t</title>{}<a href=x>deep</a>",
            "<span><b id=1>".repeat(depth)
        );
        let doc = parse(&html);
        assert_eq!(link_strings(&doc), vec!["http://h/dir/x"]);
        assert_eq!(
            (doc.title.as_deref(), doc.text.as_str()),
            (Some("t"), "deep")
        );
        // just below the flattening bound the tree builder does the work
        let html = format!("{}deep", "<div>".repeat(FLATTEN_ABOVE_TAGS - 1));
        assert_eq!(parse(&html).text, "deep");
    }

    #[test]
    fn hostile_shapes_stay_fast() {
        let n = 100_000;
        let shapes = [
            "<div><table></div>".repeat(n / 2),
            "<div><b id=x></div>y".repeat(n / 2),
            "<b><div></b>".repeat(n / 2),
            "<svg><foreignObject><div/>".repeat(n / 2),
            "<template>".repeat(n),
            "<frameset>".repeat(n),
            "<a href=x>".repeat(n),
            "<p><font color=red>x".repeat(n / 2),
            "<!--".repeat(n),
            "<".repeat(n),
            "</".repeat(n),
            format!(
                "<a href=x{}>x</a>",
                (0..n).map(|i| format!(" a{i}")).collect::<String>()
            ),
            format!(
                "<div{}",
                (0..n).map(|i| format!(" a{i}=''")).collect::<String>()
            ),
            format!("<svg><style>{}", "<b>".repeat(n)),
        ];
        for html in &shapes {
            let started = std::time::Instant::now();
            let _ = parse(html);
            let took = started.elapsed();
            assert!(
                took.as_secs() < 5,
                "{}... took {took:?}",
                &html[..30.min(html.len())]
            );
        }
    }

    #[test]
    fn flattening_keeps_what_is_extracted() {
        let mut html = String::from(concat!(
            "<!DOCTYPE html><html><head><title>Big &amp; page</title>",
            "<meta name=description content='d'><base href='/base/'>",
            "<style>p > a { color: red }</style><script>if (a < b) { x = '<p>'; }</script>",
            "</head><body><!-- <a href=commented> --><svg viewBox='0 0 1 1'><title>icon</title>",
            "<svg/><path d='M0'/></svg><template><a href=tmpl>t</a></template>",
            "<noscript><a href=ns>n</a></noscript><textarea><b>typed</b></textarea>",
            "<table><tr><td>cell<td>two</table><iframe src=frame>fallback</iframe>",
        ));
        for i in 0..FLATTEN_ABOVE_TAGS {
            html.push_str(&format!(
                "<p class=x>para <b>{i}</b><a href='p{}'>go</a><br>",
                i % 7
            ));
        }
        html.push_str("<p>caf&eacute;&nbsp;end</body></html>");
        let flat = flatten(&html);
        assert!(flat.len() < html.len());
        let direct = parse_source(&html, &page());
        assert_eq!(parse_source(&flat, &page()), direct);
        assert_eq!(parse(&html), direct);
        assert_eq!(direct.title.as_deref(), Some("Big & page"));
        assert_eq!(direct.links.len(), 8);
        assert_eq!(direct.links[0].as_str(), "http://h/base/frame");
        assert!(direct
            .text
            .starts_with("icon <b>typed</b> cell two para 0 go para 1 go"));
        assert!(
            direct.text.ends_with("go café end"),
            "{}",
            &direct.text[direct.text.len() - 30..]
        );
    }

    #[test]
    fn flattening_is_triggered_by_tag_and_attribute_floods() {
        let many = |tag: &str, n: usize| tag.repeat(n);
        assert!(!needs_flatten("<p>a <b>b</b> c</p>"));
        assert!(!needs_flatten(&many("<p>", FLATTEN_ABOVE_TAGS)));
        assert!(needs_flatten(&many("<p>", FLATTEN_ABOVE_TAGS + 1)));
        assert!(needs_flatten(&many("</p>", FLATTEN_ABOVE_TAGS + 1)));
        // raw text holds no tags ...
        let script = format!("<script>{}</script>", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
        assert!(!needs_flatten(&script));
        let plain = format!("<plaintext>{}", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
        assert!(!needs_flatten(&plain));
        // ... except in svg, where <style> is an ordinary element; and once
        // svg or math appeared, the scan no longer trusts raw text at all
        let svg = format!("<svg><style>{}", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
        assert!(needs_flatten(&svg));
        let after = format!("<math></svg><style>{}", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
        assert!(needs_flatten(&after));
        let attrs = |n: usize| (0..n).map(|i| format!(" a{i}")).collect::<String>();
        assert!(!needs_flatten(&format!("<a{}>", attrs(MAX_ATTRIBUTES))));
        assert!(needs_flatten(&format!("<a{}>", attrs(MAX_ATTRIBUTES + 1))));
        assert!(needs_flatten(&format!("<a{}", attrs(MAX_ATTRIBUTES + 1))));
    }

    #[test]
    fn flatten_caps_attributes_of_kept_tags() {
        let attrs = |n: usize| (0..n).map(|i| format!(" a{i}=\"v\"")).collect::<String>();
        let html = format!("<a href=/k{}>x</a><div{}>y</div>", attrs(200), attrs(200));
        let flat = flatten(&html);
        assert_eq!(
            flat,
            format!("<a href=/k{}>x</a>  y ", attrs(MAX_ATTRIBUTES - 1))
        );
        let doc = parse(&html);
        assert_eq!(link_strings(&doc), vec!["http://h/k"]);
        assert_eq!(doc.text, "x y");
    }

    proptest::proptest! {
        #[test]
        fn flattening_keeps_title_meta_links_and_words(
            parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..60)
        ) {
            let html = parts.concat();
            let direct = parse_source(&html, &page());
            let flat = parse_source(&flatten(&html), &page());
            proptest::prop_assert_eq!(&flat.title, &direct.title, "{}", html);
            proptest::prop_assert_eq!(&flat.meta, &direct.meta, "{}", html);
            proptest::prop_assert_eq!(&flat.links, &direct.links, "{}", html);
            // A stray end tag ("a</svg>b") glues text in the tree but is a
            // space once flattened: the same characters, maybe more words.
            let squeeze = |t: &str| t.replace(' ', "");
            proptest::prop_assert_eq!(squeeze(&flat.text), squeeze(&direct.text), "{}", html);
            let words = |t: &str| t.split(' ').count();
            proptest::prop_assert!(words(&flat.text) >= words(&direct.text), "{}", html);
        }
    }

    /// Markup pieces for the flattening property: no tables or selects,
    /// whose error recovery moves content around, and svg only whole: HTML
    /// inside an unclosed svg's <script> is error recovery that flattening
    /// does not reproduce either.
    const FRAGMENTS: &[&str] = &[
        "word ",
        "two words",
        "x",
        "&amp;",
        "&eacute;t&eacute;",
        "&nbsp;",
        "&#x41;",
        " ",
        "<p>",
        "</p>",
        "<div class=a>",
        "</div>",
        "<b>",
        "</b>",
        "<i id=z>",
        "</i>",
        "<span>",
        "</span>",
        "<br>",
        "<img src=i.png alt=pic>",
        "<ul><li>one<li>two</ul>",
        "<h1>",
        "</h1>",
        "<a href=one>",
        "<a href='/two'>",
        "</a>",
        "<area href=three>",
        "<iframe src=four>fall</iframe>",
        "<title>Tee</title>",
        "<meta name=k content=v>",
        "<base href=/b/>",
        "<script>var s = '<p>';</script>",
        "<style>p{}</style>",
        "<noscript><p>ns</p></noscript>",
        "<template><a href=t>t</a></template>",
        "<textarea><b>typed</b></textarea>",
        "<!-- <a href=c> -->",
        "<!doctype html>",
        "<svg><title>icon</title><text>label</text><a href=s>s</a></svg>",
        "<svg><style>svg{}</style><g><desc>d</desc></g><script>1</script></svg>",
        "<math><mi>x</mi></math>",
        "<pre>pre  text</pre>",
        "<button>go</button>",
        "<head>",
        "</head>",
        "<body>",
        "</body>",
        "<html lang=en>",
        "<em>",
        "</em>",
        "<",
        "<p/>",
        "<div/>",
        "<svg/>",
    ];

    #[test]
    fn flatten_handles_unterminated_markup() {
        for html in [
            "<div",
            "<div class='x",
            "<!--",
            "<!-- a -",
            "<svg><g>",
            "<template><p>",
            "<script>a",
            "<svg",
            "</",
            "<title>x</titl",
            "<a href=\"",
            "<plaintext><div>x",
        ] {
            let flat = flatten(html);
            let _ = parse_source(&flat, &page());
        }
        assert_eq!(flatten("a<div>b</div>c"), "a b c");
        assert_eq!(
            flatten("<svg><title>t</title><g>in</g></svg>x"),
            "  t  in  x"
        );
        assert_eq!(
            flatten("<svg><svg/><style>s</style></svg><title>t</title>"),
            "    <title>t</title> "
        );
        assert_eq!(flatten("<svg><a href=x>y</a></svg>"), " <a href=x>y</a>  ");
        assert_eq!(
            flatten("<template><template></template>t</template>x"),
            " x"
        );
        assert_eq!(
            flatten("<script><div></script><p>"),
            "<script><div></script>  "
        );
        assert_eq!(flatten("<plaintext><div>"), "<plaintext><div>");
    }

    #[test]
    fn binary_garbage_does_not_panic() {
        let mut state: u32 = 0x1234_5678;
        let garbage: Vec<u8> = (0..200_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        let doc = parse_html(&garbage, Some("text/html"), &page());
        assert!(doc.links.len() <= MAX_LINKS_PER_PAGE);
        let _ = parse_html(&garbage, Some("text/html; charset=utf-16le"), &page());
        let _ = parse_text(&garbage, Some("text/plain; charset=shift_jis"));
        let mut tags = b"<meta charset=".to_vec();
        tags.extend_from_slice(&garbage[..2000]);
        let _ = parse_html(&tags, None, &page());
        for cut in 0..40 {
            let html = b"<meta http-equiv=content-type content='text/html; charset=\"x";
            let _ = parse_html(&html[..cut.min(html.len())], None, &page());
        }
    }

    #[test]
    fn plain_text_document() {
        let doc = parse_text(
            b"<title>not html</title> <meta charset=iso-8859-1> \xc3\xa9",
            None,
        );
        assert_eq!(doc.title, None);
        assert!(doc.links.is_empty());
        assert_eq!(
            doc.text,
            "<title>not html</title> <meta charset=iso-8859-1> é"
        );
    }
}

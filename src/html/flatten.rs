//! Defusing hostile markup before html5ever sees it: a page with too many
//! tags or a tag with too many attributes is rewritten flat (structure
//! gone, words, title, meta and links kept), because the tree builder is
//! quadratic in nesting depth and attribute count.

use super::scan::{is_one_of, raw_text_end, subtree_end, Tags};

/// html5ever has quadratic corners that a hostile page can hit: its tree
/// builder scans the stack of open elements on most start tags (100,000
/// nested divs: most of a minute) and its tokenizer checks each attribute
/// against the tag's earlier ones (100,000 attributes: 15 s). Pages with more
/// tags than this, or a tag with more attributes than the next bound, are
/// flattened first (see `flatten`); below both bounds the worst case found
/// (2,048 nested formatting tags, each distinct) takes about 0.15 s.
/// Ordinary pages have a few hundred tags.
pub(super) const FLATTEN_ABOVE_TAGS: usize = 2048;

/// Elements that `flatten` keeps: everything `parse_html` extracts, the raw
/// text elements (their content must stay unparsed), and the skeleton.
#[rustfmt::skip]
pub(super) const FLATTEN_KEEP: &[&str] = &[
    "html", "head", "body", "title", "meta", "base", "link", "a", "area", "img", "h1", "frameset",
    "frame", "iframe", "script", "style", "noscript", "textarea", "xmp", "noembed", "noframes", "plaintext",
];

/// Of those, the ones whose content is raw text up to their end tag.
pub(super) const RAW_TEXT: &[&str] = &[
    "title", "script", "style", "noscript", "textarea", "xmp", "noembed", "noframes", "iframe",
];

/// Inside svg these are not the HTML elements of the same name, which they
/// would turn into once the svg tags are gone: `flatten` drops their tags,
/// and for the last two, whose text `parse_html` skips, their content too.
pub(super) const SVG_NOT_HTML: &[&str] = &["title", "style", "script"];

pub(super) const SVG_HIDDEN: &[&str] = &["style", "script"];

/// HTML start tags that end foreign content: the parser closes the svg.
#[rustfmt::skip]
pub(super) const BREAKOUT: &[&str] = &[
    "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
    "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing",
    "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike",
    "sub", "sup", "table", "tt", "u", "ul", "var",
];

/// Whether `src` has more than `FLATTEN_ABOVE_TAGS` tags or a tag with more
/// than `MAX_ATTRIBUTES` attributes. One linear pass that reads tags the way
/// the tokenizer does; where it cannot be exact it errs towards seeing more
/// tags, never fewer.
pub(super) fn needs_flatten(src: &str) -> bool {
    let s = src.as_bytes();
    let mut count = 0;
    // In svg and math, <style>, <script> and <title> are not raw text, and
    // where foreign content ends takes the tree builder to know: after the
    // first one, everything is scanned for tags.
    let mut foreign_seen = false;
    let mut tags = Tags::new(s, 0);
    while let Some((lt, tag)) = tags.next() {
        count += 1;
        if count > FLATTEN_ABOVE_TAGS || tag.cut.is_some() {
            return true;
        }
        foreign_seen |= is_one_of(tag.name, &["svg", "math"]);
        if !tag.closing && !foreign_seen {
            if tag.name.eq_ignore_ascii_case(b"plaintext") {
                return false;
            }
            if is_one_of(tag.name, RAW_TEXT) {
                tags.skip_to(raw_text_end(s, lt + tag.len, tag.name));
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
pub(super) fn flatten(src: &str) -> String {
    let s = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    // Every index used to slice `src` sits on an ASCII byte ('<', '>', the
    // space before an attribute) or just after one: always a char boundary.
    let mut copied = 0;
    let mut svg_depth = 0usize;
    let mut tags = Tags::new(s, 0);
    while let Some((lt, tag)) = tags.next() {
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
            if !tag.closing && name.eq_ignore_ascii_case(b"plaintext") {
                break;
            }
            if !tag.closing && is_one_of(name, RAW_TEXT) {
                tags.skip_to(raw_text_end(s, tag_end, name));
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
        tags.skip_to(end);
    }
    out.push_str(src.get(copied..).unwrap_or(""));
    out
}

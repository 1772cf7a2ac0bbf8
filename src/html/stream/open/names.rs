//! The classes of HTML element names the tree builder's rules turn on:
//! headings, scope markers, head elements, formatting, void, flow and
//! special elements.

use super::{Ns, Open};

/// Start tags after which a `<frameset>` no longer replaces the body.
pub(super) fn disallows_frameset(name: &str) -> bool {
    matches!(
        name,
        "pre"
            | "listing"
            | "li"
            | "dd"
            | "dt"
            | "button"
            | "applet"
            | "marquee"
            | "object"
            | "table"
            | "area"
            | "br"
            | "embed"
            | "img"
            | "keygen"
            | "wbr"
            | "input"
            | "hr"
            | "textarea"
            | "xmp"
            | "iframe"
            | "select"
            | "body"
    )
}

pub(super) fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements that stop the search for an open `<a>` or formatting element.
pub(super) fn is_marker(name: &str) -> bool {
    matches!(
        name,
        "td" | "th" | "caption" | "template" | "applet" | "object" | "marquee"
    )
}

/// Elements that belong in the head: they neither begin the body nor
/// reopen formatting elements.
pub(super) fn is_head_element(name: &str) -> bool {
    matches!(
        name,
        "base"
            | "basefont"
            | "bgsound"
            | "link"
            | "meta"
            | "noframes"
            | "script"
            | "style"
            | "template"
            | "title"
            | "noscript"
    )
}

/// Formatting elements: the tree builder opens them again after a block
/// closed them.
pub(super) fn is_formatting(name: &str) -> bool {
    matches!(
        name,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

pub(super) fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Blocks: their start tag closes an open `<p>`, their end tag closes
/// them only when they are in scope.
pub(super) fn is_flow_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "header"
            | "hgroup"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "search"
            | "section"
            | "summary"
            | "ul"
            | "pre"
            | "listing"
            | "form"
            | "dd"
            | "dt"
    )
}

/// Start tags that close an open `<p>`.
pub(super) fn closes_p(name: &str) -> bool {
    is_heading(name)
        || is_flow_block(name)
        || matches!(name, "p" | "plaintext" | "xmp" | "hr" | "table" | "li")
}

/// End tags that close their element only when it is in scope.
pub(super) fn is_block(name: &str) -> bool {
    is_flow_block(name)
        || matches!(
            name,
            "button" | "applet" | "marquee" | "object" | "select" | "template"
        )
}

/// The standard's "special" elements: an end tag never closes through one.
pub(super) fn is_special(o: &Open) -> bool {
    match o.ns {
        Ns::Html => {
            is_block(&o.name)
                || is_heading(&o.name)
                || is_void(&o.name)
                || matches!(
                    &*o.name,
                    "body"
                        | "caption"
                        | "colgroup"
                        | "frameset"
                        | "head"
                        | "html"
                        | "iframe"
                        | "li"
                        | "noembed"
                        | "noframes"
                        | "noscript"
                        | "p"
                        | "plaintext"
                        | "script"
                        | "style"
                        | "table"
                        | "tbody"
                        | "td"
                        | "textarea"
                        | "tfoot"
                        | "th"
                        | "thead"
                        | "title"
                        | "tr"
                        | "xmp"
                )
        }
        _ => o.integration,
    }
}

//! Today's extractor kept as the oracle of the streaming one: scraper
//! builds the whole tree (html5ever's tree builder, every recovery rule of
//! the standard), and one walk hands each element to [`Gathered`]. Only
//! the differential test and the extraction micro-benchmark use it; the
//! crawl reads pages with [`super::stream`].

use scraper::{ElementRef, Html, Node};

use super::extract::{title_text, Gathered, Visit};
use super::Document;
use crate::url::Url;

const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// [`super::parse_html`] through the tree.
pub fn parse_html(body: &[u8], content_type: Option<&str>, page_url: &Url) -> Document {
    parse_source(&super::html_source(body, content_type), page_url)
}

/// `source` (decoded, flattened if hostile) parsed to a tree and walked.
pub(super) fn parse_source(source: &str, page_url: &Url) -> Document {
    let html = Html::parse_document(source);

    let mut doc = Document {
        text: String::with_capacity(source.len() / 2),
        ..Document::default()
    };
    let mut gathered = Gathered::default();
    // Elements whose text is being gathered (anchors, headings), each with
    // the walk depth it was opened at: its subtree is everything deeper.
    let mut open = Vec::new();

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
                // Only a <source> depends on its parent (picture or media).
                let parent = match name {
                    "source" => ancestors.last().and_then(|n| n.value().as_element()),
                    _ => None,
                };
                let parent = parent.map_or("", |p| p.name());
                let position = || {
                    ancestors
                        .iter()
                        .rev()
                        .filter_map(|n| n.value().as_element())
                        .find_map(|e| super::landmark_position(e.name(), e.attr("role")))
                        .unwrap_or_default()
                };
                match gathered.element(
                    &mut doc,
                    (name, parent, html_title),
                    |a| el.attr(a),
                    position,
                ) {
                    Visit::Title => {
                        doc.title = ElementRef::wrap(node).and_then(|e| title_text(e.text()));
                    }
                    Visit::Capture(c) => open.push((depth, c)),
                    Visit::Alt(alt) => {
                        for &(_, c) in &open {
                            gathered.capture(c, alt);
                        }
                    }
                    Visit::JsonLd => {
                        let text = ElementRef::wrap(node).map(|e| e.text().collect::<String>());
                        gathered.script_text(&text.unwrap_or_default());
                    }
                    Visit::Nothing => {}
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
                for &(_, c) in &open {
                    gathered.capture(c, text);
                }
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
    gathered.finish(doc, page_url)
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

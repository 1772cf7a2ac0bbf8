//! The stack of open elements, as much of the HTML tree builder as
//! extraction needs without building the tree: which start and end tags
//! make or close an element (void elements, implied end tags of `p`, `li`,
//! headings, table cells and rows, `<a>` closing an open `<a>`, foreign
//! content in svg and math and the tags that break out of it, framesets),
//! which element a text lies in, and whether an ancestor hides it. Tags the
//! tree builder ignores are reported as ignored, so that text on both sides
//! stays one text node, as in the tree. This module owns the stack and
//! what a text or capture asks of it; start tags are taken in [`starts`],
//! end tags in [`ends`], and the element classes both turn on are
//! [`names`].

use html5ever::tokenizer::Tag;
use html5ever::LocalName;

mod ends;
mod names;
mod starts;

use super::super::extract::Capture;
use super::super::flatten::BREAKOUT;
use super::super::scan::is_one_of;
use super::super::Position;
use names::{is_formatting, is_marker, is_special};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ns {
    Html,
    Svg,
    Math,
}

/// An open element.
struct Open {
    name: LocalName,
    ns: Ns,
    /// A foreign element whose content is HTML again (svg `foreignObject`,
    /// `desc`, `title`; math `mi`, `mo`, `mn`, `ms`, `mtext`, an HTML
    /// `annotation-xml`).
    integration: bool,
    /// Nothing visible or linkable lives inside it (script, style, ...).
    hidden: bool,
    capture: Option<Capture>,
    /// A reopened `<a>` whose capture is still to be settled.
    copy: bool,
    /// For a block opened inside an `<a>`: how long that anchor's text was
    /// then (see [`OpenElements::cut`]).
    mark: Option<usize>,
    /// The position it gives the links inside it (`nav`, ...), if any.
    landmark: Option<Position>,
}

/// A start tag the tree builder makes an element of.
pub(super) struct Inserted {
    pub ns: Ns,
    /// Pushed on the stack (not void, not self-closing foreign content).
    pub pushed: bool,
    /// No ancestor hides it.
    pub visible: bool,
    /// Whether text before it and after it are separate text nodes (an
    /// ignored second `<body>` merges its attributes, not its position).
    pub boundary: bool,
}

#[derive(Default)]
pub(super) struct OpenElements {
    stack: Vec<Open>,
    /// How many hiding elements the stack holds.
    hidden: usize,
    /// Past the head: a non-blank text or an element of the body was seen.
    in_body: bool,
    /// The tree builder's frameset-ok flag, inverted.
    frameset_not_ok: bool,
    /// A frameset replaced the body: only frames count from here.
    frameset: bool,
    /// `html`, `head` and `body` start tags already seen.
    seen: [bool; 3],
    /// Formatting elements closed by another element's end, to open again
    /// (an `<a>` with what it gathered).
    reopen: Vec<(LocalName, Option<Capture>)>,
    /// Copies reopened whose capture is still to be settled.
    copies: bool,
    /// How many open elements gather text.
    captures: usize,
    /// How many open elements are landmarks (`nav`, ...).
    landmarks: usize,
    /// After `</body>` or `</html>`: a comment goes to the document, not
    /// the body, so text on both sides stays one node.
    after_body: bool,
    /// An `<a>` just closed around a block still open: the tree builder
    /// moves the block out of it (the adoption agency), so the anchor keeps
    /// only its text from before the block (the mark), the rest goes to a
    /// copy of the `<a>` inside the block.
    pub(super) cut: Option<(Capture, usize)>,
}

/// What a run of characters is, where it lands.
pub(super) enum TextPlace {
    Visible,
    /// Inside a hiding element (a title's text included).
    Hidden,
    /// Dropped by the tree builder (text in a frameset).
    Ignored,
}
impl OpenElements {
    /// Processes a start tag: None when the tree builder ignores it.
    pub(super) fn start(&mut self, tag: &Tag) -> Option<Inserted> {
        let name: &str = &tag.name;
        if self.frameset {
            return match name {
                "frameset" | "noframes" => Some(self.push(tag, name, Ns::Html)),
                "frame" => Some(self.void(Ns::Html)),
                _ => None,
            };
        }
        if let Some(ns) = self.foreign_context(name) {
            let breakout = is_one_of(name.as_bytes(), BREAKOUT)
                || (name == "font"
                    && tag
                        .attrs
                        .iter()
                        .any(|a| matches!(&*a.name.local, "color" | "face" | "size")));
            if !breakout {
                return Some(if tag.self_closing {
                    self.void(ns)
                } else {
                    self.push(tag, name, ns)
                });
            }
            while self
                .stack
                .last()
                .is_some_and(|o| o.ns != Ns::Html && !o.integration)
            {
                self.pop();
            }
        }
        self.html_start(tag, name)
    }

    /// The namespace a start tag `name` lands in when the current node is
    /// foreign content, None when HTML rules apply.
    fn foreign_context(&self, name: &str) -> Option<Ns> {
        let top = self.stack.last()?;
        let html_here = top.ns == Ns::Html
            || (top.integration && !matches!(name, "mglyph" | "malignmark"))
            || (&*top.name == "annotation-xml" && name == "svg");
        (!html_here).then_some(top.ns)
    }

    /// Whether a text here would come before the body: its leading
    /// whitespace is then dropped (or goes to the head), never to the body.
    pub(super) fn before_body(&self) -> bool {
        !self.in_body && !self.frameset
    }

    /// Whether a comment here parts the text before it from the text after.
    pub(super) fn comment_ends_node(&self) -> bool {
        !self.after_body
    }

    /// Characters: where they land.
    pub(super) fn text(&mut self, text: &str) -> TextPlace {
        if self.frameset {
            return TextPlace::Ignored;
        }
        if self.hidden > 0 {
            return TextPlace::Hidden;
        }
        if !text.trim_ascii_start().is_empty() {
            self.in_body = true;
            self.after_body = false;
            self.frameset_not_ok = true;
        }
        self.reopen();
        TextPlace::Visible
    }

    /// Sets what the element just pushed gathers.
    pub(super) fn capture_top(&mut self, capture: Capture) {
        if let Some(top) = self.stack.last_mut() {
            self.captures += usize::from(top.capture.replace(capture).is_none());
        }
    }

    /// What the open elements gather, innermost last.
    pub(super) fn captures(&self) -> impl Iterator<Item = Capture> + '_ {
        // Most text is in no anchor or heading: no walk of the stack then.
        let any = self.captures > 0;
        self.stack
            .iter()
            .take_while(move |_| any)
            .filter_map(|o| o.capture)
    }

    /// The name of the element a new void element (or the element just
    /// pushed, when `pushed`) lies in.
    pub(super) fn parent(&self, pushed: bool) -> &str {
        let len = self.stack.len() - usize::from(pushed && !self.stack.is_empty());
        len.checked_sub(1)
            .and_then(|i| self.stack.get(i))
            .map_or("", |o| &o.name)
    }

    /// Where a link opened now lies: its nearest landmark's position.
    pub(super) fn position(&self) -> Position {
        // Most links are in no landmark: no walk of the stack then.
        if self.landmarks == 0 {
            return Position::Content;
        }
        self.stack
            .iter()
            .rev()
            .find_map(|o| o.landmark)
            .unwrap_or_default()
    }

    /// Whether the current node is foreign content (where `<![CDATA[`
    /// opens a CDATA section rather than a bogus comment).
    pub(super) fn foreign(&self) -> bool {
        self.stack.last().is_some_and(|o| o.ns != Ns::Html)
    }

    fn void(&self, ns: Ns) -> Inserted {
        Inserted {
            ns,
            pushed: false,
            visible: self.hidden == 0,
            boundary: true,
        }
    }

    fn push(&mut self, tag: &Tag, name: &str, ns: Ns) -> Inserted {
        let visible = self.hidden == 0;
        let integration = match ns {
            Ns::Html => false,
            Ns::Svg => matches!(name, "foreignobject" | "desc" | "title"),
            Ns::Math => {
                matches!(name, "mi" | "mo" | "mn" | "ms" | "mtext")
                    || (name == "annotation-xml"
                        && tag.attrs.iter().any(|a| {
                            &*a.name.local == "encoding"
                                && (a.value.eq_ignore_ascii_case("text/html")
                                    || a.value.eq_ignore_ascii_case("application/xhtml+xml"))
                        }))
            }
        };
        // An svg <title> is a tooltip, visible; an HTML one is the title.
        let hidden = matches!(
            name,
            "script" | "style" | "noscript" | "template" | "iframe"
        ) || (name == "title" && ns == Ns::Html);
        self.hidden += usize::from(hidden);
        let landmark = (ns == Ns::Html)
            .then(|| {
                let role = tag.attrs.iter().find(|a| &*a.name.local == "role");
                crate::html::landmark_position(name, role.map(|a| &*a.value))
            })
            .flatten();
        self.landmarks += usize::from(landmark.is_some());
        self.stack.push(Open {
            name: LocalName::from(name),
            ns,
            integration,
            hidden,
            capture: None,
            copy: false,
            mark: None,
            landmark,
        });
        Inserted {
            ns,
            pushed: true,
            visible,
            boundary: true,
        }
    }

    fn pop(&mut self) {
        let Some(o) = self.stack.pop() else {
            return;
        };
        self.hidden -= usize::from(o.hidden);
        self.captures -= usize::from(o.capture.is_some());
        self.landmarks -= usize::from(o.landmark.is_some());
        if o.ns == Ns::Html {
            if is_formatting(&o.name) {
                self.reopen.push((o.name, o.capture));
            } else if is_marker(&o.name) {
                self.reopen.clear();
            }
        }
    }

    /// Pops element `i` and every element above it.
    fn pop_to(&mut self, i: usize) {
        let reopen = self.reopen.len();
        while self.stack.len() > i {
            self.pop();
        }
        // Reopened outermost first, as they were opened.
        if let Some(popped) = self.reopen.get_mut(reopen..) {
            popped.reverse();
        }
    }

    /// The tree builder's reconstruction of the active formatting
    /// elements: formatting elements closed by a block's end are opened
    /// again (as copies) before the next text or inline element, so their
    /// end tags still end a text node.
    fn reopen(&mut self) {
        for (name, capture) in std::mem::take(&mut self.reopen) {
            self.copies |= capture.is_some();
            self.captures += usize::from(capture.is_some());
            self.stack.push(Open {
                name,
                ns: Ns::Html,
                integration: false,
                hidden: false,
                capture,
                copy: capture.is_some(),
                mark: None,
                landmark: None,
            });
        }
    }

    /// The copy of an `<a>` is a link of its own to the same URL, whose
    /// text counts only if the first one's is empty: a reopened `<a>` goes
    /// on gathering into its link only while `empty` says it has nothing.
    pub(super) fn settle_copies(&mut self, empty: impl Fn(Capture) -> bool) {
        if !std::mem::take(&mut self.copies) {
            return;
        }
        for o in self.stack.iter_mut().filter(|o| o.copy) {
            o.copy = false;
            if o.capture.take_if(|&mut c| !empty(c)).is_some() {
                self.captures -= 1;
            }
        }
    }

    /// Removes one element from the middle of the stack, leaving those
    /// opened inside it open.
    ///
    /// Without a block inside it, the formatting elements opened inside it
    /// close with it, to be opened again.
    fn remove(&mut self, i: usize) {
        let furthest_block = self
            .stack
            .get(i + 1..)
            .and_then(|s| s.iter().position(is_special))
            .map(|b| i + 1 + b);
        let Some(block) = furthest_block else {
            self.pop_to(i + 1);
            let o = self.stack.pop();
            self.forget(o);
            return;
        };
        // The innermost `<a>` the block was opened in is split at the block;
        // its copy inside the block gathers only for an empty anchor.
        let mark = self.stack[block].mark;
        let inner = (i + 1..block)
            .rev()
            .find(|&j| self.stack[j].capture.is_some());
        if let Some(j) = inner {
            self.stack[j].copy = true;
            self.copies = true;
        }
        self.cut = self.stack[inner.unwrap_or(i)].capture.zip(mark);
        let o = self.stack.remove(i);
        self.forget(Some(o));
    }

    /// Books an element leaving the stack without being reopened.
    fn forget(&mut self, o: Option<Open>) {
        if let Some(o) = o {
            self.hidden -= usize::from(o.hidden);
            self.captures -= usize::from(o.capture.is_some());
            self.landmarks -= usize::from(o.landmark.is_some());
        }
    }

    /// Marks the block just pushed with the length `len` gives of the
    /// anchor text of the innermost `<a>` around it.
    pub(super) fn mark_block(&mut self, len: impl FnOnce(Capture) -> usize) {
        let Some((top, below)) = self.stack.split_last_mut() else {
            return;
        };
        if self.captures == 0 || !is_special(top) {
            return;
        }
        let anchor = below
            .iter()
            .rev()
            .find_map(|o| o.capture.filter(|c| matches!(c, Capture::Anchor(_))));
        top.mark = anchor.map(len);
    }
}

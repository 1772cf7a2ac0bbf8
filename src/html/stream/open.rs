//! The stack of open elements, as much of the HTML tree builder as
//! extraction needs without building the tree: which start and end tags
//! make or close an element (void elements, implied end tags of `p`, `li`,
//! headings, table cells and rows, `<a>` closing an open `<a>`, foreign
//! content in svg and math and the tags that break out of it, framesets),
//! which element a text lies in, and whether an ancestor hides it. Tags the
//! tree builder ignores are reported as ignored, so that text on both sides
//! stays one text node, as in the tree.

use html5ever::tokenizer::Tag;
use html5ever::LocalName;

use super::super::extract::Capture;
use super::super::flatten::BREAKOUT;
use super::super::scan::is_one_of;
use super::super::Position;

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

    fn html_start(&mut self, tag: &Tag, name: &str) -> Option<Inserted> {
        // "<image>" is an old spelling of "<img>".
        let name = if name == "image" { "img" } else { name };
        let was_in_body = self.in_body;
        self.after_body = false;
        if !matches!(name, "html" | "head") && !is_head_element(name) {
            self.in_body = true;
        }
        if matches!(
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
        ) {
            self.frameset_not_ok = true;
        }
        match name {
            "html" | "head" | "body" => {
                let i = match name {
                    "html" => 0,
                    "head" => 1,
                    _ => 2,
                };
                // A head after the body began, or a second html or body
                // (whose attributes the first one takes), makes nothing;
                // an html or body tag after text is no boundary either.
                let first = !std::mem::replace(&mut self.seen[i], true);
                return (first && !(name == "head" && was_in_body)).then_some(Inserted {
                    ns: Ns::Html,
                    pushed: false,
                    visible: self.hidden == 0,
                    boundary: !was_in_body,
                });
            }
            "frameset" => {
                if self.frameset_not_ok {
                    return None;
                }
                self.frameset = true;
                self.stack.clear();
                self.hidden = 0;
                self.captures = 0;
                return Some(self.push(tag, name, Ns::Html));
            }
            "frame" => return None,
            "caption" | "col" | "colgroup" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr" => {
                return self.table_part(tag, name);
            }
            "svg" | "math" => {
                self.reopen();
                let ns = if name == "svg" { Ns::Svg } else { Ns::Math };
                return Some(if tag.self_closing {
                    self.void(ns)
                } else {
                    self.push(tag, name, ns)
                });
            }
            _ => {}
        }
        let reconstruct = !closes_p(name)
            && !is_head_element(name)
            && !matches!(name, "textarea" | "option" | "optgroup");
        if closes_p(name) {
            self.close_p();
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                if self.stack.last().is_some_and(|o| is_heading(&o.name)) =>
            {
                self.pop();
            }
            "li" => self.close_list_item(&["li"]),
            "dd" | "dt" => self.close_list_item(&["dd", "dt"]),
            "a" => {
                // A second <a> closes the open one (the adoption agency).
                let open_a = self
                    .stack
                    .iter()
                    .rposition(|o| o.ns == Ns::Html && (&*o.name == "a" || is_marker(&o.name)));
                if let Some(i) = open_a.filter(|&i| &*self.stack[i].name == "a") {
                    self.remove(i);
                }
            }
            "option" | "optgroup" => {
                if self.stack.last().is_some_and(|o| &*o.name == "option") {
                    self.pop();
                }
                if name == "optgroup" && self.stack.last().is_some_and(|o| &*o.name == "optgroup") {
                    self.pop();
                }
            }
            _ => {}
        }
        // After the implied ends (an <a> closing the open one), before the
        // element goes in: as the tree builder does.
        if reconstruct {
            self.reopen();
        }
        Some(if is_void(name) {
            self.void(Ns::Html)
        } else {
            self.push(tag, name, Ns::Html)
        })
    }

    /// A table's parts exist only inside a table: elsewhere the tree
    /// builder drops their tags. Each closes what its row or section held.
    fn table_part(&mut self, tag: &Tag, name: &str) -> Option<Inserted> {
        let table = self
            .stack
            .iter()
            .rposition(|o| o.ns == Ns::Html && matches!(&*o.name, "table" | "template"))?;
        if &*self.stack[table].name == "template" {
            return Some(self.push_or_void(tag, name));
        }
        let stop: &[&str] = match name {
            "td" | "th" => &["tr", "tbody", "thead", "tfoot"],
            "tr" => &["tbody", "thead", "tfoot"],
            _ => &[],
        };
        let keep = self.stack[table..]
            .iter()
            .rposition(|o| o.ns == Ns::Html && stop.contains(&&*o.name))
            .map_or(table, |i| table + i);
        while self.stack.len() > keep + 1 {
            self.pop();
        }
        Some(self.push_or_void(tag, name))
    }

    fn push_or_void(&mut self, tag: &Tag, name: &str) -> Inserted {
        if is_void(name) {
            self.void(Ns::Html)
        } else {
            self.push(tag, name, Ns::Html)
        }
    }

    /// A `<p>` open in button scope is closed by a block's start tag.
    fn close_p(&mut self) {
        if let Some(i) = self.in_scope(|n| n == "p", &["button"]) {
            self.pop_to(i);
        }
    }

    /// An open list item (of one of `names`) is closed by the next one,
    /// unless a block other than address, div and p stands between.
    fn close_list_item(&mut self, names: &[&str]) {
        for i in (0..self.stack.len()).rev() {
            let o = &self.stack[i];
            if o.ns == Ns::Html && names.contains(&&*o.name) {
                self.pop_to(i);
                return;
            }
            if is_special(o) && !matches!(&*o.name, "address" | "div" | "p") {
                return;
            }
        }
    }

    /// Processes an end tag; whether it ends a text node (it closes an
    /// element, or makes one: a stray `</p>` or `</br>`).
    pub(super) fn end(&mut self, name: &str) -> bool {
        if self.frameset {
            let top = self.stack.last().is_some_and(|o| &*o.name == name);
            if top && matches!(name, "frameset" | "noframes") {
                self.pop();
            }
            return top;
        }
        if self.stack.last().is_some_and(|o| o.ns != Ns::Html) {
            if matches!(name, "br" | "p") {
                while self
                    .stack
                    .last()
                    .is_some_and(|o| o.ns != Ns::Html && !o.integration)
                {
                    self.pop();
                }
            } else {
                for i in (0..self.stack.len()).rev() {
                    let o = &self.stack[i];
                    if o.ns == Ns::Html {
                        break;
                    }
                    if (*o.name).eq_ignore_ascii_case(name) {
                        self.pop_to(i);
                        return true;
                    }
                }
            }
        }
        self.html_end(name)
    }

    fn html_end(&mut self, name: &str) -> bool {
        // Before the body these make one (the tree builder reprocesses
        // them in the body it opens).
        self.in_body |= matches!(name, "body" | "html" | "br");
        self.after_body = matches!(name, "body" | "html");
        match name {
            "body" | "html" => false,
            "br" => true,
            "p" => {
                self.close_p();
                true
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.close_in_scope(is_heading, &[]),
            _ if is_formatting(name) => {
                // The adoption agency: the formatting element ends, a block
                // opened inside it stays open.
                let found = self
                    .stack
                    .iter()
                    .rposition(|o| o.ns == Ns::Html && (&*o.name == name || is_marker(&o.name)));
                match found.filter(|&i| &*self.stack[i].name == name) {
                    Some(i) => {
                        self.remove(i);
                        true
                    }
                    None => {
                        if let Some(i) = self.reopen.iter().rposition(|(n, _)| &**n == name) {
                            self.reopen.remove(i);
                        }
                        false
                    }
                }
            }
            "li" => self.close_in_scope(|n| n == "li", &["ol", "ul"]),
            "td" | "th" | "tr" | "tbody" | "thead" | "tfoot" | "table" | "caption" | "colgroup" => {
                self.close_in_table_scope(name)
            }
            _ if is_block(name) => self.close_in_scope(|n| n == name, &[]),
            _ => {
                for i in (0..self.stack.len()).rev() {
                    let o = &self.stack[i];
                    if o.ns == Ns::Html && &*o.name == name {
                        self.pop_to(i);
                        return true;
                    }
                    if is_special(o) {
                        return false;
                    }
                }
                false
            }
        }
    }

    fn close_in_scope(&mut self, is: impl Fn(&str) -> bool, extra: &[&str]) -> bool {
        match self.in_scope(is, extra) {
            Some(i) => {
                self.pop_to(i);
                true
            }
            None => false,
        }
    }

    fn close_in_table_scope(&mut self, name: &str) -> bool {
        for i in (0..self.stack.len()).rev() {
            let o = &self.stack[i];
            if o.ns == Ns::Html && &*o.name == name {
                self.pop_to(i);
                return true;
            }
            if o.ns == Ns::Html && matches!(&*o.name, "table" | "template") {
                return false;
            }
        }
        false
    }

    /// The topmost HTML element `is` accepts, unless a scope boundary
    /// (or one of `extra`) stands above it.
    fn in_scope(&self, is: impl Fn(&str) -> bool, extra: &[&str]) -> Option<usize> {
        for i in (0..self.stack.len()).rev() {
            let o = &self.stack[i];
            if o.ns == Ns::Html && is(&o.name) {
                return Some(i);
            }
            let boundary = match o.ns {
                Ns::Html => {
                    matches!(
                        &*o.name,
                        "applet"
                            | "caption"
                            | "html"
                            | "table"
                            | "td"
                            | "th"
                            | "marquee"
                            | "object"
                            | "template"
                    ) || extra.contains(&&*o.name)
                }
                _ => o.integration,
            };
            if boundary {
                return None;
            }
        }
        None
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

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements that stop the search for an open `<a>` or formatting element.
fn is_marker(name: &str) -> bool {
    matches!(
        name,
        "td" | "th" | "caption" | "template" | "applet" | "object" | "marquee"
    )
}

/// Elements that belong in the head: they neither begin the body nor
/// reopen formatting elements.
fn is_head_element(name: &str) -> bool {
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
fn is_formatting(name: &str) -> bool {
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

fn is_void(name: &str) -> bool {
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
fn is_flow_block(name: &str) -> bool {
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
fn closes_p(name: &str) -> bool {
    is_heading(name)
        || is_flow_block(name)
        || matches!(name, "p" | "plaintext" | "xmp" | "hr" | "table" | "li")
}

/// End tags that close their element only when it is in scope.
fn is_block(name: &str) -> bool {
    is_flow_block(name)
        || matches!(
            name,
            "button" | "applet" | "marquee" | "object" | "select" | "template"
        )
}

/// The standard's "special" elements: an end tag never closes through one.
fn is_special(o: &Open) -> bool {
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

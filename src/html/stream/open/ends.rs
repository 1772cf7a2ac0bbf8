//! End tags: in foreign content, then by the tree builder's rules for
//! each kind of element (a stray `</p>` or `</br>` makes one, a heading
//! closes any heading, a formatting element leaves the blocks opened
//! inside it open), within the scope each kind closes in.

use super::names::{is_block, is_formatting, is_heading, is_marker, is_special};
use super::{Ns, OpenElements};

impl OpenElements {
    /// Processes an end tag; whether it ends a text node (it closes an
    /// element, or makes one: a stray `</p>` or `</br>`).
    pub(in super::super) fn end(&mut self, name: &str) -> bool {
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
    pub(super) fn in_scope(&self, is: impl Fn(&str) -> bool, extra: &[&str]) -> Option<usize> {
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
}

//! Start tags in HTML content: the document's own elements, a frameset,
//! a table's parts, svg and math, and the implied ends a start tag makes
//! (a `<p>` closed by a block, a list item by the next, a heading by a
//! heading, an open `<a>` by a second) before its element goes in.

use html5ever::tokenizer::Tag;

use super::names::{
    closes_p, disallows_frameset, is_head_element, is_heading, is_marker, is_special, is_void,
};
use super::{Inserted, Ns, OpenElements};

impl OpenElements {
    /// A start tag in HTML content.
    pub(super) fn html_start(&mut self, tag: &Tag, name: &str) -> Option<Inserted> {
        // "<image>" is an old spelling of "<img>".
        let name = if name == "image" { "img" } else { name };
        let was_in_body = self.in_body;
        self.after_body = false;
        if !matches!(name, "html" | "head") && !is_head_element(name) {
            self.in_body = true;
        }
        if disallows_frameset(name) {
            self.frameset_not_ok = true;
        }
        match name {
            "html" | "head" | "body" => self.document_start(name, was_in_body),
            "frameset" => self.frameset_start(tag),
            "frame" => None,
            "caption" | "col" | "colgroup" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr" => {
                self.table_part(tag, name)
            }
            "svg" | "math" => {
                self.reopen();
                let ns = if name == "svg" { Ns::Svg } else { Ns::Math };
                Some(if tag.self_closing {
                    self.void(ns)
                } else {
                    self.push(tag, name, ns)
                })
            }
            _ => Some(self.body_start(tag, name)),
        }
    }

    /// `<html>`, `<head>` or `<body>`: a head after the body began, or a
    /// second html or body (whose attributes the first one takes), makes
    /// nothing; an html or body tag after text is no boundary either.
    fn document_start(&mut self, name: &str, was_in_body: bool) -> Option<Inserted> {
        let i = match name {
            "html" => 0,
            "head" => 1,
            _ => 2,
        };
        let first = !std::mem::replace(&mut self.seen[i], true);
        (first && !(name == "head" && was_in_body)).then_some(Inserted {
            ns: Ns::Html,
            pushed: false,
            visible: self.hidden == 0,
            boundary: !was_in_body,
        })
    }

    /// A `<frameset>` replaces the body, unless the body already holds
    /// what a frameset may not follow.
    fn frameset_start(&mut self, tag: &Tag) -> Option<Inserted> {
        if self.frameset_not_ok {
            return None;
        }
        self.frameset = true;
        self.stack.clear();
        self.hidden = 0;
        self.captures = 0;
        Some(self.push(tag, "frameset", Ns::Html))
    }

    /// Any other element of the body, after the ends its start implies.
    fn body_start(&mut self, tag: &Tag, name: &str) -> Inserted {
        let reconstruct = !closes_p(name)
            && !is_head_element(name)
            && !matches!(name, "textarea" | "option" | "optgroup");
        if closes_p(name) {
            self.close_p();
        }
        self.implied_ends(name);
        // After the implied ends (an <a> closing the open one), before the
        // element goes in: as the tree builder does.
        if reconstruct {
            self.reopen();
        }
        self.push_or_void(tag, name)
    }

    /// What a start tag `name` closes before it goes in: a heading the
    /// open heading, a list item the open one, a second `<a>` the first,
    /// an option the open option.
    fn implied_ends(&mut self, name: &str) {
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
    pub(super) fn close_p(&mut self) {
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
}

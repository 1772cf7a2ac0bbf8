//! Extraction without a tree: html5ever's tokenizer (the one its tree
//! builder reads, so tags, attributes, character references and raw text
//! come out exactly as the tree would hold them) feeds one pass that keeps
//! what [`Document`] holds, with [`open`] standing in for the tree
//! builder's stack of open elements. No node is allocated; where the tree
//! builder would move content (text foster-parented out of a table, a
//! formatting element copied after a block ends it) the text stays where
//! it was written: `tests::differential` lists those cases.

mod open;

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use super::extract::{title_text, Capture, Gathered, Visit};
use super::Document;
use crate::url::Url;
use open::{Ns, OpenElements, TextPlace};

/// `source` (decoded, flattened if hostile) read in one pass.
pub(super) fn parse_source(source: &str, page_url: &Url) -> Document {
    let pass = Pass {
        doc: Document {
            text: String::with_capacity(source.len() / 2),
            ..Document::default()
        },
        ..Pass::default()
    };
    let tokenizer = Tokenizer::new(Sink(RefCell::new(pass)), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(source));
    // The sink never asks to stop for a script, so one feed reads it all.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let pass = tokenizer.sink.0.into_inner();
    pass.gathered.finish(pass.doc, page_url)
}

/// The tokenizer hands tokens through `&self`.
struct Sink(RefCell<Pass>);

#[derive(Default)]
struct Pass {
    doc: Document,
    gathered: Gathered,
    open: OpenElements,
    /// Where the text node being read began in `doc.text` (before the space
    /// that parts it from the one before), if one is being read.
    node_start: Option<usize>,
    /// What the open elements gathered when the node began.
    node_captures: Vec<Capture>,
    /// The text of the title being read.
    title: Option<String>,
    /// Whether a JSON-LD script is being read.
    jsonld: bool,
    /// A newline right after `<pre>`, `<listing>` or `<textarea>` is not
    /// content (the tree builder drops it).
    skip_lf: bool,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut pass = self.0.borrow_mut();
        let skip_lf = std::mem::take(&mut pass.skip_lf);
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => return pass.start(&tag),
            Token::TagToken(tag) => pass.end(&tag.name),
            Token::CharacterTokens(text) => {
                let text = match text.strip_prefix('\n') {
                    Some(rest) if skip_lf => rest,
                    _ => &text,
                };
                pass.text(text);
            }
            Token::CommentToken(_) if pass.open.comment_ends_node() => pass.end_node(),
            Token::EOFToken => {
                pass.end_title();
                pass.end_node();
            }
            Token::CommentToken(_)
            | Token::DoctypeToken(_)
            | Token::NullCharacterToken
            | Token::ParseError(_) => {}
        }
        TokenSinkResult::Continue
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.0.borrow().open.foreign()
    }
}

impl Pass {
    fn start(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let Some(el) = self.open.start(tag) else {
            return TokenSinkResult::Continue;
        };
        if el.boundary {
            self.end_node();
        }
        self.settle();
        if el.pushed {
            self.open.mark_block(|c| self.gathered.captured_len(c));
        }
        let name: &str = &tag.name;
        let name = if name == "image" && el.ns == Ns::Html {
            "img"
        } else {
            name
        };
        if el.visible {
            let parent = self.open.parent(el.pushed);
            let html_title = name == "title" && el.ns == Ns::Html;
            let attr = |a: &str| {
                tag.attrs
                    .iter()
                    .find(|at| &*at.name.local == a)
                    .map(|at| &*at.value)
            };
            let open = &self.open;
            match self
                .gathered
                .element(&mut self.doc, (name, parent, html_title), attr, || {
                    open.position()
                }) {
                Visit::Title => self.title = Some(String::new()),
                Visit::Capture(c) if el.pushed => self.open.capture_top(c),
                Visit::Alt(alt) => {
                    for c in self.open.captures() {
                        self.gathered.capture(c, alt);
                    }
                }
                Visit::JsonLd => self.jsonld = true,
                Visit::Capture(_) | Visit::Nothing => {}
            }
        }
        if el.ns != Ns::Html || !el.pushed {
            return TokenSinkResult::Continue;
        }
        // The elements whose content the tokenizer reads as text, as the
        // tree builder tells it (scripting on: <noscript> is raw text).
        match name {
            "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "textarea" => {
                self.skip_lf = true;
                TokenSinkResult::RawData(RawKind::Rcdata)
            }
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "plaintext" => TokenSinkResult::Plaintext,
            "pre" | "listing" => {
                self.skip_lf = true;
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        }
    }

    fn end(&mut self, name: &str) {
        self.end_title();
        self.jsonld &= name != "script";
        if self.open.end(name) {
            self.end_node();
        }
        self.settle();
    }

    /// What the tree builder's moves did to the anchors gathered so far.
    fn settle(&mut self) {
        if let Some((anchor, at)) = self.open.cut.take() {
            self.gathered.cut_anchor(anchor, at);
        }
        let gathered = &self.gathered;
        self.open.settle_copies(|c| gathered.captured_len(c) == 0);
    }

    fn text(&mut self, text: &str) {
        let before_body = self.open.before_body();
        match self.open.text(text) {
            TextPlace::Visible if before_body => {
                let text = text.trim_start_matches(['\t', '\n', '\x0c', '\r', ' ']);
                if !text.is_empty() {
                    self.visible_text(text);
                }
            }
            TextPlace::Visible => self.visible_text(text),
            TextPlace::Hidden if self.jsonld => self.gathered.script_text(text),
            TextPlace::Hidden => {
                if let Some(title) = &mut self.title {
                    title.push_str(text);
                }
            }
            TextPlace::Ignored => {}
        }
    }

    fn visible_text(&mut self, text: &str) {
        self.settle();
        if self.node_start.is_none() {
            self.node_start = Some(self.doc.text.len());
            if !self.doc.text.is_empty() {
                self.doc.text.push(' ');
            }
            self.node_captures.clear();
            self.node_captures.extend(self.open.captures());
        }
        self.doc.text.push_str(text);
    }

    /// Ends the text node being read: one space before it parts it from
    /// the one before ("<p>a</p><p>b</p>" gives "a b", never "ab"); its own
    /// whitespace stays as written, for the analyzer and snippets split
    /// words themselves; a blank node (indentation) adds nothing.
    ///
    /// The anchors and headings around the node take its text whole: the
    /// tokenizer hands a node over in pieces ("&eacute;t&eacute;" is three),
    /// which must not become three words.
    fn end_node(&mut self) {
        let Some(start) = self.node_start.take() else {
            return;
        };
        let content = start + usize::from(start > 0);
        let node = self.doc.text.get(content..).unwrap_or("");
        if node.trim_ascii_start().is_empty() {
            self.doc.text.truncate(start);
            return;
        }
        for &c in &self.node_captures {
            self.gathered.capture(c, node);
        }
    }

    fn end_title(&mut self) {
        if let Some(title) = self.title.take() {
            self.doc.title = title_text(std::iter::once(title.as_str()));
        }
    }
}

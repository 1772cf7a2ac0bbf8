//! A Markdown file as the HTML the one extractor reads: pulldown-cmark's
//! CommonMark (with GitHub's tables, footnotes, strikethrough and task
//! lists) rendered to HTML, each heading given GitHub's slug as its `id`
//! so that `README.md#install` finds its heading as a fragment, and the
//! first heading as the title. Inline HTML passes through, so an explicit
//! `<a name=...>` or `id` counts as an anchor too.

use std::collections::HashMap;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The HTML a Markdown body stands for (invalid UTF-8 replaced).
pub fn to_html(source: &[u8]) -> String {
    let text = String::from_utf8_lossy(source);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let mut events: Vec<Event> = Parser::new_ext(&text, options).collect();
    let mut slugs = Slugs::default();
    let mut title = None;
    let mut i = 0;
    while i < events.len() {
        if matches!(events[i], Event::Start(Tag::Heading { .. })) {
            let end = events[i..]
                .iter()
                .position(|e| matches!(e, Event::End(TagEnd::Heading(_))))
                .map_or(events.len(), |n| i + n);
            let words: String = events[i + 1..end]
                .iter()
                .filter_map(|e| match e {
                    Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                    _ => None,
                })
                .collect();
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(slugs.next(&words).into());
            }
            title.get_or_insert(words);
            i = end;
        }
        i += 1;
    }
    // The writer escapes the title as it does any text.
    let head = title.into_iter().flat_map(|t| {
        [
            Event::Html("<title>".into()),
            Event::Text(t.into()),
            Event::Html("</title>\n".into()),
        ]
    });
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, head.chain(events));
    html
}

/// GitHub's heading anchors, as its `github-slugger` makes them: lower
/// case, every character but letters, digits, `-`, `_` and spaces
/// dropped, each space a `-`; a slug already given gets `-1`, `-2`, ...
#[derive(Default)]
struct Slugs {
    seen: HashMap<String, usize>,
}

impl Slugs {
    fn next(&mut self, heading: &str) -> String {
        let base: String = heading
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut slug = base.clone();
        while self.seen.contains_key(&slug) {
            let n = self.seen.entry(base.clone()).or_default();
            *n += 1;
            slug = format!("{base}-{n}");
        }
        self.seen.insert(slug.clone(), 0);
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_githubs() {
        let mut s = Slugs::default();
        let got: Vec<String> = [
            "Install",
            "What's new? (v2.0)",
            "Install",
            "snake_case & kebab-case",
            "Install",
            "Install-1",
            "Ünïcode Straße",
        ]
        .iter()
        .map(|h| s.next(h))
        .collect();
        assert_eq!(
            got,
            [
                "install",
                "whats-new-v20",
                "install-1",
                "snake_case--kebab-case",
                "install-2",
                "install-1-1",
                "ünïcode-straße",
            ]
        );
    }

    #[test]
    fn headings_get_ids_and_the_first_is_the_title() {
        let html = to_html(
            b"# Guide `cli` <b>x</b>\n\n## Usage\n\n[a](other.md#usage) ![img](i.png)\n\n<a name=\"raw\"></a>\n",
        );
        assert!(html.starts_with("<title>Guide cli x</title>"), "{html}");
        assert!(html.contains(r#"<h2 id="usage">Usage</h2>"#), "{html}");
        assert!(html.contains(r#"<a href="other.md#usage">"#), "{html}");
        assert!(html.contains(r#"<img src="i.png""#), "{html}");
        assert!(html.contains(r#"<a name="raw"></a>"#), "{html}");
    }
}

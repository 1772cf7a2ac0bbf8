//! `--render auto`'s rule: a page is rendered when its served HTML looks
//! like an application shell, that is, it loads a script bundle
//! (`<script src>`) and offers little beside it: fewer than
//! [`SHELL_MAX_LINKS`] links or fewer than [`SHELL_MAX_WORDS`] words of
//! text. A page with its content in the HTML is read as served.

use crate::html::resources::Element;
use crate::html::Document;

/// Fewer links than this, beside a script bundle, is a shell.
pub const SHELL_MAX_LINKS: usize = 3;
/// Fewer words than this, beside a script bundle, is a shell.
pub const SHELL_MAX_WORDS: usize = 50;

pub fn looks_like_shell(doc: &Document) -> bool {
    let bundle = doc.resources.iter().any(|r| r.element == Element::Script);
    bundle
        && (doc.links.len() < SHELL_MAX_LINKS
            || doc.text.split_whitespace().count() < SHELL_MAX_WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_rule() {
        let words = |n: usize| vec!["word"; n].join(" ");
        let links = |n: usize| {
            (0..n)
                .map(|i| format!("<a href=/p{i}>p</a>"))
                .collect::<String>()
        };
        let cases = [
            // (body, shell?)
            (
                "<div id=app></div><script src=/app.js></script>".to_string(),
                true,
            ),
            (
                format!("{}<script src=/a.js></script>", links(2) + &words(400)),
                true,
            ),
            (
                format!("{}<script src=/a.js></script>", links(10) + &words(10)),
                true,
            ),
            (
                format!("{}<script src=/a.js></script>", links(10) + &words(400)),
                false,
            ),
            // No bundle: nothing a browser would add.
            ("<p>short</p>".to_string(), false),
            ("<script>document.write('x')</script>".to_string(), false),
        ];
        let base = url::Url::parse("http://example.test/").unwrap();
        for (body, shell) in cases {
            let doc = crate::html::parse_html(body.as_bytes(), None, &base);
            assert_eq!(looks_like_shell(&doc), shell, "{body}");
        }
    }
}

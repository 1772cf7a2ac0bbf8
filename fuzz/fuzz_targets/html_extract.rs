//! HTML extraction: any body under any content type parses without a panic
//! into a bounded document (title, meta tags and links capped; titles and
//! meta cleaned of control characters; links followable URLs, each once;
//! no NUL in the text).

#![no_main]

use std::collections::HashSet;
use std::sync::OnceLock;

use crawlscope::html::{
    parse_html, parse_text, Document, MAX_LINKS_PER_PAGE, MAX_META_CONTENT_CHARS, MAX_META_TAGS,
    MAX_TITLE_CHARS,
};
use crawlscope::url::{Url, MAX_URL_LEN};
use libfuzzer_sys::fuzz_target;

/// The first input byte picks one (modulo the length); the rest is the body.
const CONTENT_TYPES: &[Option<&str>] = &[
    None,
    Some("text/html"),
    Some("text/html; charset=utf-8"),
    Some("text/html; charset=\"windows-1252\""),
    Some("text/html; charset=utf-16le"),
    Some("text/html; charset=UTF-16BE"),
    Some("text/html; charset=shift_jis"),
    Some("text/html; charset=iso-2022-jp"),
    Some("text/html; charset=gb18030"),
    Some("text/html; charset=x-user-defined"),
    Some("text/html; charset=euc-kr"),
    Some("text/html; charset=replacement"),
    Some("text/html; charset=no-such-charset"),
    Some("text/plain; charset='koi8-r'"),
    Some("application/xhtml+xml;charset=utf-8;q=1"),
    Some(""),
];

fn page_url() -> &'static Url {
    static URL: OnceLock<Url> = OnceLock::new();
    URL.get_or_init(|| Url::parse("https://example.com/dir/page.html?x=1").expect("fixed URL"))
}

fn check(doc: &Document) {
    if let Some(title) = &doc.title {
        assert!(!title.contains('\0'), "NUL in title {title:?}");
        assert!(
            title.chars().count() <= MAX_TITLE_CHARS,
            "title of {} chars",
            title.chars().count()
        );
        assert!(!title.is_empty(), "empty title kept");
        assert!(
            !title.chars().any(char::is_control),
            "control character in title {title:?}"
        );
    }
    assert!(
        doc.links.len() <= MAX_LINKS_PER_PAGE,
        "{} links",
        doc.links.len()
    );
    let mut seen = HashSet::new();
    for link in doc.links.iter().map(|l| &l.url) {
        assert!(
            matches!(link.scheme(), "http" | "https") && link.host().is_some(),
            "unfollowable link {link}"
        );
        assert!(link.as_str().len() <= MAX_URL_LEN, "over-long link");
        assert!(seen.insert(link.as_str()), "link {link} twice");
    }
    assert!(
        doc.meta.len() <= MAX_META_TAGS,
        "{} meta tags",
        doc.meta.len()
    );
    for crawlscope::html::MetaTag { name, content, .. } in &doc.meta {
        assert!(!name.is_empty(), "meta tag without a name");
        assert!(
            !name.contains('\0') && !content.contains('\0'),
            "NUL in meta {name:?}={content:?}"
        );
        assert!(
            content.chars().count() <= MAX_META_CONTENT_CHARS,
            "meta content of {} chars",
            content.chars().count()
        );
    }
    assert!(!doc.text.contains('\0'), "NUL in the text");
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let content_type = CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()];

    let doc = parse_html(body, content_type, page_url());
    check(&doc);

    let text = parse_text(body, content_type);
    check(&text);
    assert!(
        text.title.is_none() && text.links.is_empty() && text.meta.is_empty(),
        "text/plain grew HTML parts"
    );
});

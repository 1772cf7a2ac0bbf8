//! Resource links: what a page loads rather than links to (images,
//! scripts, stylesheets, icons, media, frames, objects), each with the
//! element kind it was found in, gathered during the one extraction pass
//! (see [`super::extract`]) and resolved with the page's links; and the `srcset`
//! candidate parser those elements need.

use rustc_hash::FxHashSet as HashSet;

pub use crawlscope_store::types::Element;

use super::text::{clean, has_token};
use super::MAX_LINKS_PER_PAGE;
use crate::url::{resolve, Url};

/// An `alt` text is kept up to this many characters: enough to tell one
/// over the 100 that `report images` calls long.
pub const MAX_ALT_CHARS: usize = 1_000;

/// A resource of a page, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub url: Url,
    pub element: Element,
    /// An image's `alt`: None when the attribute is absent, "" when empty.
    pub alt: Option<String>,
}

/// A resource as written, before resolving against the base.
pub(super) struct RawResource {
    href: String,
    element: Element,
    alt: Option<String>,
}

/// Adds the resources an element (named `name`, inside `parent`, with
/// attributes `attr`) loads.
pub(super) fn collect<'a>(
    name: &str,
    parent: &str,
    attr: impl Fn(&str) -> Option<&'a str>,
    out: &mut Vec<RawResource>,
) {
    let mut add = |href: &str, element: Element, alt: Option<&str>| {
        out.push(RawResource {
            href: href.to_owned(),
            element,
            alt: alt.map(str::to_owned),
        })
    };
    match name {
        "img" => {
            let alt = attr("alt");
            attr("src")
                .into_iter()
                .for_each(|s| add(s, Element::Img, alt));
            srcset(attr("srcset").unwrap_or(""), |s| add(s, Element::Img, alt));
        }
        "source" if parent == "picture" => {
            srcset(attr("srcset").unwrap_or(""), |s| {
                add(s, Element::Source, None)
            });
        }
        "script" => attr("src")
            .into_iter()
            .for_each(|s| add(s, Element::Script, None)),
        "link" => {
            let rel = attr("rel");
            let element = if has_token(rel, "stylesheet") {
                Element::Stylesheet
            } else if has_token(rel, "icon") || has_token(rel, "apple-touch-icon") {
                Element::Icon
            } else if has_token(rel, "preload") {
                Element::Preload
            } else if has_token(rel, "manifest") {
                Element::Manifest
            } else {
                return;
            };
            attr("href").into_iter().for_each(|s| add(s, element, None));
        }
        "video" | "audio" | "source" | "track" => {
            attr("src")
                .into_iter()
                .for_each(|s| add(s, Element::Media, None));
            if name == "video" {
                attr("poster")
                    .into_iter()
                    .for_each(|s| add(s, Element::Media, None));
            }
        }
        "iframe" => attr("src")
            .into_iter()
            .for_each(|s| add(s, Element::Iframe, None)),
        "object" => attr("data")
            .into_iter()
            .for_each(|s| add(s, Element::Object, None)),
        "embed" => attr("src")
            .into_iter()
            .for_each(|s| add(s, Element::Object, None)),
        _ => {}
    }
}

/// Calls `f` with each candidate URL of a `srcset` ("a.png 1x, b.png 2x"),
/// as the HTML standard splits it: a URL runs to whitespace, a trailing
/// comma ends a candidate without descriptors, else the descriptors run to
/// the next comma outside parentheses.
pub fn srcset<'a>(value: &'a str, mut f: impl FnMut(&'a str)) {
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            return;
        }
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let (mut url, after) = rest.split_at(end);
        rest = after;
        if url.ends_with(',') {
            url = url.trim_end_matches(',');
        } else {
            let mut depth = 0u32;
            let stop = rest.char_indices().find(|&(_, c)| match c {
                '(' => {
                    depth += 1;
                    false
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    false
                }
                ',' => depth == 0,
                _ => false,
            });
            rest = stop.map_or("", |(i, _)| &rest[i + 1..]);
        }
        if !url.is_empty() {
            f(url);
        }
    }
}

/// Resolves, drops rejects (`data:` and other schemes included),
/// deduplicates per (URL, element) in first-seen order, caps.
pub(super) fn resolve_resources(base: &Url, raw: Vec<RawResource>) -> Vec<Resource> {
    let mut out = Vec::new();
    let mut seen: HashSet<(String, Element)> = HashSet::default();
    for r in raw {
        if out.len() >= MAX_LINKS_PER_PAGE {
            break;
        }
        let Ok(url) = resolve(base, &r.href) else {
            continue;
        };
        if seen.insert((url.as_str().to_owned(), r.element)) {
            out.push(Resource {
                url,
                element: r.element,
                alt: r.alt.map(|a| clean(&a, MAX_ALT_CHARS)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srcset_candidates_split_as_the_standard_says() {
        let cases: &[(&str, &[&str])] = &[
            ("a.png", &["a.png"]),
            ("a.png 1x, b.png 2x", &["a.png", "b.png"]),
            ("  a.png  480w ,b.png 800w", &["a.png", "b.png"]),
            // A comma inside a URL is part of it.
            ("a.png,b.png 2x", &["a.png,b.png"]),
            ("a.png, b.png 2x", &["a.png", "b.png"]),
            ("a.png, b,c.png 2x", &["a.png", "b,c.png"]),
            ("a.png (x, y) 2x, b.png", &["a.png", "b.png"]),
            ("", &[]),
            (" , ,", &[]),
        ];
        for (value, want) in cases {
            let mut got = Vec::new();
            srcset(value, |u| got.push(u));
            assert_eq!(&got, want, "srcset {value:?}");
        }
    }

    #[test]
    fn each_element_gives_its_resources() {
        type Want = &'static [(&'static str, Element, Option<&'static str>)];
        use Element::*;
        let cases: &[(&str, Want)] = &[
            ("<img src=a.png alt='A'>", &[("a.png", Img, Some("A"))]),
            ("<img src=a.png>", &[("a.png", Img, None)]),
            ("<img src=a.png alt>", &[("a.png", Img, Some(""))]),
            (
                "<img src=a.png srcset='b.png 2x, c.png 3x' alt=x>",
                &[
                    ("a.png", Img, Some("x")),
                    ("b.png", Img, Some("x")),
                    ("c.png", Img, Some("x")),
                ],
            ),
            (
                "<picture><source srcset='p.webp'><img src=p.png></picture>",
                &[("p.webp", Source, None), ("p.png", Img, None)],
            ),
            (
                "<script src=s.js></script><script>x()</script>",
                &[("s.js", Script, None)],
            ),
            (
                "<link rel=stylesheet href=c.css>",
                &[("c.css", Stylesheet, None)],
            ),
            (
                "<link rel='shortcut icon' href=f.ico>",
                &[("f.ico", Icon, None)],
            ),
            (
                "<link rel=apple-touch-icon href=t.png>",
                &[("t.png", Icon, None)],
            ),
            (
                "<link rel=preload href=font.woff2>",
                &[("font.woff2", Preload, None)],
            ),
            (
                "<link rel=manifest href=m.json>",
                &[("m.json", Manifest, None)],
            ),
            ("<link rel=alternate href=feed.xml>", &[]),
            (
                "<video src=v.mp4 poster=v.jpg><source src=v.webm><track src=v.vtt></video>",
                &[
                    ("v.mp4", Media, None),
                    ("v.jpg", Media, None),
                    ("v.webm", Media, None),
                    ("v.vtt", Media, None),
                ],
            ),
            ("<audio src=a.mp3></audio>", &[("a.mp3", Media, None)]),
            (
                "<iframe src=frame.html></iframe>",
                &[("frame.html", Iframe, None)],
            ),
            (
                "<object data=o.swf></object><embed src=e.swf>",
                &[("o.swf", Object, None), ("e.swf", Object, None)],
            ),
            // One per (URL, element); data: and other schemes dropped.
            (
                "<img src=a.png><img src=a.png alt=B><link rel=preload href=a.png>",
                &[("a.png", Img, None), ("a.png", Preload, None)],
            ),
            (
                "<img src='data:image/png;base64,AA'><script src='javascript:x'></script>",
                &[],
            ),
            // Resolved against <base href>, wherever it is.
            (
                "<img src=a.png><base href='http://cdn.test/x/'>",
                &[("http://cdn.test/x/a.png", Img, None)],
            ),
        ];
        let page = Url::parse("http://h.test/dir/page.html").unwrap();
        for (html, want) in cases {
            let doc = crate::html::parse_html(html.as_bytes(), Some("text/html"), &page);
            let want: Vec<Resource> = want
                .iter()
                .map(|&(u, element, alt)| Resource {
                    url: crate::url::resolve(&page, u).unwrap(),
                    element,
                    alt: alt.map(str::to_owned),
                })
                .collect();
            assert_eq!(doc.resources, want, "{html}");
        }
    }
}

//! What `--check-fragments` needs of a parsed HTML page: the `id` and
//! `name` values of its elements, and its links that name a fragment
//! (`page#frag`; the link itself is stored without it, as every URL is).
//! The extraction pass hands each element and each `<a>`/`<area>` href here;
//! after the links are resolved, each fragment link is tied to its link.
//! `#top` and an empty fragment need no element (browsers scroll to the
//! top), so they are not kept.

use rustc_hash::FxHashMap;

use super::Link;
use crate::url::{resolve, Url};

/// Ids kept per page, and fragment links: hostile pages carry millions.
const MAX_IDS: usize = 10_000;
const MAX_FRAGMENT_LINKS: usize = 5_000;
/// Longer ids and fragments are cut: no real one comes near.
const MAX_ID_BYTES: usize = 256;

/// A page's ids and fragment links.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageFragments {
    /// Set for a parsed HTML page: a non-HTML body has no ids to check
    /// against, which is not the same as having none.
    pub html: bool,
    /// `id` and `name` values, sorted, once each.
    pub ids: Vec<String>,
    /// (index in `Document::links`, fragment), once each.
    pub links: Vec<(usize, String)>,
    /// Hrefs with a fragment, as written, until the links are resolved.
    hrefs: Vec<String>,
}

impl PageFragments {
    /// Notes an element's `id` and `name`.
    pub(super) fn element<'a>(&mut self, attr: impl Fn(&str) -> Option<&'a str>) {
        for name in ["id", "name"] {
            if let Some(v) = attr(name).filter(|v| !v.is_empty()) {
                if self.ids.len() < MAX_IDS {
                    self.ids.push(cut(v).to_string());
                }
            }
        }
    }

    /// Notes an `<a>`/`<area>` href when it names a fragment to check.
    pub(super) fn href(&mut self, href: &str) {
        if fragment(href).is_some() && self.hrefs.len() < MAX_FRAGMENT_LINKS {
            self.hrefs.push(href.to_string());
        }
    }

    /// Ties each noted href to its resolved link (against `base`, as the
    /// links were), and sorts the ids for look-ups.
    pub(super) fn resolve(&mut self, base: &Url, links: &[Link]) {
        self.html = true;
        self.ids.sort_unstable();
        self.ids.dedup();
        if self.hrefs.is_empty() {
            return;
        }
        let index: FxHashMap<&str, usize> = links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.url.as_str(), i))
            .collect();
        for href in std::mem::take(&mut self.hrefs) {
            let (Some(frag), Ok(url)) = (fragment(&href), resolve(base, &href)) else {
                continue;
            };
            if let Some(&i) = index.get(url.as_str()) {
                let entry = (i, cut(frag).to_string());
                if !self.links.contains(&entry) {
                    self.links.push(entry);
                }
            }
        }
    }
}

/// The fragment of an href when it needs an element: not empty, not `top`.
fn fragment(href: &str) -> Option<&str> {
    let (_, frag) = href.split_once('#')?;
    (!frag.is_empty() && !frag.eq_ignore_ascii_case("top")).then_some(frag)
}

/// A link's own fragment as written, if not empty, cut as ids are
/// (`#top` included: the occurrence says what was written).
pub(super) fn fragment_of(href: &str) -> Option<String> {
    let (_, frag) = href.split_once('#')?;
    (!frag.is_empty()).then(|| cut(frag).to_string())
}

fn cut(s: &str) -> &str {
    if s.len() <= MAX_ID_BYTES {
        return s;
    }
    let mut end = MAX_ID_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::fragment;

    #[test]
    fn only_fragments_that_need_an_element_are_kept() {
        assert_eq!(fragment("a.html#intro"), Some("intro"));
        assert_eq!(fragment("#x"), Some("x"));
        for none in ["a.html", "a.html#", "#top", "#TOP", ""] {
            assert_eq!(fragment(none), None, "{none}");
        }
    }
}

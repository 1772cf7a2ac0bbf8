//! What the hreflang, pagination, structured-data and security audits need
//! of a page's markup, gathered in the same one pass as the rest (each
//! element handed over by [`super::extract::Gathered::element`]):
//! `<link rel=alternate hreflang>`, `rel=next|prev` on `<link>` and `<a>`,
//! JSON-LD scripts (parsed here, only their `@type`s and errors kept),
//! microdata `itemtype`s, whether RDFa attributes are present, and links
//! opening another origin in a new tab without `noopener`. All bounded:
//! a hostile page cannot grow them past a few caps.

use serde_json::Value;

pub use crawlscope_store::types::AuditFacts;

use super::resources::{Element, Resource};
use super::text::{clean, has_token};
use crate::url::{origin, resolve, Url};

/// hreflang alternates kept per page (a large multilingual site lists a
/// few dozen; more is a hostile page).
const MAX_ALTERNATES: usize = 500;
/// JSON-LD scripts read per page, and the text read of each.
const MAX_SCRIPTS: usize = 50;
const MAX_SCRIPT_BYTES: usize = 1 << 20;
/// Types (JSON-LD or microdata) kept per page.
const MAX_TYPES: usize = 100;
/// Links to other origins opened unsafely, kept per page.
const MAX_BLANK: usize = 100;
/// A JSON-LD parse error is one short line.
const MAX_ERROR_CHARS: usize = 200;
/// A type name or language code is a label.
const MAX_LABEL_CHARS: usize = 200;

/// The facts as written, before resolving against the base.
#[derive(Default)]
pub(super) struct RawFacts {
    hreflang: Vec<(String, String)>,
    next: Option<String>,
    prev: Option<String>,
    /// Each JSON-LD script's text; None when it was too long to read.
    scripts: Vec<Option<String>>,
    microdata: Vec<String>,
    rdfa: bool,
    blank: Vec<String>,
}

impl RawFacts {
    /// Notes what element `name` with attributes `attr` tells; true when
    /// its text is a JSON-LD script, to hand to [`RawFacts::script_text`].
    pub(super) fn element<'a>(
        &mut self,
        name: &str,
        attr: impl Fn(&str) -> Option<&'a str>,
    ) -> bool {
        if let Some(types) = attr("itemtype") {
            for t in types.split_ascii_whitespace() {
                if self.microdata.len() < MAX_TYPES && !self.microdata.iter().any(|m| m == t) {
                    self.microdata.push(clean(t, MAX_LABEL_CHARS));
                }
            }
        }
        if !self.rdfa {
            self.rdfa = attr("typeof").is_some()
                || attr("vocab").is_some()
                || (name != "meta" && attr("property").is_some());
        }
        let rel = attr("rel");
        match name {
            "link" | "a" => {
                let Some(href) = attr("href") else {
                    return false;
                };
                if name == "link" && has_token(rel, "alternate") {
                    if let Some(code) = attr("hreflang") {
                        if self.hreflang.len() < MAX_ALTERNATES {
                            let code = clean(code, MAX_LABEL_CHARS);
                            self.hreflang.push((code, href.to_owned()));
                        }
                    }
                }
                if has_token(rel, "next") {
                    self.next.get_or_insert_with(|| href.to_owned());
                }
                if has_token(rel, "prev") || has_token(rel, "previous") {
                    self.prev.get_or_insert_with(|| href.to_owned());
                }
                let blank = attr("target").is_some_and(|t| t.eq_ignore_ascii_case("_blank"));
                if name == "a"
                    && blank
                    && !has_token(rel, "noopener")
                    && !has_token(rel, "noreferrer")
                    && self.blank.len() < MAX_BLANK
                {
                    self.blank.push(href.to_owned());
                }
                false
            }
            "script" => {
                let jsonld = attr("type").is_some_and(|t| {
                    t.split(';')
                        .next()
                        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
                });
                if jsonld && self.scripts.len() < MAX_SCRIPTS {
                    self.scripts.push(Some(String::new()));
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    /// Text of the JSON-LD script last opened (the pass may hand it in
    /// pieces).
    pub(super) fn script_text(&mut self, text: &str) {
        let Some(slot) = self.scripts.last_mut() else {
            return;
        };
        match slot {
            Some(s) if s.len() + text.len() <= MAX_SCRIPT_BYTES => s.push_str(text),
            _ => *slot = None,
        }
    }

    /// The facts resolved: hrefs against `base`, the unsafe targets judged
    /// against the page's own origin, the scripts parsed.
    pub(super) fn finish(self, base: &Url, page: &Url) -> AuditFacts {
        let resolved = |href: &str| resolve(base, href).ok().map(String::from);
        let own = origin(page);
        let mut facts = AuditFacts {
            hreflang: self
                .hreflang
                .into_iter()
                .filter_map(|(code, href)| Some((code, resolved(&href)?)))
                .collect(),
            next: self.next.as_deref().and_then(resolved),
            prev: self.prev.as_deref().and_then(resolved),
            microdata: self.microdata,
            rdfa: self.rdfa,
            unsafe_blank: self
                .blank
                .iter()
                .filter_map(|href| resolve(base, href).ok())
                .filter(|u| matches!(u.scheme(), "http" | "https") && origin(u) != own)
                .map(String::from)
                .collect(),
            ..AuditFacts::default()
        };
        for script in self.scripts {
            let parsed = match script {
                None => Err(format!("longer than {MAX_SCRIPT_BYTES} bytes")),
                Some(text) => serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()),
            };
            match parsed {
                Ok(v) => jsonld_types(&v, &mut facts.jsonld),
                Err(e) => facts.jsonld_errors.push(clean(&e, MAX_ERROR_CHARS)),
            }
        }
        facts
    }
}

/// The `@type`s a JSON-LD document declares: of its top-level object(s)
/// and of its `@graph`'s members (nested values are properties of those,
/// not entities of the page).
fn jsonld_types(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| jsonld_types(i, out)),
        Value::Object(o) => {
            let mut push = |t: &str| {
                let t = clean(t, MAX_LABEL_CHARS);
                if !t.is_empty() && out.len() < MAX_TYPES && !out.contains(&t) {
                    out.push(t);
                }
            };
            match o.get("@type") {
                Some(Value::String(t)) => push(t),
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).for_each(push),
                _ => {}
            }
            if let Some(graph) = o.get("@graph") {
                jsonld_types(graph, out);
            }
        }
        _ => {}
    }
}

/// Whether an hreflang value is `x-default` or a language code with an
/// optional script and region (`en`, `en-GB`, `zh-Hant-TW`, `es-419`): the
/// forms search engines read; `en_GB` or `english` are not.
pub fn valid_hreflang(code: &str) -> bool {
    if code.eq_ignore_ascii_case("x-default") {
        return true;
    }
    let mut parts = code.split('-');
    let alpha = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphabetic())
    };
    if !parts.next().is_some_and(|l| alpha(l, 2..=3)) {
        return false;
    }
    let mut rest: Vec<&str> = parts.collect();
    if rest.first().is_some_and(|s| alpha(s, 4..=4)) {
        rest.remove(0);
    }
    match rest.as_slice() {
        [] => true,
        [region] => {
            alpha(region, 2..=2)
                || (region.len() == 3 && region.bytes().all(|b| b.is_ascii_digit()))
        }
        _ => false,
    }
}

/// What a page names without linking to it and the crawl checks like a
/// resource: its canonical (unless itself), its hreflang alternates and its
/// pagination targets (never followed as links for their sake).
pub fn target_resources(canonical: Option<&str>, facts: &AuditFacts, page: &Url) -> Vec<Resource> {
    let targets = canonical
        .map(|c| (c, Element::Canonical))
        .into_iter()
        .chain(
            facts
                .hreflang
                .iter()
                .map(|(_, t)| (t.as_str(), Element::Hreflang)),
        )
        .chain(facts.next.as_deref().map(|t| (t, Element::Pagination)))
        .chain(facts.prev.as_deref().map(|t| (t, Element::Pagination)));
    let mut out: Vec<Resource> = Vec::new();
    for (target, element) in targets {
        let Ok(url) = Url::parse(target) else {
            continue;
        };
        let own = url.as_str() == page.as_str();
        if !own && !out.iter().any(|r| r.url == url && r.element == element) {
            out.push(Resource {
                url,
                element,
                alt: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hreflang_codes() {
        for ok in [
            "en",
            "en-GB",
            "en-gb",
            "zh-Hant-TW",
            "es-419",
            "x-default",
            "fil",
        ] {
            assert!(valid_hreflang(ok), "{ok}");
        }
        for bad in [
            "",
            "en_GB",
            "english",
            "en-",
            "e",
            "en-GBR",
            "en-GB-x",
            "x-defaults",
            "12",
        ] {
            assert!(!valid_hreflang(bad), "{bad}");
        }
    }

    #[test]
    fn jsonld_types_of_top_level_and_graph() {
        let v: Value = serde_json::from_str(
            r#"[{"@type":"Organization","founder":{"@type":"Person"}},
                {"@graph":[{"@type":["WebSite","Thing"]},{"@type":"Organization"}]}]"#,
        )
        .unwrap();
        let mut out = Vec::new();
        jsonld_types(&v, &mut out);
        assert_eq!(out, ["Organization", "WebSite", "Thing"]);
    }
}

//! The one gate every request of a crawl point passes: a page, a resource
//! (own origin or another), an external link check, a sitemap entry, and
//! any target a check asks for. It owns the point's URL rules (prefix
//! excludes, `--exclude-regex`, `--include`, `--remap`), how often a
//! request is asked again (`--max-retries`, `--max-redirects`) and, with the
//! origin's robots.txt, the verdict: ask (the URL to request, remapped),
//! or not checked and why. A URL refused here is never requested and never
//! a finding. The writer asks [`RequestRules::excluded`] when it meets a
//! link, before the URL can be queued; fetch workers ask [`gate`] before
//! the request goes out, so what the writer cannot know (robots.txt, a
//! resource's or external link's rules) is judged there, the same way.

use regex::{Regex, RegexSet};
use url::Url;

use crate::exclude_regex::ExcludeRegex;
use crate::store::PointRecord;
use crate::url::{Scope, Verdict};

/// Redirect chains longer than this end with an error, unless the point
/// says otherwise (`--max-redirects`).
pub const MAX_REDIRECTS: u8 = 10;

/// A point's URL rules, compiled once for a run.
#[derive(Debug, Clone)]
pub struct RequestRules {
    scope: Scope,
    /// The point's start URL: where its crawl begins, so `--include`
    /// never refuses it (lychee never filters its inputs either).
    start: String,
    exclude_regex: ExcludeRegex,
    /// `--include`: when given, a URL matching none is not requested.
    include: Option<RegexSet>,
    /// `--remap`: the first pattern a URL matches says what is requested.
    remap: Vec<(Regex, String)>,
    /// `--max-retries`: how often a network error, 5xx or 429 is asked
    /// again before it is a finding.
    pub max_retries: u32,
    /// `--max-redirects`: a longer chain is a failure.
    pub max_redirects: u8,
}

impl RequestRules {
    /// The rules of `rec`, with its documents' excludes (`doc`) beside
    /// its own. Patterns are checked when the point is saved; a store
    /// holds no other, so one that does not compile here is left out.
    pub fn of(rec: &PointRecord, doc: Vec<String>) -> RequestRules {
        let excludes = rec.excludes.iter().cloned().chain(doc).collect();
        RequestRules {
            scope: Scope::new(rec.root.clone(), excludes, !rec.distinct_www),
            start: rec.url.clone(),
            exclude_regex: ExcludeRegex::new(&rec.exclude_regex),
            include: (!rec.include.is_empty())
                .then(|| RegexSet::new(&rec.include).ok())
                .flatten(),
            remap: rec
                .remap
                .iter()
                .filter_map(|r| parse_remap(r).ok())
                .collect(),
            max_retries: rec.max_retries.unwrap_or(super::retry::DEFAULT_RETRIES),
            max_redirects: rec.max_redirects.unwrap_or(MAX_REDIRECTS),
        }
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Whether the point's rules keep `url` (normalised, as stored) from
    /// being requested at all: a prefix exclude within the root, a
    /// pattern anywhere, or an `--include` list it matches none of.
    pub fn excluded(&self, url: &str) -> bool {
        self.exclude_regex.matches(url)
            || self.scope.verdict(url) == Verdict::Excluded
            || self
                .include
                .as_ref()
                .is_some_and(|set| url != self.start && !set.is_match(url))
    }

    /// The URL requested for `url`: the first `--remap` it matches, its
    /// `$1` groups filled in; itself when none matches, or when the
    /// replacement is no URL (a remap never makes a request fail).
    pub fn remapped(&self, url: &Url) -> Url {
        self.remap
            .iter()
            .find(|(re, _)| re.is_match(url.as_str()))
            .and_then(|(re, to)| Url::parse(&re.replace(url.as_str(), to.as_str())).ok())
            .unwrap_or_else(|| url.clone())
    }
}

/// A `--remap 'RE REPLACEMENT'` as typed: the pattern, one run of
/// whitespace, the replacement. Refused with the reason when either is
/// missing or the pattern does not compile.
pub fn parse_remap(input: &str) -> Result<(Regex, String), String> {
    let (re, to) = input
        .trim()
        .split_once(char::is_whitespace)
        .map(|(re, to)| (re, to.trim()))
        .filter(|(_, to)| !to.is_empty())
        .ok_or_else(|| format!("expected 'RE REPLACEMENT', got '{input}'"))?;
    let re = Regex::new(re).map_err(|e| e.to_string())?;
    Ok((re, to.to_string()))
}

/// `--include` patterns together, refused when they do not compile.
pub fn check_include(patterns: &[String]) -> Result<(), String> {
    RegexSet::new(patterns).map(drop).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(include: &[&str], remap: &[&str]) -> RequestRules {
        RequestRules::of(
            &PointRecord {
                url: "https://a.test/".into(),
                root: "https://a.test/".into(),
                excludes: vec!["https://a.test/private/".into()],
                exclude_regex: vec!["bg-missing".into()],
                include: include.iter().map(|s| s.to_string()).collect(),
                remap: remap.iter().map(|s| s.to_string()).collect(),
                ..PointRecord::default()
            },
            vec!["https://a.test/draft/".into()],
        )
    }

    #[test]
    fn every_rule_excludes_in_scope_or_not() {
        let plain = rules(&[], &[]);
        let included = rules(&["/docs/", "^https://b\\.test/"], &[]);
        let cases: &[(&RequestRules, &str, bool)] = &[
            (&plain, "https://a.test/x", false),
            (&plain, "https://a.test/private/x", true),
            (&plain, "https://a.test/draft/x", true),
            (&plain, "https://a.test/img/bg-missing.png", true),
            (&plain, "https://cdn.test/bg-missing.png", true),
            (&plain, "https://cdn.test/private/x", false),
            (&included, "https://a.test/", false),
            (&included, "https://a.test/docs/a", false),
            (&included, "https://b.test/x", false),
            (&included, "https://a.test/blog/", true),
            (&included, "https://a.test/docs/bg-missing.png", true),
        ];
        for (rules, url, excluded) in cases {
            assert_eq!(rules.excluded(url), *excluded, "{url}");
        }
    }

    #[test]
    fn remap_fills_groups_and_keeps_what_it_cannot_make_a_url() {
        let r = rules(
            &[],
            &[
                r"^https://old\.test/(.*)$ http://127.0.0.1:9/$1",
                r"^https://bad\.test/ not-a-url",
            ],
        );
        let u = |s: &str| Url::parse(s).unwrap();
        assert_eq!(
            r.remapped(&u("https://old.test/a/b?c=1")).as_str(),
            "http://127.0.0.1:9/a/b?c=1"
        );
        assert_eq!(
            r.remapped(&u("https://bad.test/x")),
            u("https://bad.test/x")
        );
        assert_eq!(r.remapped(&u("https://a.test/x")), u("https://a.test/x"));
        assert!(parse_remap("only-a-pattern").is_err());
        assert!(parse_remap("(unclosed x").is_err());
    }
}

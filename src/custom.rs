//! A point's own extraction and search rules (Screaming Frog's custom
//! extraction and custom search): `--extract NAME=css:SELECTOR` or
//! `NAME=regex:RE` keeps what matches on each HTML page (an element's
//! text, a regex's first group or whole match), `--search NAME=TEXT`,
//! `NAME=!TEXT` or `NAME=regex:RE` counts occurrences in the page's HTML
//! source. A rule is stored as typed (checked when given) and compiled
//! once per crawl; what a page gave is its [`CustomFound`].

use regex::Regex;
use scraper::{Html, Selector};

pub use crate::store::{CustomFound, SearchHit};

/// Values kept of one rule on one page, at most.
pub const MAX_VALUES: usize = 100;
/// Characters kept of one extracted value.
pub const MAX_VALUE_CHARS: usize = 1_000;

/// A point's rules, compiled.
pub struct CustomRules {
    extract: Vec<(String, Pick)>,
    search: Vec<(String, bool, Find)>,
}

enum Pick {
    Css(Box<Selector>),
    Regex(Regex),
}

enum Find {
    Text(String),
    Regex(Regex),
}

/// `NAME=SPEC` split, the name checked.
fn named(rule: &str) -> Result<(&str, &str), String> {
    let (name, spec) = rule
        .split_once('=')
        .ok_or_else(|| format!("{rule:?}: give NAME=SPEC"))?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_.".contains(c))
    {
        return Err(format!(
            "{rule:?}: a rule's name is letters, digits, '-', '_' or '.'"
        ));
    }
    Ok((name, spec))
}

fn regex(spec: &str) -> Result<Regex, String> {
    Regex::new(spec).map_err(|e| format!("regex {spec:?}: {e}"))
}

fn pick(rule: &str) -> Result<(String, Pick), String> {
    let (name, spec) = named(rule)?;
    let how = if let Some(css) = spec.strip_prefix("css:") {
        let sel = Selector::parse(css).map_err(|e| format!("CSS selector {css:?}: {e}"))?;
        Pick::Css(Box::new(sel))
    } else if let Some(re) = spec.strip_prefix("regex:") {
        Pick::Regex(regex(re)?)
    } else {
        return Err(format!("{rule:?}: give NAME=css:SELECTOR or NAME=regex:RE"));
    };
    Ok((name.to_string(), how))
}

/// Whether the search counts pages without it (`!`), and what it finds.
fn find(rule: &str) -> Result<(String, bool, Find), String> {
    let (name, spec) = named(rule)?;
    let (negate, spec) = match spec.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let how = match spec.strip_prefix("regex:") {
        Some(re) => Find::Regex(regex(re)?),
        None if spec.is_empty() => return Err(format!("{rule:?}: nothing to search for")),
        None => Find::Text(spec.to_string()),
    };
    Ok((name.to_string(), negate, how))
}

/// `--extract`'s value parser: the rule as typed, once it compiles.
pub fn parse_extract(rule: &str) -> Result<String, String> {
    pick(rule).map(|_| rule.to_string())
}

/// `--search`'s value parser: the rule as typed, once it compiles.
pub fn parse_search(rule: &str) -> Result<String, String> {
    find(rule).map(|_| rule.to_string())
}

/// The name of a stored rule.
pub fn rule_name(rule: &str) -> &str {
    named(rule).map_or(rule, |(name, _)| name)
}

impl CustomRules {
    /// A point's stored rules compiled; None when it has none. A rule
    /// that no longer compiles (checked when given) is left out.
    pub fn of(extract: &[String], search: &[String]) -> Option<CustomRules> {
        let rules = CustomRules {
            extract: extract.iter().filter_map(|r| pick(r).ok()).collect(),
            search: search.iter().filter_map(|r| find(r).ok()).collect(),
        };
        (!rules.extract.is_empty() || !rules.search.is_empty()).then_some(rules)
    }

    /// What the rules find in one HTML page's source.
    pub fn apply(&self, html: &str) -> CustomFound {
        let tree = (self.extract.iter())
            .any(|(_, p)| matches!(p, Pick::Css(_)))
            .then(|| Html::parse_document(html));
        let extract = (self.extract.iter())
            .map(|(name, how)| {
                let values: Vec<String> = match how {
                    Pick::Css(sel) => tree.as_ref().map_or_else(Vec::new, |t| {
                        t.select(sel)
                            .take(MAX_VALUES)
                            .map(|e| e.text().collect::<Vec<_>>().join(" "))
                            .collect()
                    }),
                    Pick::Regex(re) => (re.captures_iter(html).take(MAX_VALUES))
                        .filter_map(|c| c.get(1).or_else(|| c.get(0)))
                        .map(|m| m.as_str().to_string())
                        .collect(),
                };
                (
                    name.clone(),
                    values.into_iter().map(|v| clean(&v)).collect(),
                )
            })
            .collect();
        let search = (self.search.iter())
            .map(|(name, without, how)| {
                let n = match how {
                    Find::Text(t) => html.matches(t.as_str()).count(),
                    Find::Regex(re) => re.find_iter(html).count(),
                };
                SearchHit {
                    name: name.clone(),
                    without: *without,
                    count: u32::try_from(n).unwrap_or(u32::MAX),
                }
            })
            .collect();
        CustomFound { extract, search }
    }
}

/// A value as shown: white space collapsed, cut to [`MAX_VALUE_CHARS`].
fn clean(v: &str) -> String {
    let words: Vec<&str> = v.split_whitespace().collect();
    words.join(" ").chars().take(MAX_VALUE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_checked_when_given() {
        assert!(parse_extract("price=css:span.price").is_ok());
        assert!(parse_extract("sku=regex:SKU-(\\d+)").is_ok());
        for bad in [
            "price",
            "=css:a",
            "p=css:[[",
            "p=regex:(",
            "p=xpath://a",
            "a b=css:a",
        ] {
            assert!(parse_extract(bad).is_err(), "{bad}");
        }
        assert!(parse_search("lorem=lorem ipsum").is_ok());
        assert!(parse_search("ga=!gtag(").is_ok());
        for bad in ["x=", "x=!", "x=regex:(", "noequals"] {
            assert!(parse_search(bad).is_err(), "{bad}");
        }
        assert_eq!(rule_name("ga=!gtag("), "ga");
    }

    #[test]
    fn a_page_gives_each_rule_its_values_and_counts() {
        let rules = CustomRules::of(
            &[
                "price=css:span.price".into(),
                "sku=regex:SKU-(\\d+)".into(),
                "none=css:table".into(),
            ],
            &[
                "lorem=lorem".into(),
                "ga=!gtag(".into(),
                "n=regex:\\d{3}".into(),
            ],
        )
        .unwrap();
        let html = "<p>lorem <span class=price> 9.99\n EUR</span> SKU-123 lorem</p>\
                    <span class=price>1</span> SKU-45";
        let found = rules.apply(html);
        let values = |n: &str| {
            found
                .extract
                .iter()
                .find(|(k, _)| k == n)
                .unwrap()
                .1
                .clone()
        };
        assert_eq!(values("price"), ["9.99 EUR", "1"]);
        assert_eq!(values("sku"), ["123", "45"]);
        assert!(values("none").is_empty());
        let hits: Vec<(&str, bool, u32, bool)> = (found.search.iter())
            .map(|h| (h.name.as_str(), h.without, h.count, h.found()))
            .collect();
        assert_eq!(
            hits,
            [
                ("lorem", false, 2, true),
                ("ga", true, 0, true),
                ("n", false, 1, true)
            ]
        );
        assert!(CustomRules::of(&[], &[]).is_none());
    }
}

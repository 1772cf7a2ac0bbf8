//! `report security`: per page, each security header an https page
//! answered without (`no_hsts`, `no_csp`, `no_x_content_type_options`,
//! `no_frame_protection`: neither `X-Frame-Options` nor a CSP
//! `frame-ancestors`, `no_referrer_policy`), an https page loading a
//! resource over http (`mixed_content`), and a link opening another
//! origin with `target=_blank` and neither `noopener` nor `noreferrer`
//! (`unsafe_blank_target`). Headers are the page's response as stored
//! with it; a `<meta http-equiv>` is not read as one.

use serde::Serialize;

use super::audit_pages::for_each_audited;
use super::{Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::PageId;

pub struct Security;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    MixedContent,
    UnsafeBlankTarget,
    NoHsts,
    NoCsp,
    NoXContentTypeOptions,
    NoFrameProtection,
    NoReferrerPolicy,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::MixedContent => "mixed_content",
            Issue::UnsafeBlankTarget => "unsafe_blank_target",
            Issue::NoHsts => "no_hsts",
            Issue::NoCsp => "no_csp",
            Issue::NoXContentTypeOptions => "no_x_content_type_options",
            Issue::NoFrameProtection => "no_frame_protection",
            Issue::NoReferrerPolicy => "no_referrer_policy",
        }
    }
}

/// The headers an https page answered without, in [`Issue`]'s order
/// (`headers`: lower-case names, as stored).
pub fn missing_headers(headers: &[(String, String)]) -> Vec<Issue> {
    fn values<'h>(
        headers: &'h [(String, String)],
        name: &'static str,
    ) -> impl Iterator<Item = &'h str> {
        headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    let values = |name| values(headers, name);
    let has = |name| values(name).any(|v| !v.trim().is_empty());
    let frame_ancestors = values("content-security-policy").any(|v| {
        v.split(';')
            .any(|d| d.trim().to_ascii_lowercase().starts_with("frame-ancestors"))
    });
    let nosniff =
        values("x-content-type-options").any(|v| v.trim().eq_ignore_ascii_case("nosniff"));
    [
        (Issue::NoHsts, has("strict-transport-security")),
        (Issue::NoCsp, has("content-security-policy")),
        (Issue::NoXContentTypeOptions, nosniff),
        (
            Issue::NoFrameProtection,
            has("x-frame-options") || frame_ancestors,
        ),
        (Issue::NoReferrerPolicy, has("referrer-policy")),
    ]
    .into_iter()
    .filter_map(|(issue, present)| (!present).then_some(issue))
    .collect()
}

/// Whether a page loads anything over http although it came over https
/// (`loaded`: the URLs of what it loads; what it only names is no load).
pub fn mixed_content(page: &str, loaded: &[String]) -> bool {
    page.starts_with("https://") && loaded.iter().any(|u| u.starts_with("http://"))
}

#[derive(Debug, Serialize)]
pub struct SecurityRow {
    pub url: String,
    pub issue: Issue,
}

impl ListKind for Security {
    type Item = (Issue, PageId);
    type Row = SecurityRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>> {
        let mut items = Vec::new();
        for_each_audited(ctx, |page, facts| {
            let url = ctx.url_once(page)?;
            let https = url.starts_with("https://");
            if https {
                let mut loaded = Vec::new();
                for res in ctx.r.resources(page)? {
                    if !res.element.is_target() {
                        loaded.extend(ctx.r.url_of(res.target)?);
                    }
                }
                if mixed_content(&url, &loaded) {
                    items.push((Issue::MixedContent, page));
                }
            }
            if !facts.unsafe_blank.is_empty() {
                items.push((Issue::UnsafeBlankTarget, page));
            }
            if https {
                let head = ctx.r.http_head(page)?;
                let headers = head.map(|h| h.response).unwrap_or_default();
                items.extend(missing_headers(&headers).into_iter().map(|i| (i, page)));
            }
            Ok(())
        })?;
        items.sort_unstable();
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, (issue, page): Self::Item) -> Result<SecurityRow> {
        Ok(SecurityRow {
            url: ctx.url(page)?,
            issue,
        })
    }
}

impl Row for SecurityRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue"];
    fn cells(&self) -> Vec<String> {
        vec![self.url.clone(), self.issue.as_str().to_string()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(h: &[(&str, &str)]) -> Vec<(String, String)> {
        h.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn mixed_content_is_an_http_load_on_an_https_page() {
        let loads = |urls: &[&str]| urls.iter().map(|u| u.to_string()).collect::<Vec<_>>();
        let mixed = loads(&["https://a.test/s.css", "http://cdn.test/x.js"]);
        let clean = loads(&["https://a.test/s.css", "https://cdn.test/x.js"]);
        assert!(mixed_content("https://a.test/", &mixed));
        assert!(!mixed_content("https://a.test/", &clean));
        assert!(
            !mixed_content("http://a.test/", &mixed),
            "an http page mixes nothing"
        );
    }

    #[test]
    fn each_missing_header_is_named_and_a_present_one_is_not() {
        let all = headers(&[
            ("strict-transport-security", "max-age=63072000"),
            ("content-security-policy", "default-src 'self'"),
            ("x-content-type-options", "nosniff"),
            ("x-frame-options", "DENY"),
            ("referrer-policy", "no-referrer"),
        ]);
        assert_eq!(missing_headers(&all), []);
        assert_eq!(
            missing_headers(&[]),
            [
                Issue::NoHsts,
                Issue::NoCsp,
                Issue::NoXContentTypeOptions,
                Issue::NoFrameProtection,
                Issue::NoReferrerPolicy
            ]
        );
        for (i, (name, _)) in all.iter().enumerate() {
            let mut less = all.clone();
            less.remove(i);
            assert_eq!(missing_headers(&less).len(), 1, "without {name}");
        }
        // A CSP's frame-ancestors protects from framing; a sniffing
        // X-Content-Type-Options is none.
        let csp_frames = headers(&[
            (
                "content-security-policy",
                "default-src 'self'; frame-ancestors 'none'",
            ),
            ("x-content-type-options", "sniff"),
        ]);
        let missing = missing_headers(&csp_frames);
        assert!(!missing.contains(&Issue::NoFrameProtection), "{missing:?}");
        assert!(
            missing.contains(&Issue::NoXContentTypeOptions),
            "{missing:?}"
        );
    }
}

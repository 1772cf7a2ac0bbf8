//! What the faces make of a page's rendering: the facts one version of
//! a page gives ([`seen`]), its line in the Log, and `page --json`'s
//! fields. The record itself ([`PageRender`]) is the store's.

use serde::Serialize;

pub use crawlscope_store::types::render::{Finding, Mark, PageRender, Seen};

use crate::html::Document;

/// What one version of a page says of itself; `agent`: our robots.txt
/// product token, lower case.
pub fn seen(doc: &Document, agent: &str) -> Seen {
    let directives: Vec<&str> = doc
        .meta
        .iter()
        .filter(|m| m.attr == "name" && (m.name == "robots" || m.name == agent))
        .map(|m| m.content.trim())
        .collect();
    Seen {
        title: doc.title.clone(),
        description: doc.description.clone(),
        canonical: doc.canonical.as_ref().map(ToString::to_string),
        directives: (!directives.is_empty()).then(|| directives.join(", ").to_lowercase()),
    }
}

/// A fetched page's line in the console's Log: its title, marked when it
/// was read from a browser's DOM or its rendering failed.
pub fn log_text(mark: Mark, title: Option<&str>) -> String {
    let title = title.unwrap_or_default();
    match mark {
        Mark::Served => title.to_string(),
        Mark::Rendered => format!("[rendered] {title}"),
        Mark::Failed => format!("[render failed] {title}"),
    }
}

/// `page --json`'s rendering fields (CLI.md, "Rendering").
#[derive(Serialize)]
pub struct PageRenderJson {
    pub rendered: bool,
    pub render_ms: Option<u32>,
    pub links_rendered_only: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render_error: Option<String>,
}

impl PageRenderJson {
    /// From a page's render record (None: never rendered).
    pub fn of(facts: Option<PageRender>) -> PageRenderJson {
        let facts = facts.unwrap_or_default();
        PageRenderJson {
            rendered: facts.rendered,
            render_ms: (facts.rendered || facts.error.is_some()).then_some(facts.render_ms),
            links_rendered_only: facts.links_rendered_only,
            render_error: facts.error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_and_log_marks() {
        let seen = |title: &str, robots: Option<&str>| Seen {
            title: Some(title.into()),
            directives: robots.map(str::to_string),
            ..Default::default()
        };
        let rendered = PageRender {
            rendered: true,
            served: seen("Shell", None),
            dom: Some(seen("App", Some("noindex"))),
            links_rendered_only: vec!["http://a.test/menu".into()],
            ..Default::default()
        };
        let failed = PageRender {
            error: Some("timeout".into()),
            served: seen("Shell", None),
            ..Default::default()
        };
        let unchanged = PageRender {
            rendered: true,
            served: seen("Same", None),
            dom: Some(seen("Same", None)),
            ..Default::default()
        };
        // (facts, issues, mark, log line)
        let cases = [
            (
                rendered,
                vec!["title_changed", "directives_changed", "links_added"],
                Mark::Rendered,
                "[rendered] t",
            ),
            (
                failed,
                vec!["render_failed"],
                Mark::Failed,
                "[render failed] t",
            ),
            (unchanged, vec![], Mark::Rendered, "[rendered] t"),
            (PageRender::default(), vec![], Mark::Served, "t"),
        ];
        for (facts, issues, mark, line) in cases {
            let found: Vec<&str> = facts.findings().iter().map(|f| f.0).collect();
            assert_eq!(found, issues, "{facts:?}");
            assert_eq!(facts.mark(), mark);
            assert_eq!(log_text(facts.mark(), Some("t")), line);
        }
    }
}

//! What rendering changed on a page, as the store keeps it (table
//! `render_facts`, by page id): whether it was rendered, how long that
//! took or why it failed, what the served HTML and the rendered DOM each
//! say of title, description, canonical and robots directives, and the
//! links only the rendered DOM has. `report javascript` reads the
//! differences off it ([`PageRender::findings`]).

use serde::{Deserialize, Serialize};

use crate::html::Document;

/// What one version of a page says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub title: Option<String>,
    pub description: Option<String>,
    pub canonical: Option<String>,
    /// The `<meta name=robots>` (or our agent's) contents, in page order.
    pub directives: Option<String>,
}

impl Seen {
    /// `agent`: our robots.txt product token, lower case.
    pub fn of(doc: &Document, agent: &str) -> Seen {
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
}

/// How a fetched page was read, for the log and the counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mark {
    /// As served (not a rendering point's page, or `auto` saw no shell).
    #[default]
    Served,
    Rendered,
    /// Rendering failed: read as served.
    Failed,
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

/// A page's rendering, kept per page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRender {
    /// Read from the rendered DOM (false: `auto` saw no shell, or the
    /// rendering failed and the served HTML was read).
    pub rendered: bool,
    pub render_ms: u32,
    /// Why rendering failed.
    pub error: Option<String>,
    pub served: Seen,
    /// What the DOM said, when rendered.
    pub dom: Option<Seen>,
    /// Links of the DOM the served HTML does not have.
    pub links_rendered_only: Vec<String>,
}

/// One row of `report javascript`: `issue`, then the served and rendered
/// values (for `links_added`, the links).
pub type Finding = (&'static str, serde_json::Value, serde_json::Value);

impl PageRender {
    pub fn mark(&self) -> Mark {
        match (self.rendered, &self.error) {
            (true, _) => Mark::Rendered,
            (false, Some(_)) => Mark::Failed,
            (false, None) => Mark::Served,
        }
    }

    /// What `report javascript` lists for this page.
    pub fn findings(&self) -> Vec<Finding> {
        use serde_json::Value;
        let mut out = Vec::new();
        if let Some(e) = &self.error {
            out.push(("render_failed", Value::Null, Value::String(e.clone())));
        }
        let Some(dom) = &self.dom else { return out };
        let pairs = [
            ("title_changed", &self.served.title, &dom.title),
            (
                "description_changed",
                &self.served.description,
                &dom.description,
            ),
            ("canonical_changed", &self.served.canonical, &dom.canonical),
            (
                "directives_changed",
                &self.served.directives,
                &dom.directives,
            ),
        ];
        for (issue, served, rendered) in pairs {
            if served != rendered {
                out.push((issue, opt(served), opt(rendered)));
            }
        }
        if !self.links_rendered_only.is_empty() {
            out.push((
                "links_added",
                Value::Null,
                serde_json::json!(self.links_rendered_only),
            ));
        }
        out
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

fn opt(v: &Option<String>) -> serde_json::Value {
    v.as_ref().map_or(serde_json::Value::Null, |s| {
        serde_json::Value::String(s.clone())
    })
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

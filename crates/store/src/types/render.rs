//! What rendering changed on a page, as the store keeps it (table
//! `render_facts`, by page id): whether it was rendered, how long that
//! took or why it failed, what the served HTML and the rendered DOM each
//! say of title, description, canonical and robots directives, and the
//! links only the rendered DOM has. `report javascript` reads the
//! differences off it ([`PageRender::findings`]).

use serde::{Deserialize, Serialize};

/// What one version of a page says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub title: Option<String>,
    pub description: Option<String>,
    pub canonical: Option<String>,
    /// The `<meta name=robots>` (or our agent's) contents, in page order.
    pub directives: Option<String>,
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

fn opt(v: &Option<String>) -> serde_json::Value {
    v.as_ref().map_or(serde_json::Value::Null, |s| {
        serde_json::Value::String(s.clone())
    })
}

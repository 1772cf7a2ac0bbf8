//! What the hreflang, pagination, structured-data and security audits
//! know of one page, as the store keeps it (gathered by the extractor's
//! audit pass).

use serde::{Deserialize, Serialize};

/// What the audits know of one page, resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditFacts {
    /// `(hreflang, target)` of each alternate, as written and resolved.
    pub hreflang: Vec<(String, String)>,
    /// The first `rel=next` and `rel=prev` (or `previous`) targets.
    pub next: Option<String>,
    pub prev: Option<String>,
    /// The `@type`s of the JSON-LD scripts that parsed (top level and
    /// `@graph` members), in page order, once each.
    pub jsonld: Vec<String>,
    /// Why each JSON-LD script that did not parse failed.
    pub jsonld_errors: Vec<String>,
    /// Microdata `itemtype`s, once each.
    pub microdata: Vec<String>,
    /// Whether RDFa attributes (`typeof`, `vocab`, `property` outside a
    /// `<meta>`: Open Graph tags are not RDFa markup of the page) appear.
    pub rdfa: bool,
    /// Links that open another origin with `target=_blank` and neither
    /// `noopener` nor `noreferrer`.
    pub unsafe_blank: Vec<String>,
}

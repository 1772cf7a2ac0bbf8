//! What loaded a resource (or named a URL the audits check), as the
//! store keeps it and the reports name it.

use serde::{Deserialize, Serialize};

/// What a resource was loaded by, as the reports name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Element {
    Img,
    Script,
    Stylesheet,
    Icon,
    Preload,
    Manifest,
    Media,
    Iframe,
    Object,
    CssUrl,
    /// A `<picture>`'s `<source srcset>`: an image file, whose alt text
    /// is its `<img>`'s, so never an image missing one.
    Source,
    /// Named, not loaded: checked like a resource (see
    /// [`super::audit_facts::target_resources`]), never listed as one.
    Canonical,
    Hreflang,
    Pagination,
}

impl Element {
    pub fn as_str(self) -> &'static str {
        match self {
            Element::Img => "img",
            Element::Script => "script",
            Element::Stylesheet => "stylesheet",
            Element::Icon => "icon",
            Element::Preload => "preload",
            Element::Manifest => "manifest",
            Element::Media => "media",
            Element::Iframe => "iframe",
            Element::Object => "object",
            Element::CssUrl => "css-url",
            Element::Source => "source",
            Element::Canonical => "canonical",
            Element::Hreflang => "hreflang",
            Element::Pagination => "pagination",
        }
    }

    /// Whether the page names the URL rather than loads it: checked like a
    /// resource, not one of the resources the reports list.
    pub fn is_target(self) -> bool {
        matches!(
            self,
            Element::Canonical | Element::Hreflang | Element::Pagination
        )
    }
}

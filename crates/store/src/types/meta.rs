//! A page's meta tag, as the store keeps it.

/// A meta tag: `attr` is the attribute that names it (`name`, `property`,
/// `http-equiv`, `itemprop`, or `charset` for `<meta charset>`, whose
/// content is the charset), `name` its value in lower case.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetaTag {
    pub attr: String,
    pub name: String,
    pub content: String,
}

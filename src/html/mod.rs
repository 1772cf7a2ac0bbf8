//! One fetched body turned into a `Document`: charset decoding, title, meta
//! tags, outgoing links and visible text. Pure functions, no I/O; hostile
//! input (binary garbage, absurd nesting, link floods) is bounded, never fatal.
//! The parts: [`charset`] decodes, [`flatten`] defuses hostile markup (on the
//! one tag scanner of [`scan`]), [`stream`] reads the tokens in one pass
//! and [`extract`] keeps what they give.

pub mod audit_facts;
mod charset;
pub mod css;
#[cfg(any(test, feature = "tree-oracle"))]
pub mod dom;
mod extract;
mod flatten;
mod fragments;
pub mod markdown;
pub mod pdf;
pub mod resources;
mod scan;
mod stream;
mod text;

pub use crawlscope_store::types::{LinkElement, MetaTag, Position, Rel};
pub use fragments::PageFragments;
#[cfg(test)]
mod differential;
#[cfg(test)]
mod tests;

use crate::url::Url;
use charset::decode_with;
use flatten::{flatten, needs_flatten};
use stream::parse_source;

pub const MAX_TITLE_CHARS: usize = 300;

/// Links beyond this many distinct ones are ignored (hostile pages).
pub const MAX_LINKS_PER_PAGE: usize = 5_000;

/// Link occurrences kept per page: a menu repeated in header and footer
/// doubles a page's links, a hostile page repeats one link millions of times.
pub const MAX_OCCURRENCES_PER_PAGE: usize = 2 * MAX_LINKS_PER_PAGE;

pub const MAX_META_TAGS: usize = 100;

/// The crawl design's `crawl_page_meta` keeps up to 8,000 characters.
pub const MAX_META_CONTENT_CHARS: usize = 8_000;

/// Anchor texts are labels ("found on P as ..."), not prose.
pub const MAX_ANCHOR_CHARS: usize = 100;

/// `<h1>` headings kept per page (a page with more is reported as having
/// several either way).
pub const MAX_H1: usize = 20;

/// Meta names are keys, not prose: a long one is garbage.
pub const MAX_META_NAME_CHARS: usize = 100;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub title: Option<String>,
    pub meta: Vec<MetaTag>,
    /// The first `<meta name=description>`'s content, if not blank.
    pub description: Option<String>,
    /// Each `<h1>`'s text, in page order (blank ones dropped).
    pub h1: Vec<String>,
    /// The first `<link rel=canonical>`, resolved.
    pub canonical: Option<Url>,
    /// One per target, in first-seen order.
    pub links: Vec<Link>,
    /// Every link as written, in page order (a target linked twice is here
    /// twice): what the graph's one-per-target `links` folds.
    pub occurrences: Vec<Occurrence>,
    /// The visible text: text nodes in document order, one space before
    /// each, their own whitespace as written (readers split words).
    pub text: String,
    /// Ids, names and fragment links, for `--check-fragments`.
    pub fragments: PageFragments,
    /// How many `<h2>` elements the page has.
    pub h2: u32,
    /// What the page loads: images, scripts, stylesheets, ... (see
    /// [`resources`]), resolved, one per (URL, element).
    pub resources: Vec<resources::Resource>,
    /// What the hreflang, pagination, structured-data and security audits
    /// read (see [`audit_facts`]).
    pub audit: audit_facts::AuditFacts,
}

/// The position an element with this name and `role` gives the links
/// inside it, if it is a landmark.
pub fn landmark_position(name: &str, role: Option<&str>) -> Option<Position> {
    let by_name = match name {
        "nav" => Some(Position::Nav),
        "header" => Some(Position::Header),
        "footer" => Some(Position::Footer),
        "aside" => Some(Position::Aside),
        _ => None,
    };
    by_name.or_else(|| {
        match role?
            .split_ascii_whitespace()
            .next()?
            .to_ascii_lowercase()
            .as_str()
        {
            "navigation" => Some(Position::Nav),
            "banner" => Some(Position::Header),
            "contentinfo" => Some(Position::Footer),
            "complementary" => Some(Position::Aside),
            _ => None,
        }
    })
}

/// A link of the page: where it points, its text (an image's alt text
/// counts), and the `rel` tokens every link to it has (`rel=nofollow`
/// only when each is marked).
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Without the `user:password@` the href may hold.
    pub url: Url,
    pub anchor: String,
    pub rel: Rel,
    /// The `user:password@` of the first href to this URL that held one
    /// (see [`crate::url::userinfo`]): a secret, for the crawl to decide
    /// on, never to be stored or shown.
    pub userinfo: Option<(String, Option<String>)>,
}

/// One link as written on the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Occurrence {
    /// Its target's index in [`Document::links`].
    pub link: usize,
    /// Its own text (an image's alt text counts), cleaned and cut.
    pub anchor: String,
    pub element: LinkElement,
    /// Its `rel` tokens that are kept.
    pub rel: Rel,
    /// The `#fragment` of its href, if not empty (cut as ids are).
    pub fragment: Option<String>,
    pub position: Position,
}

/// Decode bytes to text. The encoding comes from a byte order mark, else the
/// Content-Type header's charset parameter, else a `<meta charset>` or
/// `<meta http-equiv=content-type content="...charset=...">` in the first
/// 1024 bytes, else UTF-8. Malformed bytes become U+FFFD; NUL bytes are
/// removed.
pub fn decode(body: &[u8], content_type: Option<&str>) -> String {
    decode_with(body, content_type, true)
}

/// `text`'s words one space apart (whitespace as [`Document::text`]'s
/// readers split it: Unicode's), for those that show text.
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    extract::push_words(&mut out, text);
    out
}

/// Parse an HTML body fetched from `page_url`.
pub fn parse_html(body: &[u8], content_type: Option<&str>, page_url: &Url) -> Document {
    parse_source(&html_source(body, content_type), page_url)
}

/// The text an HTML body is read from: decoded, and flattened if hostile.
fn html_source(body: &[u8], content_type: Option<&str>) -> String {
    let source = decode(body, content_type);
    if needs_flatten(&source) {
        return flatten(&source);
    }
    source
}

/// A text/plain body: no title, no links, the decoded text.
pub fn parse_text(body: &[u8], content_type: Option<&str>) -> Document {
    Document {
        // Plain text is never sniffed for <meta>: a .txt quoting HTML would
        // otherwise pick the quoted page's charset.
        text: decode_with(body, content_type, false),
        ..Document::default()
    }
}

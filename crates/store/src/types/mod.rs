//! The values the store keeps that the faces also make and read: a
//! link's element, position and `rel`, meta tags, what loaded a resource,
//! the audits' facts of a page, a near-duplicate signature, a page's
//! rendering. They live here, below the extractor and the renderer that
//! build them, so the store depends on nothing above it.

mod audit;
mod element;
mod link;
mod meta;
mod rel;
pub mod render;
mod signature;

pub use audit::AuditFacts;
pub use element::Element;
pub use link::{LinkElement, Position};
pub use meta::MetaTag;
pub use rel::Rel;
pub use render::PageRender;
pub use signature::{Signature, HASHES};

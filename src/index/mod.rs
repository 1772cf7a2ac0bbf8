//! Text analysis: text -> (stem, position) terms. Pages and queries go
//! through the same `Analyzer::global()`, so a query word meets the stems its
//! page was indexed under.

mod analyzer;
pub mod minhash;
mod stopwords;
mod tokenize;

pub use analyzer::{Analyzer, MAX_TOKEN_CHARS};
pub use tokenize::tokens;

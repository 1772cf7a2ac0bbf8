//! Text analysis: text -> (stem, position) terms. Pages and queries go
//! through the same `Analyzer::global()`, so a query word meets the stems its
//! page was indexed under; a crawl point with stopwords of its own has an
//! analyzer of its own (`search --stopwords` analyses a query alike).

mod analyzer;
pub mod minhash;
mod stopwords;
mod tokenize;

pub use analyzer::{Analyzer, MAX_TOKEN_CHARS};
pub use stopwords::{parse_list as parse_stopwords, read_list as read_stopwords};
pub use tokenize::tokens;

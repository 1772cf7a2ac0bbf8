//! crawlscope: a web crawl console for the terminal. The engine is this
//! library; the TUI and the headless CLI are two faces on it.

pub mod accept;
pub mod cli;
pub mod crawl;
pub mod custom;
pub mod demo;
pub mod doc_name;
pub mod documents;
pub mod exclude_regex;
pub mod export;
pub mod html;
pub mod index;
pub mod merge;
pub mod outfile;
pub mod points;
pub mod render;
pub mod report;
pub mod runs;
pub mod search;
pub use crawlscope_store as store;
pub mod time;
pub mod tui;
pub use crawlscope_store::url;

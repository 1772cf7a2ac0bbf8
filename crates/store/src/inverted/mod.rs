//! The inverted index: for each word, the pages that hold it with their
//! positions, kept as one posting stream per *segment* (what one write
//! transaction indexed, or several merged), and the vocabulary it is
//! keyed by. Title postings and reverse links are streams of the same
//! kind. How the files share the work, from the bytes up:
//!
//! - [`run`]: the stored format (parts of runs of entries) and reading it;
//! - [`pending`]: a transaction's entries before they are streamed;
//! - [`part_writer`]: cutting entries into runs and parts;
//! - [`merge`]: merging segments' runs, and a part without one entry;
//! - [`hits`]: a transaction's body postings, grouped by word at the commit;
//! - [`segments`]: the live segments, their merges and the merge map;
//! - [`staged`]: merges into large segments, over many transactions;
//! - [`pairs`]: merged segments' counts of common words side by side;
//! - [`words`]: word ids, document frequencies, reading postings;
//! - [`stems`], [`stem_index`], [`doc_freq`]: the vocabulary's tables;
//! - [`spelling`]: a word's spelling as `doc_freq` codes it.
//!
//! Nothing here imports a file that imports it back: `run` (the format)
//! imports none of the others, and what ties the writing side together
//! is the store's transaction ([`crate::Writer`]), outside.

pub(super) mod doc_freq;
pub(super) mod hits;
pub(super) mod merge;
pub(super) mod pairs;
pub(super) mod part_writer;
pub(super) mod pending;
pub(super) mod run;
pub(super) mod segments;
pub(super) mod spelling;
pub(super) mod staged;
pub(super) mod stem_index;
pub(super) mod stems;
pub(super) mod words;

#[cfg(test)]
mod tests;

pub(super) use hits::{Grouped, Hits, WordCounts};
pub(super) use part_writer::PartWriter;
pub(super) use pending::TitleBlock;
pub(super) use segments::SegmentList;
pub(super) use words::write_doc_freqs;

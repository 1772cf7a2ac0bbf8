//! Exports: the whole store written out, one format per file here
//! (`spider_result`, `jsonl`, `csv`, `warc`, `parquet`, `sitemap`; `cdxj` indexes a
//! WARC, read back by `warc_read`). Each reads one snapshot and
//! writes to any `Write`; where the bytes go (stdout, a file that appears
//! whole) is the face's choice. The page object they share (also
//! `page --json`'s) is [`page`]'s; depth is link depth, walked once an
//! export (`crate::report::link_depth`).

pub mod cdxj;
pub mod csv;
pub mod inlinks;
pub mod jsonl;
pub mod links;
pub mod own_words;
pub mod page;
pub mod parquet;
pub mod parquet_rows;
pub mod sitemap;
pub mod spider_result;
pub mod surt;
pub mod target;
pub mod url_parts;
pub mod warc;
pub mod warc_read;

use crate::store::prelude::*;
use crate::store::{PageId, PageRecord, Reader, StoreError};

/// Why an export stopped: the store could not be read, or the output
/// could not be written (a closed pipe among them, which a face may take
/// quietly).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// What an export reads besides the store (the WARC a CDXJ indexes)
    /// is not what it should be.
    #[error("{0}")]
    Input(String),
}

pub type ExportResult = Result<(), ExportError>;

/// The first error of a walk over the store, which stops it there (the
/// store's walks stop when their callback answers false).
#[derive(Default)]
struct FirstError(Option<ExportError>);

impl FirstError {
    /// Whether to go on after `result`.
    fn go_on(&mut self, result: ExportResult) -> bool {
        match result {
            Ok(()) => true,
            Err(e) => {
                self.0 = Some(e);
                false
            }
        }
    }

    fn into_result(self) -> ExportResult {
        self.0.map_or(Ok(()), Err)
    }
}

/// Runs `f` on every fetched page in id order, stopping at its first error.
fn each_page(
    r: &Reader<'_>,
    mut f: impl FnMut(PageId, PageRecord) -> ExportResult,
) -> ExportResult {
    let mut stop = FirstError::default();
    r.for_each_page(|id, record| Ok(stop.go_on(f(id, record))))?;
    stop.into_result()
}

/// Runs `f` on every URL seen in id order, stopping at its first error.
fn each_url(r: &Reader<'_>, mut f: impl FnMut(PageId, &str) -> ExportResult) -> ExportResult {
    let mut stop = FirstError::default();
    r.for_each_url(|id, url| Ok(stop.go_on(f(id, url))))?;
    stop.into_result()
}

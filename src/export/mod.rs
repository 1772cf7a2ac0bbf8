//! Exports: the whole store written out, one format per file here
//! (`spider_result`, `jsonl`, `csv`, `warc`). Each reads one snapshot and
//! writes to any `Write`; where the bytes go (stdout, a file that appears
//! whole) is the face's choice.

pub mod csv;
pub mod jsonl;
pub mod spider_result;
pub mod warc;

use crate::cli::CliError;
use crate::store::prelude::*;
use crate::store::{PageId, PageRecord, Reader};

pub type ExportResult = Result<(), CliError>;

/// Runs `f` on every fetched page in id order, stopping at its first error.
fn each_page(
    r: &Reader<'_>,
    mut f: impl FnMut(PageId, PageRecord) -> ExportResult,
) -> ExportResult {
    let mut failure = None;
    r.for_each_page(|id, record| match f(id, record) {
        Ok(()) => Ok(true),
        Err(e) => {
            failure = Some(e);
            Ok(false)
        }
    })?;
    failure.map_or(Ok(()), Err)
}

/// Runs `f` on every URL seen in id order, stopping at its first error.
fn each_url(r: &Reader<'_>, mut f: impl FnMut(PageId, &str) -> ExportResult) -> ExportResult {
    let mut failure = None;
    r.for_each_url(|id, url| match f(id, url) {
        Ok(()) => Ok(true),
        Err(e) => {
            failure = Some(e);
            Ok(false)
        }
    })?;
    failure.map_or(Ok(()), Err)
}

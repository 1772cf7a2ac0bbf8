//! `copy DEST [--compact]`: a consistent copy of the store, taken while
//! crawls keep running; DEST must be a new path.

use std::path::Path;

use super::CliResult;
use crate::store::Store;

pub fn run(store: &Store, dest: &Path, compact: bool) -> CliResult {
    let bytes = store.copy_to(dest, compact)?;
    outln!(
        "copied {} to {} ({bytes} bytes{})",
        store.path().display(),
        dest.display(),
        if compact { ", compacted" } else { "" }
    );
    Ok(())
}

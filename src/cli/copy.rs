//! `copy DEST [--compact]`: a consistent copy of the store, taken while
//! crawls keep running; DEST must be a new path.

use std::path::Path;

use super::CliResult;
use crate::store::Store;

pub fn run(store: &Store, dest: &Path, compact: bool) -> CliResult {
    let copied = store.copy_to(dest, compact)?;
    let how = match (compact, copied.compacted) {
        (true, true) => ", compacted",
        (true, false) => ", not compacted: a compacted copy came out larger",
        _ => "",
    };
    outln!(
        "copied {} to {} ({} bytes{how})",
        store.path().display(),
        dest.display(),
        copied.bytes,
    );
    Ok(())
}

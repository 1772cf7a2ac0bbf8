//! `merge SHARD... --into STORE`: each shard folded into STORE in turn,
//! a line for each saying what it brought.

use std::path::{Path, PathBuf};

use super::CliResult;
use crate::store::Store;

pub fn run(shards: &[PathBuf], into: &Path) -> CliResult {
    // Every shard must be there before the merged store is made.
    let shards = (shards.iter())
        .map(|p| Store::open_existing(p))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = Store::open(into)?;
    for shard in &shards {
        let m = crate::merge::merge(&merged, shard)?;
        outln!(
            "merged {} into {}: {} URLs, {} pages, {} runs",
            shard.path().display(),
            into.display(),
            m.urls,
            m.pages,
            m.runs,
        );
    }
    Ok(())
}

//! `body URL [--out FILE]`: the exact bytes a page was fetched with (up to
//! `--max-body-bytes`), any type. A file is written beside its final name
//! and renamed into place, so a failure leaves no partial file behind.

use std::io::Write;
use std::path::PathBuf;

use super::{CliError, CliResult};
use crate::store::prelude::*;
use crate::store::Store;
use crate::url::Url;

pub fn run(store: &Store, url: &Url, out: Option<PathBuf>) -> CliResult {
    let r = store.read()?;
    let Some(id) = r.page_id(url)? else {
        return Err(CliError::NoSuchPage(url.to_string()));
    };
    let bytes = r
        .body(id)?
        .ok_or_else(|| CliError::NoBody(url.to_string()))?;
    match out {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&bytes)?;
            stdout.flush()?;
        }
        Some(path) => {
            let write_err = |source| CliError::Write {
                path: path.clone(),
                source,
            };
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let part = path.with_file_name(format!(".{}.part", name.unwrap_or_default()));
            std::fs::write(&part, &bytes).map_err(write_err)?;
            if let Err(e) = std::fs::rename(&part, &path) {
                let _ = std::fs::remove_file(&part);
                return Err(write_err(e));
            }
        }
    }
    Ok(())
}

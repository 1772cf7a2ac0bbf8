//! `body URL [--out FILE]`: the exact bytes a page was fetched with (up to
//! `--max-body-bytes`), any type. A file is written beside its final name
//! and renamed into place, so a failure leaves no partial file behind.

use std::io::Write;
use std::path::PathBuf;

use super::{CliError, CliResult};
use crate::outfile::{PartFile, WriteError};
use crate::store::prelude::*;
use crate::store::Store;
use crate::url::Url;

pub fn run(store: &Store, url: &Url, out: Option<PathBuf>) -> CliResult {
    let r = store.read()?;
    let Some(id) = r.site_page_id(url)? else {
        return Err(CliError::NoSuchPage(
            crate::url::redact(url.as_str()).into(),
        ));
    };
    let bytes = r
        .body(id)?
        .ok_or_else(|| CliError::NoBody(crate::url::redact(url.as_str()).into()))?;
    match out {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&bytes)?;
            stdout.flush()?;
        }
        Some(path) => {
            let mut file = PartFile::create(&path)?;
            file.write_all(&bytes).map_err(|source| WriteError {
                path: path.clone(),
                source,
            })?;
            file.commit()?;
        }
    }
    Ok(())
}

//! Output files that appear whole or not at all: written beside their
//! final name as `.NAME.part` and renamed into place once complete. Dropped
//! without [`PartFile::commit`] (an error, a panic), the part is removed.
//! The CLI's `body` and `export` and the console's findings files use it.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that could not be written, and why.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

pub struct PartFile {
    path: PathBuf,
    part: PathBuf,
    file: Option<BufWriter<File>>,
}

impl PartFile {
    pub fn create(path: &Path) -> Result<PartFile, WriteError> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let part = path.with_file_name(format!(".{}.part", name.unwrap_or_default()));
        let file = File::create(&part).map_err(|source| WriteError {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(PartFile {
            path: path.to_path_buf(),
            part,
            file: Some(BufWriter::new(file)),
        })
    }

    /// Flushes, syncs and renames the part to the final name.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let write_err = |source| WriteError {
            path: self.path.clone(),
            source,
        };
        if let Some(w) = self.file.take() {
            let file = w.into_inner().map_err(|e| write_err(e.into_error()))?;
            file.sync_all().map_err(write_err)?;
        }
        std::fs::rename(&self.part, &self.path).map_err(write_err)
    }
}

impl Write for PartFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for PartFile {
    fn drop(&mut self) {
        // Committed parts were renamed away; this only removes a failed one.
        let _ = std::fs::remove_file(&self.part);
    }
}

//! A consistent copy of the whole store, safe while crawlers write to it:
//! LMDB copies from one read snapshot, so no writer waits. The copy is built
//! in a hidden directory beside the destination and renamed into place at
//! the end, so a failed copy leaves nothing behind and an existing path is
//! never overwritten, not even one that appears while the copy runs.
//! No crawler runs on the copy: the claims it holds are put back in its
//! queue before it appears, as a dead crawler's are.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use heed::CompactionOption;

use super::frontier::FrontierRead;
use super::{Result, Store, StoreError};

/// A directory removed on drop unless kept: a failed copy's leftovers.
struct Scratch(Option<PathBuf>);

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Store {
    /// Copies the store into the new directory `dest` (which must not
    /// exist); `compact` leaves out free pages and renumbers the rest.
    /// Returns the bytes copied.
    pub fn copy_to(&self, dest: &Path, compact: bool) -> Result<u64> {
        let fail = |reason: String| StoreError::Copy {
            path: dest.to_path_buf(),
            reason,
        };
        if dest.symlink_metadata().is_ok() {
            return Err(StoreError::Exists(dest.to_path_buf()));
        }
        let name = dest
            .file_name()
            .ok_or_else(|| fail("not a directory name".into()))?;
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let scratch_dir = parent.join(format!(
            ".{}.copy-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        std::fs::create_dir(&scratch_dir).map_err(|e| fail(e.to_string()))?;
        let mut scratch = Scratch(Some(scratch_dir.clone()));
        let mut file = File::options()
            .create_new(true)
            .write(true)
            .open(scratch_dir.join("data.mdb"))
            .map_err(|e| fail(e.to_string()))?;
        self.copy_into(&mut file, compact)
            .map_err(|e| fail(e.to_string()))?;
        file.sync_all().map_err(|e| fail(e.to_string()))?;
        drop(file);
        release_claims(&scratch_dir).map_err(|e| fail(e.to_string()))?;
        let bytes = std::fs::metadata(scratch_dir.join("data.mdb"))
            .map_err(|e| fail(e.to_string()))?
            .len();
        rename_noreplace(&scratch_dir, dest).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => StoreError::Exists(dest.to_path_buf()),
            _ => fail(e.to_string()),
        })?;
        scratch.0 = None;
        // The rename is only durable once the parent directory is synced.
        if let Ok(dir) = File::open(parent) {
            let _ = dir.sync_all();
        }
        Ok(bytes)
    }

    fn copy_into(&self, file: &mut File, compact: bool) -> heed::Result<()> {
        let option = if compact {
            CompactionOption::Enabled
        } else {
            CompactionOption::Disabled
        };
        // Another process may grow the map while we copy: LMDB then refuses
        // the copy's read transaction until this process adopts the size.
        let mut attempts = 0;
        loop {
            let copied = {
                let _guard = self.resize_lock.read().unwrap_or_else(|p| p.into_inner());
                // SAFETY: the descriptor belongs to `file`, open for writing
                // for the whole call.
                unsafe { self.env.copy_to_fd(file.as_raw_fd(), option) }
            };
            match copied {
                Err(heed::Error::Mdb(heed::MdbError::MapResized)) if attempts < 3 => {
                    attempts += 1;
                    let _exclusive = self.resize_lock.write().unwrap_or_else(|p| p.into_inner());
                    // SAFETY: size 0 adopts the size another process set;
                    // the exclusive lock means no transaction of ours is open.
                    unsafe { self.env.resize(0) }?;
                    file.set_len(0)?;
                    file.seek(SeekFrom::Start(0))?;
                }
                other => return other,
            }
        }
    }
}

/// Forgets the crawlers registered in the copy at `dir` and returns the
/// URLs they held to its queue: none of them runs on the copy, and its
/// next crawl fetches those URLs.
fn release_claims(dir: &Path) -> Result<()> {
    let copy = Store::open_existing(dir)?;
    copy.update(|w| {
        for (id, _) in w.instances()? {
            w.unregister_instance(id)?;
        }
        w.recover_claims(|_| true)
    })?;
    Ok(())
}

/// Renames `from` to `to` unless `to` exists (then `AlreadyExists`): a
/// plain rename would silently replace an empty directory.
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths relative to the cwd.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

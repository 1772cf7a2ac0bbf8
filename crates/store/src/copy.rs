//! A consistent copy of the whole store, safe while crawlers write to it:
//! LMDB copies from one read snapshot, so no writer waits. The copy is built
//! in a hidden directory beside the destination and renamed into place at
//! the end, so a failed copy leaves nothing behind and an existing path is
//! never overwritten, not even one that appears while the copy runs.
//! No crawler runs on the copy: the claims it holds are put back in its
//! queue before it appears, as a dead crawler's are. The copy keeps the
//! store's file modes, and a compacted copy is never larger than the store.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use heed::CompactionOption;

use super::frontier::FrontierRead;
use super::{Result, Store, StoreError};

/// A directory removed on drop unless kept: a failed copy's leftovers.
struct Scratch(Option<PathBuf>);

/// The permission bits of a store's directory and data file, which its
/// copy keeps (LMDB makes the data file 0600: a store may hold credentials).
#[derive(Debug, Clone, Copy)]
struct Modes {
    dir: u32,
    data: u32,
}

impl Modes {
    fn of(store: &Path) -> std::io::Result<Modes> {
        let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o7777);
        Ok(Modes {
            dir: mode(store)?,
            data: mode(&store.join("data.mdb"))?,
        })
    }
}

impl Scratch {
    fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// What a copy made: its size, and whether it is compacted (a
/// compacting copy that came out larger than its source is not kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copied {
    pub bytes: u64,
    pub compacted: bool,
}

impl Store {
    /// Copies the store into the new directory `dest` (which must not
    /// exist), with the store's file modes; `compact` leaves out free
    /// pages and renumbers the rest, unless that comes out larger than the
    /// store (then the plain copy is kept, and `Copied` says so).
    pub fn copy_to(&self, dest: &Path, compact: bool) -> Result<Copied> {
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
        let modes = Modes::of(&self.path).map_err(|e| fail(e.to_string()))?;
        let (first, bytes) = self.scratch_copy(&scratch_dir, compact, modes, &fail)?;
        let source = std::fs::metadata(self.path.join("data.mdb"))
            .map_err(|e| fail(e.to_string()))?
            .len();
        let (scratch, copied) = if compact && bytes > source {
            // A compacting copy has no free pages, so every write to it
            // (releasing its claims) takes new ones, where the plain copy
            // reuses the store's free pages.
            drop(first);
            let (plain, bytes) = self.scratch_copy(&scratch_dir, false, modes, &fail)?;
            let copied = Copied {
                bytes,
                compacted: false,
            };
            (plain, copied)
        } else {
            let copied = Copied {
                bytes,
                compacted: compact,
            };
            (first, copied)
        };
        rename_noreplace(&scratch_dir, dest).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => StoreError::Exists(dest.to_path_buf()),
            _ => fail(e.to_string()),
        })?;
        scratch.keep();
        // The rename is only durable once the parent directory is synced.
        if let Ok(dir) = File::open(parent) {
            let _ = dir.sync_all();
        }
        Ok(copied)
    }

    /// The copy made in `dir` (created here, removed again on failure),
    /// with `modes`, its claims released; and its data file's size.
    fn scratch_copy(
        &self,
        dir: &Path,
        compact: bool,
        modes: Modes,
        fail: &impl Fn(String) -> StoreError,
    ) -> Result<(Scratch, u64)> {
        std::fs::create_dir(dir).map_err(|e| fail(e.to_string()))?;
        let scratch = Scratch(Some(dir.to_path_buf()));
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(modes.dir))
            .map_err(|e| fail(e.to_string()))?;
        let data = dir.join("data.mdb");
        let mut file = File::options()
            .create_new(true)
            .write(true)
            .mode(modes.data)
            .open(&data)
            .map_err(|e| fail(e.to_string()))?;
        // The umask may have taken bits the store's file has.
        file.set_permissions(std::fs::Permissions::from_mode(modes.data))
            .map_err(|e| fail(e.to_string()))?;
        self.copy_into(&mut file, compact)
            .map_err(|e| fail(e.to_string()))?;
        file.sync_all().map_err(|e| fail(e.to_string()))?;
        drop(file);
        release_claims(dir).map_err(|e| fail(e.to_string()))?;
        let bytes = std::fs::metadata(&data)
            .map_err(|e| fail(e.to_string()))?
            .len();
        Ok((scratch, bytes))
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
    let held = {
        let r = copy.read()?;
        !r.instances()?.is_empty() || !r.claims()?.is_empty()
    };
    // A write would only grow the copy.
    if !held {
        return Ok(());
    }
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

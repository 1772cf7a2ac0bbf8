//! Repacking a small store when a crawl ends. LMDB never shrinks its
//! file: the pages the last merges of a crawl freed stay in it (15-17% of
//! a 317-page site's store), and leaves filled by inserts in key order
//! (the stems of `word_ids`) stay split in half. A store of a few MB whose
//! file is a tenth free is rewritten, every table in key order with
//! `MDB_APPEND` (full leaves, no free page), into a new file that replaces
//! the old one, when no other process has the store open.
//!
//! Every process with an LMDB environment open holds a shared `fcntl`
//! lock on the first byte of its `lock.mdb`, and one opening it takes
//! that lock (waiting for it) before it opens `data.mdb`. Holding that
//! byte exclusively therefore proves nobody else has the store open and
//! keeps anyone from opening it until the new file is in place; the
//! lock file's header (the last transaction id) is then set up again for
//! the new file by opening it once in this process, which LMDB, finding
//! itself alone, initialises anew.
//!
//! Beside copying, the rewrite gathers bodies (`retrain`), page records
//! (`record_blocks`), and the posting parts, stem and count records
//! (`body_blocks::shelve`) into shared zstd frames.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use heed::types::Bytes;
use heed::{Env, EnvFlags, EnvOpenOptions, PutFlags, RoTxn};

use super::body_blocks::{self, Shelf, Shelved};
use super::record_blocks::{self, RecordTables, Rerecorded};
use super::retrain::{self, BodyTables, Rebodied};
use super::{page_size, Result, Store, StoreError, StoreOptions};

/// Stores larger than this are left as they are: the rewrite is one
/// transaction, and a large store's free pages are a small part of it.
const REPACK_MAX_BYTES: u64 = 32 << 20;

/// A store is repacked when at least this part of its file is free.
const FREE_SHARE: f64 = 0.10;

/// The tables whose records go on a shelf, with the shelf's table: a
/// block holds 64 KiB of records, so finding a stem, a word's count or
/// a posting part decompresses about that much (about 40-80 µs; blocks
/// of 16 KiB or one frame of them all compress within 1% of it).
const SHELVED: [(&str, &str, Shelf); 3] = [
    ("word_ids", "word_blocks", Shelf::Words),
    ("doc_freq", "doc_freq_blocks", Shelf::Counts),
    ("postings", "posting_blocks", Shelf::Postings),
];

const SHELF_BLOCK_RAW: usize = 64 << 10;

/// The scratch directory's name in the store's, before the process id.
const SCRATCH: &str = ".repack-";

/// What a repack did to the store's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repacked {
    pub before: u64,
    pub after: u64,
}

impl Store {
    /// Closes the store now (heed keeps an environment open while any
    /// handle is, and refuses to open it again with other options until
    /// it is closed).
    pub fn close(self) {
        let Store { env, .. } = self;
        close(env);
    }

    /// Closes the store; if it is small and no other process has it
    /// open, first merges its live segments into one (a small crawl
    /// ends with several, each keeping a run head for most words it
    /// shares with the others), then, if a tenth of its file is free,
    /// repacks it (None: it did not).
    pub fn close_and_repack(self) -> Result<Option<Repacked>> {
        let before = self.env.real_disk_size()?;
        let probe = (before <= REPACK_MAX_BYTES)
            .then(|| lock_file(&self.path).map(Probe))
            .transpose()?;
        let mut free = 0;
        if let Some(probe) = &probe {
            if probe.alone() {
                self.update(|w| w.merge_to_one())?;
                let file = self.env.real_disk_size()?;
                free = file.saturating_sub(self.env.non_free_pages_size()?);
            }
        }
        let path = self.path.clone();
        self.close();
        // Only now: closing the probe's descriptor drops every lock this
        // process holds on the lock file, LMDB's own among them.
        drop(probe);
        if (free as f64) < FREE_SHARE * before as f64 {
            return Ok(None);
        }
        let Some(_alone) = Alone::take(&path)? else {
            return Ok(None);
        };
        // A repack killed part way left its scratch directory; none can
        // be under way now.
        if let Ok(entries) = std::fs::read_dir(&path) {
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with(SCRATCH) {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let scratch = Scratch(path.join(format!("{SCRATCH}{}", std::process::id())));
        std::fs::create_dir(&scratch.0).map_err(|e| fail(&path, e))?;
        rewrite(&path, &scratch.0)?;
        let new = scratch.0.join("data.mdb");
        File::open(&new)
            .and_then(|f| f.sync_all())
            .map_err(|e| fail(&path, e))?;
        std::fs::rename(&new, path.join("data.mdb")).map_err(|e| fail(&path, e))?;
        if let Ok(dir) = File::open(&path) {
            let _ = dir.sync_all();
        }
        // Alone, LMDB sets the lock file up for the new data file; the
        // lock it leaves shared lets those waiting open the store.
        close(open(&path, EnvFlags::empty())?);
        let after = std::fs::metadata(path.join("data.mdb"))
            .map_err(|e| fail(&path, e))?
            .len();
        Ok(Some(Repacked { before, after }))
    }
}

fn fail(path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Open {
        path: path.to_path_buf(),
        reason: format!("repacking: {e}"),
    }
}

/// Closes `env` and waits until LMDB has (so it can be opened again).
fn close(env: Env) {
    env.prepare_for_closing().wait();
}

fn open(path: &Path, flags: EnvFlags) -> Result<Env> {
    let map = StoreOptions::default().map_size.div_ceil(page_size()) * page_size();
    let mut options = EnvOpenOptions::new();
    options
        .map_size(map)
        .max_dbs(super::DB_COUNT * 2)
        .max_readers(512);
    // SAFETY: NO_LOCK is only asked for while this process holds the
    // store alone (see `Alone`); the environment is opened once.
    unsafe { options.flags(flags) };
    // SAFETY: no other environment of this process has the path open (the
    // store's was closed), and the file is read only through LMDB.
    unsafe { options.open(path) }.map_err(|e| StoreError::Open {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Copies every table of the store at `from` into a new store at `to`,
/// each in key order with `MDB_APPEND`.
fn rewrite(from: &Path, to: &Path) -> Result<()> {
    let source = open(from, EnvFlags::NO_LOCK | EnvFlags::READ_ONLY)?;
    let dest = open(to, EnvFlags::empty())?;
    let copied = (|| -> Result<()> {
        let rtxn = source.read_txn()?;
        let gathered = Gathered::read(&source, &rtxn)?;
        let mut wtxn = dest.write_txn()?;
        for name in &gathered.names {
            let into = dest.create_database::<Bytes, Bytes>(&mut wtxn, Some(name))?;
            let mut put =
                |k: &[u8], v: &[u8]| into.put_with_flags(&mut wtxn, PutFlags::APPEND, k, v);
            if gathered.put_replaced(name, &mut put)? {
                continue;
            }
            let Some(from) = source.open_database::<Bytes, Bytes>(&rtxn, Some(name))? else {
                continue;
            };
            for item in from.iter(&rtxn)? {
                let (k, v) = item?;
                if name == "meta" && gathered.replaces_meta(k) {
                    continue;
                }
                put(k, v)?;
            }
        }
        wtxn.commit()?;
        Ok(())
    })();
    close(dest);
    close(source);
    copied
}

/// What the rewrite writes anew rather than copying: the bodies, page
/// records and shelved tables gathered into blocks, and the names of the
/// tables the new store has (sorted, the block tables among them).
struct Gathered {
    names: Vec<String>,
    rebodied: Option<Rebodied>,
    rerecorded: Option<Rerecorded>,
    /// (table, its shelf's table, the records of both).
    shelved: Vec<(&'static str, &'static str, Shelved)>,
}

impl Gathered {
    fn read(source: &Env, rtxn: &RoTxn<'_>) -> Result<Gathered> {
        let main = source
            .open_database::<Bytes, Bytes>(rtxn, None)?
            .ok_or_else(|| StoreError::corrupt("no main database"))?;
        let mut names = Vec::new();
        for item in main.iter(rtxn)? {
            let (name, _) = item?;
            names.push(String::from_utf8_lossy(name).into_owned());
        }
        let table = |name: &str| source.open_database::<Bytes, Bytes>(rtxn, Some(name));
        let rebodied = match (table("meta")?, table("bodies")?) {
            (Some(meta), Some(bodies)) => {
                let blocks = table("body_blocks")?;
                retrain::retrain(
                    rtxn,
                    &BodyTables {
                        meta,
                        bodies,
                        blocks,
                    },
                )?
            }
            _ => None,
        };
        let rerecorded = match (table("meta")?, table("pages")?, table("forward")?) {
            (Some(meta), Some(pages), Some(forward)) => {
                let blocks = table("record_blocks")?;
                record_blocks::gather(
                    rtxn,
                    &RecordTables {
                        meta,
                        pages,
                        forward,
                        blocks,
                    },
                )?
            }
            _ => None,
        };
        let mut shelved = Vec::new();
        for (name, blocks, shelf) in SHELVED {
            if let Some(db) = table(name)? {
                let old = table(blocks)?;
                if let Some(s) = body_blocks::shelve(rtxn, db, old, shelf, SHELF_BLOCK_RAW)? {
                    shelved.push((name, blocks, s));
                }
            }
        }
        // A store of a build before blocks: their tables are made here.
        for (new, table) in [
            (rebodied.is_some(), "body_blocks"),
            (rerecorded.is_some(), "record_blocks"),
        ] {
            if new && !names.iter().any(|n| n == table) {
                names.push(table.to_owned());
            }
        }
        for (_, blocks, _) in &shelved {
            if !names.iter().any(|n| n == blocks) {
                names.push((*blocks).to_owned());
            }
        }
        names.sort_unstable();
        Ok(Gathered {
            names,
            rebodied,
            rerecorded,
            shelved,
        })
    }

    /// Puts the records gathered for table `name`; false when it has none
    /// and is copied as it is.
    fn put_replaced(
        &self,
        name: &str,
        put: &mut impl FnMut(&[u8], &[u8]) -> heed::Result<()>,
    ) -> Result<bool> {
        if let Some(r) = &self.rebodied {
            match name {
                "bodies" => return put_all(&r.blocks.references, put),
                "body_blocks" => return put_all(&r.blocks.chunks, put),
                _ => {}
            }
        }
        if let Some(r) = &self.rerecorded {
            match name {
                "pages" => return put_all(&r.pages, put),
                "forward" => return put_all(&r.forward, put),
                "record_blocks" => return put_all(&r.chunks, put),
                _ => {}
            }
        }
        if let Some((_, _, s)) = self.shelved.iter().find(|(table, _, _)| *table == name) {
            return put_all(&s.references, put);
        }
        if let Some((_, _, s)) = self.shelved.iter().find(|(_, blocks, _)| *blocks == name) {
            return put_all(&s.chunks, put);
        }
        Ok(false)
    }

    /// Whether `key` of `meta` is a dictionary the new blocks leave unused.
    fn replaces_meta(&self, key: &[u8]) -> bool {
        (self.rebodied.is_some() && Rebodied::replaces(key))
            || (self.rerecorded.is_some() && Rerecorded::replaces(key))
    }
}

/// Puts `records` in order; true, for `Gathered::put_replaced`.
fn put_all<K: AsRef<[u8]>>(
    records: &[(K, Vec<u8>)],
    put: &mut impl FnMut(&[u8], &[u8]) -> heed::Result<()>,
) -> Result<bool> {
    for (k, v) in records {
        put(k.as_ref(), v)?;
    }
    Ok(true)
}

/// The scratch directory, removed however the repack ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first byte of `lock.mdb`, which every process with the store
/// open holds shared.
fn first_byte(kind: libc::c_int) -> libc::flock {
    // SAFETY: an all-zero flock is a valid value to fill in.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind as _;
    lock.l_whence = libc::SEEK_SET as _;
    lock.l_start = 0;
    lock.l_len = 1;
    lock
}

fn lock_file(path: &Path) -> Result<File> {
    File::options()
        .read(true)
        .write(true)
        .open(path.join("lock.mdb"))
        .map_err(|e| fail(path, e))
}

/// The lock file opened beside LMDB's own descriptor, while this process
/// has the store open, to ask whether another process has it too.
struct Probe(File);

impl Probe {
    fn alone(&self) -> bool {
        let mut lock = first_byte(libc::F_WRLCK);
        // SAFETY: the descriptor is open and `lock` a valid flock.
        let rc = unsafe { libc::fcntl(self.0.as_raw_fd(), libc::F_GETLK, &mut lock) };
        // A lock this process holds never conflicts: F_UNLCK means no
        // other process holds the byte.
        rc == 0 && libc::c_int::from(lock.l_type) == libc::F_UNLCK
    }
}

/// The first byte of `lock.mdb` held exclusively: no other process has
/// the store open, and none opens it until this is dropped.
struct Alone {
    _held: File,
}

impl Alone {
    fn take(path: &Path) -> Result<Option<Alone>> {
        let file = lock_file(path)?;
        let lock = first_byte(libc::F_WRLCK);
        // SAFETY: the descriptor is open and `lock` a valid flock.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &lock) };
        Ok((rc == 0).then_some(Alone { _held: file }))
    }
}

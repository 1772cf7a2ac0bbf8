//! The `kept` table: figures derived from the whole store (the report
//! counts and findings, the link scores, the `stats` counts), each stored under its
//! name with the count of write transactions it was made as of
//! (`write_seq` in `meta`, bumped by every commit). A record is true of
//! the store exactly when no write came after it; any later write makes
//! it stale, and a stale record is never read as true
//! (readers recount). So nothing here can contradict the tables it was
//! derived from, and a page removed leaves nothing the reports can see.
//! The records are made one by one ([`KeptRecords`]) and written together.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::codec;
use super::schema::meta_keys;
use super::sealed::View;
use super::{Result, Store, Writer};

/// Kept figures by name.
pub trait KeptRead: View {
    /// The committed write transactions of this snapshot: what a kept
    /// figure must be stamped with to be true of it.
    fn write_seq(&self) -> Result<u64> {
        match self.dbs().meta.get(self.txn(), meta_keys::WRITE_SEQ)? {
            Some(v) => codec::read_u64(v),
            None => Ok(1),
        }
    }

    /// The record named `name` when it is true of this snapshot; None
    /// when missing or stale.
    fn kept(&self, name: &str) -> Result<Option<&[u8]>> {
        let Some(v) = self.dbs().kept.get(self.txn(), name.as_bytes())? else {
            return Ok(None);
        };
        let (made, payload) = v.split_at_checked(8).ok_or_else(|| {
            super::StoreError::corrupt(format!("kept record {name}: {} bytes", v.len()))
        })?;
        Ok((codec::read_u64(made)? == self.write_seq()?).then_some(payload))
    }
}

impl<T: View + ?Sized> KeptRead for T {}

/// Records on their way to [`Store::keep_figures`], each put in an unnamed
/// file beside the store as it is made, not held: at a million pages they
/// are ~100 MB, which the count that makes them would otherwise hold
/// beside every page's facts and the link graph until its end.
pub struct KeptRecords {
    file: File,
    /// The store's directory, which a full disk names.
    dir: PathBuf,
}

impl KeptRecords {
    /// An empty set of records for `store` (the file is gone when it is
    /// dropped).
    pub fn new(store: &Store) -> Result<KeptRecords> {
        Ok(KeptRecords {
            file: tempfile::tempfile_in(&store.path).map_err(|e| io(e, &store.path))?,
            dir: store.path.clone(),
        })
    }

    /// Adds record `name`: its name's length (u16), the name, its
    /// payload's length (u64) and the payload.
    pub fn push(&mut self, name: &str, payload: &[u8]) -> Result<()> {
        let name_len = u16::try_from(name.len())
            .map_err(|_| super::StoreError::corrupt(format!("kept record name {name:?}")))?;
        let f = &mut self.file;
        (f.write_all(&name_len.to_be_bytes()))
            .and_then(|()| f.write_all(name.as_bytes()))
            .and_then(|()| f.write_all(&(payload.len() as u64).to_be_bytes()))
            .and_then(|()| f.write_all(payload))
            .map_err(|e| io(e, &self.dir))
    }

    /// Calls `f` with each record in the order pushed, one in memory at a
    /// time; again from the first on each call.
    fn each(&mut self, mut f: impl FnMut(&str, &[u8]) -> Result<()>) -> Result<()> {
        let dir = &self.dir;
        let failed = |e| io(e, dir);
        self.file.seek(SeekFrom::Start(0)).map_err(failed)?;
        let mut read = BufReader::new(&self.file);
        let (mut name, mut payload) = (Vec::new(), Vec::new());
        loop {
            let mut len = [0; 2];
            match read.read_exact(&mut len) {
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                other => other.map_err(failed)?,
            }
            name.resize(u16::from_be_bytes(len) as usize, 0);
            read.read_exact(&mut name).map_err(failed)?;
            let mut len = [0; 8];
            read.read_exact(&mut len).map_err(failed)?;
            let len = usize::try_from(u64::from_be_bytes(len))
                .map_err(|_| super::StoreError::corrupt("kept record too long"))?;
            payload.resize(len, 0);
            read.read_exact(&mut payload).map_err(failed)?;
            let name = std::str::from_utf8(&name)
                .map_err(|_| super::StoreError::corrupt("kept record name not UTF-8"))?;
            f(name, &payload)?;
        }
    }
}

/// An I/O error of the spill file as the store's own: a full disk (told
/// apart where every store error is) names the store's directory.
fn io(e: std::io::Error, dir: &Path) -> super::StoreError {
    match super::StoreError::from(heed::Error::Io(e)) {
        super::StoreError::DiskFull(_) => super::StoreError::DiskFull(dir.to_path_buf()),
        other => other,
    }
}

impl Store {
    /// Stores `records` as true of the store as of write `as_of`
    /// ([`KeptRead::write_seq`]), in one write transaction, when nothing
    /// was committed since, instead of every figure kept before (a kind
    /// no longer kept leaves no stale record behind). Returns whether they
    /// were stored.
    pub fn keep_figures(&self, as_of: u64, records: &mut KeptRecords) -> Result<bool> {
        self.update(|w| {
            if w.write_seq()? != as_of {
                return Ok(false);
            }
            // This commit is the next write; the records describe it
            // because it changes nothing else.
            let stamp = (as_of + 1).to_be_bytes();
            w.dbs.kept.clear(&mut w.txn)?;
            let (kept, txn) = (w.dbs.kept, &mut w.txn);
            let mut v = Vec::new();
            records.each(|name, payload| {
                v.clear();
                v.extend_from_slice(&stamp);
                v.extend_from_slice(payload);
                Ok(kept.put(txn, name.as_bytes(), &v)?)
            })?;
            Ok(true)
        })
    }
}

impl Writer<'_> {
    /// Marks this transaction as one that changes no kept figure (it
    /// reorganises an index): committing it leaves them current.
    pub(super) fn keeps_figures(&mut self) {
        self.pending.keeps_figures = true;
    }

    /// Forgets every kept figure: a removed page must leave nothing
    /// behind, even in records that are already stale.
    pub(super) fn drop_kept(&mut self) -> Result<()> {
        self.dbs.kept.clear(&mut self.txn)?;
        Ok(())
    }
}

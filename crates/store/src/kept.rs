//! The `kept` table: figures derived from the whole store (the report
//! counts and findings, the link scores, the `stats` counts), each stored under its
//! name with the count of write transactions it was made as of
//! (`write_seq` in `meta`, bumped by every commit). A record is true of
//! the store exactly when no write came after it; any later write makes
//! it stale, and a stale record is never read as true
//! (readers recount). So nothing here can contradict the tables it was
//! derived from, and a page removed leaves nothing the reports can see.

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

impl Store {
    /// Stores `records` (name, payload) as true of the store as of write
    /// `as_of` ([`KeptRead::write_seq`]), in one write transaction, when
    /// nothing was committed since, instead of every figure kept before
    /// (a kind no longer kept leaves no stale record behind). Returns
    /// whether they were stored.
    pub fn keep_figures(&self, as_of: u64, records: &[(&str, Vec<u8>)]) -> Result<bool> {
        self.update(|w| {
            if w.write_seq()? != as_of {
                return Ok(false);
            }
            // This commit is the next write; the records describe it
            // because it changes nothing else.
            let stamp = (as_of + 1).to_be_bytes();
            w.dbs.kept.clear(&mut w.txn)?;
            for (name, payload) in records {
                let mut v = Vec::with_capacity(8 + payload.len());
                v.extend_from_slice(&stamp);
                v.extend_from_slice(payload);
                w.dbs.kept.put(&mut w.txn, name.as_bytes(), &v)?;
            }
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

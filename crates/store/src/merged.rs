//! What a store knows of the shards merged into it (`crawlscope merge`):
//! each store's own random id, and, in the merged store, every shard run
//! as it was last merged (its record and its per-origin figures), by
//! shard id and the shard's run id, with the merged run it went into. A merged run is folded again from these each
//! time a shard is merged (a newer copy of a shard replaces its old
//! contribution instead of adding to it), so nothing is counted twice.
//! They live in `meta` under their own prefix: a handful of records a
//! merge, no table of their own.

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32, u32_key};
use super::origin_figures::OriginFigures;
use super::runs::RunRecord;
use super::schema::{meta_keys, RunId};
use super::sealed::View;
use super::{Result, StoreError, Writer};

/// A store's own id: random, written when the store is created, kept by
/// copies, so a shard is known again whatever path it is merged from.
pub type StoreId = [u8; 16];

/// A shard's run as last merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedPart {
    pub run: RunRecord,
    /// Its requests' figures, by origin (`scheme://host:port`).
    pub origins: Vec<(String, OriginFigures)>,
}

/// The prefix of a merged shard run's record in `meta`.
const MERGED_RUN: &[u8] = b"merged_run\0";

fn key(shard: &StoreId, shard_run: RunId) -> Vec<u8> {
    [MERGED_RUN, &shard[..], &u32_key(shard_run)].concat()
}

/// Store ids and merged shard runs.
pub trait MergedRead: View {
    fn store_id(&self) -> Result<StoreId> {
        let v = (self.dbs().meta.get(self.txn(), meta_keys::STORE_ID)?)
            .ok_or_else(|| StoreError::corrupt("no store id"))?;
        v.try_into()
            .map_err(|_| StoreError::corrupt(format!("store id of {} bytes", v.len())))
    }

    /// Every shard run merged into run `merged`, as last merged.
    fn merged_into(&self, merged: RunId) -> Result<Vec<MergedPart>> {
        let mut out = Vec::new();
        for item in self.dbs().meta.prefix_iter(self.txn(), MERGED_RUN)? {
            let (_, v) = item?;
            let (into, rec) = decode(v)?;
            if into == merged {
                out.push(rec);
            }
        }
        Ok(out)
    }

    /// The merged run a shard's run went into, if it was merged before.
    fn merged_run_of(&self, shard: &StoreId, shard_run: RunId) -> Result<Option<RunId>> {
        match self.dbs().meta.get(self.txn(), &key(shard, shard_run))? {
            Some(v) => Ok(Some(decode(v)?.0)),
            None => Ok(None),
        }
    }
}

impl<T: View + ?Sized> MergedRead for T {}

fn decode(v: &[u8]) -> Result<(RunId, MergedPart)> {
    let (into, rec) = v
        .split_at_checked(4)
        .ok_or_else(|| StoreError::corrupt("merged run record cut short"))?;
    Ok((read_u32(into)?, codec::decode(rec)?))
}

impl Writer<'_> {
    /// Records shard `shard`'s run `shard_run`, as it is now, as part of
    /// run `merged`, replacing what an earlier merge of it recorded.
    pub fn put_merged_run(
        &mut self,
        shard: &StoreId,
        shard_run: RunId,
        merged: RunId,
        part: &MergedPart,
    ) -> Result<()> {
        let v = [&u32_key(merged)[..], &codec::encode(part)?].concat();
        self.dbs
            .meta
            .put(&mut self.txn, &key(shard, shard_run), &v)?;
        Ok(())
    }
}

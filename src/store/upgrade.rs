//! Rewrites an older schema's records in this build's encodings, inside the
//! transaction that opens the store: the upgrade happens whole or not at
//! all, and no reader ever meets a record of the old layout.

use std::ops::Bound::{Excluded, Unbounded};

use heed::types::Bytes;
use heed::{Env, PutFlags, RwTxn};

use super::pages::Forward;
use super::postings;
use super::schema::{Db, Dbs};
use super::Result;

/// The table a rebuilt one passes through (left empty); the environment
/// keeps one named table spare for it.
pub const SCRATCH: &str = "upgrade";

/// Records taken per pass: a cursor cannot stay open across the puts.
const BATCH: usize = 4096;

/// From schema 5 or 6: forward records and posting parts flag tf 1
/// instead of spelling it out (schema 7).
pub fn from_schema_6(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    rebuild(dbs.forward, scratch, txn, |v| {
        Ok(Forward::decode_schema_6(v)?.encode())
    })?;
    rebuild(dbs.postings, scratch, txn, postings::part_from_schema_6)
}

/// Converts every record of `db` into `scratch`, then copies them back in
/// key order: appended, the rebuilt table's leaves are full, where records
/// shortened in place would leave the old leaves part empty.
fn rebuild(
    db: Db,
    scratch: Db,
    txn: &mut RwTxn<'_>,
    convert: impl Fn(&[u8]) -> Result<Vec<u8>>,
) -> Result<()> {
    scratch.clear(txn)?;
    append_all(db, scratch, txn, convert)?;
    db.clear(txn)?;
    append_all(scratch, db, txn, |v| Ok(v.to_vec()))?;
    scratch.clear(txn)?;
    Ok(())
}

fn append_all(
    from: Db,
    to: Db,
    txn: &mut RwTxn<'_>,
    convert: impl Fn(&[u8]) -> Result<Vec<u8>>,
) -> Result<()> {
    let mut after: Option<Vec<u8>> = None;
    loop {
        let batch = {
            let start = match &after {
                None => Unbounded,
                Some(k) => Excluded(&k[..]),
            };
            from.range(txn, &(start, Unbounded))?
                .take(BATCH)
                .map(|item| {
                    let (k, v) = item?;
                    Ok((k.to_vec(), convert(v)?))
                })
                .collect::<Result<Vec<_>>>()?
        };
        let Some((last, _)) = batch.last() else {
            return Ok(());
        };
        after = Some(last.clone());
        for (k, v) in &batch {
            to.put_with_flags(txn, PutFlags::APPEND, k, v)?;
        }
    }
}

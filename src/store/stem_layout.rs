//! Bringing a store's vocabulary to the layout that keeps each stem once
//! (`inverted::stem_index`, `inverted::stems`), schema 22's. Stores of 17
//! to 21 keep every stem twice: in `words`, by id, and in `word_ids`, by
//! stem, whose records carry no number. Each `word_ids` record is given a
//! number (in key order), `stem_records` its key, and `words` is written
//! anew with the record number of each word. Some builds of 21 (on
//! 2026-11-27) already wrote this layout under 21: such a store is known
//! by `stem_records` holding records, and left as it is.

use heed::RwTxn;

use super::codec::{put_varint, u32_key};
use super::inverted::{stem_index, stems};
use super::schema::{Dbs, WordId};
use super::Result;

/// Rewrites the vocabulary of a store in the old layout; does nothing to
/// one in the new.
pub(super) fn bring(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    if dbs.word_ids.first(txn)?.is_none() || dbs.stem_records.first(txn)?.is_some() {
        return Ok(());
    }
    let mut records = Vec::new();
    let mut placed: Vec<(WordId, u32)> = Vec::new();
    for (number, item) in (1..).zip(dbs.word_ids.iter(txn)?) {
        let (key, old) = item?;
        let mut value = Vec::with_capacity(old.len() + 4);
        put_varint(&mut value, u64::from(number));
        value.extend_from_slice(old);
        stem_index::each_in(&value, |_, id| {
            placed.push((id, number));
            Ok(true)
        })?;
        records.push((key.to_vec(), value));
    }
    for (number, (key, value)) in (1..).zip(&records) {
        dbs.word_ids.put(txn, key, value)?;
        dbs.stem_records.put(txn, &u32_key(number), key)?;
    }
    dbs.words.clear(txn)?;
    stems::set(txn, dbs.words, &mut placed)
}

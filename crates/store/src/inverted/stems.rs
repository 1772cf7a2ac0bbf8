//! The `words` table: for each word id, the number of the `word_ids`
//! record holding its stem (see `stem_index`), 64 ids to a record (keyed
//! like `doc_freq`, by id / 64), each a varint in id order, 0 for an id
//! no word has (0, the counter starts at 1; or a gap an old store left).
//! Ids are handed out in order and never freed, so a record's n-th entry
//! is word `block × 64 + n`. The table held each stem again until
//! 2026-11: on the 300-page bench site, 30,000 stems took 0.29 MB of it
//! beside the 0.28 MB of `word_ids`; a number takes one or two bytes.
//!
//! A stem is read from its id in three gets: this record, the number's
//! key in `stem_records`, then that `word_ids` record, scanned for the
//! id. A transaction sets the numbers [`stem_index::insert`] hands back:
//! its new words (at the end) and the words a cut record moved.

use super::doc_freq::{first_word, BLOCK_WORDS};
use super::stem_index;
use crate::codec::{put_varint, read_u32, u32_key, VarintReader};
use crate::schema::{Db, WordId};
use crate::sealed::{self, View};
use crate::{Result, StoreError};

/// The number of the `word_ids` record holding word `id`'s stem, from
/// `record` (the `words` record keyed by its block); None when the record
/// ends first or the id has no word.
pub fn number_in(record: &[u8], id: WordId) -> Result<Option<u32>> {
    let mut r = VarintReader::new(record);
    for _ in 0..id % BLOCK_WORDS {
        if r.is_empty() {
            return Ok(None);
        }
        r.next_u64()?;
    }
    if r.is_empty() {
        return Ok(None);
    }
    Ok(Some(number(r.next_u64()?)?).filter(|&n| n != 0))
}

fn number(n: u64) -> Result<u32> {
    u32::try_from(n).map_err(|_| StoreError::corrupt("a stem record's number past 32 bits"))
}

/// Word `id`'s stem, or None when no word has the id.
pub fn stem<V: View + ?Sized>(view: &V, id: WordId) -> Result<Option<Vec<u8>>> {
    let dbs = view.dbs();
    let Some(record) = dbs.words.get(view.txn(), &u32_key(id / BLOCK_WORDS))? else {
        return Ok(None);
    };
    let Some(n) = number_in(record, id)? else {
        return Ok(None);
    };
    // A record gone is a store `check` finds broken; here, no stem.
    let Some(held) = stem_index::numbered(view, n)? else {
        return Ok(None);
    };
    let mut found = None;
    stem_index::each_in(held, |stem, at| {
        if at == id {
            found = Some(stem.to_vec());
        }
        Ok(found.is_none())
    })?;
    Ok(found)
}

/// Hands `f` each (word id, record number) of the record keyed `block`,
/// in order (none for an id without a word); returns the id after the
/// record's last.
pub fn each_number(
    block: u32,
    record: &[u8],
    mut f: impl FnMut(WordId, u32) -> Result<()>,
) -> Result<WordId> {
    let mut r = VarintReader::new(record);
    let mut id = first_word(block);
    while !r.is_empty() {
        if id / BLOCK_WORDS != block {
            return Err(StoreError::corrupt(format!(
                "word record {block} holds more than {BLOCK_WORDS} words"
            )));
        }
        let n = number(r.next_u64()?)?;
        if n != 0 {
            f(id, n)?;
        }
        id += 1;
    }
    Ok(id)
}

/// Sets the record numbers of `placed` (word id, number), in any order: a
/// record of `db` at a time, new records appended at the end.
pub fn set(txn: &mut heed::RwTxn<'_>, db: Db, placed: &mut [(WordId, u32)]) -> Result<()> {
    placed.sort_unstable();
    let mut slots: Vec<u32> = Vec::with_capacity(BLOCK_WORDS as usize);
    let mut value = Vec::with_capacity(BLOCK_WORDS as usize * 2);
    for block in placed.chunk_by(|a, b| a.0 / BLOCK_WORDS == b.0 / BLOCK_WORDS) {
        let key = u32_key(block[0].0 / BLOCK_WORDS);
        slots.clear();
        let existed = match db.get(txn, &key)? {
            Some(record) => {
                each_slot(record, |n| slots.push(n))?;
                true
            }
            None => false,
        };
        for &(id, n) in block {
            let slot = (id % BLOCK_WORDS) as usize;
            if slots.len() <= slot {
                slots.resize(slot + 1, 0);
            }
            slots[slot] = n;
        }
        value.clear();
        for &n in &slots {
            put_varint(&mut value, u64::from(n));
        }
        if existed {
            db.put(txn, &key, &value)?;
        } else {
            sealed::put_appending(txn, db, &key, &value)?;
        }
    }
    Ok(())
}

/// Every slot of a `words` record, empty ones as 0.
fn each_slot(record: &[u8], mut f: impl FnMut(u32)) -> Result<()> {
    let mut r = VarintReader::new(record);
    while !r.is_empty() {
        f(number(r.next_u64()?)?);
    }
    Ok(())
}

/// The id after the last word `db` holds (0: it holds none).
pub fn next_id<V: View + ?Sized>(view: &V, db: Db) -> Result<WordId> {
    let Some((k, record)) = db.last(view.txn())? else {
        return Ok(0);
    };
    each_number(read_u32(k)?, record, |_, _| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    /// Stems added in batches of every size, with gaps, read back by id,
    /// in order, and the next id after them.
    #[test]
    fn stems_added_in_batches_read_back_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // Id 0 is never a word's; 70..75 are a gap an old store left.
        let ids: Vec<WordId> = (1..70).chain(75..3000).collect();
        // Stems in an order unlike the ids', so cut records move words.
        let stem = |id: WordId| format!("s{:08x}", id.wrapping_mul(2_654_435_761)).into_bytes();
        let mut at = 0;
        for batch in [1, 5, 63, 64, 65, 100, 1000, 2000] {
            let end = (at + batch).min(ids.len());
            let chunk: Vec<(WordId, Vec<u8>)> =
                ids[at..end].iter().map(|&i| (i, stem(i))).collect();
            store
                .update(|w| {
                    let mut new: Vec<(&[u8], WordId)> =
                        chunk.iter().map(|(i, s)| (s.as_slice(), *i)).collect();
                    let mut placed = stem_index::insert(&mut w.txn, &w.dbs, &w.blocks, &mut new)?;
                    set(&mut w.txn, w.dbs.words, &mut placed)
                })
                .unwrap();
            at = end;
        }
        let r = store.read().unwrap();
        use crate::WordRead;
        for id in 0..3010 {
            let want = ids
                .contains(&id)
                .then(|| String::from_utf8(stem(id)).unwrap());
            assert_eq!(r.word(id).unwrap(), want, "word {id}");
        }
        let mut seen = Vec::new();
        for item in r.dbs.words.iter(&r.txn).unwrap() {
            let (k, record) = item.unwrap();
            each_number(read_u32(k).unwrap(), record, |id, _| {
                seen.push(id);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(seen, ids);
        assert_eq!(next_id(&r, r.dbs.words).unwrap(), 3000);
        // The stems (9 bytes each) are kept in `word_ids` alone: `words`
        // holds a byte or two a word.
        let held: usize = (r.dbs.words.iter(&r.txn).unwrap())
            .map(|item| item.unwrap().1.len())
            .sum();
        assert!(held < 2 * ids.len(), "{held} bytes for {} words", ids.len());
    }
}

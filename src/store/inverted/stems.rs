//! The `words` table: each word id's stem, 64 ids to a record (keyed
//! like `doc_freq`, by id / 64), each stem as `varint len, bytes` in id
//! order. A record per id spent 22 bytes of LMDB node, key and pointer on
//! a stem of 8: on a store of small pages, 58,000 stems took 1.3 MB of
//! `words` alone. Ids are handed out in order and never freed, so a
//! record's n-th entry is word `block × 64 + n`: a transaction's new words
//! extend the last record and append new ones. An id no word has (0, the
//! counter starts at 1; or a gap an old store left) is an empty entry.

use super::doc_freq::{first_word, BLOCK_WORDS};
use crate::store::codec::{put_varint, u32_key, VarintReader};
use crate::store::schema::{Db, WordId};
use crate::store::sealed;
use crate::store::{Result, StoreError};

/// Word `id`'s stem in `record` (the record keyed by its block), None
/// when the record ends first or the entry is empty.
pub fn stem_in(record: &[u8], id: WordId) -> Result<Option<&[u8]>> {
    let mut r = VarintReader::new(record);
    for _ in 0..id % BLOCK_WORDS {
        if r.is_empty() {
            return Ok(None);
        }
        let len = r.next_u64()?;
        r.take(len)?;
    }
    if r.is_empty() {
        return Ok(None);
    }
    let len = r.next_u64()?;
    Ok(Some(r.take(len)?).filter(|stem| !stem.is_empty()))
}

/// Hands `f` each (word id, stem) of the record keyed `block`, in order
/// (none for an empty entry); returns the id after the record's last.
pub fn each_stem<'a>(
    block: u32,
    record: &'a [u8],
    mut f: impl FnMut(WordId, &'a [u8]) -> Result<()>,
) -> Result<WordId> {
    let mut r = VarintReader::new(record);
    let mut id = first_word(block);
    while !r.is_empty() {
        if id / BLOCK_WORDS != block {
            return Err(StoreError::corrupt(format!(
                "stem record {block} holds more than {BLOCK_WORDS} stems"
            )));
        }
        let len = r.next_u64()?;
        let stem = r.take(len)?;
        if !stem.is_empty() {
            f(id, stem)?;
        }
        id += 1;
    }
    Ok(id)
}

/// Adds stems of new words, in id order and each past the last one `db`
/// holds: to the last record while it has room, then in new records at
/// the end.
pub fn append<'s>(
    txn: &mut heed::RwTxn<'_>,
    db: Db,
    new: impl IntoIterator<Item = (WordId, &'s [u8])>,
) -> Result<()> {
    let mut new = new.into_iter().peekable();
    while let Some(&(id, _)) = new.peek() {
        let block = id / BLOCK_WORDS;
        let key = u32_key(block);
        let mut record = db.get(txn, &key)?.map(<[u8]>::to_vec).unwrap_or_default();
        let mut next = each_stem(block, &record, |_, _| Ok(()))?;
        while let Some((id, stem)) = new.next_if(|&(id, _)| id / BLOCK_WORDS == block) {
            if id < next || stem.is_empty() {
                return Err(StoreError::corrupt(format!(
                    "new word {id} is empty or not past the stems stored, which end before {next}"
                )));
            }
            // Ids no word has: empty entries, so each keeps its place.
            record.resize(record.len() + (id - next) as usize, 0);
            next = id;
            put_varint(&mut record, stem.len() as u64);
            record.extend_from_slice(stem);
            next += 1;
        }
        sealed::put_appending(txn, db, &key, &record)?;
    }
    Ok(())
}

/// The id after the last stem `db` holds (0: it holds none).
pub fn next_id<V: sealed::View + ?Sized>(view: &V, db: Db) -> Result<WordId> {
    let Some((k, record)) = db.last(view.txn())? else {
        return Ok(0);
    };
    each_stem(crate::store::codec::read_u32(k)?, record, |_, _| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Stems added in batches of every size, with gaps, read back by id,
    /// in order, and the next id after them.
    #[test]
    fn stems_appended_in_batches_read_back_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // Id 0 is never a word's; 70..75 are a gap an old store left.
        let ids: Vec<WordId> = (1..70).chain(75..300).collect();
        let stem = |id: WordId| format!("s{id}").into_bytes();
        let mut at = 0;
        for batch in [1, 5, 63, 64, 65, 100, 1000] {
            let end = (at + batch).min(ids.len());
            let chunk: Vec<(WordId, Vec<u8>)> =
                ids[at..end].iter().map(|&i| (i, stem(i))).collect();
            store
                .update(|w| {
                    let new = chunk.iter().map(|(i, s)| (*i, s.as_slice()));
                    append(&mut w.txn, w.dbs.words, new)
                })
                .unwrap();
            at = end;
        }
        let r = store.read().unwrap();
        use crate::store::WordRead;
        for id in 0..310 {
            let want = ids.contains(&id).then(|| format!("s{id}"));
            assert_eq!(r.word(id).unwrap(), want, "word {id}");
        }
        let mut seen = Vec::new();
        for item in r.dbs.words.iter(&r.txn).unwrap() {
            let (k, record) = item.unwrap();
            let block = crate::store::codec::read_u32(k).unwrap();
            each_stem(block, record, |id, s| {
                assert_eq!(s, stem(id));
                seen.push(id);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(seen, ids);
        assert_eq!(next_id(&r, r.dbs.words).unwrap(), 300);
        drop(r);
        // An id not past the last stem is refused, not written over it.
        let again = store.update(|w| append(&mut w.txn, w.dbs.words, [(299, &b"x"[..])]));
        assert!(again.unwrap_err().to_string().contains("not past"));
    }
}

//! The `word_ids` table: stem → word id, as sorted runs of stems packed
//! into records of about [`RECORD_BYTES`] at most, each keyed by its first
//! stem. A record is `varint number` (its number in `stem_records`, which
//! `words` names for each of its stems: the stems are kept here alone),
//! then its entries: `lengths, rest, varint id`, each stem the previous
//! one's first `shared` bytes and then `rest`, where `lengths` is the byte
//! `shared << 4 | rest length` when `shared` is under 15 and the rest under
//! 16 (nearly every stem: one byte, where two varints took two), else
//! [`WIDE`] and the two as varints (22 and before wrote every entry so). A
//! record per stem spent 14 bytes of LMDB node, pointer and id on a stem
//! of 8, and new words, inserted all over the table, left its leaves a
//! third empty: 58,000 stems took 1.9 MB. A stem is found in the record
//! with the greatest key at or below it.
//!
//! A transaction's new stems are added at its end, sorted, a record at a
//! time; a record grown past the limit is cut in two, the first part
//! keeping its number and the others taking new ones, and [`insert`]
//! says which stems now live in which record, for `words`.
//!
//! A repacked small store keeps the records in shared zstd frames
//! (`word_blocks`, [`Shelf::Words`]), each record a reference into one:
//! stems are letters, which a frame of many records codes in fewer bits
//! than a byte (the 300-page bench site's 213 KB of records, ~170 KB
//! in frames). Every read here goes through [`record`]; a record a later
//! transaction changes is written plain again.

use std::ops::Bound::{Excluded, Included, Unbounded};

use crate::body_blocks::{self, BlockCache, Shelf};
use crate::codec::{put_varint, read_u32, u32_key, VarintReader};
use crate::schema::{Dbs, WordId};
use crate::sealed::View;
use crate::{Result, StoreError};

/// A record grown past this is cut into equal parts: four records of it
/// fill a 4 KB leaf, and a new stem rewrites at most this much. (Records
/// of 480 bytes made the 10k store's table 0.66 → 0.78 MB, and the
/// crawl no cheaper that pairs could tell.)
const RECORD_BYTES: usize = 960;

/// The stems of one record in order, with their ids.
struct Entries<'a> {
    r: VarintReader<'a>,
    stem: Vec<u8>,
}

impl<'a> Entries<'a> {
    /// The entries of `record`, past its number.
    fn new(record: &'a [u8]) -> Result<Self> {
        let mut r = VarintReader::new(record);
        r.next_u64()?;
        Ok(Entries {
            r,
            stem: Vec::new(),
        })
    }

    /// The next stem and its id (the stem lives until the next call).
    fn next_entry(&mut self) -> Result<Option<(&[u8], WordId)>> {
        if self.r.is_empty() {
            return Ok(None);
        }
        let (shared, len) = match self.r.take(1)? {
            [WIDE] => (self.r.next_u64()?, self.r.next_u64()?),
            [lengths] => (u64::from(lengths >> 4), u64::from(lengths & 15)),
            _ => return Err(StoreError::corrupt("a stem entry without its lengths")),
        };
        let rest = self.r.take(len)?;
        let id = self.r.next_u64()?;
        let shared = usize::try_from(shared)
            .ok()
            .filter(|&s| s <= self.stem.len())
            .ok_or_else(|| StoreError::corrupt("a stem shares more than the one before holds"))?;
        let id = WordId::try_from(id).map_err(|_| StoreError::corrupt("a word id past 32 bits"))?;
        self.stem.truncate(shared);
        self.stem.extend_from_slice(rest);
        Ok(Some((&self.stem, id)))
    }
}

/// Hands `f` each (stem, id) of `record`, in stem order; `f` returns
/// false to stop (and then so does this, with false).
pub fn each_in(record: &[u8], mut f: impl FnMut(&[u8], WordId) -> Result<bool>) -> Result<bool> {
    let mut entries = Entries::new(record)?;
    while let Some((stem, id)) = entries.next_entry()? {
        if !f(stem, id)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A record's number: what `words` and `stem_records` know it by.
pub fn number_of(record: &[u8]) -> Result<u32> {
    let n = VarintReader::new(record).next_u64()?;
    u32::try_from(n).map_err(|_| StoreError::corrupt("a stem record's number past 32 bits"))
}

/// The `word_ids` record numbered `number` (None: there is none).
pub fn numbered<V: View + ?Sized>(view: &V, number: u32) -> Result<Option<&[u8]>> {
    let Some(key) = view.dbs().stem_records.get(view.txn(), &u32_key(number))? else {
        return Ok(None);
    };
    (view.dbs().word_ids.get(view.txn(), key)?)
        .map(|stored| record(view, stored))
        .transpose()
}

/// A `word_ids` record as stored, or from its block.
pub fn record<'t, V: View + ?Sized>(view: &'t V, stored: &'t [u8]) -> Result<&'t [u8]> {
    body_blocks::plain(view, Shelf::Words, stored)
}

/// The first byte of an entry whose lengths follow as varints.
const WIDE: u8 = 0xF0;

/// Appends an entry: the stem shares `shared` bytes with the one before
/// and then has `rest`.
pub(crate) fn put_entry(out: &mut Vec<u8>, shared: usize, rest: &[u8], id: WordId) {
    if shared < 15 && rest.len() < 16 {
        out.push((shared as u8) << 4 | rest.len() as u8);
    } else {
        out.push(WIDE);
        put_varint(out, shared as u64);
        put_varint(out, rest.len() as u64);
    }
    out.extend_from_slice(rest);
    put_varint(out, u64::from(id));
}

/// Records cut from sorted stems: each its first stem, its entries
/// (without its number) and how many.
struct Cut {
    key: Vec<u8>,
    entries: Vec<u8>,
    count: usize,
}

/// Writes sorted (stem, id) pairs as records, a record cut once it holds
/// `cut` bytes.
fn encode<'s>(sorted: impl IntoIterator<Item = (&'s [u8], WordId)>, cut: usize) -> Vec<Cut> {
    let mut out: Vec<Cut> = Vec::new();
    let mut record = Vec::new();
    let mut first: Option<&[u8]> = None;
    let mut last: &[u8] = &[];
    let mut count = 0;
    for (stem, id) in sorted {
        if record.len() >= cut {
            out.push(Cut {
                key: first.unwrap_or_default().to_vec(),
                entries: std::mem::take(&mut record),
                count: std::mem::take(&mut count),
            });
            first = None;
        }
        count += 1;
        let shared = match first {
            None => {
                first = Some(stem);
                0
            }
            Some(_) => last.iter().zip(stem).take_while(|(a, b)| a == b).count(),
        };
        put_entry(&mut record, shared, &stem[shared..], id);
        last = stem;
    }
    if let Some(first) = first {
        out.push(Cut {
            key: first.to_vec(),
            entries: record,
            count,
        });
    }
    out
}

/// The key and record that would hold `stem`: the greatest key at or
/// below it (None: every key is past it, or there is none).
fn holder<'t, V: View + ?Sized>(view: &'t V, stem: &[u8]) -> Result<Option<(&'t [u8], &'t [u8])>> {
    if stem.is_empty() {
        // No key is below it (and LMDB refuses an empty key to seek to).
        return Ok(None);
    }
    let db = view.dbs().word_ids;
    let Some((key, stored)) = (db.rev_range(view.txn(), &(Unbounded, Included(stem)))?)
        .next()
        .transpose()?
    else {
        return Ok(None);
    };
    Ok(Some((key, record(view, stored)?)))
}

/// The id of `stem`, if it is a word's.
pub fn find<V: View + ?Sized>(view: &V, stem: &[u8]) -> Result<Option<WordId>> {
    let Some((_, record)) = holder(view, stem)? else {
        return Ok(None);
    };
    let mut found = None;
    each_in(record, |s, id| {
        if s == stem {
            found = Some(id);
        }
        Ok(found.is_none() && s < stem)
    })?;
    Ok(found)
}

/// Hands `f` every (stem, id) from the first stem at or after `from`, in
/// stem order, until `f` returns false.
pub fn each_from<V: View + ?Sized>(
    view: &V,
    from: &[u8],
    mut f: impl FnMut(&[u8], WordId) -> Result<bool>,
) -> Result<()> {
    let db = view.dbs().word_ids;
    let start = match holder(view, from)? {
        Some((key, _)) => Included(key),
        None => Unbounded,
    };
    for item in db.range(view.txn(), &(start, Unbounded))? {
        let held = record(view, item?.1)?;
        let go_on = each_in(held, |s, id| if s < from { Ok(true) } else { f(s, id) })?;
        if !go_on {
            break;
        }
    }
    Ok(())
}

/// Adds new words' stems (none already in the table), in any order, and
/// returns where each stem whose record changed now lives: (id, record
/// number) for every new stem and every stem a cut moved, for `words`.
pub fn insert(
    txn: &mut heed::RwTxn<'_>,
    dbs: &Dbs,
    blocks: &BlockCache,
    new: &mut [(&[u8], WordId)],
) -> Result<Vec<(WordId, u32)>> {
    let db = dbs.word_ids;
    new.sort_unstable();
    let mut placed = Vec::with_capacity(new.len());
    let mut fresh = match dbs.stem_records.last(txn)? {
        Some((k, _)) => read_u32(k)? + 1,
        None => 1,
    };
    let mut rest: &[(&[u8], WordId)] = new;
    while let Some(&(stem, _)) = rest.first() {
        // The record the first stem goes to, or the first record when
        // every key is past it; the stems up to the next record's key go
        // there too.
        let below = (db.rev_range(txn, &(Unbounded, Included(stem)))?.next())
            .transpose()?
            .map(|(k, v)| {
                Ok::<_, StoreError>((
                    k.to_vec(),
                    blocks.plain(txn, dbs, Shelf::Words, v)?.to_vec(),
                ))
            })
            .transpose()?;
        let (key, record) = match below {
            Some(kv) => kv,
            None => match db.first(txn)? {
                Some((k, v)) => (
                    k.to_vec(),
                    blocks.plain(txn, dbs, Shelf::Words, v)?.to_vec(),
                ),
                None => (Vec::new(), Vec::new()),
            },
        };
        let next_key = match key.as_slice() {
            [] => None,
            k => (db.range(txn, &(Excluded(k), Unbounded))?.next())
                .transpose()?
                .map(|(k, _)| k.to_vec()),
        };
        let n = match &next_key {
            Some(next) => rest.partition_point(|(s, _)| *s < next.as_slice()),
            None => rest.len(),
        };
        let (mine, later) = rest.split_at(n);
        rest = later;
        let number = match record.is_empty() {
            true => None,
            false => Some(number_of(&record)?),
        };
        // The record's stems, one after another in one buffer, not an
        // allocation a stem: this runs on the writer's thread.
        let mut held = Vec::with_capacity(record.len() * 2);
        let mut spans = Vec::with_capacity(mine.len() + 96);
        if number.is_some() {
            each_in(&record, |s, id| {
                spans.push((held.len(), held.len() + s.len(), id));
                held.extend_from_slice(s);
                Ok(true)
            })?;
        }
        // Each stem with whether it is new (the record's own stay where
        // they are unless a cut moves them).
        let mut merged: Vec<(&[u8], WordId, bool)> = (spans.iter())
            .map(|&(from, to, id)| (&held[from..to], id, false))
            .chain(mine.iter().map(|&(s, id)| (s, id, true)))
            .collect();
        merged.sort_unstable();
        if merged.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(StoreError::corrupt("a new word's stem is already a word's"));
        }
        // Grown past the limit, a record is cut into equal parts: cut
        // full, it would leave a sliver beside a full record, and the next
        // stem to land there would cut another sliver off.
        let entries = || merged.iter().map(|&(s, id, _)| (s, id));
        let mut records = encode(entries(), usize::MAX);
        let bytes: usize = records.iter().map(|r| r.entries.len()).sum();
        if bytes > RECORD_BYTES {
            records = encode(entries(), bytes.div_ceil(bytes.div_ceil(RECORD_BYTES)));
        }
        // The record keeps its key unless a stem below it came first: a
        // put then replaces it in place.
        let first_key = records.first().map(|r| &r.key);
        let rekeyed = !key.is_empty() && first_key != Some(&key);
        if rekeyed {
            db.delete(txn, &key)?;
        }
        let mut at = 0;
        let mut value = Vec::with_capacity(RECORD_BYTES + 8);
        for (i, cut) in records.into_iter().enumerate() {
            let kept = number.filter(|_| i == 0);
            let number = kept.unwrap_or_else(|| {
                fresh += 1;
                fresh - 1
            });
            if kept.is_none() || rekeyed {
                dbs.stem_records.put(txn, &u32_key(number), &cut.key)?;
            }
            let part = &merged[at..at + cut.count];
            at += cut.count;
            placed.extend(
                (part.iter())
                    .filter(|&&(_, _, new)| new || kept.is_none())
                    .map(|&(_, id, _)| (id, number)),
            );
            value.clear();
            put_varint(&mut value, u64::from(number));
            value.extend_from_slice(&cut.entries);
            db.put(txn, &cut.key, &value)?;
        }
    }
    Ok(placed)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::Store;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Stems added in batches, in any order, are found, listed in
        /// order from any point, and their records stay under the limit.
        #[test]
        fn stems_inserted_in_batches_are_found_and_listed_in_order(
            batches in prop::collection::vec(
                prop::collection::vec("[a-d]{1,3}[a-z]{0,12}", 1..300), 1..6),
            probes in prop::collection::vec("[a-e]{0,4}", 1..20),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            let mut model: BTreeMap<Vec<u8>, WordId> = BTreeMap::new();
            // Where `insert` said each word's stem lives.
            let mut homes: BTreeMap<WordId, u32> = BTreeMap::new();
            for batch in &batches {
                let mut new: Vec<(Vec<u8>, WordId)> = Vec::new();
                for stem in batch {
                    let stem = stem.as_bytes().to_vec();
                    if model.contains_key(&stem) || new.iter().any(|(s, _)| *s == stem) {
                        continue;
                    }
                    new.push((stem, model.len() as WordId + new.len() as WordId + 1));
                }
                let placed = store.update(|w| {
                    let mut refs: Vec<(&[u8], WordId)> =
                        new.iter().map(|(s, id)| (s.as_slice(), *id)).collect();
                    insert(&mut w.txn, &w.dbs, &w.blocks, &mut refs)
                }).unwrap();
                homes.extend(placed);
                model.extend(new);
            }
            let r = store.read().unwrap();
            for (stem, id) in &model {
                prop_assert_eq!(find(&r, stem).unwrap(), Some(*id));
            }
            for probe in &probes {
                let want: Vec<(Vec<u8>, WordId)> = model
                    .range(probe.as_bytes().to_vec()..)
                    .map(|(s, id)| (s.clone(), *id))
                    .collect();
                let mut got = Vec::new();
                each_from(&r, probe.as_bytes(), |s, id| {
                    got.push((s.to_vec(), id));
                    Ok(true)
                }).unwrap();
                prop_assert_eq!(got, want);
                if !probe.is_empty() {
                    prop_assert_eq!(find(&r, probe.as_bytes()).unwrap(), model.get(probe.as_bytes()).copied());
                }
            }
            for item in r.dbs.word_ids.iter(&r.txn).unwrap() {
                let (key, record) = item.unwrap();
                prop_assert!(record.len() <= RECORD_BYTES + 32);
                let mut first = None;
                let number = number_of(record).unwrap();
                each_in(record, |s, id| {
                    first.get_or_insert_with(|| s.to_vec());
                    assert_eq!(homes.get(&id), Some(&number), "word {}", id);
                    Ok(true)
                }).unwrap();
                prop_assert_eq!(first.as_deref(), Some(key));
                prop_assert_eq!(numbered(&r, number).unwrap(), Some(record));
            }
        }
    }

    /// A stem already a word's is refused, not given a second id.
    #[test]
    fn a_known_stem_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let stems: Vec<String> = (0..20_000).map(|i| format!("stem{i:06}")).collect();
        store
            .update(|w| {
                let mut sorted: Vec<(&[u8], WordId)> = stems
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.as_bytes(), i as WordId + 1))
                    .collect();
                insert(&mut w.txn, &w.dbs, &w.blocks, &mut sorted)
            })
            .unwrap();
        let r = store.read().unwrap();
        assert_eq!(find(&r, b"stem012345").unwrap(), Some(12_346));
        assert_eq!(find(&r, b"stem0123456").unwrap(), None);
        drop(r);
        let again = store.update(|w| {
            insert(
                &mut w.txn,
                &w.dbs,
                &w.blocks,
                &mut [(&b"stem000007"[..], 99_999)],
            )
        });
        assert!(again.unwrap_err().to_string().contains("already"));
    }
}

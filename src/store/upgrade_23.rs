//! Bringing a store of schema 22 (or older, after its other steps) to
//! 23's smaller records: `doc_freq` entries in the coding
//! `inverted::doc_freq` gives (22 wrote `varint df << 2 | n`, then each
//! spelling as `varint count << 1 | other` and an other one whole, as
//! `varint len, bytes`), and near signatures of a byte a bin (22 kept
//! each bin's low 16 bits, little-endian: the low byte is what a crawl
//! computes now), and `word_ids` entries with their two lengths in a
//! byte (`inverted::stem_index`; 22 wrote them as two varints), done
//! first, before the steps that read stems.
//!
//! An other spelling is coded by its word's stem: the ids that have one
//! are gathered first, then their stems in one pass over `word_ids`, so
//! the step reads each table once or twice and gets nothing by key.

use std::collections::HashMap;

use heed::RwTxn;

use super::codec::{put_varint, read_u32, VarintReader};
use super::inverted::doc_freq::{self, first_word};
use super::inverted::spelling::Spelling;
use super::inverted::stem_index;
use super::schema::{Dbs, WordId};
use super::upgrade::rewrite;
use super::{Result, StoreError};
use crate::index::minhash::HASHES;

/// Rewrites `doc_freq` and `near_signatures` in 23's coding.
pub(super) fn bring(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    doc_freqs(txn, dbs)?;
    signatures(txn, dbs)?;
    // The kept near-duplicates were found with 16-bit bins: a recount
    // with 8 may differ near the threshold, so none is kept as current.
    dbs.kept.clear(txn)?;
    Ok(())
}

/// Writes each `word_ids` entry in 23's coding. A record of 21's layout
/// has no number before its entries (`stem_layout` numbers it next); one
/// of 22's, or of a 21 store already in 22's layout, has.
pub(super) fn stem_entries(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    let numbered = dbs.stem_records.first(txn)?.is_some();
    rewrite(txn, dbs.word_ids, |_, v| {
        let mut r = VarintReader::new(v);
        let mut out = Vec::with_capacity(v.len());
        if numbered {
            put_varint(&mut out, r.next_u64()?);
        }
        while !r.is_empty() {
            let shared = usize::try_from(r.next_u64()?)
                .map_err(|_| StoreError::corrupt("a stem shares past memory"))?;
            let len = r.next_u64()?;
            let rest = r.take(len)?;
            stem_index::put_entry(&mut out, shared, rest, r.next_u32()?);
        }
        Ok(Some(out))
    })
}

/// One word's entry as 22 wrote it: its df and spellings (None: the
/// stem), most written first.
type OldEntry<'a> = (u32, Vec<(Option<&'a [u8]>, u32)>);

/// Every entry of a 22 `doc_freq` record, in id order.
fn old_entries(record: &[u8]) -> Result<Vec<OldEntry<'_>>> {
    let mut r = VarintReader::new(record);
    let mut out = Vec::new();
    while !r.is_empty() {
        let head = r.next_u64()?;
        let df = u32::try_from(head >> 2)
            .map_err(|_| StoreError::corrupt("doc_freq count overflows"))?;
        let mut forms = Vec::new();
        for _ in 0..head & 3 {
            let head = r.next_u64()?;
            let count = u32::try_from(head >> 1)
                .map_err(|_| StoreError::corrupt("doc_freq spelling count overflows"))?;
            let spelling = if head & 1 == 1 {
                let len = r.next_u64()?;
                Some(r.take(len)?)
            } else {
                None
            };
            forms.push((spelling, count));
        }
        out.push((df, forms));
    }
    Ok(out)
}

fn doc_freqs(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    let mut spelled: Vec<WordId> = Vec::new();
    for item in dbs.doc_freq.iter(txn)? {
        let (k, v) = item?;
        for (id, (_, forms)) in (first_word(read_u32(k)?)..).zip(old_entries(v)?) {
            if forms.iter().any(|(s, _)| s.is_some()) {
                spelled.push(id);
            }
        }
    }
    let mut stems: HashMap<WordId, Vec<u8>> = HashMap::with_capacity(spelled.len());
    for item in dbs.word_ids.iter(txn)? {
        stem_index::each_in(item?.1, |stem, id| {
            if spelled.binary_search(&id).is_ok() {
                stems.insert(id, stem.to_vec());
            }
            Ok(true)
        })?;
    }
    rewrite(txn, dbs.doc_freq, |k, v| {
        let mut value = Vec::with_capacity(v.len());
        let mut forms = Vec::new();
        for (id, (df, old)) in (first_word(read_u32(k)?)..).zip(old_entries(v)?) {
            // A word without a stem (a store `check` calls broken) keeps
            // its count and the stem's votes.
            let stem = stems.get(&id).map(Vec::as_slice);
            forms.clear();
            forms.extend(old.iter().filter_map(|&(s, n)| match (s, stem) {
                (None, _) => Some((Spelling::Stem, n)),
                (Some(written), Some(stem)) => Some((Spelling::of(stem, written), n)),
                (Some(_), None) => None,
            }));
            doc_freq::put_entry(&mut value, df, &mut forms, stem);
        }
        Ok(Some(value))
    })
}

/// Keeps each bin's low byte; a value of another length is left for
/// `check` to name.
fn signatures(txn: &mut RwTxn<'_>, dbs: &Dbs) -> Result<()> {
    rewrite(txn, dbs.near_signatures, |_, v| {
        Ok((v.len() == HASHES * 2).then(|| v.chunks_exact(2).map(|bin| bin[0]).collect()))
    })
}

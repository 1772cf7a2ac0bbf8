//! The word records of schemas 10 to 12, read for the upgrade, and their
//! counts and spellings packed in `doc_freq` blocks ([`super::doc_freq`]),
//! as this schema keeps them beside each stem's `words` record.

use heed::{PutFlags, RwTxn};

use super::codec::{self, u32_key, VarintReader};
use super::doc_freq::{self, Spelling, BLOCK_WORDS};
use super::schema::{Db, WordId};
use super::{Result, StoreError};

/// A word as an old record held it: its count and its spellings with
/// their page counts.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct OldWord {
    pub df: u32,
    pub forms: Vec<(Vec<u8>, u32)>,
}

/// A schema-10 `doc_freq` value (empty: none, no page held the word):
/// the count (4 bytes, big-endian), then each form as `varint count,
/// varint len, bytes`.
pub fn schema_10(v: &[u8]) -> Result<OldWord> {
    if v.is_empty() {
        return Ok(OldWord::default());
    }
    let (head, rest) = split_count(v)?;
    let mut r = VarintReader::new(rest);
    let mut forms = Vec::new();
    while !r.is_empty() {
        let count = r.next_u32()?;
        let len = r.next_u64()?;
        forms.push((r.take(len)?.to_vec(), count));
    }
    Ok(OldWord { df: head, forms })
}

/// A schema-11 or 12 `doc_freq` value: the count (4 bytes, big-endian),
/// the stem (`varint len, bytes`), then each form as `varint count,
/// varint shared, varint len, bytes`, the form being the stem's first
/// `shared` bytes followed by those bytes. Returns the stem too.
pub fn schema_12(v: &[u8]) -> Result<(Vec<u8>, OldWord)> {
    let (df, rest) = split_count(v)?;
    let mut r = VarintReader::new(rest);
    let len = r.next_u64()?;
    let stem = r.take(len)?;
    let mut forms = Vec::new();
    while !r.is_empty() {
        let count = r.next_u32()?;
        let shared = usize::try_from(r.next_u64()?)
            .ok()
            .filter(|&n| n <= stem.len())
            .ok_or_else(|| StoreError::corrupt("doc_freq form longer than its stem"))?;
        let len = r.next_u64()?;
        let form = [&stem[..shared], r.take(len)?].concat();
        forms.push((form, count));
    }
    Ok((stem.to_vec(), OldWord { df, forms }))
}

fn split_count(v: &[u8]) -> Result<(u32, &[u8])> {
    let (head, rest) = v
        .split_at_checked(4)
        .ok_or_else(|| StoreError::corrupt("doc_freq record shorter than 4 bytes"))?;
    Ok((codec::read_u32(head)?, rest))
}

/// Packs words' counts and spellings, given in id order, into
/// `doc_freq` blocks, each appended to `blocks` (the upgrade's scratch
/// table) once full.
pub struct Packer {
    blocks: Db,
    /// The block being filled, its entries so far and their bytes.
    block: Option<u32>,
    entries: u32,
    bytes: Vec<u8>,
}

impl Packer {
    pub fn new(blocks: Db) -> Packer {
        Packer {
            blocks,
            block: None,
            entries: 0,
            bytes: Vec::new(),
        }
    }

    /// Adds word `id`, whose stem is `stem`.
    pub fn push(
        &mut self,
        txn: &mut RwTxn<'_>,
        id: WordId,
        stem: &[u8],
        word: &OldWord,
    ) -> Result<()> {
        if word.df == 0 {
            // No entry: a word no page holds has none to keep.
            return Ok(());
        }
        let block = id / BLOCK_WORDS;
        if self.block != Some(block) {
            self.finish(txn)?;
            self.block = Some(block);
        }
        while self.entries < id % BLOCK_WORDS {
            self.bytes.push(0);
            self.entries += 1;
        }
        let mut forms: Vec<(Spelling<'_>, u32)> = (word.forms.iter())
            .map(|(form, n)| match form[..] == *stem {
                true => (Spelling::Stem, *n),
                false => (Spelling::Other(form), *n),
            })
            .collect();
        doc_freq::put_entry(&mut self.bytes, word.df, &mut forms);
        self.entries += 1;
        Ok(())
    }

    /// Appends the block being filled.
    pub fn finish(&mut self, txn: &mut RwTxn<'_>) -> Result<()> {
        if let Some(block) = self.block.take() {
            (self.blocks).put_with_flags(txn, PutFlags::APPEND, &u32_key(block), &self.bytes)?;
        }
        self.bytes.clear();
        self.entries = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_records_read_with_their_stems_and_forms() {
        let mut v10 = 5u32.to_be_bytes().to_vec();
        for (form, n) in [("running", 4u64), ("run", 1)] {
            codec::put_varint(&mut v10, n);
            codec::put_varint(&mut v10, form.len() as u64);
            v10.extend_from_slice(form.as_bytes());
        }
        let got = schema_10(&v10).unwrap();
        assert_eq!(got.df, 5);
        assert_eq!(got.forms, [(b"running".to_vec(), 4), (b"run".to_vec(), 1)]);
        assert_eq!(schema_10(&[]).unwrap(), OldWord::default());
        // Schema 12: "movi", then "movies" (4 shared, "es") and "mov".
        let v12 = [
            &8u32.to_be_bytes()[..],
            &[4],
            b"movi",
            &[3, 4, 2],
            b"es",
            &[2, 3, 0],
        ]
        .concat();
        let (stem, got) = schema_12(&v12).unwrap();
        assert_eq!((stem.as_slice(), got.df), (&b"movi"[..], 8));
        assert_eq!(got.forms, [(b"movies".to_vec(), 3), (b"mov".to_vec(), 2)]);
        assert!(schema_12(&[0, 0, 1]).is_err());
        assert!(
            schema_12(&[0, 0, 0, 1, 5, b'a']).is_err(),
            "stem past the end"
        );
        assert!(
            schema_12(&[0, 0, 0, 1, 1, b'a', 1, 2, 0]).is_err(),
            "a form sharing more than the stem has"
        );
    }
}

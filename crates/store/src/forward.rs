//! A page's forward record: the segment holding its body postings, its
//! body words with their tfs and its title words, by word id. Removing or
//! replacing a page reads it to find the postings and counts to take back;
//! `check` holds the inverted index against it.

use super::bits::{BitReader, BitWriter};
use super::codec::{self, put_u32_list, put_varint, VarintReader};
use super::schema::WordId;
use super::{Result, StoreError};

/// The part of the forward index kept per page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forward {
    /// The posting blocks' segment that holds this page's body postings.
    pub segment: u32,
    /// (word, tf) of the body, by word id.
    pub terms: Vec<(WordId, u32)>,
    /// Words of the title, by word id.
    pub title: Vec<WordId>,
}

impl Forward {
    /// `segment, body word count, last body word, title words (varint
    /// list)`, then bits: the other body words as an interpolative-coded
    /// set below the last ([`super::bits`]), and for each body word a flag
    /// for "tf above 1" followed, when set, by the gamma code of tf − 1.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.terms.len() + self.title.len() * 3 + 12);
        put_varint(&mut out, u64::from(self.segment));
        put_varint(&mut out, self.terms.len() as u64);
        let ids: Vec<WordId> = self.terms.iter().map(|&(w, _)| w).collect();
        let Some((&last, others)) = ids.split_last() else {
            put_u32_list(&mut out, &self.title);
            return out;
        };
        put_varint(&mut out, u64::from(last));
        put_u32_list(&mut out, &self.title);
        let mut bits = BitWriter::new(&mut out);
        // Under `last` holds `others` only when last > 0.
        bits.put_sorted_set(others, 0, last.saturating_sub(1));
        for &(_, tf) in &self.terms {
            bits.put(u32::from(tf > 1), 1);
            if tf > 1 {
                bits.put_gamma(tf - 1);
            }
        }
        bits.finish();
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Forward> {
        let mut r = VarintReader::new(bytes);
        let segment = r.next_u32()?;
        let n = r.next_u64()?;
        let Some(others) = n.checked_sub(1) else {
            let title = codec::read_u32_list(&mut r)?;
            return Ok(Forward {
                segment,
                terms: Vec::new(),
                title,
            });
        };
        let last = r.next_u32()?;
        let title = codec::read_u32_list(&mut r)?;
        let rest = r.remaining();
        // Each word has at least its flag bit.
        if n > rest.len() as u64 * 8 || others > 0 && last == 0 {
            return Err(StoreError::corrupt("forward index length exceeds record"));
        }
        let mut bits = BitReader::new(rest);
        let mut ids = Vec::with_capacity(n as usize);
        bits.get_sorted_set(others as usize, 0, last.saturating_sub(1), &mut ids)?;
        ids.push(last);
        let mut terms = Vec::with_capacity(ids.len());
        for w in ids {
            let tf = if bits.get(1)? == 1 {
                bits.get_gamma()?
                    .checked_add(1)
                    .ok_or_else(|| StoreError::corrupt("forward tf overflow"))?
            } else {
                1
            };
            terms.push((w, tf));
        }
        Ok(Forward {
            segment,
            terms,
            title,
        })
    }

    /// Words in the body or the title, each once, ascending: what counts
    /// toward document frequency.
    pub fn all_words(&self) -> Vec<WordId> {
        let mut all: Vec<WordId> = self.terms.iter().map(|&(w, _)| w).collect();
        all.extend_from_slice(&self.title);
        all.sort_unstable();
        all.dedup();
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::WordId;

    #[test]
    fn forward_round_trips_and_counts_each_word_once() {
        let f = Forward {
            segment: 12,
            terms: vec![(2, 3), (7, 1), (90, 4)],
            title: vec![7, 100],
        };
        assert_eq!(Forward::decode(&f.encode()).unwrap(), f);
        assert_eq!(f.all_words(), vec![2, 7, 90, 100]);
        assert!(Forward::decode(&[0xff]).is_err());
        for f in [
            Forward::default(),
            Forward {
                segment: 1,
                terms: vec![],
                title: vec![4],
            },
            Forward {
                segment: 0,
                terms: vec![(0, 1)],
                title: vec![],
            },
            Forward {
                segment: 3,
                terms: vec![(0, u32::MAX), (1, 2), (u32::MAX, 1)],
                title: vec![0, u32::MAX],
            },
        ] {
            assert_eq!(Forward::decode(&f.encode()).unwrap(), f);
        }
    }

    #[test]
    fn a_forward_record_that_claims_more_than_it_holds_is_corrupt() {
        let many: Vec<(WordId, u32)> = (0..300).map(|w| (w * 3, 1 + w % 2)).collect();
        let bytes = Forward {
            segment: 9,
            terms: many,
            title: vec![1],
        }
        .encode();
        assert!(Forward::decode(&bytes[..bytes.len() - 1]).is_err());
        // Two words under a last word of 0, and a count no bits back.
        assert!(Forward::decode(&[0, 2, 0, 0, 0]).is_err());
        assert!(Forward::decode(&[0, 200, 5, 0, 0]).is_err());
    }
}

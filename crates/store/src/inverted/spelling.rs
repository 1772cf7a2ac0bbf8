//! A word's spelling as `doc_freq` keeps it: the stem itself, or the
//! bytes it shares with the stem and the rest. On the 300-page bench site
//! a spelling other than the stem shares 2 to 15 bytes with it and adds
//! 1 to 3 ("movies" is `movi` and "es"), so the whole spelling cost 8 to 12
//! bytes a word where this takes 2 or 3.
//!
//! The coding of an other spelling is `varint shared << 3 | len`, with
//! `len` the rest's length when below 7 (one byte for a stem share below
//! 16), else 7 and `varint len - 7` after it; then the rest's bytes.
//! `shared` is always the longest prefix the two have in common, so one
//! spelling has one coding and codings compare equal as spellings do.

use std::cmp::Ordering;

use crate::codec::{put_varint, VarintReader};
use crate::{Result, StoreError};

/// Rest lengths from this one on are given after the code.
const LONG_REST: u64 = 7;

/// A way a word was written: as its stem (whose text is the word's
/// `words` record), or as the stem's first `shared` bytes and then `rest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling<'a> {
    Stem,
    Other { shared: usize, rest: &'a [u8] },
}

impl<'a> Spelling<'a> {
    /// `written` as a spelling of the word whose stem is `stem`.
    pub fn of(stem: &[u8], written: &'a [u8]) -> Spelling<'a> {
        let shared = stem.iter().zip(written).take_while(|(a, b)| a == b).count();
        Spelling::Other {
            shared,
            rest: &written[shared..],
        }
    }

    /// The spelling's bytes, given its word's stem; an error when it
    /// claims more of the stem than there is.
    pub fn written(&self, stem: &[u8]) -> Result<Vec<u8>> {
        match *self {
            Spelling::Stem => Ok(stem.to_vec()),
            Spelling::Other { shared, rest } => {
                let head = stem.get(..shared).ok_or_else(|| {
                    StoreError::corrupt(format!(
                        "a spelling shares {shared} bytes of a {}-byte stem",
                        stem.len()
                    ))
                })?;
                Ok([head, rest].concat())
            }
        }
    }

    /// Whether the spelling is coded as `stem` makes it: sharing no more
    /// than the stem holds, and all that it has in common with it.
    pub fn fits(&self, stem: &[u8]) -> bool {
        match *self {
            Spelling::Stem => true,
            Spelling::Other { shared, rest } => {
                shared <= stem.len() && stem.get(shared).is_none_or(|&b| rest.first() != Some(&b))
            }
        }
    }

    /// The order among equally written spellings: the stem first, then by
    /// the spellings' bytes. Without the stem two other spellings are
    /// equal: the caller keeps their order.
    pub fn rank(&self, other: &Spelling<'_>, stem: Option<&[u8]>) -> Ordering {
        match (*self, *other, stem) {
            (Spelling::Stem, Spelling::Stem, _) => Ordering::Equal,
            (Spelling::Stem, _, _) => Ordering::Less,
            (_, Spelling::Stem, _) => Ordering::Greater,
            (_, _, None) => Ordering::Equal,
            (
                Spelling::Other { shared, rest },
                Spelling::Other {
                    shared: theirs,
                    rest: their_rest,
                },
                Some(stem),
            ) => {
                let head = |n: usize| stem.get(..n).unwrap_or(stem);
                (head(shared).iter().chain(rest)).cmp(head(theirs).iter().chain(their_rest))
            }
        }
    }

    /// Appends an other spelling's coding (the stem has none).
    pub fn put(&self, out: &mut Vec<u8>) {
        if let Spelling::Other { shared, rest } = *self {
            let len = rest.len() as u64;
            put_varint(out, (shared as u64) << 3 | len.min(LONG_REST));
            if len >= LONG_REST {
                put_varint(out, len - LONG_REST);
            }
            out.extend_from_slice(rest);
        }
    }

    /// Reads an other spelling's coding.
    pub fn read(r: &mut VarintReader<'a>) -> Result<Spelling<'a>> {
        let code = r.next_u64()?;
        let mut len = code & LONG_REST;
        if len == LONG_REST {
            len = r
                .next_u64()?
                .checked_add(LONG_REST)
                .ok_or_else(|| StoreError::corrupt("a spelling's length overflows"))?;
        }
        let shared = usize::try_from(code >> 3)
            .map_err(|_| StoreError::corrupt("a spelling shares more than memory holds"))?;
        Ok(Spelling::Other {
            shared,
            rest: r.take(len)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each spelling coded relative to its stem reads back as itself, in
    /// the bytes said.
    #[test]
    fn spellings_read_back_from_their_codings() {
        let long_rest = "x".repeat(200);
        let cases: &[(&str, &str, usize)] = &[
            // A plural: four bytes shared, "es" added, one code byte.
            ("movi", "movies", 3),
            // Shorter than its stem: nothing added.
            ("gamma", "gam", 1),
            // Nothing in common with the stem.
            ("go", "went", 5),
            // The stem itself, written as an other spelling.
            ("run", "run", 1),
            // Non-ASCII: "é" and "è" share their first byte, so the rest
            // begins inside a character.
            ("caf\u{e9}", "caf\u{e8}s", 3),
            // A rest of 7 or more bytes: its length after the code.
            ("a", "abcdefgh", 9),
            ("", &long_rest, 203),
            // A share of 16 or more: a code of two bytes.
            ("internationalisation", "internationalisations", 3),
        ];
        for &(stem, written, bytes) in cases {
            let spelling = Spelling::of(stem.as_bytes(), written.as_bytes());
            assert!(spelling.fits(stem.as_bytes()), "{written}");
            let mut coded = Vec::new();
            spelling.put(&mut coded);
            assert_eq!(coded.len(), bytes, "{written} of {stem}");
            let mut r = VarintReader::new(&coded);
            let back = Spelling::read(&mut r).unwrap();
            assert!(r.is_empty());
            assert_eq!(back, spelling);
            assert_eq!(back.written(stem.as_bytes()).unwrap(), written.as_bytes());
        }
    }

    #[test]
    fn spellings_rank_by_their_bytes_and_misfits_are_told() {
        let stem = b"movi".as_slice();
        let of = |w: &'static str| Spelling::of(stem, w.as_bytes());
        let mut all = [
            of("movies"),
            of("moved"),
            Spelling::Stem,
            of("mo"),
            of("movie"),
        ];
        all.sort_by(|a, b| a.rank(b, Some(stem)));
        assert_eq!(
            all,
            [
                Spelling::Stem,
                of("mo"),
                of("moved"),
                of("movie"),
                of("movies")
            ]
        );
        assert_eq!(of("moved").rank(&of("movies"), None), Ordering::Equal);
        let too_long = Spelling::Other {
            shared: 5,
            rest: b"",
        };
        assert!(!too_long.fits(stem) && too_long.written(stem).is_err());
        // Sharing less than it could: coded otherwise than a writer would.
        let short = Spelling::Other {
            shared: 2,
            rest: b"vies",
        };
        assert!(!short.fits(stem));
    }
}

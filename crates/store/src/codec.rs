//! Byte encodings of the store: big-endian composite keys (so that related
//! keys sort together and range scans are ordered), LEB128 varints for the
//! compact lists inside values, and postcard for structured records.
//!
//! Every decoder here reads bytes that came from disk: a malformed record is
//! an error, never a panic.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::StoreError;

pub fn u32_key(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

pub fn pair_key(a: u32, b: u32) -> [u8; 8] {
    let mut k = [0u8; 8];
    k[..4].copy_from_slice(&a.to_be_bytes());
    k[4..].copy_from_slice(&b.to_be_bytes());
    k
}

/// `a ‖ b ‖ c`, big-endian: the key of the segment-led tables.
pub fn triple_key(a: u32, b: u32, c: u32) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..8].copy_from_slice(&pair_key(a, b));
    k[8..].copy_from_slice(&c.to_be_bytes());
    k
}

pub fn split_triple_key(k: &[u8]) -> Result<(u32, u32, u32), StoreError> {
    if k.len() != 12 {
        return Err(StoreError::corrupt("composite key is not 12 bytes"));
    }
    let (a, b) = split_pair_key(&k[..8])?;
    Ok((a, b, read_u32(&k[8..])?))
}

pub fn split_pair_key(k: &[u8]) -> Result<(u32, u32), StoreError> {
    if k.len() != 8 {
        return Err(StoreError::corrupt("composite key is not 8 bytes"));
    }
    Ok((read_u32(&k[..4])?, read_u32(&k[4..])?))
}

pub fn read_u32(b: &[u8]) -> Result<u32, StoreError> {
    let arr: [u8; 4] = b
        .try_into()
        .map_err(|_| StoreError::corrupt("expected a 4-byte integer"))?;
    Ok(u32::from_be_bytes(arr))
}

pub fn read_u64(b: &[u8]) -> Result<u64, StoreError> {
    let arr: [u8; 8] = b
        .try_into()
        .map_err(|_| StoreError::corrupt("expected an 8-byte integer"))?;
    Ok(u64::from_be_bytes(arr))
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads LEB128 varints from a byte slice.
pub struct VarintReader<'a> {
    bytes: &'a [u8],
}

impl<'a> VarintReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        VarintReader { bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The next `len` bytes; corrupt when the record is shorter.
    pub fn take(&mut self, len: u64) -> Result<&'a [u8], StoreError> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= self.bytes.len())
            .ok_or_else(|| StoreError::corrupt("length exceeds record"))?;
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> &'a [u8] {
        self.bytes
    }

    /// The bytes of the next `n` varints, undecoded; corrupt when the
    /// record ends first (so a lying count costs a scan, not memory).
    pub fn take_varints(&mut self, n: u32) -> Result<&'a [u8], StoreError> {
        let mut left = n;
        let mut len = 0;
        // Eight bytes at a time: a varint ends at each byte below 0x80,
        // and a frequent word's lists run to tens of varints per page,
        // which a single-word search skips wholesale.
        while left > 0 {
            let Some(eight) = self.bytes.get(len..).and_then(<[u8]>::first_chunk::<8>) else {
                break;
            };
            let mut ends = !u64::from_le_bytes(*eight) & 0x8080_8080_8080_8080;
            let count = ends.count_ones();
            if count < left {
                left -= count;
                len += 8;
                continue;
            }
            for _ in 1..left {
                ends &= ends - 1;
            }
            len += ends.trailing_zeros() as usize / 8 + 1;
            left = 0;
        }
        while left > 0 {
            let b = *self
                .bytes
                .get(len)
                .ok_or_else(|| StoreError::corrupt("varints run past their record"))?;
            left -= u32::from(b < 0x80);
            len += 1;
        }
        self.take(len as u64)
    }

    #[inline]
    pub fn next_u64(&mut self) -> Result<u64, StoreError> {
        // One byte is the common case (position deltas, tfs, most page
        // deltas): phrase queries decode millions of them.
        if let Some((&b, rest)) = self.bytes.split_first() {
            if b < 0x80 {
                self.bytes = rest;
                return Ok(u64::from(b));
            }
        }
        self.next_long_u64()
    }

    fn next_long_u64(&mut self) -> Result<u64, StoreError> {
        let mut v: u64 = 0;
        for (i, &b) in self.bytes.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.bytes = &self.bytes[i + 1..];
                return Ok(v);
            }
        }
        Err(StoreError::corrupt("truncated or overlong varint"))
    }

    #[inline]
    pub fn next_u32(&mut self) -> Result<u32, StoreError> {
        u32::try_from(self.next_u64()?).map_err(|_| StoreError::corrupt("varint exceeds u32"))
    }
}

/// Encodes a list of ascending (or any) u32s as varint deltas from the previous
/// value; used for positions and child lists.
pub fn put_u32_list(out: &mut Vec<u8>, values: &[u32]) {
    put_varint(out, values.len() as u64);
    for &v in values {
        put_varint(out, u64::from(v));
    }
}

pub fn read_u32_list(r: &mut VarintReader<'_>) -> Result<Vec<u32>, StoreError> {
    let n = r.next_u64()?;
    // A count larger than the remaining bytes can hold is corruption, and
    // would otherwise make us reserve an absurd amount of memory.
    if n > r.bytes.len() as u64 {
        return Err(StoreError::corrupt("list length exceeds record"));
    }
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        out.push(r.next_u32()?);
    }
    Ok(out)
}

/// A position list as a count and deltas (positions are strictly
/// ascending, so a delta is a byte or two): the form [`Positions::counted`]
/// reads, which tests use to build position lists by hand.
pub fn put_positions(out: &mut Vec<u8>, positions: &[u32]) {
    put_varint(out, positions.len() as u64);
    let mut prev = 0u32;
    for &p in positions {
        put_varint(out, u64::from(p.wrapping_sub(prev)));
        prev = p;
    }
}

/// One word's positions on a page as stored: how many, then ascending
/// deltas (varints), or the one position a bit-coded posting entry held;
/// decoded only as far as a reader asks.
#[derive(Debug, Clone, Copy)]
pub struct Positions<'a> {
    pub count: u32,
    deltas: &'a [u8],
    lone: Option<u32>,
}

impl<'a> Positions<'a> {
    /// `count` positions whose deltas are `deltas` (body postings keep
    /// the count in the entry's head).
    pub fn new(count: u32, deltas: &'a [u8]) -> Self {
        Positions {
            count,
            deltas,
            lone: None,
        }
    }

    /// A single position, already decoded.
    pub fn lone(position: u32) -> Self {
        Positions {
            count: 1,
            deltas: &[],
            lone: Some(position),
        }
    }

    /// A list as [`put_positions`] writes it: the count, then the deltas.
    pub fn counted(bytes: &'a [u8]) -> Result<Self, StoreError> {
        let mut r = VarintReader::new(bytes);
        let count = r.next_u32()?;
        // Every position takes at least a byte: a larger count is a lie
        // that would otherwise make a reader reserve gigabytes.
        if count as usize > r.bytes.len() {
            return Err(StoreError::corrupt("position count exceeds record"));
        }
        Ok(Positions::new(count, r.bytes))
    }

    /// Calls `keep_going` with each position, ascending, until it says
    /// stop: a reader that wants positions up to some point decodes no
    /// further.
    #[inline]
    pub fn decode(&self, mut keep_going: impl FnMut(u32) -> bool) -> Result<(), StoreError> {
        const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
        if let Some(p) = self.lone {
            keep_going(p);
            return Ok(());
        }
        let mut r = VarintReader::new(self.deltas);
        let mut at = 0u32;
        let mut left = self.count;
        while left > 0 {
            // Most deltas take one byte (a page's positions of a word lie
            // close together): eight of them at a time skip the varint
            // branches. A phrase of two frequent words decodes millions.
            // Eight bytes under 0x80 add at most 1016: one check covers
            // the eight additions.
            if left >= 8 && at <= u32::MAX - 1016 {
                if let Some(chunk) = r.bytes.first_chunk::<8>() {
                    if u64::from_le_bytes(*chunk) & HIGH_BITS == 0 {
                        for delta in chunk {
                            at += u32::from(*delta);
                            if !keep_going(at) {
                                return Ok(());
                            }
                        }
                        r.bytes = &r.bytes[8..];
                        left -= 8;
                        continue;
                    }
                }
            }
            at = at
                .checked_add(r.next_u32()?)
                .ok_or_else(|| StoreError::corrupt("position overflow"))?;
            if !keep_going(at) {
                break;
            }
            left -= 1;
        }
        Ok(())
    }

    /// All positions into `out` (cleared first), so a scan can reuse one
    /// buffer.
    pub fn decode_into(&self, out: &mut Vec<u32>) -> Result<(), StoreError> {
        out.clear();
        out.reserve(self.count as usize);
        self.decode(|p| {
            out.push(p);
            true
        })
    }
}

pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    postcard::to_stdvec(value).map_err(|e| StoreError::corrupt(format!("encode: {e}")))
}

/// [`encode`] into a writer, never holding the whole encoding.
pub fn encode_to<T: Serialize>(value: &T, w: &mut dyn std::io::Write) -> Result<(), StoreError> {
    postcard::to_io(value, w)
        .map(drop)
        .map_err(|e| StoreError::corrupt(format!("encode: {e}")))
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StoreError> {
    postcard::from_bytes(bytes).map_err(|e| StoreError::corrupt(format!("decode: {e}")))
}

/// A meta tags part: `varint n`, then the tags, framed or plain, where a
/// non-zero n is one more than the index of the tag whose content is left
/// out, being the page record's description (kept once, not twice).
/// Returns that index and the tags' bytes.
pub fn split_meta_part(part: &[u8]) -> Result<(Option<usize>, &[u8]), StoreError> {
    let mut r = VarintReader::new(part);
    let n = r.next_u64()?;
    let at = (n.checked_sub(1))
        .map(usize::try_from)
        .transpose()
        .map_err(|_| StoreError::corrupt("meta tag index overflow"))?;
    Ok((at, r.remaining()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_the_edges() {
        let values = [0u64, 1, 127, 128, 16_383, 16_384, u32::MAX as u64, u64::MAX];
        let mut buf = Vec::new();
        for v in values {
            put_varint(&mut buf, v);
        }
        let mut r = VarintReader::new(&buf);
        for v in values {
            assert_eq!(r.next_u64().unwrap(), v);
        }
        assert!(r.is_empty());
    }

    #[test]
    fn truncated_varint_is_an_error() {
        assert!(VarintReader::new(&[0x80, 0x80]).next_u64().is_err());
        assert!(VarintReader::new(&[]).next_u64().is_err());
    }

    #[test]
    fn positions_round_trip_and_reject_lies() {
        let mut buf = Vec::new();
        put_positions(&mut buf, &[3, 4, 90, 1000]);
        let mut out = vec![7];
        Positions::counted(&buf)
            .and_then(|p| p.decode_into(&mut out))
            .unwrap();
        assert_eq!(out, vec![3, 4, 90, 1000]);
        // Claims a million positions in three bytes.
        assert!(Positions::counted(&[0xc0, 0x84, 0x3d])
            .and_then(|p| p.decode_into(&mut out))
            .is_err());
    }

    proptest::proptest! {
        /// Taking the first `n` varints, eight bytes at a time, ends
        /// where decoding them one by one does, and fails where that runs
        /// out.
        #[test]
        fn taken_varints_end_where_decoding_does(
            values in proptest::collection::vec(
                proptest::prop_oneof![0u64..128, 0u64..20_000, proptest::num::u64::ANY], 0..40),
            n in 0u32..45,
        ) {
            let mut buf = Vec::new();
            for &v in &values {
                put_varint(&mut buf, v);
            }
            let mut one_by_one = VarintReader::new(&buf);
            let want = (0..n)
                .map(|_| one_by_one.next_u64())
                .collect::<Result<Vec<_>, _>>()
                .map(|_| buf.len() - one_by_one.remaining().len());
            let mut r = VarintReader::new(&buf);
            let got = r.take_varints(n).map(<[u8]>::len);
            proptest::prop_assert_eq!(got.ok(), want.ok());
        }
    }
}

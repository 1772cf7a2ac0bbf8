//! Bit-level codes for records whose values varints waste bytes on: a
//! [`BitWriter`] and [`BitReader`] (most significant bit first), Elias
//! gamma codes for small counts, Rice codes for the gaps and positions of
//! posting entries, and binary interpolative coding of a sorted set of
//! distinct ids, which the forward index holds one of per page.
//!
//! Why interpolative: a page's words are a few hundred ids out of tens of
//! thousands, crowded at the low end (the common words a crawl meets
//! first get the first ids) and sparse above. Varint deltas spend a byte
//! on a gap of 1 and two on a gap of 130; one Rice parameter for the
//! whole set fits neither end. Interpolative coding narrows each id's
//! range from both sides, so a run of consecutive ids costs nothing and
//! a sparse stretch costs about the log of its gaps: on the bench site's
//! forward records, 0.64 of the varint deltas' bytes.

use super::{Result, StoreError};

/// Appends bits to a byte vector; [`BitWriter::finish`] pads the last byte
/// with zeros.
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    held: u32,
}

impl<'a> BitWriter<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            held: 0,
        }
    }

    /// The low `bits` bits of `value` (at most 32).
    pub fn put(&mut self, value: u32, bits: u32) {
        debug_assert!(bits <= 32 && (bits == 32 || value >> bits == 0));
        self.put_long(u64::from(value), bits);
    }

    /// The low `bits` bits of `value` (at most 56: with fewer than 8 bits
    /// held, they fit the accumulator).
    #[inline]
    fn put_long(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 56 && self.held < 8);
        if bits == 0 {
            return;
        }
        self.acc = self.acc << bits | value;
        self.held += bits;
        while self.held >= 8 {
            self.held -= 8;
            self.out.push((self.acc >> self.held) as u8);
        }
        self.acc &= (1 << self.held) - 1;
    }

    /// Rice code of `value` with parameter `k`: `value >> k` in unary
    /// (that many zeros, then a one), then its low `k` bits. A list whose
    /// values are near `2^k` costs about `k + 2` bits a value.
    #[inline]
    pub fn put_rice(&mut self, value: u32, k: u32) {
        let mut zeros = value >> k;
        let low = u64::from(value & low_mask(k));
        // The common case, one write: the zeros are the code's leading bits.
        if zeros + 1 + k <= 56 {
            return self.put_long(1 << k | low, zeros + 1 + k);
        }
        while zeros > 0 {
            let now = zeros.min(32);
            self.put(0, now);
            zeros -= now;
        }
        self.put_long(1 << k | low, 1 + k);
    }

    /// Elias gamma code of `value` (at least 1): its length in unary, then
    /// its bits below the leading one. 1 is one bit.
    pub fn put_gamma(&mut self, value: u32) {
        debug_assert!(value >= 1);
        let len = 31 - value.leading_zeros();
        self.put(0, len);
        self.put(value, len + 1);
    }

    /// `value` in `0..range` as a minimal binary code: `range` values fit
    /// in `ceil(log2 range)` bits, and the first `2^ceil - range` of them in
    /// one bit less. A range of one value costs nothing.
    fn put_below(&mut self, value: u32, range: u64) {
        debug_assert!(u64::from(value) < range);
        if range <= 1 {
            return;
        }
        let bits = 64 - (range - 1).leading_zeros();
        let short = (1u64 << bits) - range;
        if u64::from(value) < short {
            self.put(value, bits - 1);
        } else {
            let long = u64::from(value) + short;
            self.put((long >> 1) as u32, bits - 1);
            self.put((long & 1) as u32, 1);
        }
    }

    /// `ids`, ascending and distinct, each in `low..=high`: interpolative
    /// coding, the middle id first within the range its neighbours leave
    /// it, then each half within the middle's bounds.
    pub fn put_sorted_set(&mut self, ids: &[u32], low: u32, high: u32) {
        if ids.is_empty() {
            return;
        }
        let mid = ids.len() / 2;
        let x = ids[mid];
        // At least `mid` ids below x and `len - 1 - mid` above it.
        let lo = u64::from(low) + mid as u64;
        let hi = u64::from(high) - (ids.len() - 1 - mid) as u64;
        debug_assert!(lo <= u64::from(x) && u64::from(x) <= hi);
        self.put_below((u64::from(x) - lo) as u32, hi - lo + 1);
        if mid > 0 {
            self.put_sorted_set(&ids[..mid], low, x - 1);
        }
        if mid + 1 < ids.len() {
            self.put_sorted_set(&ids[mid + 1..], x + 1, high);
        }
    }

    /// Writes out the last partial byte.
    pub fn finish(self) {
        if self.held > 0 {
            self.out.push((self.acc << (8 - self.held)) as u8);
        }
    }
}

/// The low `k` bits set (`k` at most 32).
fn low_mask(k: u32) -> u32 {
    if k >= 32 {
        u32::MAX
    } else {
        (1 << k) - 1
    }
}

/// Bits [`BitWriter::put_rice`] spends on `value` with parameter `k`.
#[cfg(test)]
fn rice_len(value: u32, k: u32) -> u64 {
    u64::from(value >> k) + 1 + u64::from(k)
}

/// Reads what a [`BitWriter`] wrote; running past the end is a corrupt
/// record.
/// Up to 57 bits loaded at once, read code by code without a bounds
/// check or a `Result` each: a code that does not fit (or would pass the
/// record's end) is None, and the reader then reads code by code. A
/// posting entry is a few such codes, and a phrase of a word on every
/// page reads a hundred thousand entries.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    bits: u64,
    /// Bits read so far, and bits that may be read.
    used: u32,
    avail: u32,
}

impl Window {
    /// The bits not read yet, at the top.
    #[inline]
    fn rest(&self) -> u64 {
        self.bits << self.used
    }

    #[inline]
    pub fn bit(&mut self) -> Option<u32> {
        if self.used >= self.avail {
            return None;
        }
        let b = (self.rest() >> 63) as u32;
        self.used += 1;
        Some(b)
    }

    /// What [`BitWriter::put_rice`] wrote with `k` (at most 32); None
    /// also for a value past 32 bits, which the code-by-code read refuses.
    #[inline]
    pub fn rice(&mut self, k: u32) -> Option<u32> {
        let rest = self.rest();
        let zeros = rest.leading_zeros();
        let len = zeros + 1 + k;
        if self.used + len > self.avail {
            return None;
        }
        // Fits a load: zeros + k < 57, so the shifts stay within 64 bits.
        let low = if k == 0 {
            0
        } else {
            (rest << (zeros + 1)) >> (64 - k)
        };
        let value = u32::try_from(u64::from(zeros) << k | low).ok()?;
        self.used += len;
        Some(value)
    }

    /// What [`BitWriter::put_gamma`] wrote.
    #[inline]
    pub fn gamma(&mut self) -> Option<u32> {
        let rest = self.rest();
        let len = 2 * rest.leading_zeros() + 1;
        if self.used + len > self.avail {
            return None;
        }
        // Fits: the zeros are fewer than 29, the value below 2^29.
        self.used += len;
        Some((rest >> (64 - len)) as u32)
    }
}

pub struct BitReader<'a> {
    bytes: &'a [u8],
    /// The next bit, counted from the first byte's most significant.
    at: usize,
}

impl<'a> BitReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, at: 0 }
    }

    /// Bits not read yet.
    fn left(&self) -> usize {
        self.bytes.len() * 8 - self.at
    }

    /// The next 64 bits from the current one, zeros past the end: the
    /// first 57 are whole whatever the bit offset, so one load serves a
    /// read of up to 32 bits or a unary run of up to 57.
    #[inline]
    fn window(&self) -> u64 {
        let i = self.at / 8;
        let word = match self.bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
            Some(eight) => u64::from_be_bytes(*eight),
            None => {
                let mut buf = [0u8; 8];
                let tail = self.bytes.get(i..).unwrap_or_default();
                buf[..tail.len()].copy_from_slice(tail);
                u64::from_be_bytes(buf)
            }
        };
        word << (self.at % 8)
    }

    /// `bits` bits (at most 32) as an unsigned value.
    #[inline]
    pub fn get(&mut self, bits: u32) -> Result<u32> {
        debug_assert!(bits <= 32);
        if bits == 0 {
            return Ok(0);
        }
        if bits as usize > self.left() {
            return Err(StoreError::corrupt("bit-coded record ends early"));
        }
        let value = self.window() >> (64 - bits);
        self.at += bits as usize;
        Ok(value as u32)
    }

    fn bit(&mut self) -> Result<u32> {
        self.get(1)
    }

    /// Zeros up to the next one, which is read too: a unary count.
    #[inline]
    fn unary(&mut self) -> Result<u32> {
        let mut zeros = 0u64;
        loop {
            let seen = self.window().leading_zeros() as usize;
            let whole = 57.min(self.left());
            if seen < whole {
                self.at += seen + 1;
                return u32::try_from(zeros + seen as u64)
                    .map_err(|_| StoreError::corrupt("unary code too long"));
            }
            if whole < 57 {
                return Err(StoreError::corrupt("bit-coded record ends early"));
            }
            self.at += 57;
            zeros += 57;
        }
    }

    /// Reads what [`BitWriter::put_rice`] wrote with the same `k`.
    #[inline]
    pub fn get_rice(&mut self, k: u32) -> Result<u32> {
        // The common case: the whole code within one load.
        let mut w = self.load();
        if let Some(value) = w.rice(k) {
            self.consume(&w);
            return Ok(value);
        }
        let high = self.unary()?;
        let low = self.get(k)?;
        u32::try_from(u64::from(high) << k | u64::from(low))
            .map_err(|_| StoreError::corrupt("rice code exceeds 32 bits"))
    }

    /// The next bits in one load, for reading several short codes from
    /// it; [`BitReader::consume`] then moves past what was read.
    #[inline]
    pub fn load(&self) -> Window {
        Window {
            bits: self.window(),
            used: 0,
            avail: self.left().min(57) as u32,
        }
    }

    /// Moves past the bits read from `window`, loaded from here.
    #[inline]
    pub fn consume(&mut self, window: &Window) {
        self.at += window.used as usize;
    }

    /// Whether what is left is no more than the last byte's padding.
    pub fn at_end(&self) -> bool {
        self.left() < 8
    }

    #[inline]
    pub fn get_gamma(&mut self) -> Result<u32> {
        // The common case: the whole code within one load.
        let mut w = self.load();
        if let Some(value) = w.gamma() {
            self.consume(&w);
            return Ok(value);
        }
        let len = self.unary()?;
        if len > 31 {
            return Err(StoreError::corrupt("gamma code longer than 32 bits"));
        }
        // The one that ended the unary count is the value's leading bit.
        let rest = self.get(len)?;
        Ok(1 << len | rest)
    }

    fn get_below(&mut self, range: u64) -> Result<u32> {
        if range <= 1 {
            return Ok(0);
        }
        let bits = 64 - (range - 1).leading_zeros();
        let short = (1u64 << bits) - range;
        let head = u64::from(self.get(bits - 1)?);
        if head < short {
            return Ok(head as u32);
        }
        Ok((((head << 1) | u64::from(self.bit()?)) - short) as u32)
    }

    /// `n` ids written by [`BitWriter::put_sorted_set`] with the same
    /// bounds, appended to `out` in ascending order.
    pub fn get_sorted_set(
        &mut self,
        n: usize,
        low: u32,
        high: u32,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if low > high || n as u64 > u64::from(high - low) + 1 {
            return Err(StoreError::corrupt("more ids than their range holds"));
        }
        let start = out.len();
        out.resize(start + n, 0);
        self.fill_sorted_set(&mut out[start..], low, high)
    }

    fn fill_sorted_set(&mut self, slots: &mut [u32], low: u32, high: u32) -> Result<()> {
        if slots.is_empty() {
            return Ok(());
        }
        let mid = slots.len() / 2;
        let lo = u64::from(low) + mid as u64;
        let hi = u64::from(high) - (slots.len() - 1 - mid) as u64;
        // The count was checked against the range, so lo <= hi.
        let x = (lo + u64::from(self.get_below(hi - lo + 1)?)) as u32;
        slots[mid] = x;
        let (left, right) = slots.split_at_mut(mid);
        if !left.is_empty() {
            self.fill_sorted_set(left, low, x - 1)?;
        }
        if right.len() > 1 {
            self.fill_sorted_set(&mut right[1..], x + 1, high)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(ids: &[u32], low: u32, high: u32) -> (Vec<u32>, usize) {
        let mut bytes = Vec::new();
        let mut w = BitWriter::new(&mut bytes);
        w.put_sorted_set(ids, low, high);
        w.finish();
        let mut out = Vec::new();
        BitReader::new(&bytes)
            .get_sorted_set(ids.len(), low, high, &mut out)
            .unwrap();
        (out, bytes.len())
    }

    #[test]
    fn a_long_unary_run_and_a_cut_one_read_as_they_should() {
        let mut bytes = Vec::new();
        let mut w = BitWriter::new(&mut bytes);
        w.put_rice(300, 0);
        w.put_rice(5, 2);
        w.finish();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.get_rice(0).unwrap(), 300);
        assert_eq!(r.get_rice(2).unwrap(), 5);
        assert!(BitReader::new(&[0; 40]).get_rice(0).is_err(), "no end");
        assert!(BitReader::new(&[0x80]).get_rice(8).is_err(), "cut short");
        assert!(BitReader::new(&[0, 0, 0, 0, 0x80]).get_gamma().is_err());
    }

    #[test]
    fn a_run_of_consecutive_ids_costs_nothing() {
        let ids: Vec<u32> = (0..500).collect();
        assert_eq!(round_trip(&ids, 0, 499), (ids, 0));
    }

    #[test]
    fn the_ends_of_the_id_space_round_trip() {
        let ids = [0, 1, u32::MAX - 1, u32::MAX];
        assert_eq!(round_trip(&ids, 0, u32::MAX).0, ids);
        assert_eq!(
            round_trip(&[u32::MAX], u32::MAX, u32::MAX),
            (vec![u32::MAX], 0)
        );
        assert_eq!(round_trip(&[], 0, 0), (vec![], 0));
    }

    #[test]
    fn a_set_larger_than_its_range_or_cut_short_is_corrupt() {
        let mut out = Vec::new();
        assert!(BitReader::new(&[0xff; 8])
            .get_sorted_set(11, 0, 9, &mut out)
            .is_err());
        assert!(BitReader::new(&[0xff; 8])
            .get_sorted_set(1, 9, 0, &mut out)
            .is_err());
        let ids = [3, 700, 9000, 65000];
        let mut bytes = Vec::new();
        let mut w = BitWriter::new(&mut bytes);
        w.put_sorted_set(&ids, 0, 65535);
        w.finish();
        bytes.pop();
        assert!(BitReader::new(&bytes)
            .get_sorted_set(ids.len(), 0, 65535, &mut out)
            .is_err());
    }

    proptest! {
        #[test]
        fn sets_gammas_and_fixed_widths_read_back(
            ids in proptest::collection::btree_set(0u32..70_000, 0..300),
            gammas in proptest::collection::vec(1u32..=u32::MAX, 0..20),
            fixed in proptest::collection::vec((any::<u32>(), 0u32..=32), 0..20),
            rices in proptest::collection::vec((0u32..1 << 20, 0u32..16), 0..40),
        ) {
            let ids: Vec<u32> = ids.into_iter().collect();
            let high = ids.last().map_or(0, |&x| x + 5);
            let mut bytes = Vec::new();
            let mut w = BitWriter::new(&mut bytes);
            w.put_sorted_set(&ids, 0, high);
            for &g in &gammas {
                w.put_gamma(g);
            }
            for &(v, bits) in &fixed {
                w.put(if bits == 32 { v } else { v & ((1 << bits) - 1) }, bits);
            }
            let mut rice_bits = 0;
            for &(v, k) in &rices {
                w.put_rice(v, k);
                rice_bits += rice_len(v, k);
            }
            w.finish();
            let mut r = BitReader::new(&bytes);
            let mut out = Vec::new();
            r.get_sorted_set(ids.len(), 0, high, &mut out).unwrap();
            prop_assert_eq!(&out, &ids);
            for &g in &gammas {
                prop_assert_eq!(r.get_gamma().unwrap(), g);
            }
            for &(v, bits) in &fixed {
                let want = if bits == 32 { v } else { v & ((1 << bits) - 1) };
                prop_assert_eq!(r.get(bits).unwrap(), want);
            }
            let before = r.at;
            for &(v, k) in &rices {
                prop_assert_eq!(r.get_rice(k).unwrap(), v);
            }
            prop_assert_eq!((r.at - before) as u64, rice_bits);
            prop_assert!(r.at_end());
        }

        /// Codes read three to a load as a posting entry's are, a group
        /// that does not fit read code by code, come back as written, to
        /// the record's last bit; groups of short codes always fit.
        #[test]
        fn codes_read_from_loads_read_back(
            codes in proptest::collection::vec(
                (proptest::bool::ANY, 0u32..1 << 24, 0u32..16), 0..60),
        ) {
            let mut bytes = Vec::new();
            let mut w = BitWriter::new(&mut bytes);
            for &(gamma, v, k) in &codes {
                if gamma {
                    w.put_gamma(v + 1);
                } else {
                    w.put_rice(v, k);
                }
            }
            w.finish();
            let mut r = BitReader::new(&bytes);
            let mut from_loads = 0;
            for group in codes.chunks(3) {
                let mut window = r.load();
                let fast: Option<Vec<u32>> = group
                    .iter()
                    .map(|&(gamma, _, k)| if gamma { window.gamma().map(|g| g - 1) } else { window.rice(k) })
                    .collect();
                let got = match fast {
                    Some(got) => {
                        r.consume(&window);
                        from_loads += group.len();
                        got
                    }
                    None => group
                        .iter()
                        .map(|&(gamma, _, k)| if gamma { r.get_gamma().unwrap() - 1 } else { r.get_rice(k).unwrap() })
                        .collect(),
                };
                let want: Vec<u32> = group.iter().map(|&(_, v, _)| v).collect();
                prop_assert_eq!(got, want);
            }
            prop_assert!(r.at_end());
            // Codes of 12 bits at most: 36 bits a group.
            if codes.iter().all(|&(gamma, v, k)| !gamma && v >> k < 4 && k < 8) {
                prop_assert_eq!(from_loads, codes.len());
            }
        }
    }
}

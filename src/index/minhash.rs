//! Near-duplicate signatures: a one-permutation minhash over the 5-word
//! shingles of a page's analysed tokens. Each shingle is hashed once and
//! falls into one of [`HASHES`] bins by its hash's top bits, the bin
//! keeping the smallest value (one hash per token instead of one per bin:
//! the parser threads run this for every page). Empty bins borrow from
//! the next full one to their right ("rotation" densification, Shrivastava
//! and Li 2014), so two pages' signatures agree in about the share of bins
//! that their shingle sets' Jaccard similarity says. Each bin keeps the
//! low 8 bits of its minimum (b-bit minhash, Li and König 2010): two
//! different minima agree by chance once in 256, which the estimate takes
//! out ([`Signature::similarity`]); 16 bits made the `near_signatures`
//! table twice as large for an error that moved no finding.

/// Words per shingle.
pub const SHINGLE: usize = 5;

pub use crawlscope_store::types::{Signature, HASHES};

/// Builds a signature from a page's tokens, one at a time.
pub struct Shingler {
    /// The hashes of the last [`SHINGLE`] tokens, oldest at `next`.
    ring: [u64; SHINGLE],
    next: usize,
    seen: usize,
    bins: [u32; HASHES],
    full: [bool; HASHES],
}

impl Default for Shingler {
    fn default() -> Self {
        Shingler {
            ring: [0; SHINGLE],
            next: 0,
            seen: 0,
            bins: [u32::MAX; HASHES],
            full: [false; HASHES],
        }
    }
}

const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl Shingler {
    pub fn push(&mut self, token: &str) {
        self.ring[self.next] = xxhash_rust::xxh3::xxh3_64(token.as_bytes());
        self.next = (self.next + 1) % SHINGLE;
        self.seen += 1;
        if self.seen < SHINGLE {
            return;
        }
        // The shingle's words in order, oldest first.
        let mut h = 0u64;
        for i in 0..SHINGLE {
            h = (h ^ self.ring[(self.next + i) % SHINGLE]).wrapping_mul(MIX);
            h ^= h >> 29;
        }
        let h = xxhash_rust::xxh3::xxh3_64(&h.to_le_bytes());
        let bin = (h >> 57) as usize;
        self.bins[bin] = self.bins[bin].min(h as u32);
        self.full[bin] = true;
    }

    /// The signature; None for a text too short to have one shingle.
    pub fn finish(&self) -> Option<Signature> {
        let first_full = self.full.iter().position(|&f| f)?;
        let mut sig = [0u8; HASHES];
        // Walking left from a full bin, the last full bin passed is the
        // nearest one to the right.
        let mut from = first_full;
        for step in 0..HASHES {
            let i = (first_full + HASHES - step) % HASHES;
            if self.full[i] {
                from = i;
            }
            // The distance goes into the value, so two empty bins that
            // borrow from the same full one still differ.
            let distance = ((from + HASHES - i) % HASHES) as u32;
            sig[i] = self.bins[from].wrapping_add(distance.wrapping_mul(MIX as u32)) as u8;
        }
        Some(Signature(sig))
    }
}

/// The signature of `tokens` in order.
#[cfg(test)]
pub fn signature_of<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Option<Signature> {
    let mut s = Shingler::default();
    tokens.into_iter().for_each(|t| s.push(t));
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize, seed: usize) -> Vec<String> {
        (0..n).map(|i| format!("w{}", i * 7919 + seed)).collect()
    }

    #[test]
    fn similarity_tracks_shared_shingles() {
        let a = words(400, 0);
        let sig = |w: &[String]| signature_of(w.iter().map(String::as_str)).unwrap();
        assert_eq!(sig(&a).similarity(&sig(&a)), 1.0);
        // One word changed: 5 of ~396 shingles differ on each side.
        let mut b = a.clone();
        b[200] = "changed".into();
        let s = sig(&a).similarity(&sig(&b));
        assert!((0.9..1.0).contains(&s), "{s}");
        // Unrelated text shares (almost) nothing.
        let c = words(400, 1);
        assert!(sig(&a).similarity(&sig(&c)) < 0.1);
        // Half the text shared: about a third of the union.
        let mut d = a[..200].to_vec();
        d.extend(words(200, 3));
        let s = sig(&a).similarity(&sig(&d));
        assert!((0.2..0.5).contains(&s), "{s}");
        assert_eq!(signature_of(["too", "short"]), None);
        let round = Signature::from_bytes(&sig(&b).to_bytes()).unwrap();
        assert_eq!(round, sig(&b));
        assert_eq!(Signature::from_bytes(&[1, 2, 3]), None);
    }
}

//! A page's near-duplicate signature as the store keeps it: a b-bit
//! minhash of its shingles (built by the index's `minhash`), and the
//! similarity estimate two signatures give.

/// Bins of a signature (the estimate's standard error at similarity s is
/// sqrt(P(1-P)/128)/(1-2^-8), P = s + (1-s)/256 the share of bins that
/// agree: 0.027 at 0.9, as with 16 bits to the third decimal).
pub const HASHES: usize = 128;

/// The chance that the kept bits of two different minima agree.
const CHANCE: f64 = 1.0 / 256.0;

/// A page's minhash signature: each bin's low byte, in bin order (its
/// stored form).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Signature(pub [u8; HASHES]);

impl Signature {
    /// The stored form.
    pub fn to_bytes(&self) -> [u8; HASHES] {
        self.0
    }

    /// None when `bytes` is not a stored signature.
    pub fn from_bytes(bytes: &[u8]) -> Option<Signature> {
        Some(Signature(bytes.try_into().ok()?))
    }

    /// The estimated Jaccard similarity of the two pages' shingle sets:
    /// the share of bins that agree, less the share that agree by chance
    /// (Li and König's estimator; 0 for pages that agree no more than
    /// chance says).
    pub fn similarity(&self, other: &Signature) -> f64 {
        let same = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        let agree = same as f64 / HASHES as f64;
        ((agree - CHANCE) / (1.0 - CHANCE)).max(0.0)
    }

    /// The share of bins two pages of similarity `s` agree on.
    pub fn agreement_at(s: f64) -> f64 {
        s + (1.0 - s) * CHANCE
    }
}

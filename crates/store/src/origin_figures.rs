//! Per-origin figures kept by the crawl writer in its batch transaction:
//! page requests sent, answered ok, failed, throttled, and a fixed
//! histogram of response times from which p50/p90 are read. They are
//! kept per origin and run (the store-wide run id the request was made
//! for), so a report of one run counts that run's requests alone and one
//! of every run adds them up.

use serde::{Deserialize, Serialize};

use super::codec::{self, pair_key, split_pair_key};
use super::pages::PageRead;
use super::schema::RunId;
use super::sealed::View;
use super::{Result, StoreError, Writer};

/// Upper bounds (ms, inclusive) of the response-time buckets; the last is
/// open. A percentile reads as "at most this bucket's bound".
pub const RESPONSE_BUCKETS_MS: [u32; 14] = [
    5,
    10,
    25,
    50,
    100,
    250,
    500,
    1_000,
    2_500,
    5_000,
    10_000,
    30_000,
    60_000,
    u32::MAX,
];

/// How one request to an origin went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Answered below 400 (2xx, 3xx, 304).
    Ok,
    /// A 4xx or 5xx that is not a throttle, or no answer at all.
    Failed,
    /// 429, or 503 with Retry-After: waited out and retried.
    Throttled,
}

/// What is known of one origin's requests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OriginFigures {
    pub requests: u64,
    pub ok: u64,
    pub failed: u64,
    pub throttled: u64,
    /// Answered requests per bucket of [`RESPONSE_BUCKETS_MS`].
    pub response_ms: [u64; RESPONSE_BUCKETS_MS.len()],
}

impl OriginFigures {
    /// Counts one request; `response_ms` when it was answered.
    pub fn record(&mut self, how: Exchange, response_ms: Option<u32>) {
        self.requests += 1;
        *match how {
            Exchange::Ok => &mut self.ok,
            Exchange::Failed => &mut self.failed,
            Exchange::Throttled => &mut self.throttled,
        } += 1;
        if let Some(ms) = response_ms {
            let i = RESPONSE_BUCKETS_MS.partition_point(|&b| b < ms);
            self.response_ms[i.min(RESPONSE_BUCKETS_MS.len() - 1)] += 1;
        }
    }

    pub fn add(&mut self, other: &OriginFigures) {
        self.requests += other.requests;
        self.ok += other.ok;
        self.failed += other.failed;
        self.throttled += other.throttled;
        for (a, b) in self.response_ms.iter_mut().zip(other.response_ms) {
            *a += b;
        }
    }

    /// The median response time, as its bucket's upper bound (ms); None
    /// when nothing was answered, `u32::MAX` past the last bound.
    pub fn p50_ms(&self) -> Option<u32> {
        self.percentile(50)
    }

    /// The 90th percentile response time, read like [`Self::p50_ms`].
    pub fn p90_ms(&self) -> Option<u32> {
        self.percentile(90)
    }

    fn percentile(&self, pct: u64) -> Option<u32> {
        let total: u64 = self.response_ms.iter().sum();
        if total == 0 {
            return None;
        }
        // The smallest bucket holding at least pct% of the answers.
        let need = (total * pct).div_ceil(100).max(1);
        let mut seen = 0;
        for (i, &n) in self.response_ms.iter().enumerate() {
            seen += n;
            if seen >= need {
                return Some(RESPONSE_BUCKETS_MS[i]);
            }
        }
        RESPONSE_BUCKETS_MS.last().copied()
    }
}

/// Per-origin figure look-ups (for `report hosts` and the console).
pub trait OriginFiguresRead: View {
    /// Every origin's figures over every run, with the origin
    /// (`scheme://host:port`), in origin id order (the order origins were
    /// first seen).
    fn origin_figures(&self) -> Result<Vec<(String, OriginFigures)>> {
        self.origin_figures_of(|_| true)
    }

    /// Every origin's figures over the runs `counted` takes, as
    /// [`Self::origin_figures`]; an origin none of them asked is left out.
    fn origin_figures_of(
        &self,
        counted: impl Fn(RunId) -> bool,
    ) -> Result<Vec<(String, OriginFigures)>> {
        let mut out: Vec<(u32, OriginFigures)> = Vec::new();
        for item in self.dbs().origin_figures.iter(self.txn())? {
            let (k, v) = item?;
            let (id, run) = split_pair_key(k)?;
            if !counted(run) {
                continue;
            }
            let figures: OriginFigures = codec::decode(v)?;
            // Keys are in origin order: an origin's runs are together.
            match out.last_mut() {
                Some((last, sum)) if *last == id => sum.add(&figures),
                _ => out.push((id, figures)),
            }
        }
        out.into_iter()
            .map(|(id, figures)| {
                let origin = self.origin_record(id)?.ok_or_else(|| {
                    StoreError::corrupt(format!("figures of unknown origin {id}"))
                })?;
                Ok((origin.name(), figures))
            })
            .collect()
    }
}

impl<T: View + ?Sized> OriginFiguresRead for T {}

impl Writer<'_> {
    /// Adds `delta` to the figures of `origin` in run `run`.
    pub fn add_origin_figures(
        &mut self,
        origin: &str,
        run: RunId,
        delta: &OriginFigures,
    ) -> Result<()> {
        let key = pair_key(self.origin_id_for(origin)?, run);
        let mut figures: OriginFigures = match self.dbs.origin_figures.get(&self.txn, &key)? {
            Some(v) => codec::decode(v)?,
            None => OriginFigures::default(),
        };
        figures.add(delta);
        self.dbs
            .origin_figures
            .put(&mut self.txn, &key, &codec::encode(&figures)?)?;
        Ok(())
    }

    /// Sets the figures of `origin` in run `run` (a merged run's, folded
    /// again from its shards').
    pub fn put_origin_figures(
        &mut self,
        origin: &str,
        run: RunId,
        figures: &OriginFigures,
    ) -> Result<()> {
        let key = pair_key(self.origin_id_for(origin)?, run);
        self.dbs
            .origin_figures
            .put(&mut self.txn, &key, &codec::encode(figures)?)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_read_the_histogram() {
        let mut f = OriginFigures::default();
        assert_eq!(f.p50_ms(), None);
        for _ in 0..6 {
            f.record(Exchange::Ok, Some(3));
        }
        for _ in 0..3 {
            f.record(Exchange::Ok, Some(80));
        }
        f.record(Exchange::Failed, Some(400));
        f.record(Exchange::Failed, None);
        f.record(Exchange::Throttled, Some(100_000));
        assert_eq!((f.requests, f.ok, f.failed, f.throttled), (12, 9, 2, 1));
        // 11 answered: 6 ≤ 5 ms, 3 ≤ 100 ms, 1 ≤ 500 ms, 1 past 60 s.
        assert_eq!(f.p50_ms(), Some(5));
        assert_eq!(f.p90_ms(), Some(500));
        let mut g = OriginFigures::default();
        g.record(Exchange::Ok, Some(10));
        assert_eq!(g.p50_ms(), Some(10), "a bound is inclusive");
        g.add(&f);
        assert_eq!(g.requests, 13);
    }
}

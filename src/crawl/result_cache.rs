//! `--cache` / `--max-cache-age DUR`: a point's resource and external link
//! results, which the store keeps anyway with the time they were had, are
//! not asked again while they are younger than DUR (lychee's cache); the
//! reports show the kept answer. Without `--cache` every run asks again.

use crate::store::{PointId, PointRecord};

/// How long a kept result stands when `--max-cache-age` is not given.
pub const DEFAULT_MAX_AGE_S: u64 = 24 * 3600;

/// A point's cache, for one run: None when the point does not cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultCache(Option<i64>);

impl ResultCache {
    pub fn of(rec: &PointRecord) -> ResultCache {
        let age = rec.max_cache_age_s.unwrap_or(DEFAULT_MAX_AGE_S);
        ResultCache(rec.cache.then(|| i64::try_from(age).unwrap_or(i64::MAX)))
    }

    /// Whether a result `point` had at `checked_at` stands at `now` for
    /// `own` (a result another point had is its own: its `--accept` and
    /// rules may differ).
    pub fn fresh(self, own: PointId, point: PointId, checked_at: i64, now: i64) -> bool {
        self.0
            .is_some_and(|age| own == point && now.saturating_sub(checked_at) < age)
    }
}

/// A `--max-cache-age` as typed: a number and a unit, `s`, `m`, `h` or
/// `d` (`30m`, `1d`), in seconds.
pub fn parse_max_age(input: &str) -> Result<u64, String> {
    let s = input.trim();
    let unit = s.chars().last().filter(char::is_ascii_alphabetic);
    let digits = unit.map_or(s, |_| &s[..s.len() - 1]);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("expected a duration such as 30m or 1d, got '{input}'"))?;
    let scale = match unit {
        None | Some('s') => 1,
        Some('m') => 60,
        Some('h') => 3600,
        Some('d') => 86_400,
        Some(_) => return Err(format!("unknown unit in '{input}': use s, m, h or d")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("'{input}' is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_parse_and_results_stand_only_for_their_point_within_the_age() {
        assert_eq!(parse_max_age("30m"), Ok(1800));
        assert_eq!(parse_max_age("1d"), Ok(86_400));
        assert_eq!(parse_max_age("45"), Ok(45));
        for bad in ["", "d", "1w", "-1m", "1.5h", "99999999999999999999d"] {
            assert!(parse_max_age(bad).is_err(), "{bad}");
        }
        let rec = |cache, age| PointRecord {
            cache,
            max_cache_age_s: age,
            ..PointRecord::default()
        };
        let on = ResultCache::of(&rec(true, Some(60)));
        assert!(on.fresh(1, 1, 1000, 1059));
        assert!(!on.fresh(1, 1, 1000, 1060));
        assert!(!on.fresh(1, 2, 1000, 1001));
        assert!(!ResultCache::of(&rec(false, Some(60))).fresh(1, 1, 1000, 1001));
        assert!(ResultCache::of(&rec(true, None)).fresh(1, 1, 0, 86_399));
    }
}

//! Which HTTP statuses are broken: the one rule every face applies
//! (`report broken`, `report external`, the run's broken counts, the
//! summary and the Findings pane), and `--accept RANGES` in lychee's
//! syntax (`200..=299,403`, `..300`, `400..`, `429`), which names the
//! statuses that are not.
//!
//! Only an error status (400 and up) can be broken: a 2xx is a page and
//! a 3xx is followed, whatever the list says. Without a list every error
//! status is broken; with one, an error status is broken unless listed.
//! A URL that got no status at all (refused, timed out) is always broken.

use std::fmt;

/// The statuses a run or point accepts, as inclusive ranges (what
/// `PointRecord::accept` and `RunFlags::accept` hold); empty: none beyond
/// the statuses below 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Accept<'a>(pub &'a [(u16, u16)]);

impl Accept<'_> {
    /// Whether a URL answered with `status` (None: no answer) is broken.
    pub fn is_broken(self, status: Option<u16>) -> bool {
        match status {
            None => true,
            Some(s) => s >= 400 && !self.0.iter().any(|&(lo, hi)| (lo..=hi).contains(&s)),
        }
    }
}

/// Why `--accept` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AcceptError {
    #[error("empty: give statuses or ranges, e.g. 200..=299,403")]
    Empty,
    #[error("{0:?} is not a status or range (STATUS, FROM..TO, FROM..=TO, ..TO, FROM..)")]
    Malformed(String),
    #[error("{0:?}: a status is 100 to 999")]
    OutOfRange(String),
    #[error("{0:?} is an empty range")]
    EmptyRange(String),
}

const LOWEST: u16 = 100;
const HIGHEST: u16 = 999;

/// `--accept RANGES`: comma-separated statuses and ranges as lychee takes
/// them (`a..b` excludes b, `a..=b` includes it; a missing end is open).
pub fn parse(input: &str) -> Result<Vec<(u16, u16)>, AcceptError> {
    let mut out = Vec::new();
    for part in input.split(',').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        out.push(parse_one(part)?);
    }
    if out.is_empty() {
        return Err(AcceptError::Empty);
    }
    Ok(out)
}

fn parse_one(part: &str) -> Result<(u16, u16), AcceptError> {
    let status = |s: &str| -> Result<Option<u16>, AcceptError> {
        if s.is_empty() {
            return Ok(None);
        }
        let n: u16 = s
            .parse()
            .map_err(|_| AcceptError::Malformed(part.to_string()))?;
        if !(LOWEST..=HIGHEST).contains(&n) {
            return Err(AcceptError::OutOfRange(part.to_string()));
        }
        Ok(Some(n))
    };
    let Some((from, to)) = part.split_once("..") else {
        let s = status(part)?.ok_or_else(|| AcceptError::Malformed(part.to_string()))?;
        return Ok((s, s));
    };
    if from.is_empty() && to.trim_start_matches('=').is_empty() {
        return Err(AcceptError::Malformed(part.to_string()));
    }
    let lo = status(from)?.unwrap_or(LOWEST);
    let range = match to.strip_prefix('=') {
        Some(inclusive) => match status(inclusive)? {
            Some(hi) => (lo, Some(hi)),
            None => return Err(AcceptError::Malformed(part.to_string())),
        },
        None => match status(to)? {
            Some(end) if end > lo => (lo, Some(end - 1)),
            Some(_) => return Err(AcceptError::EmptyRange(part.to_string())),
            None => (lo, Some(HIGHEST)),
        },
    };
    match range {
        (lo, Some(hi)) if hi >= lo => Ok((lo, hi)),
        _ => Err(AcceptError::EmptyRange(part.to_string())),
    }
}

/// Ranges as `--accept` takes them back: `200..=299,403`.
pub struct Shown<'a>(pub &'a [(u16, u16)]);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(lo, hi)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if lo == hi {
                write!(f, "{lo}")?;
            } else {
                write!(f, "{lo}..={hi}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lychee_syntax_parses_and_decides() {
        // input, then statuses that are broken and not broken under it.
        let cases: &[(&str, &[u16], &[u16])] = &[
            ("200..=299,403", &[404, 500], &[403, 200, 301]),
            ("..300", &[400, 503], &[200]),
            ("400..", &[], &[400, 404, 599, 999]),
            ("429", &[404, 430], &[429]),
            ("400..404", &[404, 405], &[400, 403]),
            (" 403 , 410..=410 ", &[404], &[403, 410]),
        ];
        for (input, broken, fine) in cases {
            let ranges = parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            let accept = Accept(&ranges);
            for s in *broken {
                assert!(accept.is_broken(Some(*s)), "{input}: {s} broken");
            }
            for s in *fine {
                assert!(!accept.is_broken(Some(*s)), "{input}: {s} accepted");
            }
            assert!(accept.is_broken(None), "{input}: no answer stays broken");
        }
        assert!(Accept::default().is_broken(Some(403)));
        assert!(!Accept::default().is_broken(Some(399)));
        let ranges = parse("200..=299,403").unwrap();
        assert_eq!(Shown(&ranges).to_string(), "200..=299,403");
    }

    #[test]
    fn malformed_ranges_are_refused() {
        for bad in [
            "",
            ",",
            "abc",
            "200-299",
            "..=",
            "99",
            "1000",
            "300..300",
            "300..=200",
            "4o4",
            "..",
        ] {
            let got = parse(bad);
            assert!(got.is_err(), "{bad:?} accepted as {got:?}");
        }
    }
}

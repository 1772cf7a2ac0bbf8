//! What a site asks when it says "slow down": a 429, or a 503 with
//! `Retry-After`, is a throttle, not a failure. `Retry-After` is delta
//! seconds or an HTTP date; the wait is capped at [`MAX_WAIT`], and a 429
//! without a usable `Retry-After` waits [`DEFAULT_WAIT`].

use std::sync::mpsc::Sender;
use std::time::{Duration, SystemTime};

use super::msg::{Outcome, WriterMsg};
use super::origins::Origins;
use crate::store::Exchange;

/// The longest pause a site can ask for: longer asks are cut to this.
pub const MAX_WAIT: Duration = Duration::from_secs(600);
/// The pause after a 429 that gives no (usable) Retry-After.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(5);
/// Throttles of one URL waited out before it fails as still throttled.
pub const MAX_THROTTLES: u32 = 5;

/// How long to pause the origin, when the answer is a throttle.
pub fn asked(status: u16, retry_after: Option<&str>, now: SystemTime) -> Option<Duration> {
    let wait = retry_after.and_then(|v| parse_retry_after(v, now));
    match status {
        429 => Some(wait.unwrap_or(DEFAULT_WAIT)),
        503 => wait,
        _ => None,
    }
    .map(|w| w.min(MAX_WAIT))
}

/// `Retry-After: 120` or `Retry-After: Fri, 31 Dec 1999 23:59:59 GMT`; a
/// date in the past means no wait.
fn parse_retry_after(v: &str, now: SystemTime) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The reason a URL fails with when its origin throttled it every time.
pub fn still_throttled(status: u16) -> String {
    format!(
        "throttled: {} after {MAX_THROTTLES} waits (Retry-After honoured)",
        super::status_text(status)
    )
}

/// A throttle of a request that is not a page's (robots.txt, a sitemap):
/// the origin is paused — call this before the request's slot frees, so
/// no request of ours slips in — and the answer is counted and shown as
/// every throttle is.
pub fn wait_out(
    origins: &Origins,
    writer: &Sender<WriterMsg>,
    origin: &str,
    status: u16,
    wait: Duration,
) {
    origins.throttled(origin, wait);
    let _ = writer.send(
        Outcome::Exchanged {
            origin: origin.to_string(),
            point: None,
            how: Exchange::Throttled,
            response_ms: None,
            throttle: Some((status, wait)),
        }
        .into(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_both_forms_capped_with_a_default_for_429() {
        let now = httpdate::parse_http_date("Mon, 23 Nov 2026 20:00:00 GMT").unwrap();
        let s = Duration::from_secs;
        assert_eq!(asked(429, Some("2"), now), Some(s(2)));
        assert_eq!(asked(503, Some(" 7 "), now), Some(s(7)));
        assert_eq!(
            asked(503, Some("Mon, 23 Nov 2026 20:00:30 GMT"), now),
            Some(s(30))
        );
        assert_eq!(
            asked(429, Some("Mon, 23 Nov 2026 19:00:00 GMT"), now),
            Some(Duration::ZERO),
            "a date past is no wait"
        );
        assert_eq!(asked(429, Some("86400"), now), Some(MAX_WAIT));
        assert_eq!(asked(429, None, now), Some(DEFAULT_WAIT));
        assert_eq!(asked(429, Some("soon"), now), Some(DEFAULT_WAIT));
        assert_eq!(asked(503, None, now), None, "a bare 503 is an error");
        assert_eq!(asked(503, Some("soon"), now), None);
        assert_eq!(asked(500, Some("2"), now), None);
        assert_eq!(asked(200, Some("2"), now), None);
    }
}

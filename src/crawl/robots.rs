//! robots.txt: fetched once per origin (following up to five redirects, body
//! read up to 512 KiB as RFC 9309 allows), kept in the store for a day,
//! matched for our user agent with texting_robots, Crawl-delay honoured.
//! Per RFC 9309: 4xx means no rules; 5xx or unreachable means disallow all,
//! and the rules say why, so the URLs it holds back are failures with that
//! reason, not robots skips. An unreachable robots.txt is not cached: the
//! next run asks again.

use std::time::Duration;

use url::Url;

use super::fetch::{classify, own_get, Credentials, FailKind, FetchError};
use crate::store::RobotsRecord;

pub const MAX_ROBOTS_BYTES: usize = 512 * 1024;
/// A cached robots.txt older than this is fetched again.
pub const ROBOTS_TTL_S: i64 = 24 * 3600;

/// The rules of one origin for our agent.
pub struct Rules {
    robot: Option<texting_robots::Robot>,
    /// Why nothing of the origin may be fetched (robots.txt unreachable).
    unavailable: Option<String>,
}

impl Rules {
    pub fn from_record(agent: &str, rec: &RobotsRecord) -> Rules {
        match rec.status {
            200..=299 => Rules {
                robot: texting_robots::Robot::new(agent, &rec.body).ok(),
                unavailable: None,
            },
            status if unreachable(status) => Rules::unavailable(&crate::crawl::status_text(status)),
            _ => Rules::allow_all(),
        }
    }

    pub fn allow_all() -> Rules {
        Rules {
            robot: None,
            unavailable: None,
        }
    }

    /// Disallow all, because robots.txt could not be had for `why`.
    pub fn unavailable(why: &str) -> Rules {
        Rules {
            robot: None,
            unavailable: Some(format!("robots.txt unreachable: {why}")),
        }
    }

    /// Why no URL of the origin may be fetched, when that is so.
    pub fn unavailable_reason(&self) -> Option<&str> {
        self.unavailable.as_deref()
    }

    pub fn allowed(&self, url: &str) -> bool {
        if self.unavailable.is_some() {
            return false;
        }
        self.robot.as_ref().is_none_or(|r| r.allowed(url))
    }

    /// The sitemaps robots.txt names (`Sitemap:` lines), as written.
    pub fn sitemaps(&self) -> &[String] {
        self.robot.as_ref().map_or(&[], |r| r.sitemaps.as_slice())
    }

    pub fn crawl_delay(&self) -> Option<Duration> {
        let d = self.robot.as_ref()?.delay?;
        // A hostile delay would stall the crawl: cap it at a minute.
        (d.is_finite() && d > 0.0).then(|| Duration::from_secs_f32(d.min(60.0)))
    }
}

/// Rules per origin, each fetched once even when many workers ask at once.
pub type RobotsCache = super::once::PerOrigin<Rules>;

/// Whether an answer for robots.txt says the file cannot be had now
/// rather than that there is none: a server error, or 429 (RFC 9309 lets
/// any other 4xx mean "no rules", but a site that asks us to slow down has
/// not said we may fetch everything). Such an answer disallows the whole
/// origin and is not kept: the next run asks again.
pub fn unreachable(status: u16) -> bool {
    status == 429 || !(200..500).contains(&status)
}

/// A robots.txt answer, with the `Retry-After` it came with.
pub struct Fetched {
    pub record: RobotsRecord,
    pub retry_after: Option<String>,
}

/// Fetches `/robots.txt` of the origin of `url` with the crawl point's
/// `creds`; Err when no answer came.
pub async fn fetch(
    client: &reqwest::Client,
    url: &Url,
    creds: Option<&Credentials>,
    now: i64,
) -> Result<Fetched, FetchError> {
    let mut target = url.join("/robots.txt").map_err(|e| FetchError {
        kind: FailKind::Other,
        reason: format!("invalid URL: {e}"),
        retryable: false,
    })?;
    for _ in 0..5 {
        let mut resp = own_get(client, &target, creds)
            .send()
            .await
            .map_err(|e| classify(&e))?;
        let status = resp.status();
        if status.is_redirection() {
            let next = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|loc| target.join(loc).ok());
            match next {
                Some(n) => {
                    target = n;
                    continue;
                }
                None => break,
            }
        }
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = resp.chunk().await {
            let room = MAX_ROBOTS_BYTES - body.len();
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() >= MAX_ROBOTS_BYTES {
                break;
            }
        }
        return Ok(Fetched {
            record: RobotsRecord {
                fetched_at: now,
                status: status.as_u16(),
                body,
            },
            retry_after,
        });
    }
    // Too many redirects: RFC 9309 treats it as unavailable (no rules).
    Ok(Fetched {
        record: RobotsRecord {
            fetched_at: now,
            status: 404,
            body: Vec::new(),
        },
        retry_after: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(status: u16, body: &str) -> RobotsRecord {
        RobotsRecord {
            fetched_at: 0,
            status,
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn our_group_is_matched_and_delay_kept() {
        let txt = "User-agent: *\nDisallow: /\n\nUser-agent: crawlscope\nDisallow: /private/\nCrawl-delay: 2\n\nSitemap: http://h/map.xml\n";
        let r = Rules::from_record("crawlscope", &rec(200, txt));
        assert!(r.allowed("http://h/public"));
        assert!(!r.allowed("http://h/private/x"));
        assert_eq!(r.crawl_delay(), Some(Duration::from_secs(2)));
        assert_eq!(r.sitemaps(), ["http://h/map.xml"]);
        assert!(Rules::allow_all().sitemaps().is_empty());
        let other = Rules::from_record("otherbot", &rec(200, txt));
        assert!(!other.allowed("http://h/public"));
    }

    #[test]
    fn status_codes_follow_rfc_9309() {
        assert!(Rules::from_record("a", &rec(404, "")).allowed("http://h/x"));
        let unavailable = Rules::from_record("a", &rec(503, ""));
        assert!(!unavailable.allowed("http://h/x"));
        assert_eq!(
            unavailable.unavailable_reason(),
            Some("robots.txt unreachable: 503 Service Unavailable")
        );
        let slow_down = Rules::from_record("a", &rec(429, ""));
        assert_eq!(
            slow_down.unavailable_reason(),
            Some("robots.txt unreachable: 429 Too Many Requests")
        );
        assert!(Rules::from_record("a", &rec(401, "")).allowed("http://h/x"));
        assert!(!unreachable(404) && !unreachable(200));
        assert!(unreachable(429) && unreachable(500) && unreachable(599));
    }
}

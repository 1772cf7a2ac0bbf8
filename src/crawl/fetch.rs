//! One HTTP exchange: builds the request (identity, conditional headers,
//! credentials only for the crawl point's origin), streams the body up to the
//! size limit, and classifies failures as retryable or final. Redirects are
//! not followed here: the engine checks every hop against scope and robots.

use std::time::{Duration, Instant};

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use url::Url;

use super::config::CrawlConfig;

/// Credentials and headers a crawl point sends to its own origin only.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    pub origin: String,
    pub user: Option<String>,
    pub password: Option<String>,
    pub headers: Vec<(String, String)>,
}

/// Validators of a stored copy, for a conditional GET.
#[derive(Debug, Clone, Default)]
pub struct Validators {
    pub last_modified: Option<String>,
    pub etag: Option<String>,
}

/// A response, body read (and maybe cut).
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: Option<String>,
    pub last_modified: Option<String>,
    pub date: Option<String>,
    pub etag: Option<String>,
    pub location: Option<String>,
    pub content_length: Option<u64>,
    pub body: Vec<u8>,
    pub truncated: bool,
    pub elapsed: Duration,
}

/// Why a fetch got no usable response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    pub reason: String,
    pub retryable: bool,
}

pub struct Fetcher {
    client: reqwest::Client,
    max_body: usize,
}

impl Fetcher {
    pub fn new(cfg: &CrawlConfig) -> Result<Fetcher, reqwest::Error> {
        let client = reqwest::Client::builder()
            .user_agent(cfg.user_agent.clone())
            .redirect(reqwest::redirect::Policy::none())
            .timeout(cfg.timeout)
            .connect_timeout(cfg.connect_timeout)
            .pool_max_idle_per_host(cfg.per_host.max(1) * 2)
            .tcp_nodelay(true)
            .build()?;
        Ok(Fetcher {
            client,
            max_body: cfg.max_body_bytes,
        })
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    pub async fn get(
        &self,
        url: &Url,
        validators: &Validators,
        creds: Option<&Credentials>,
    ) -> Result<Response, FetchError> {
        let started = Instant::now();
        let mut req = self.client.get(url.clone());
        if let Some(lm) = &validators.last_modified {
            req = req.header(header::IF_MODIFIED_SINCE, lm);
        }
        if let Some(etag) = &validators.etag {
            req = req.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(c) = creds.filter(|c| crate::url::origin(url) == c.origin) {
            req = req.headers(extra_headers(&c.headers));
            if let Some(user) = &c.user {
                req = req.basic_auth(user, c.password.as_ref());
            }
        }
        let mut resp = req.send().await.map_err(classify)?;
        let status = resp.status().as_u16();
        let h = resp.headers();
        let text = |name: header::HeaderName| -> Option<String> {
            h.get(name)
                .and_then(|v| v.to_str().ok())
                .map(|s| s.chars().take(2048).collect())
        };
        let mut out = Response {
            status,
            content_type: text(header::CONTENT_TYPE),
            last_modified: text(header::LAST_MODIFIED),
            date: text(header::DATE),
            etag: text(header::ETAG),
            location: text(header::LOCATION),
            content_length: resp.content_length(),
            body: Vec::new(),
            truncated: false,
            elapsed: Duration::ZERO,
        };
        if (300..400).contains(&status) || status == 304 {
            out.elapsed = started.elapsed();
            return Ok(out);
        }
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    let room = self.max_body.saturating_sub(out.body.len());
                    if chunk.len() > room {
                        out.body.extend_from_slice(&chunk[..room]);
                        out.truncated = true;
                        break;
                    }
                    out.body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Err(classify(e)),
            }
        }
        out.elapsed = started.elapsed();
        Ok(out)
    }
}

fn extra_headers(pairs: &[(String, String)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (k, v) in pairs {
        if let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            map.append(k, v);
        }
    }
    map
}

/// Parses a `K: V` header as the CLI takes it.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once(':')
        .ok_or_else(|| format!("header {s:?} is not of the form \"Name: value\""))?;
    let (k, v) = (k.trim(), v.trim());
    HeaderName::from_bytes(k.as_bytes()).map_err(|_| format!("invalid header name {k:?}"))?;
    HeaderValue::from_str(v).map_err(|_| format!("invalid value for header {k:?}"))?;
    Ok((k.to_string(), v.to_string()))
}

fn classify(e: reqwest::Error) -> FetchError {
    let kind = if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connection failed"
    } else if e.is_body() || e.is_decode() {
        "body read failed"
    } else {
        "request failed"
    };
    let mut detail = String::new();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = source {
        detail = s.to_string();
        source = s.source();
    }
    let reason = if detail.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}: {detail}")
    };
    FetchError {
        reason,
        retryable: e.is_timeout() || e.is_connect() || e.is_body() || e.is_request(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_or_say_why() {
        assert_eq!(
            parse_header("X-Token:  abc ").unwrap(),
            ("X-Token".to_string(), "abc".to_string())
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("bad name: v").is_err());
    }
}

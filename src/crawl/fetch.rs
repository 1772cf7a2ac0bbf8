//! One HTTP exchange: builds the request (identity, conditional headers,
//! credentials only for the crawl point's origin), streams the body up to the
//! size limit, and classifies failures as retryable or final. Redirects are
//! not followed here: the engine checks every hop against scope and robots.
//! A `file:` URL is answered from disk instead (`local`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, RequestBuilder};
use url::Url;

use super::config::CrawlConfig;
use super::cookie_jar::CookieJar;
pub use super::exchange::{FailKind, FetchError, Probed, Response, MAX_HEADERS, MAX_HEADER_CHARS};
use super::head;

/// Credentials, headers and query parameters a crawl point sends to its
/// own site only (its origin, and the `www.` twin's when they are one site).
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    pub origins: Vec<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub headers: Vec<(String, String)>,
    /// `--append-query`: added to the request URL, never to a stored one.
    pub append_query: Vec<(String, String)>,
    /// `--cookie-jar`: sent wherever a cookie matches, own origin or not.
    pub cookies: Option<Arc<CookieJar>>,
}

/// Validators of a stored copy, for a conditional GET.
#[derive(Debug, Clone, Default)]
pub struct Validators {
    pub last_modified: Option<String>,
    pub etag: Option<String>,
}

pub struct Fetcher {
    client: reqwest::Client,
    max_body: usize,
    user_agent: String,
}

impl Fetcher {
    pub fn new(
        cfg: &CrawlConfig,
        resolves: &[crate::store::Resolve],
    ) -> Result<Fetcher, reqwest::Error> {
        let client = with_resolves(reqwest::Client::builder(), resolves)
            .user_agent(cfg.user_agent.clone())
            .redirect(reqwest::redirect::Policy::none())
            .timeout(cfg.timeout)
            .connect_timeout(cfg.connect_timeout)
            .pool_max_idle_per_host(cfg.per_host.max(1) * 2)
            .tcp_nodelay(true)
            .danger_accept_invalid_certs(cfg.insecure)
            .build()?;
        Ok(Fetcher {
            client,
            max_body: cfg.max_body_bytes,
            user_agent: cfg.user_agent.clone(),
        })
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// A resource or link check: HEAD, then GET where a server refuses
    /// HEAD (405, 501) or where `body` asks for the body (a stylesheet to
    /// scan), read up to the body limit. Redirects are not followed: a
    /// 3xx answer means the link works. With the point's credentials on its own
    /// origins, as pages are fetched.
    pub async fn check(
        &self,
        url: &Url,
        creds: Option<&Credentials>,
        body: bool,
    ) -> Result<Probed, FetchError> {
        if crate::url::is_local(url) {
            return super::local::check(url, self.max_body, body).await;
        }
        if !body {
            let head = own_request(&self.client, Method::HEAD, url, creds)
                .send()
                .await;
            let head = head.map_err(|e| classify(&e))?;
            keep_cookies(creds, url, head.headers());
            let status = head.status().as_u16();
            if !matches!(status, 405 | 501) {
                return Ok(probed(&head));
            }
        }
        let get = own_request(&self.client, Method::GET, url, creds)
            .send()
            .await;
        let mut get = get.map_err(|e| classify(&e))?;
        keep_cookies(creds, url, get.headers());
        let mut probed = probed(&get);
        // Only a body to scan, or a size nobody announced, is worth reading.
        if (300..400).contains(&probed.status) || !(body || probed.size.is_none()) {
            return Ok(probed);
        }
        let (read, truncated) = read_capped(&mut get, self.max_body).await?;
        probed.size = probed.size.or(Some(read.len() as u64));
        if body && !truncated {
            probed.body = Some(read);
        }
        Ok(probed)
    }

    pub async fn get(
        &self,
        url: &Url,
        validators: &Validators,
        creds: Option<&Credentials>,
    ) -> Result<Response, FetchError> {
        if crate::url::is_local(url) {
            return super::local::get(url, self.max_body).await;
        }
        let started = Instant::now();
        let mut req = own_get(&self.client, url, creds);
        if let Some(lm) = &validators.last_modified {
            req = req.header(header::IF_MODIFIED_SINCE, lm);
        }
        if let Some(etag) = &validators.etag {
            req = req.header(header::IF_NONE_MATCH, etag);
        }
        let request = req.build().map_err(|e| classify(&e))?;
        let sent = head::sent(&request, &self.user_agent);
        let mut resp = self
            .client
            .execute(request)
            .await
            .map_err(|e| classify(&e))?;
        keep_cookies(creds, url, resp.headers());
        let status = resp.status().as_u16();
        let h = resp.headers();
        let text = |name: header::HeaderName| -> Option<String> {
            h.get(name)
                .and_then(|v| v.to_str().ok())
                .map(|s| s.chars().take(MAX_HEADER_CHARS).collect())
        };
        let headers = h
            .iter()
            .take(MAX_HEADERS)
            .map(|(k, v)| {
                let v = String::from_utf8_lossy(v.as_bytes());
                (
                    k.as_str().to_string(),
                    v.chars().take(MAX_HEADER_CHARS).collect(),
                )
            })
            .collect();
        let mut out = Response {
            status,
            reason: super::reason::sent(&resp),
            content_type: text(header::CONTENT_TYPE),
            last_modified: text(header::LAST_MODIFIED),
            date: text(header::DATE),
            etag: text(header::ETAG),
            location: text(header::LOCATION),
            content_length: resp.content_length(),
            body: Vec::new(),
            truncated: false,
            elapsed: Duration::ZERO,
            headers,
            version: format!("{:?}", resp.version()),
            request_headers: sent,
        };
        if (300..400).contains(&status) || status == 304 {
            out.elapsed = started.elapsed();
            return Ok(out);
        }
        (out.body, out.truncated) = read_capped(&mut resp, self.max_body).await?;
        out.elapsed = started.elapsed();
        Ok(out)
    }
}

/// A body read up to `max` bytes, and whether it was cut there.
async fn read_capped(
    resp: &mut reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), FetchError> {
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = max.saturating_sub(body.len());
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    return Ok((body, true));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok((body, false)),
            Err(e) => return Err(classify(&e)),
        }
    }
}

/// A resource check's findings from the answer's head.
fn probed(resp: &reqwest::Response) -> Probed {
    let h = resp.headers();
    // The header, not `content_length()`: that is the body's size,
    // which for a HEAD answer is 0.
    let size = h
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok());
    let mime = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty());
    Probed {
        status: resp.status().as_u16(),
        reason: super::reason::sent(resp),
        size,
        mime,
        body: None,
    }
}

/// The URL as requested: the stored URL plus the point's `--append-query`
/// parameters (only the request carries them).
/// A GET of `url` as its crawl point asks for it: with the point's
/// credentials, extra headers and appended query when `url` is on one of
/// the point's origins, and without them anywhere else (a redirect to
/// another origin must not carry them). Pages, robots.txt and sitemaps
/// all go through here, so a site behind a login gives up its rules and
/// sitemaps too.
pub fn own_get(client: &reqwest::Client, url: &Url, creds: Option<&Credentials>) -> RequestBuilder {
    own_request(client, Method::GET, url, creds)
}

/// What an answer from `url` set, kept in the asking point's jar.
fn keep_cookies(creds: Option<&Credentials>, url: &Url, headers: &HeaderMap) {
    if let Some(jar) = creds.and_then(|c| c.cookies.as_ref()) {
        let set = headers.get_all(header::SET_COOKIE).iter();
        jar.receive(url, set.filter_map(|v| v.to_str().ok()));
    }
}

/// [`own_get`] with another method (a resource check's HEAD).
fn own_request(
    client: &reqwest::Client,
    method: Method,
    url: &Url,
    creds: Option<&Credentials>,
) -> RequestBuilder {
    let own = creds.filter(|c| c.origins.contains(&crate::url::origin(url)));
    let mut req = client.request(method, request_url(url, own));
    let jar = creds.and_then(|c| c.cookies.as_ref());
    if let Some(cookies) = jar.and_then(|j| j.header_for(url)) {
        req = req.header(header::COOKIE, cookies);
    }
    if let Some(c) = own {
        req = req.headers(extra_headers(&c.headers));
        if let Some(user) = &c.user {
            req = req.basic_auth(user, c.password.as_ref());
        }
    }
    req
}

fn request_url(url: &Url, own: Option<&Credentials>) -> Url {
    let mut out = url.clone();
    if let Some(c) = own.filter(|c| !c.append_query.is_empty()) {
        out.query_pairs_mut().extend_pairs(&c.append_query);
    }
    out
}

/// A client that connects to the given addresses (`--resolve`) instead of
/// asking DNS. reqwest overrides a name, not a name and port: port 0 makes
/// it connect to the URL's own port, so every port of HOST goes to ADDR.
fn with_resolves(
    builder: reqwest::ClientBuilder,
    resolves: &[crate::store::Resolve],
) -> reqwest::ClientBuilder {
    resolves.iter().fold(builder, |b, r| {
        b.resolve(&r.host, std::net::SocketAddr::new(r.addr, 0))
    })
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

/// Names a transport failure the way a person reads it: `connection
/// refused`, `dns: ...`, `timeout`, `connection reset`.
pub(crate) fn classify(e: &reqwest::Error) -> FetchError {
    let mut innermost = String::new();
    let mut io_kind = None;
    let mut dns = false;
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = source {
        innermost = s.to_string();
        dns |= innermost.starts_with("dns error");
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind());
        }
        source = s.source();
    }
    let detail = |what: &str| {
        if innermost.is_empty() {
            what.to_string()
        } else {
            format!("{what}: {innermost}")
        }
    };
    let (kind, reason) = if e.is_timeout() && e.is_connect() {
        (FailKind::ConnectTimeout, "connect timeout".to_string())
    } else if e.is_timeout() {
        (FailKind::Timeout, "timeout".to_string())
    } else if dns {
        (FailKind::Dns, detail("dns"))
    } else if io_kind == Some(std::io::ErrorKind::ConnectionRefused) {
        (FailKind::Refused, "connection refused".to_string())
    } else if io_kind == Some(std::io::ErrorKind::ConnectionReset) {
        (FailKind::Reset, "connection reset".to_string())
    } else if e.is_connect() {
        (FailKind::Connect, detail("connection failed"))
    } else if e.is_body() || e.is_decode() {
        (FailKind::Body, detail("body read failed"))
    } else {
        (FailKind::Other, detail("request failed"))
    };
    FetchError {
        kind,
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

//! Sitemaps as URL sources: the `Sitemap:` lines of robots.txt and
//! `/sitemap.xml`, sitemap indexes, gzip'd sitemaps. Read once per origin
//! per run, through the origin's politeness gate, and offered once to each
//! crawl point that reads sitemaps; the writer applies scope, excludes and
//! depth as for links, and robots is checked when each URL is fetched.
//!
//! A sitemap is untrusted input: it is parsed as a stream (quick-xml, no
//! entity expansion), and every size is bounded — [`MAX_SITEMAP_BYTES`]
//! per file after decompression, [`MAX_URLS_PER_SITEMAP`] entries per file
//! (the protocol's limits), indexes nested [`MAX_INDEX_DEPTH`] deep, and
//! [`MAX_SITEMAPS_PER_ORIGIN`] files and [`MAX_URLS_PER_ORIGIN`] URLs per
//! origin. What is cut or cannot be read is said, never dropped quietly.

use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use quick_xml::events::Event;
use url::Url;

use super::fetch::{own_get, Credentials};
use super::msg::{Found, Listed, WriterMsg};
use super::once::PerOrigin;
use super::origins::Origins;
use super::retry::Retries;
use super::throttle;
use crate::store::PointId;

pub const MAX_SITEMAP_BYTES: usize = 50 << 20;
pub const MAX_URLS_PER_SITEMAP: usize = 50_000;
/// How deep indexes may nest below the sitemaps an origin names.
pub const MAX_INDEX_DEPTH: u32 = 2;
pub const MAX_SITEMAPS_PER_ORIGIN: usize = 100;
pub const MAX_URLS_PER_ORIGIN: usize = 500_000;
const MAX_HOPS: usize = 5;

/// Which points read sitemaps, which (point, origin) pairs were offered
/// theirs, and each origin's sitemaps, read once.
#[derive(Default)]
pub struct Sitemaps {
    enabled: RwLock<HashSet<PointId>>,
    offered: Mutex<HashSet<(PointId, String)>>,
    found: PerOrigin<Found>,
}

impl Sitemaps {
    pub fn set_enabled(&self, point: PointId, on: bool) {
        let mut enabled = self.enabled.write().unwrap_or_else(|p| p.into_inner());
        if on {
            enabled.insert(point);
        } else {
            enabled.remove(&point);
        }
    }

    /// True once per run for each (point, origin) of a point that reads
    /// sitemaps: the caller then offers the origin's sitemap URLs to it.
    pub fn first_visit(&self, point: PointId, origin: &str) -> bool {
        let enabled = self
            .enabled
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&point);
        enabled
            && self
                .offered
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert((point, origin.to_string()))
    }

    /// The origin's sitemap URLs, read by `load` the first time asked.
    pub async fn found<F, Fut>(&self, origin: &str, load: F) -> Arc<Found>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Found>,
    {
        self.found.get_or_load(origin, load).await
    }
}

/// How a crawl point's sitemaps are asked for: through its client with its
/// credentials, one origin slot at a time after the origin's crawl delay,
/// a server error or a dropped connection retried `retries` times and a
/// throttle (429, 503 with Retry-After) waited out as a page's are.
pub struct Asking<'a> {
    pub client: &'a reqwest::Client,
    pub creds: Option<&'a Credentials>,
    pub origins: &'a Origins,
    /// Where a throttle is counted.
    pub writer: &'a Sender<WriterMsg>,
    pub crawl_delay: Option<Duration>,
    pub retries: u32,
}

impl Asking<'_> {
    async fn fetch(&self, url: &Url) -> Result<Vec<u8>, FetchFailed> {
        let mut retries = Retries::new(self.retries);
        let mut throttles = 0;
        let origin = crate::url::origin(url);
        loop {
            let got = {
                let _slot = self.origins.acquire(&origin, self.crawl_delay).await;
                let got = fetch(self.client, self.creds, url).await;
                if let Err(FetchFailed::Throttled { status, wait }) = got {
                    if throttles < throttle::MAX_THROTTLES {
                        throttle::wait_out(self.origins, self.writer, &origin, status, wait);
                        throttles += 1;
                        continue;
                    }
                }
                got
            };
            if !matches!(got, Err(FetchFailed::Transient(_))) || !retries.again().await {
                return got;
            }
        }
    }
}

/// Reads the sitemaps an origin names (`named`, from robots.txt) and its
/// `/sitemap.xml`, following indexes. `allowed` says whether robots lets
/// us fetch a URL.
pub async fn read(
    asking: &Asking<'_>,
    site: &Url,
    named: &[String],
    allowed: impl Fn(&Url) -> bool,
) -> Found {
    let mut found = Found::default();
    // (url, index depth, named: a missing guessed /sitemap.xml is no news)
    let mut todo: VecDeque<(Url, u32, bool)> = VecDeque::new();
    // Through the link rules: a listed URL is stored as a link's would be
    // (normalised, no credentials, http(s) only).
    for s in named {
        match crate::url::resolve(site, s) {
            Ok(u) => todo.push_back((u, 0, true)),
            Err(e) => found.notes.push((s.clone(), Err(e.to_string()))),
        }
    }
    if let Ok(guess) = site.join("/sitemap.xml") {
        if !todo.iter().any(|(u, _, _)| *u == guess) {
            todo.push_back((guess, 0, false));
        }
    }
    let mut seen = HashSet::new();
    while let Some((url, depth, named)) = todo.pop_front() {
        if !seen.insert(url.clone()) {
            continue;
        }
        let note = |r| (url.to_string(), r);
        if seen.len() > MAX_SITEMAPS_PER_ORIGIN {
            found.notes.push(note(Err(format!(
                "not read: more than {MAX_SITEMAPS_PER_ORIGIN} sitemaps for one origin"
            ))));
            continue;
        }
        if !allowed(&url) {
            found
                .notes
                .push(note(Err("disallowed by robots.txt".to_string())));
            continue;
        }
        let parsed = match asking.fetch(&url).await {
            Ok(body) => parse(reader(&body)),
            Err(Missing) if !named => continue,
            Err(e) => Err(e.to_string()),
        };
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                found.notes.push(note(Err(e)));
                continue;
            }
        };
        let sitemap: Arc<str> = Arc::from(url.as_str());
        let mut listed = 0;
        let mut problems = Vec::new();
        for (loc, lastmod) in parsed.entries {
            let Ok(loc) = crate::url::resolve(&url, &loc) else {
                continue;
            };
            if parsed.index {
                if depth < MAX_INDEX_DEPTH {
                    todo.push_back((loc, depth + 1, true));
                    listed += 1;
                } else {
                    problems.push(format!("indexes nested deeper than {MAX_INDEX_DEPTH}"));
                    break;
                }
            } else if found.urls.len() < MAX_URLS_PER_ORIGIN {
                found.urls.push(Listed {
                    url: loc,
                    lastmod,
                    sitemap: sitemap.clone(),
                });
                listed += 1;
            } else {
                problems.push(format!("cut at {MAX_URLS_PER_ORIGIN} URLs for one origin"));
                break;
            }
        }
        if parsed.cut {
            problems.push(format!("cut at {MAX_URLS_PER_SITEMAP} entries"));
        }
        found.notes.push(note(if problems.is_empty() {
            Ok(listed)
        } else {
            Err(format!("{listed} read, {}", problems.join(", ")))
        }));
    }
    found
}

/// Why a sitemap could not be had.
#[derive(Debug)]
enum FetchFailed {
    /// 404 or 410: fine for the guessed `/sitemap.xml`.
    Missing,
    /// A server error or a dropped connection: worth asking again.
    Transient(String),
    /// A 429, or a 503 with Retry-After: the origin asks for a pause.
    Throttled {
        status: u16,
        wait: Duration,
    },
    Other(String),
}
use FetchFailed::Missing;

impl std::fmt::Display for FetchFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing => f.write_str("not found"),
            FetchFailed::Transient(why) | FetchFailed::Other(why) => f.write_str(why),
            // Shown only once the waits ran out.
            FetchFailed::Throttled { status, .. } => {
                f.write_str(&throttle::still_throttled(*status))
            }
        }
    }
}

/// A request that got no whole answer: transient when the fetcher would
/// retry it.
fn failed(e: reqwest::Error) -> FetchFailed {
    let e = super::fetch::classify(&e);
    if e.retryable {
        FetchFailed::Transient(e.reason)
    } else {
        FetchFailed::Other(e.reason)
    }
}

/// The body of a sitemap (following a few redirects), at most
/// [`MAX_SITEMAP_BYTES`] as sent.
async fn fetch(
    client: &reqwest::Client,
    creds: Option<&Credentials>,
    url: &Url,
) -> Result<Vec<u8>, FetchFailed> {
    let mut target = url.clone();
    for _ in 0..MAX_HOPS {
        let mut resp = own_get(client, &target, creds)
            .send()
            .await
            .map_err(failed)?;
        let status = resp.status();
        if status.is_redirection() {
            target = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|loc| target.join(loc).ok())
                .ok_or_else(|| FetchFailed::Other(format!("HTTP {status} without a Location")))?;
            continue;
        }
        if status.as_u16() == 404 || status.as_u16() == 410 {
            return Err(Missing);
        }
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok());
        if let Some(wait) = throttle::asked(status.as_u16(), retry_after, SystemTime::now()) {
            return Err(FetchFailed::Throttled {
                status: status.as_u16(),
                wait,
            });
        }
        if super::retry::worth_retrying(status.as_u16()) {
            return Err(FetchFailed::Transient(super::status_text(status.as_u16())));
        }
        if !status.is_success() {
            return Err(FetchFailed::Other(super::status_text(status.as_u16())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > MAX_SITEMAP_BYTES {
                return Err(FetchFailed::Other(too_large()));
            }
            body.extend_from_slice(&chunk);
        }
        return Ok(body);
    }
    Err(FetchFailed::Other(format!(
        "more than {MAX_HOPS} redirects"
    )))
}

fn too_large() -> String {
    format!("larger than {} MiB", MAX_SITEMAP_BYTES >> 20)
}

/// The sitemap's XML, gunzipped when it is gzip (by its magic bytes: a
/// `.gz` sitemap is served as a file, not with Content-Encoding).
fn reader(body: &[u8]) -> Box<dyn BufRead + '_> {
    if body.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::new(Capped {
            inner: flate2::read::GzDecoder::new(body),
            left: MAX_SITEMAP_BYTES,
        }))
    } else {
        Box::new(body)
    }
}

/// Fails the read once more than the cap has come out: a small gzip can
/// hold gigabytes.
struct Capped<R> {
    inner: R,
    left: usize,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self
            .left
            .checked_sub(n)
            .ok_or_else(|| std::io::Error::other(too_large()))?;
        Ok(n)
    }
}

/// One sitemap file's entries.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// A `<sitemapindex>`: the entries are sitemaps, not pages.
    pub index: bool,
    /// `<loc>` (as written) and `<lastmod>` of each entry.
    pub entries: Vec<(String, Option<i64>)>,
    /// More than [`MAX_URLS_PER_SITEMAP`] entries: the rest were not read.
    pub cut: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
}

/// Parses a `<urlset>` or a `<sitemapindex>` as a stream.
pub fn parse(input: impl BufRead) -> Result<Parsed, String> {
    let mut xml = quick_xml::Reader::from_reader(input);
    xml.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut out = Parsed::default();
    let mut root = false;
    let mut entry: Option<(String, String)> = None;
    let mut field: Option<Field> = None;
    loop {
        let event = xml.read_event_into(&mut buf).map_err(|e| {
            format!(
                "not a readable sitemap: {e} (at byte {})",
                xml.buffer_position()
            )
        })?;
        match event {
            Event::Eof => break,
            Event::Start(e) => match (root, e.local_name().as_ref()) {
                (false, b"urlset") => root = true,
                (false, b"sitemapindex") => (root, out.index) = (true, true),
                (false, other) => {
                    return Err(format!(
                        "not a sitemap: the root element is <{}>",
                        String::from_utf8_lossy(other)
                    ))
                }
                (true, b"url") if !out.index => entry = Some(Default::default()),
                (true, b"sitemap") if out.index => entry = Some(Default::default()),
                (true, b"loc") => field = Some(Field::Loc),
                (true, b"lastmod") => field = Some(Field::Lastmod),
                _ => {}
            },
            Event::Text(t) => {
                if let (Some(f), Some((loc, lastmod)), Ok(text)) =
                    (field, entry.as_mut(), t.unescape())
                {
                    let into = if f == Field::Loc { loc } else { lastmod };
                    into.push_str(&text);
                }
            }
            Event::CData(t) => {
                if let (Some(f), Some((loc, lastmod))) = (field, entry.as_mut()) {
                    let into = if f == Field::Loc { loc } else { lastmod };
                    into.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"loc" | b"lastmod" => field = None,
                b"url" | b"sitemap" => {
                    if let Some((loc, lastmod)) = entry.take() {
                        let loc = loc.trim();
                        if !loc.is_empty() {
                            if out.entries.len() == MAX_URLS_PER_SITEMAP {
                                out.cut = true;
                                break;
                            }
                            out.entries.push((loc.to_string(), parse_lastmod(&lastmod)));
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
        buf.clear();
    }
    if !root {
        return Err("not a sitemap: no <urlset> or <sitemapindex>".to_string());
    }
    Ok(out)
}

/// A W3C datetime as sitemaps write it (`2024-05-01`,
/// `2024-05-01T10:30:00+02:00`, `2024-05-01T08:30:00.5Z`, or just the year
/// or month) in unix seconds.
pub fn parse_lastmod(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = s.split_once('T').unwrap_or((s, ""));
    let mut parts = date.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let mut next = |max: u32| -> Option<u32> {
        match parts.next() {
            None => Some(1),
            Some(p) => p.parse().ok().filter(|v| (1..=max).contains(v)),
        }
    };
    let (m, d) = (next(12)?, next(31)?);
    if parts.next().is_some() || !(0..=9999).contains(&y) {
        return None;
    }
    let mut secs = crate::time::days_from_civil(y, m, d) * 86_400;
    if !time.is_empty() {
        let (clock, offset) = match time.strip_suffix('Z') {
            Some(clock) => (clock, 0),
            None => {
                let i = time.rfind(['+', '-'])?;
                let (oh, om) = time[i + 1..].split_once(':')?;
                let offset = oh.parse::<i64>().ok()? * 3600 + om.parse::<i64>().ok()? * 60;
                let sign = if time.as_bytes()[i] == b'-' { -1 } else { 1 };
                (&time[..i], sign * offset)
            }
        };
        let mut hms = clock.split(':');
        let h: i64 = hms.next()?.parse().ok()?;
        let mi: i64 = hms.next()?.parse().ok()?;
        let sec = match hms.next() {
            Some(sec) => sec.parse::<f64>().ok()?.floor() as i64,
            None => 0,
        };
        if h > 23 || mi > 59 || !(0..=60).contains(&sec) {
            return None;
        }
        secs += h * 3600 + mi * 60 + sec - offset;
    }
    Some(secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_urlset_and_an_index_parse() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://a.test/x?a=1&amp;b=2</loc><lastmod>2024-05-01</lastmod></url>
  <url><loc> https://a.test/y </loc><changefreq>daily</changefreq></url>
  <url><loc><![CDATA[https://a.test/z]]></loc><lastmod>nonsense</lastmod></url>
  <url></url>
</urlset>"#;
        let p = parse(xml.as_bytes()).unwrap();
        assert!(!p.index && !p.cut);
        assert_eq!(
            p.entries,
            [
                ("https://a.test/x?a=1&b=2".to_string(), Some(1_714_521_600)),
                ("https://a.test/y".to_string(), None),
                ("https://a.test/z".to_string(), None),
            ]
        );
        let index = r#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://a.test/s1.xml.gz</loc></sitemap></sitemapindex>"#;
        let p = parse(index.as_bytes()).unwrap();
        assert!(p.index);
        assert_eq!(p.entries, [("https://a.test/s1.xml.gz".to_string(), None)]);
    }

    #[test]
    fn what_is_not_a_sitemap_says_so() {
        for bad in [
            "<html><body>hi</body></html>",
            "",
            "<urlset><url><loc>x</urlset>",
        ] {
            let e = parse(bad.as_bytes()).unwrap_err();
            assert!(e.starts_with("not a"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn entries_past_the_protocol_limit_are_cut() {
        let mut xml = String::from("<urlset>");
        for i in 0..=MAX_URLS_PER_SITEMAP {
            xml.push_str(&format!("<url><loc>/p{i}</loc></url>"));
        }
        xml.push_str("</urlset>");
        let p = parse(xml.as_bytes()).unwrap();
        assert!(p.cut);
        assert_eq!(p.entries.len(), MAX_URLS_PER_SITEMAP);
    }

    #[test]
    fn gzip_is_read_and_a_gzip_bomb_is_refused() {
        let gz = |data: &[u8]| {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        };
        let small = gz(b"<urlset><url><loc>/a</loc></url></urlset>");
        assert_eq!(parse(reader(&small)).unwrap().entries.len(), 1);
        // Whitespace inside the root: a valid document that never ends
        // before the cap.
        let mut huge = b"<urlset>".to_vec();
        huge.resize(MAX_SITEMAP_BYTES + 1024, b' ');
        let bomb = gz(&huge);
        assert!(bomb.len() < MAX_SITEMAP_BYTES / 100);
        let e = parse(reader(&bomb)).unwrap_err();
        assert!(e.contains("larger than 50 MiB"), "{e}");
    }

    #[test]
    fn lastmod_in_w3c_forms() {
        assert_eq!(parse_lastmod("1970-01-02"), Some(86_400));
        assert_eq!(
            parse_lastmod("2024-05-01T10:30:00+02:00"),
            Some(1_714_552_200)
        );
        assert_eq!(
            parse_lastmod("2024-05-01T08:30:00.75Z"),
            Some(1_714_552_200)
        );
        assert_eq!(parse_lastmod("2024-05-01T08:30Z"), Some(1_714_552_200));
        assert_eq!(
            parse_lastmod("2024-05-01T03:30:00-05:00"),
            Some(1_714_552_200)
        );
        assert_eq!(parse_lastmod("2024"), Some(1_704_067_200));
        for bad in [
            "",
            "yesterday",
            "2024-13-01",
            "2024-05-01T25:00Z",
            "2024-05-01T10:00",
        ] {
            assert_eq!(parse_lastmod(bad), None, "{bad:?}");
        }
    }
}

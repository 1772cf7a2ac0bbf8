//! `--cookie-jar FILE`: a point's cookies in the Netscape format curl and
//! lychee use (domain, subdomains, path, secure, expires, name, value, tab
//! separated; `#HttpOnly_` before a domain). Read when the crawl starts (a
//! missing file is an empty jar; a line that does not parse is skipped, as
//! curl does), sent with every request of the point whose URL a cookie
//! matches, updated from each answer's `Set-Cookie`, and written back when
//! the crawl ends.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use url::Url;

/// One cookie, as a jar line holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cookie {
    /// Lower case, without a leading dot.
    domain: String,
    /// Sent to the domain's subdomains too (a `Domain` attribute).
    subdomains: bool,
    path: String,
    secure: bool,
    /// Unix seconds; 0: a session cookie.
    expires: i64,
    name: String,
    value: String,
    http_only: bool,
}

impl Cookie {
    fn line(line: &str) -> Option<Cookie> {
        let (line, http_only) = match line.strip_prefix("#HttpOnly_") {
            Some(rest) => (rest, true),
            None if line.starts_with('#') || line.trim().is_empty() => return None,
            None => (line, false),
        };
        let f: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
        let [domain, subdomains, path, secure, expires, name, value] = f[..] else {
            return None;
        };
        Some(Cookie {
            domain: domain.trim_start_matches('.').to_ascii_lowercase(),
            subdomains: subdomains.eq_ignore_ascii_case("TRUE"),
            path: path.to_string(),
            secure: secure.eq_ignore_ascii_case("TRUE"),
            expires: expires.parse().ok()?,
            name: name.to_string(),
            value: value.to_string(),
            http_only,
        })
    }

    fn to_line(&self) -> String {
        let flag = |b: bool| if b { "TRUE" } else { "FALSE" };
        format!(
            "{}{}{}\t{}\t{}\t{}\t{}\t{}\t{}",
            if self.http_only { "#HttpOnly_" } else { "" },
            if self.subdomains { "." } else { "" },
            self.domain,
            flag(self.subdomains),
            self.path,
            flag(self.secure),
            self.expires,
            self.name,
            self.value
        )
    }

    fn expired(&self, now: i64) -> bool {
        self.expires != 0 && self.expires <= now
    }

    fn matches(&self, url: &Url, now: i64) -> bool {
        let host = url.host_str().unwrap_or("").to_ascii_lowercase();
        let domain_ok = host == self.domain
            || (self.subdomains && host.ends_with(&format!(".{}", self.domain)));
        let path = url.path();
        let path_ok = path.starts_with(&self.path)
            && (self.path.ends_with('/')
                || path.len() == self.path.len()
                || path[self.path.len()..].starts_with('/'));
        domain_ok && path_ok && (!self.secure || url.scheme() == "https") && !self.expired(now)
    }

    /// A `Set-Cookie` value received from `url`; None when it does not
    /// parse or names a domain `url` is not in.
    fn set_by(url: &Url, header: &str, now: i64) -> Option<Cookie> {
        let mut parts = header.split(';');
        let (name, value) = parts.next()?.split_once('=')?;
        let host = url.host_str()?.to_ascii_lowercase();
        let mut cookie = Cookie {
            domain: host.clone(),
            subdomains: false,
            path: "/".to_string(),
            secure: false,
            expires: 0,
            name: name.trim().to_string(),
            value: value.trim().to_string(),
            http_only: false,
        };
        if cookie.name.is_empty() {
            return None;
        }
        let mut max_age = None;
        for attr in parts {
            let (k, v) = attr.split_once('=').unwrap_or((attr, ""));
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            match k.as_str() {
                "domain" if !v.is_empty() => {
                    let d = v.trim_start_matches('.').to_ascii_lowercase();
                    if host != d && !host.ends_with(&format!(".{d}")) {
                        return None;
                    }
                    cookie.domain = d;
                    cookie.subdomains = true;
                }
                "path" if v.starts_with('/') => cookie.path = v.to_string(),
                "secure" => cookie.secure = true,
                "httponly" => cookie.http_only = true,
                "max-age" => max_age = v.parse::<i64>().ok(),
                "expires" => {
                    if let Ok(t) = httpdate::parse_http_date(v) {
                        let secs = t
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(1, |d| d.as_secs().max(1));
                        cookie.expires = i64::try_from(secs).unwrap_or(i64::MAX);
                    }
                }
                _ => {}
            }
        }
        // Max-Age wins over Expires; zero or less deletes the cookie.
        if let Some(age) = max_age {
            cookie.expires = if age <= 0 { 1 } else { now.saturating_add(age) };
        }
        Some(cookie)
    }
}

/// A point's jar, shared by the requests of its crawl.
#[derive(Debug)]
pub struct CookieJar {
    path: PathBuf,
    cookies: Mutex<Vec<Cookie>>,
}

impl CookieJar {
    /// The jar at `path`: empty when there is no such file yet. An
    /// unreadable file is refused with the reason.
    pub fn load(path: &Path) -> Result<CookieJar, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("--cookie-jar {}: {e}", path.display())),
        };
        Ok(CookieJar {
            path: path.to_path_buf(),
            cookies: Mutex::new(text.lines().filter_map(Cookie::line).collect()),
        })
    }

    /// The `Cookie` header for a request of `url`, if a cookie matches.
    pub fn header_for(&self, url: &Url) -> Option<String> {
        let now = crate::time::unix_now();
        let cookies = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        let pairs: Vec<String> = cookies
            .iter()
            .filter(|c| c.matches(url, now))
            .map(|c| format!("{}={}", c.name, c.value))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    /// Keeps what the answer from `url` set (`Set-Cookie` values).
    pub fn receive<'a>(&self, url: &Url, set_cookies: impl Iterator<Item = &'a str>) {
        let now = crate::time::unix_now();
        let mut cookies = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        for c in set_cookies.filter_map(|h| Cookie::set_by(url, h, now)) {
            cookies.retain(|o| (&o.domain, &o.path, &o.name) != (&c.domain, &c.path, &c.name));
            if !c.expired(now) {
                cookies.push(c);
            }
        }
    }

    /// Writes the jar back (expired cookies left out), or says why not.
    pub fn save(&self) -> Result<(), String> {
        let now = crate::time::unix_now();
        let cookies = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        let mut text = String::from("# Netscape HTTP Cookie File\n");
        for c in cookies.iter().filter(|c| !c.expired(now)) {
            text.push_str(&c.to_line());
            text.push('\n');
        }
        std::fs::write(&self.path, text)
            .map_err(|e| format!("--cookie-jar {}: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_set_cookie_round_trip() {
        let u = |s: &str| Url::parse(s).unwrap();
        let c = Cookie::line(".a.test\tTRUE\t/\tFALSE\t0\tsid\tabc").expect("a cookie");
        assert!(c.matches(&u("http://www.a.test/x"), 10));
        assert!(!c.matches(&u("http://b.test/x"), 10));
        assert_eq!(Cookie::line(&c.to_line()), Some(c));
        assert!(Cookie::line("a.test\tFALSE\t/").is_none());
        assert!(Cookie::line("# comment").is_none());
        let set =
            Cookie::set_by(&u("http://a.test/p/q"), "k=v; Path=/p; HttpOnly", 100).expect("set");
        assert!(set.http_only && !set.subdomains && set.expires == 0);
        assert!(set.matches(&u("http://a.test/p/r"), 100));
        assert!(!set.matches(&u("http://a.test/pq"), 100));
        let aged = Cookie::set_by(&u("http://a.test/"), "k=v; Max-Age=60", 100).expect("set");
        assert_eq!(aged.expires, 160);
        assert!(Cookie::set_by(&u("http://a.test/"), "k=v; Domain=b.test", 100).is_none());
    }
}

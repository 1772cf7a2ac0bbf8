//! URL normalisation and crawl scope: the one place that decides which links
//! are followable (http/https, with a host, of sane length; `file:` only
//! from a file, see [`is_local`]), what canonical
//! string a URL is stored and compared under, and whether it lies inside a
//! crawl point's root and outside its excludes; also the site rules that
//! need no store: a host's `www.` twin, and a URL's `user:password@` kept
//! out of every stored or printed string.

pub use ::url::Url;

/// Longer URLs are rejected: they are almost always traps or garbage, and the
/// store keeps full URL strings in its records.
pub const MAX_URL_LEN: usize = 4096;

/// Why a link or a typed URL is not crawlable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkReject {
    #[error("unsupported scheme {0}")]
    Scheme(String),
    #[error("invalid URL: {0}")]
    Invalid(String),
    #[error("URL longer than {MAX_URL_LEN} bytes")]
    TooLong,
}

/// Resolve an href found in a page (relative or absolute) against `base` (the
/// page URL or its `<base href>`), then normalise. Rejects non-http(s)
/// (mailto:, javascript:, tel:, data:, ftp:, ...) with the scheme as the
/// reason; a `file:` link is followable from a local file only, so a web
/// page can never make the crawler read this machine's files.
pub fn resolve(base: &Url, href: &str) -> Result<Url, LinkReject> {
    let href = checked_len(href)?;
    let url = base
        .join(href)
        .map_err(|e| LinkReject::Invalid(e.to_string()))?;
    // Credentials found in a page are not ours to send: the link is the
    // same URL without them.
    finish(without_userinfo(&url).into_owned(), is_local(base))
}

/// A URL of a local file or directory (`file:`): read from disk, with no
/// robots.txt, politeness or sitemaps.
pub fn is_local(url: &Url) -> bool {
    url.scheme() == "file"
}

/// Parse a URL a user typed (CLI/TUI). Must be absolute http/https with a
/// host, or a `file:` URL (the CLI makes those of paths). Normalised; a typed `user:password@` is kept (it is credentials for
/// the crawl point, see [`userinfo`]) and never echoed in an error.
pub fn parse_start(input: &str) -> Result<Url, LinkReject> {
    let input = checked_len(input)?;
    let shown = redact(input);
    let url = Url::parse(input).map_err(|e| match e {
        ::url::ParseError::RelativeUrlWithoutBase => {
            LinkReject::Invalid(format!("{shown:?} needs an http:// or https:// prefix"))
        }
        e => LinkReject::Invalid(e.to_string()),
    })?;
    // "example.com:8080/x" parses with the scheme "example.com"; telling the
    // user about the missing prefix is more useful than naming that scheme.
    if !is_http(&url) && !input.contains("://") {
        return Err(LinkReject::Invalid(format!(
            "{shown:?} needs an http:// or https:// prefix"
        )));
    }
    finish(url, true)
}

/// The URL without `user[:password]@`: what identifies it (the URL record)
/// and what may be stored or shown.
pub fn without_userinfo(url: &Url) -> std::borrow::Cow<'_, Url> {
    if url.username().is_empty() && url.password().is_none() {
        return std::borrow::Cow::Borrowed(url);
    }
    let mut bare = url.clone();
    // Only a URL without a host refuses these, and every URL here has one.
    let _ = bare.set_password(None);
    let _ = bare.set_username("");
    std::borrow::Cow::Owned(bare)
}

/// The `user` and `password` a URL carries, percent-decoded (basic auth
/// for its origin).
pub fn userinfo(url: &Url) -> Option<(String, Option<String>)> {
    let decode = |s: &str| {
        ::url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    if url.username().is_empty() && url.password().is_none() {
        return None;
    }
    Some((decode(url.username()), url.password().map(decode)))
}

/// `text` with the password of every `scheme://user:password@` (or of a
/// leading `user:password@host`) replaced by `***`: for echoing what a user
/// typed, or anything else that might hold a URL, without its secret.
pub fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    let mut starts: Vec<usize> = text.match_indices("://").map(|(i, _)| i + 3).collect();
    // No scheme: the text may be a bare `user:password@host`; but a mailto:
    // address is no credential.
    if starts.is_empty()
        && !text
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("mailto:")
    {
        starts.push(0);
    }
    let mut out = String::new();
    let mut copied = 0;
    for start in starts {
        let rest = &text[start..];
        let end = rest
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace())
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        let Some(at) = authority.rfind('@') else {
            continue;
        };
        let Some(colon) = authority[..at].find(':') else {
            continue;
        };
        out.push_str(&text[copied..start + colon + 1]);
        out.push_str("***");
        copied = start + at;
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// The other form of a host for the www rule: `www.example.com` ↔
/// `example.com`. None for IP addresses, which have no such twin.
pub fn www_twin(host: &str) -> Option<String> {
    if host.is_empty() || host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    match host.strip_prefix("www.") {
        Some("") => None,
        Some(bare) => Some(bare.to_string()),
        None => Some(format!("www.{host}")),
    }
}

/// `url` on the `www.` twin of its host, if the host has one.
pub fn on_www_twin(url: &Url) -> Option<Url> {
    let twin = www_twin(url.host_str()?)?;
    let mut out = url.clone();
    out.set_host(Some(&twin)).ok()?;
    Some(out)
}

/// A URL prefix (a root or an exclude) on the `www.` twin of its host:
/// done on the string, as a prefix may stop inside the host
/// (`http://exam` also prefixes `http://www.example.com/`).
fn prefix_on_www_twin(prefix: &str) -> Option<String> {
    let (scheme, rest) = prefix.split_at(prefix.find("://")? + 3);
    let host_end = rest.find([':', '/', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..host_end];
    // An IPv4 address typed in part ("http://10.0") is still no name.
    if host.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    Some(format!("{scheme}{}{}", www_twin(host)?, &rest[host_end..]))
}

/// Normalise: lowercase scheme and host, drop the default port, resolve dot
/// segments (all three done by the url crate's parser), drop the fragment,
/// and normalise percent-encoding in path and query (uppercase hex digits;
/// decode percent-encoded unreserved characters `A-Z a-z 0-9 - . _ ~`).
/// An empty query (`/a.html?`) is dropped: servers answer it as the URL
/// without one, and keeping both would store and fetch one page twice.
/// Trailing slash and a non-empty query are otherwise kept exactly.
/// Idempotent.
pub fn normalize(mut url: Url) -> Url {
    url.set_fragment(None);
    if let Some(path) = normalize_percent(url.path()) {
        url.set_path(&path);
    }
    match url.query() {
        Some("") => url.set_query(None),
        Some(query) => {
            if let Some(query) = normalize_percent(query) {
                url.set_query(Some(&query));
            }
        }
        None => {}
    }
    url
}

/// "scheme://host:port" with the port always explicit
/// (`http://example.com:80`). The key of the origins table.
pub fn origin(url: &Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// Default crawl root for a start URL: the normalised URL of "/" on its
/// origin, e.g. `http://example.com/` or `http://127.0.0.1:8080/`. The default
/// port is omitted, as in normalised URLs, so that prefix tests work; any
/// user:password@ goes, as it does from every stored URL.
pub fn default_root(url: &Url) -> String {
    let url = without_userinfo(url);
    if is_local(&url) {
        // A file system has no site: the directory of the start file (the
        // start directory itself when it ends in `/`) is the site.
        let path = url.path();
        return format!("file://{}", &path[..path.rfind('/').map_or(0, |i| i + 1)]);
    }
    format!("{}/", &url[..::url::Position::BeforePath])
}

/// A crawl point's scope: plain string prefixes of normalised URLs. With
/// `same_www`, a prefix also covers its host's `www.` twin (`www.host`
/// and `host` are one site).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub root: String,
    pub excludes: Vec<String>,
    /// The root and excludes on the `www.` twin, when the twins are one site.
    twins: Option<(Option<String>, Vec<String>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    In,
    OutOfScope,
    Excluded,
}

impl Scope {
    pub fn new(root: String, excludes: Vec<String>, same_www: bool) -> Scope {
        let twins = same_www.then(|| {
            (
                prefix_on_www_twin(&root),
                excludes
                    .iter()
                    .filter_map(|e| prefix_on_www_twin(e))
                    .collect(),
            )
        });
        Scope {
            root,
            excludes,
            twins,
        }
    }

    /// Not starting with `root` => OutOfScope; starting with any exclude =>
    /// Excluded. An empty exclude is ignored: as a prefix it would exclude
    /// everything, which is never what `--exclude ""` meant.
    pub fn verdict(&self, url: &str) -> Verdict {
        let (twin_root, twin_excludes) = match &self.twins {
            Some((root, excludes)) => (root.as_deref(), excludes.as_slice()),
            None => (None, &[][..]),
        };
        let in_root = url.starts_with(&self.root) || twin_root.is_some_and(|r| url.starts_with(r));
        if !in_root {
            Verdict::OutOfScope
        } else if self
            .excludes
            .iter()
            .chain(twin_excludes)
            .any(|e| !e.is_empty() && url.starts_with(e.as_str()))
        {
            Verdict::Excluded
        } else {
            Verdict::In
        }
    }
}

/// Trims the input and refuses oversized ones before the parser spends time
/// on them (hostile pages carry megabyte hrefs).
fn checked_len(input: &str) -> Result<&str, LinkReject> {
    let input = input.trim();
    if input.len() > MAX_URL_LEN {
        Err(LinkReject::TooLong)
    } else {
        Ok(input)
    }
}

fn is_http(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https")
}

/// `local`: a `file:` URL is followable too.
fn finish(url: Url, local: bool) -> Result<Url, LinkReject> {
    let file = local && is_local(&url);
    if !is_http(&url) && !file {
        return Err(LinkReject::Scheme(url.scheme().to_string()));
    }
    if file && url.host().is_some() {
        return Err(LinkReject::Invalid(
            "a file: URL on another host".to_string(),
        ));
    }
    if url.host().is_none() && !file {
        return Err(LinkReject::Invalid("no host".to_string()));
    }
    let url = normalize(url);
    if url.as_str().len() > MAX_URL_LEN {
        return Err(LinkReject::TooLong);
    }
    Ok(url)
}

/// The rewritten string when `s` has percent-escapes to normalise, None when
/// it is already normal (the common case, which then costs no allocation).
fn normalize_percent(s: &str) -> Option<String> {
    if !s.contains('%') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escape = match (b, bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) => hex(h).zip(hex(l)).map(|(h4, l4)| (h, l, h4 << 4 | l4)),
            _ => None,
        };
        let Some((h, l, value)) = escape else {
            // Non-ASCII cannot occur in a serialised URL; copy whole chars anyway.
            let c = s
                .get(i..)
                .and_then(|rest| rest.chars().next())
                .unwrap_or('\u{fffd}');
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        let unreserved =
            value.is_ascii_alphanumeric() || matches!(value, b'-' | b'.' | b'_' | b'~');
        // A decoded hex digit right after a stray "%" or "%X" would form a new
        // escape ("%a%30" -> "%a0"): a different URL, and not idempotent.
        let tail = out.as_bytes();
        let forms_escape = value.is_ascii_hexdigit()
            && (tail.last() == Some(&b'%') || tail.iter().rev().nth(1) == Some(&b'%'));
        if unreserved && !forms_escape {
            out.push(char::from(value));
        } else {
            out.push('%');
            out.push(char::from(h.to_ascii_uppercase()));
            out.push(char::from(l.to_ascii_uppercase()));
        }
        i += 3;
    }
    (out != s).then_some(out)
}

fn hex(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn url(s: &str) -> Url {
        Url::parse(s).expect("test base URL")
    }

    enum Want {
        Ok(&'static str),
        Scheme(&'static str),
        Invalid,
        TooLong,
    }

    #[test]
    fn resolve_table() {
        use Want::*;
        let long_href = format!("/{}", "a".repeat(9_999));
        let long_query = format!("/p?{}", "é".repeat(1_000));
        let cases: Vec<(&str, &str, Want)> = vec![
            // relative forms
            ("http://h/site/index", "./", Ok("http://h/site/")),
            ("http://h/site/index/", "./", Ok("http://h/site/index/")),
            ("http://h/site/index", "page", Ok("http://h/site/page")),
            (
                "http://h/site/index/",
                "page",
                Ok("http://h/site/index/page"),
            ),
            ("http://h/a/b/c", "../d", Ok("http://h/a/d")),
            ("http://h/a/", "../../x", Ok("http://h/x")),
            ("http://h/", "../../../x", Ok("http://h/x")),
            ("http://h/a/b", "/abs", Ok("http://h/abs")),
            ("http://h/a/b", "", Ok("http://h/a/b")),
            ("http://h/a/b?q=1", "", Ok("http://h/a/b?q=1")),
            ("http://h/a/b", "?a=1#f", Ok("http://h/a/b?a=1")),
            ("http://h/a/b?old", "#frag", Ok("http://h/a/b?old")),
            ("http://h/a/b", "#", Ok("http://h/a/b")),
            ("http://h/a/b", "?", Ok("http://h/a/b")),
            ("http://h/a", "/p?", Ok("http://h/p")),
            ("http://h/a", "/p?b=2&a=1", Ok("http://h/p?b=2&a=1")),
            ("https://h/a", "//other.host/p", Ok("https://other.host/p")),
            ("http://h/a", "//other.host", Ok("http://other.host/")),
            // absolute forms and normalisation
            (
                "http://h/",
                "HTTP://Example.COM:80/a/./b/../c",
                Ok("http://example.com/a/c"),
            ),
            ("http://h/", "https://h:443/", Ok("https://h/")),
            ("http://h/", "https://h:80/", Ok("https://h:80/")),
            ("http://h/", "http://h:8080/", Ok("http://h:8080/")),
            ("http://h/", "http://h", Ok("http://h/")),
            ("http://h/", "http://h/dir/", Ok("http://h/dir/")),
            ("http://h/", "http://h/dir", Ok("http://h/dir")),
            ("http://h/", "http://h/%7e", Ok("http://h/~")),
            (
                "http://h/",
                "http://h/%7Euser/%41%62%2D%2e%5F",
                Ok("http://h/~user/Ab-._"),
            ),
            ("http://h/", "http://h/a%2fb", Ok("http://h/a%2Fb")),
            ("http://h/", "http://h/a%2Fb", Ok("http://h/a%2Fb")),
            (
                "http://h/",
                "/q?x=%3d%7e&y=%zz",
                Ok("http://h/q?x=%3D~&y=%zz"),
            ),
            ("http://h/", "/%e4%b8%ad", Ok("http://h/%E4%B8%AD")),
            ("http://h/", "/a b", Ok("http://h/a%20b")),
            ("http://h/", "/%2e%2E/x", Ok("http://h/x")),
            ("http://h/", "/100%", Ok("http://h/100%")),
            ("http://h/", "/%a%30%%341", Ok("http://h/%a%30%%341")),
            ("http://h/", "  /spaced \n", Ok("http://h/spaced")),
            ("http://h/", "\t http://h/x \u{a0}", Ok("http://h/x")),
            ("http://h/", "/li\nne", Ok("http://h/line")),
            ("http://h/a/b", "..\\c\\d", Ok("http://h/c/d")),
            ("http://h/", "http:\\\\other\\p", Ok("http://other/p")),
            (
                "http://h/",
                "http://Bücher.example/",
                Ok("http://xn--bcher-kva.example/"),
            ),
            (
                "http://h/",
                "http://[::1]:8080/x",
                Ok("http://[::1]:8080/x"),
            ),
            ("http://h/", "http://user:pw@h/x", Ok("http://h/x")),
            ("http://h/", "http://user@h/x", Ok("http://h/x")),
            ("http://h/", "http:rel", Ok("http://h/rel")),
            // an empty query is no query; `?#f` and `?` alike
            ("http://h/", "/a.html?", Ok("http://h/a.html")),
            ("http://h/", "/a.html?#top", Ok("http://h/a.html")),
            ("http://h/b?old", "?", Ok("http://h/b")),
            ("http://h/", "/a.html?x", Ok("http://h/a.html?x")),
            ("http://h/", "/a.html??", Ok("http://h/a.html??")),
            // rejections
            ("http://h/", "mailto:someone@example.com", Scheme("mailto")),
            ("http://h/", "javascript:void(0)", Scheme("javascript")),
            ("http://h/", "JavaScript:alert(1)", Scheme("javascript")),
            ("http://h/", "java\nscript:alert(1)", Scheme("javascript")),
            ("http://h/", "tel:+123456", Scheme("tel")),
            ("http://h/", "data:text/html,hi", Scheme("data")),
            ("http://h/", "ftp://h/file", Scheme("ftp")),
            ("http://h/", "file:///etc/passwd", Scheme("file")),
            ("http://h/", "http://", Invalid),
            ("http://h/", "http://exa mple.com/", Invalid),
            ("http://h/", "http://h:99999/", Invalid),
            ("http://h/", "http://[::1/", Invalid),
            ("http://h/", &long_href, TooLong),
            ("http://h/", &long_query, TooLong),
        ];
        for (base, href, want) in &cases {
            let got = resolve(&url(base), href);
            match (want, &got) {
                (Ok(w), Result::Ok(u)) => assert_eq!(u.as_str(), *w, "{base} + {href:?}"),
                (Scheme(w), Err(LinkReject::Scheme(s))) => assert_eq!(s, w, "{href:?}"),
                (Invalid, Err(LinkReject::Invalid(_))) | (TooLong, Err(LinkReject::TooLong)) => {}
                _ => panic!("{base} + {href:?}: unexpected {got:?}"),
            }
        }
    }

    #[test]
    fn file_links_only_from_files() {
        let file = Url::parse("file:///site/a/index.html").unwrap();
        let web = Url::parse("http://h/a/").unwrap();
        assert_eq!(
            resolve(&file, "../b/#top").map(|u| u.to_string()),
            Ok("file:///site/b/".to_string())
        );
        assert_eq!(
            resolve(&file, "http://h/x").map(|u| u.to_string()),
            Ok("http://h/x".to_string())
        );
        assert_eq!(
            resolve(&web, "file:///etc/passwd"),
            Err(LinkReject::Scheme("file".to_string()))
        );
        assert!(resolve(&file, "file://other/x").is_err());
        assert_eq!(default_root(&file), "file:///site/a/");
        let dir = parse_start("file:///site/").unwrap();
        assert_eq!(default_root(&dir), "file:///site/");
    }

    #[test]
    fn parse_start_accepts_and_normalises() {
        let u = parse_start("  HTTP://Example.com:80/a/../b#top ").expect("valid");
        assert_eq!(u.as_str(), "http://example.com/b");
        let u = parse_start("https://127.0.0.1:8443").expect("valid");
        assert_eq!(u.as_str(), "https://127.0.0.1:8443/");
        let u = parse_start("http://h/a.html?").expect("valid");
        assert_eq!(u.as_str(), "http://h/a.html");
    }

    #[test]
    fn parse_start_rejects() {
        assert!(matches!(
            parse_start("example.com"),
            Err(LinkReject::Invalid(_))
        ));
        assert!(matches!(
            parse_start("example.com:8080/x"),
            Err(LinkReject::Invalid(_))
        ));
        assert!(matches!(
            parse_start("/relative"),
            Err(LinkReject::Invalid(_))
        ));
        assert!(matches!(parse_start(""), Err(LinkReject::Invalid(_))));
        assert!(matches!(
            parse_start("http://"),
            Err(LinkReject::Invalid(_))
        ));
        assert_eq!(
            parse_start("ftp://h/"),
            Err(LinkReject::Scheme("ftp".into()))
        );
        let long = format!("http://h/{}", "x".repeat(MAX_URL_LEN));
        assert_eq!(parse_start(&long), Err(LinkReject::TooLong));
    }

    #[test]
    fn reject_messages_name_the_problem() {
        assert_eq!(
            LinkReject::Scheme("ftp".into()).to_string(),
            "unsupported scheme ftp"
        );
        assert_eq!(
            LinkReject::TooLong.to_string(),
            "URL longer than 4096 bytes"
        );
        let e = parse_start("example.com").expect_err("no scheme");
        assert!(e.to_string().contains("http://"), "{e}");
    }

    #[test]
    fn origin_has_explicit_port() {
        assert_eq!(
            origin(&url("http://Example.com/a")),
            "http://example.com:80"
        );
        assert_eq!(origin(&url("https://h/")), "https://h:443");
        assert_eq!(
            origin(&url("http://127.0.0.1:8080/x?y")),
            "http://127.0.0.1:8080"
        );
        assert_eq!(origin(&url("http://[::1]/")), "http://[::1]:80");
    }

    #[test]
    fn default_root_is_normalised_slash() {
        assert_eq!(
            default_root(&url("http://example.com:80/a/b?c#d")),
            "http://example.com/"
        );
        assert_eq!(
            default_root(&url("http://127.0.0.1:8080/x")),
            "http://127.0.0.1:8080/"
        );
        assert_eq!(default_root(&url("https://h:443")), "https://h/");
        let start = parse_start("http://h:8080/deep/page").expect("valid");
        let root = default_root(&start);
        assert!(start.as_str().starts_with(&root));
        assert_eq!(
            Scope::new(root, vec![], false).verdict(start.as_str()),
            Verdict::In
        );
    }

    #[test]
    fn scope_verdicts() {
        let scope = Scope::new(
            "http://h/docs/".into(),
            vec!["http://h/docs/private".into(), String::new()],
            false,
        );
        assert_eq!(scope.verdict("http://h/docs/"), Verdict::In);
        assert_eq!(scope.verdict("http://h/docs/a/b?c"), Verdict::In);
        assert_eq!(scope.verdict("http://h/docs"), Verdict::OutOfScope);
        assert_eq!(scope.verdict("http://h/other"), Verdict::OutOfScope);
        assert_eq!(scope.verdict("https://h/docs/"), Verdict::OutOfScope);
        assert_eq!(scope.verdict("http://h/docs/private"), Verdict::Excluded);
        assert_eq!(
            scope.verdict("http://h/docs/private-notes/x"),
            Verdict::Excluded
        );
        // out of scope wins over excluded: the URL was never in the crawl
        let scope = Scope::new("http://h/a/".into(), vec!["http://h/".into()], false);
        assert_eq!(scope.verdict("http://x/"), Verdict::OutOfScope);
        assert_eq!(scope.verdict("http://h/a/1"), Verdict::Excluded);
    }

    #[test]
    fn one_site_scope_covers_both_www_forms() {
        let roots = ["http://site.test:8080/", "http://www.site.test:8080/"];
        for root in roots {
            let one = Scope::new(
                root.into(),
                vec!["http://www.site.test:8080/private/".into()],
                true,
            );
            let two = Scope::new(root.into(), vec![], false);
            for url in ["http://site.test:8080/a", "http://www.site.test:8080/a"] {
                assert_eq!(one.verdict(url), Verdict::In, "{root} one site: {url}");
                let own = url.starts_with(root);
                assert_eq!(
                    two.verdict(url) == Verdict::In,
                    own,
                    "{root} two sites: {url}"
                );
            }
            for url in [
                "http://site.test:8080/private/x",
                "http://www.site.test:8080/private/x",
            ] {
                assert_eq!(one.verdict(url), Verdict::Excluded, "{root}: {url}");
            }
            assert_eq!(one.verdict("http://other.test:8080/"), Verdict::OutOfScope);
            assert_eq!(one.verdict("https://site.test:8080/"), Verdict::OutOfScope);
        }
        // A prefix that stops inside the host still has a twin; addresses do not.
        let partial = Scope::new("http://site.te".into(), vec![], true);
        assert_eq!(partial.verdict("http://www.site.test/x"), Verdict::In);
        let ip = Scope::new("http://127.0.0.1:80/".into(), vec![], true);
        assert_eq!(ip.verdict("http://www.127.0.0.1:80/"), Verdict::OutOfScope);
    }

    #[test]
    fn www_twins() {
        assert_eq!(www_twin("site.test").as_deref(), Some("www.site.test"));
        assert_eq!(www_twin("www.site.test").as_deref(), Some("site.test"));
        assert_eq!(www_twin("127.0.0.1"), None);
        assert_eq!(www_twin("[::1]"), None);
        assert_eq!(www_twin("www."), None);
        let u = on_www_twin(&url("http://www.a.test:81/p?q")).unwrap();
        assert_eq!(u.as_str(), "http://a.test:81/p?q");
    }

    #[test]
    fn userinfo_is_credentials_never_shown() {
        let typed = parse_start("http://ann:s%40cret@h.test/a").unwrap();
        assert_eq!(
            userinfo(&typed),
            Some(("ann".to_string(), Some("s@cret".to_string())))
        );
        assert_eq!(without_userinfo(&typed).as_str(), "http://h.test/a");
        assert_eq!(default_root(&typed), "http://h.test/");
        assert_eq!(userinfo(&url("http://h.test/")), None);
        assert_eq!(
            redact("GET http://ann:secret@h.test/a and https://bo:pw@x/ and http://plain@h/"),
            "GET http://ann:***@h.test/a and https://bo:***@x/ and http://plain@h/"
        );
        assert_eq!(redact("ann:secret@h.test/x"), "ann:***@h.test/x");
        assert_eq!(redact("http://h.test/a@b:c"), "http://h.test/a@b:c");
        let e = parse_start("ann:secret@h.test").unwrap_err().to_string();
        assert!(!e.contains("secret"), "{e}");
        let e = parse_start("ann:secret@h.test:8080/x")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("secret"), "{e}");
    }

    proptest! {
        #[test]
        fn resolve_never_panics_and_is_normal(
            base in "https?://[a-zA-Z0-9.-]{1,12}(:[0-9]{1,5})?/[a-zA-Z0-9/%._~?#&=-]{0,20}",
            href in any::<String>(),
        ) {
            if let Ok(base) = Url::parse(&base) {
                if let Ok(u) = resolve(&base, &href) {
                    prop_assert_eq!(normalize(u.clone()), u);
                }
            }
        }

        #[test]
        fn normalize_is_idempotent(
            href in "[a-zA-Z0-9/\\\\%._~?#&=:@!$'()*+,;\\[\\] \"<>{}|^`éü中-]{0,40}",
            pct in proptest::collection::vec("%[0-9a-fA-FgG]{0,2}", 0..4),
        ) {
            let base = url("http://h/dir/page");
            let href = format!("{href}{}", pct.concat());
            if let Ok(u) = base.join(&href) {
                let once = normalize(u);
                let twice = normalize(once.clone());
                prop_assert_eq!(&once, &twice);
                prop_assert_eq!(Url::parse(once.as_str()).ok(), Some(once.clone()));
            }
        }
    }
}

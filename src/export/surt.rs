//! SURT (Sort-friendly URI Reordering Transform), the key CDX indexes and
//! Common Crawl's `url_surtkey` sort by: `com,example)/path?query`. It
//! canonicalises as the `surt` library's defaults do, so pywb finds what
//! it looks up: scheme and fragment dropped, host lower-cased, a leading
//! `www.` (or `www2.`...) dropped, labels reversed and joined by commas, a
//! port kept only when not the scheme's default, path and query
//! lower-cased, a trailing slash dropped unless the path is `/`, query
//! arguments sorted and an empty query dropped.

/// The SURT of a URL given in parts (`port` as written or implied).
pub fn surt(scheme: &str, host: &str, port: u16, path: &str, query: Option<&str>) -> String {
    let host = host.to_ascii_lowercase();
    let host = strip_www(&host);
    let mut out: String = host.rsplit('.').collect::<Vec<_>>().join(",");
    if Some(port) != default_port(scheme) {
        out.push_str(&format!(":{port}"));
    }
    out.push(')');
    let path = path.to_lowercase();
    match path.strip_suffix('/') {
        Some(cut) if !cut.is_empty() => out.push_str(cut),
        _ if path.len() > 1 => out.push_str(&path),
        _ => out.push('/'),
    }
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        let q = q.to_lowercase();
        let mut args: Vec<&str> = q.split('&').collect();
        args.sort_unstable();
        out.push('?');
        out.push_str(&args.join("&"));
    }
    out
}

/// The SURT of a whole URL; None when it does not parse or has no host.
pub fn surt_of_url(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let port = u.port_or_known_default()?;
    Some(surt(u.scheme(), u.host_str()?, port, u.path(), u.query()))
}

pub fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// `www.`, `www2.`, ... at the start of a host name, as the `surt`
/// library's host massage drops them.
fn strip_www(host: &str) -> &str {
    let Some(rest) = host.strip_prefix("www") else {
        return host;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[digits..].strip_prefix('.') {
        Some(after) if !after.is_empty() => after,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surt_matches_the_surt_library() {
        for (url, want) in [
            ("http://www.example.com/", "com,example)/"),
            ("http://example.com", "com,example)/"),
            ("https://WWW.Example.COM/Path/To/", "com,example)/path/to"),
            ("http://example.com/a?b=2&a=1", "com,example)/a?a=1&b=2"),
            ("http://example.com/a?", "com,example)/a"),
            ("http://www2.example.com/x#frag", "com,example)/x"),
            ("http://www.com/", "com)/"),
            ("http://wwwx.example.com/", "com,example,wwwx)/"),
            ("http://example.com:8080/x", "com,example:8080)/x"),
            ("https://example.com:443/x", "com,example)/x"),
            ("http://example.com:443/x", "com,example:443)/x"),
            ("http://127.0.0.1:4321/p?q", "1,0,0,127:4321)/p?q"),
            ("http://sub.example.co.uk/Q?Z=1", "uk,co,example,sub)/q?z=1"),
        ] {
            assert_eq!(surt_of_url(url).as_deref(), Some(want), "{url}");
        }
        assert_eq!(surt_of_url("not a url"), None);
    }
}

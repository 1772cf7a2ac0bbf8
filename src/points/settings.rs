//! A point's settings as typed (in the CLI's flags, the console's form
//! and clap's parsers): each checked and normalised, or refused with the
//! rule it breaks.

use super::{PointError, Result, Setting};
use crate::store::Resolve;

/// A root prefix as typed: it must name its scheme, or it would match no
/// normalised URL and the point would silently crawl nothing.
pub fn parse_root(input: &str) -> Result<String> {
    let root = input.trim();
    if !["http://", "https://", "file://"]
        .iter()
        .any(|scheme| root.starts_with(scheme))
    {
        return Err(PointError::BadRoot);
    }
    // Stored URLs never hold user information, so such a prefix would
    // match nothing, and it would print a password.
    if has_userinfo(root) {
        return Err(PointError::RootWithCredentials);
    }
    Ok(root.to_string())
}

/// An exclude prefix as typed: any string (one without a scheme matches
/// nothing), but never one holding `user:password@`.
pub fn parse_exclude(input: &str) -> Result<String> {
    if has_userinfo(input) {
        return Err(PointError::RootWithCredentials);
    }
    Ok(input.to_string())
}

fn has_userinfo(prefix: &str) -> bool {
    let authority = prefix.split_once("://").map_or("", |(_, rest)| rest);
    let end = authority.find(['/', '?', '#']).unwrap_or(authority.len());
    authority[..end].contains('@')
}

/// A `--resolve HOST:PORT:ADDR` as curl takes it (an IPv6 ADDR in
/// brackets): connect to ADDR for HOST:PORT.
pub fn parse_resolve(input: &str) -> Result<Resolve> {
    let bad = |why: &str| PointError::BadResolve(format!("{input:?}: {why}"));
    let (host, rest) = input
        .trim()
        .split_once(':')
        .ok_or_else(|| bad("expected HOST:PORT:ADDR"))?;
    let (port, addr) = rest
        .split_once(':')
        .ok_or_else(|| bad("expected HOST:PORT:ADDR"))?;
    let host = host.to_ascii_lowercase();
    let named = crate::url::Url::parse(&format!("http://{host}/"))
        .ok()
        .and_then(|u| u.host_str().map(str::to_string));
    if host.is_empty() || named.as_deref() != Some(host.as_str()) {
        return Err(bad(&format!("{host:?} is not a host name")));
    }
    let port = match port.parse::<u16>() {
        Ok(p) if p > 0 => p,
        _ => return Err(bad(&format!("{port:?} is not a port (1-65535)"))),
    };
    let bare = addr
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']'))
        .unwrap_or(addr);
    let addr = match bare.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(_)) if bare == addr => {
            return Err(bad("an IPv6 ADDR goes in brackets, [::1]"))
        }
        Ok(a) => a,
        Err(_) => {
            return Err(bad(&format!(
                "{addr:?} is not an IP address (one address; a host name is not resolved)"
            )))
        }
    };
    Ok(Resolve { host, port, addr })
}

/// An `--append-query K=V`: a query parameter added to every request.
pub fn parse_append_query(input: &str) -> Result<(String, String)> {
    match input.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        Some(_) => Err(PointError::BadAppendQuery(format!(
            "{input:?}: the key before = is empty"
        ))),
        None => Err(PointError::BadAppendQuery(format!(
            "{input:?} is not of the form KEY=VALUE"
        ))),
    }
}

/// A page limit as typed: a limit of zero would fetch nothing.
pub fn parse_max_pages(input: &str) -> Result<u64> {
    let value = input.trim();
    match value.parse::<u64>() {
        Ok(0) => Err(PointError::ZeroMaxPages),
        Ok(n) => Ok(n),
        Err(_) => Err(PointError::NotANumber {
            setting: Setting::MaxPages,
            value: value.to_string(),
        }),
    }
}

/// A point's documents as typed in one box, comma-separated; each must be
/// one of `known` (a point's own, deleted or not, and the live ones).
pub fn parse_docs(input: &str, known: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for typed in input.split(',').filter(|s| !s.trim().is_empty()) {
        let name = crate::doc_name::parse(typed).map_err(PointError::DocName)?;
        if !known.contains(&name) {
            return Err(PointError::NoDocument(name));
        }
        out.push(name);
    }
    Ok(out)
}

/// A depth limit as typed.
pub fn parse_depth(input: &str) -> Result<u32> {
    let value = input.trim();
    value.parse::<u32>().map_err(|_| PointError::NotANumber {
        setting: Setting::Depth,
        value: value.to_string(),
    })
}

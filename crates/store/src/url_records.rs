//! The `urls` table's records: a URL's origin id, path, query and user,
//! and the whole URL only where it is not the origin's prefix, the path
//! and the query put together (the writer compares, so a URL the parser
//! spelled otherwise keeps its own string). Kept whole beside its parts,
//! the URL had been 38 of a record's 63 bytes on a store of small pages.

use serde::{Deserialize, Serialize};

use super::codec;
use super::schema::{OriginId, OriginRecord, UrlRecord};
use super::{Result, StoreError};

/// A record as `urls` holds it.
#[derive(Serialize, Deserialize)]
struct Stored {
    origin: OriginId,
    path: String,
    query: Option<String>,
    username: Option<String>,
    /// None: the URL is [`whole`] of the origin, path and query.
    url: Option<String>,
}

/// `record` as `urls` keeps it; `origin` is its origin's record (None:
/// there is none to spell it with, so the URL is kept whole).
pub fn encode(record: &UrlRecord, origin: Option<&OriginRecord>) -> Result<Vec<u8>> {
    let spelled =
        origin.is_some_and(|o| whole(o, &record.path, record.query.as_deref()) == record.url);
    codec::encode(&Stored {
        origin: record.origin,
        path: record.path.clone(),
        query: record.query.clone(),
        username: record.username.clone(),
        url: (!spelled).then(|| record.url.clone()),
    })
}

/// A `urls` record read back; `origin` gives the record of its origin.
pub fn decode(
    bytes: &[u8],
    origin: impl FnOnce(OriginId) -> Result<Option<OriginRecord>>,
) -> Result<UrlRecord> {
    let stored: Stored = codec::decode(bytes)?;
    let url = match stored.url {
        Some(url) => url,
        None => {
            let o = origin(stored.origin)?.ok_or_else(|| {
                StoreError::corrupt(format!(
                    "a URL record names origin {}, which has no record",
                    stored.origin
                ))
            })?;
            whole(&o, &stored.path, stored.query.as_deref())
        }
    };
    Ok(UrlRecord {
        origin: stored.origin,
        path: stored.path,
        query: stored.query,
        username: stored.username,
        url,
    })
}

/// `scheme://host[:port]path[?query]`, the port left out where it is the
/// scheme's own, as the URL parser writes a normalised URL.
fn whole(origin: &OriginRecord, path: &str, query: Option<&str>) -> String {
    let mut out = format!("{}://{}", origin.scheme, origin.host);
    if default_port(&origin.scheme) != Some(origin.port) {
        out.push_str(&format!(":{}", origin.port));
    }
    out.push_str(path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// The WHATWG URL standard's default ports, which the parser leaves out.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record_of(url: &str, origin: OriginId) -> UrlRecord {
        let u = ::url::Url::parse(url).unwrap();
        UrlRecord {
            origin,
            path: u.path().to_string(),
            query: u.query().map(str::to_string),
            username: None,
            url: u.as_str().to_string(),
        }
    }

    fn origin_of(url: &str) -> OriginRecord {
        let u = ::url::Url::parse(url).unwrap();
        OriginRecord {
            scheme: u.scheme().to_string(),
            host: u.host_str().unwrap().to_string(),
            port: u.port_or_known_default().unwrap(),
        }
    }

    #[test]
    fn urls_read_back_whole_and_the_rebuildable_ones_are_not_kept_whole() {
        for url in [
            "http://example.com/",
            "https://example.com/a/b?c=d&e",
            "http://127.0.0.1:8080/x.html?",
            "http://[::1]:9000/p",
            "https://host:443/default-port",
            "ftp://files.example/pub/",
            "http://ex.com/%20space?q=%C3%A9",
        ] {
            let record = record_of(url, 3);
            let origin = origin_of(url);
            let bytes = encode(&record, Some(&origin)).unwrap();
            let back = decode(&bytes, |id| {
                assert_eq!(id, 3);
                Ok(Some(origin.clone()))
            })
            .unwrap();
            assert_eq!(back, record, "{url}");
            let stored: Stored = codec::decode(&bytes).unwrap();
            assert_eq!(stored.url, None, "{url} was kept whole");
        }
    }

    #[test]
    fn a_url_spelled_otherwise_than_its_parts_is_kept_whole() {
        let mut record = record_of("http://example.com/a", 1);
        record.url = "http://example.com/a#kept".to_string();
        let origin = origin_of("http://example.com/");
        let bytes = encode(&record, Some(&origin)).unwrap();
        let back = decode(&bytes, |_| Ok(Some(origin.clone()))).unwrap();
        assert_eq!(back.url, "http://example.com/a#kept");
        let err = decode(
            &encode(
                &record_of("http://e.com/", 1),
                Some(&origin_of("http://e.com/")),
            )
            .unwrap(),
            |_| Ok(None),
        );
        assert!(err.unwrap_err().to_string().contains("origin 1"));
    }
}

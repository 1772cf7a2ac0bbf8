//! A URL's parts as `page --json` (and every page object: search, export)
//! shows them, read from the URL and origin records, not re-parsed.

use serde::Serialize;

use crate::store::prelude::*;
use crate::store::{PageId, Reader, StoreError};

/// `"parts"` of a page object. No password: the store never keeps one.
#[derive(Serialize)]
pub struct UrlPartsJson {
    scheme: String,
    host: String,
    port: u16,
    path: String,
    query: Option<String>,
    /// The basic-auth user the URL is fetched as, if any.
    username: Option<String>,
}

pub fn parts(r: &Reader<'_>, id: PageId) -> Result<Option<UrlPartsJson>, StoreError> {
    let Some(url) = r.url_record(id)? else {
        return Ok(None);
    };
    let Some(origin) = r.origin_record(url.origin)? else {
        return Ok(None);
    };
    Ok(Some(UrlPartsJson {
        scheme: origin.scheme,
        host: origin.host,
        port: origin.port,
        path: url.path,
        query: url.query,
        username: url.username,
    }))
}

impl UrlPartsJson {
    /// One line for people.
    pub fn line(&self) -> String {
        format!(
            "scheme {} · host {} · port {} · path {} · query {} · user {}",
            self.scheme,
            self.host,
            self.port,
            self.path,
            self.query.as_deref().unwrap_or("-"),
            self.username.as_deref().unwrap_or("-")
        )
    }
}

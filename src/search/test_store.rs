//! Stores for search tests: pages indexed the way the crawler indexes
//! them, without a crawl, so a test states exactly the words it ranks.

use crate::index::Analyzer;
use crate::store::{
    compress_body, OutLink, PageId, PageRecord, PageWrite, Store, StoreError, Terms, Writer,
};
use crate::url::Url;

/// Indexes an HTML page the way the crawler does (body and title
/// analysed separately, positions from 0).
pub(crate) fn put(w: &mut Writer<'_>, url: &str, html: &str) -> Result<PageId, StoreError> {
    put_linked(w, url, html, &[])
}

/// [`put`] for a page linking to `links`.
pub(crate) fn put_linked(
    w: &mut Writer<'_>,
    url: &str,
    html: &str,
    links: &[OutLink],
) -> Result<PageId, StoreError> {
    let url = Url::parse(url).map_err(|e| StoreError::corrupt(e.to_string()))?;
    let id = w.page_id_for(&url)?;
    let doc = crate::html::parse_html(html.as_bytes(), Some("text/html"), &url);
    let a = Analyzer::global();
    let terms = Terms::from_pairs(a.terms(&doc.text));
    let title_terms =
        Terms::from_pairs(doc.title.as_deref().map(|t| a.terms(t)).unwrap_or_default());
    let write = PageWrite {
        record: PageRecord {
            title: doc.title,
            status: 200,
            size: html.len() as u64,
            last_modified: 1_717_200_000,
            content_hash: xxhash_rust::xxh3::xxh3_64(html.as_bytes()),
            ..PageRecord::default()
        },
        content_type: "text/html; charset=utf-8".into(),
        meta: doc.meta,
        compressed_body: compress_body(html.as_bytes()),
        terms,
        title_terms,
        head: None,
        audit: Some(crate::store::PageAudit {
            h2: doc.h2,
            facts: doc.audit.clone(),
        }),
        custom: None,
    };
    w.put_page(id, &write, links)?;
    Ok(id)
}

/// A page of that title whose body is one paragraph.
pub(crate) fn html(title: &str, body: &str) -> String {
    format!("<html><head><title>{title}</title></head><body><p>{body}</p></body></html>")
}

/// A fresh store holding `pages`, (title, body) each, at
/// `http://t.test/0`, `/1`...; their ids in that order.
pub(crate) fn store(pages: &[(&str, &str)]) -> (tempfile::TempDir, Store, Vec<PageId>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("open store");
    let ids = store
        .update(|w| {
            let mut ids = Vec::new();
            for (i, (title, body)) in pages.iter().enumerate() {
                ids.push(put(w, &format!("http://t.test/{i}"), &html(title, body))?);
            }
            Ok(ids)
        })
        .expect("index pages");
    (dir, store, ids)
}

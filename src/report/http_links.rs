//! `report http-links`: lychee's `--require-https` finding `http_link`,
//! an `http://` URL a page links to or loads whose `https://` twin
//! answered (any status below 400) when a `--require-https` run asked it:
//! the link could be https. A row per page and http URL (links in page
//! order, then loads).

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::{Ctx, ListKind, Result, Row};
use crate::crawl::https_twins::{http_links, twin};
use crate::store::prelude::*;
use crate::store::PageId;

pub struct HttpLinks;

/// A page, the http URL it links to or loads, and the element of its
/// (first) link.
pub type Item = (PageId, PageId, &'static str);

#[derive(Debug, Serialize)]
pub struct HttpLinkRow {
    /// The page.
    pub url: String,
    /// The http URL it links to.
    pub link: String,
    /// Its https twin, which answered.
    pub https: String,
    pub element: &'static str,
}

impl ListKind for HttpLinks {
    type Item = Item;
    type Row = HttpLinkRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let answered: FxHashSet<PageId> = (ctx.r.https_twins()?.into_iter())
            .filter(|(_, c)| {
                ctx.covers_point(c.point)
                    && c.not_checked.is_none()
                    && c.status.is_some_and(|s| s < 400)
            })
            .map(|(page, _)| page)
            .collect();
        let mut items = Vec::new();
        // Without a twin that answered (no run asked), no page's links
        // are read: the summary counts this kind on every store.
        if answered.is_empty() {
            return Ok(items);
        }
        for &(page, _) in ctx.pages()? {
            for (target, _, element) in http_links(ctx.r, page)? {
                if answered.contains(&target) {
                    items.push((page, target, element));
                }
            }
        }
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, (page, target, element): Item) -> Result<HttpLinkRow> {
        let link = ctx.url(target)?;
        let https = url::Url::parse(&link)
            .ok()
            .as_ref()
            .and_then(twin)
            .map_or_else(String::new, String::from);
        Ok(HttpLinkRow {
            url: ctx.url(page)?,
            link,
            https,
            element,
        })
    }
}

impl Row for HttpLinkRow {
    const COLUMNS: &'static [&'static str] = &["url", "link", "https", "element"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.link.clone(),
            self.https.clone(),
            self.element.to_string(),
        ]
    }
}

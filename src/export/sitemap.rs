//! `export --format sitemap`: an XML sitemap (sitemaps.org 0.9) of the
//! pages a search engine may index, the ones `report indexability` calls
//! indexable (HTML, 200, no noindex, canonical to itself), each with its
//! `<lastmod>` (the page's Last-Modified, else when it was fetched), in
//! page id order. Past [`MAX_URLS`] the sitemap is split into parts and a
//! sitemap index names them, as the protocol requires.

use std::io::Write;

use super::{each_page, ExportResult};
use crate::report::indexability::{classify, is_html, Facts, Indexability};
use crate::store::prelude::*;
use crate::store::{PageRecord, Reader};
use crate::time::rfc3339;

/// URLs one sitemap file may hold (sitemaps.org).
pub const MAX_URLS: usize = 50_000;

/// One URL of the sitemap.
pub struct Entry {
    pub url: String,
    pub lastmod: i64,
}

/// The indexable pages of the store, in page id order.
pub fn entries(r: &Reader<'_>) -> Result<Vec<Entry>, super::ExportError> {
    let mut out = Vec::new();
    each_page(r, |id, rec: PageRecord| {
        let Some(state) = r.url_state(id)? else {
            return Ok(());
        };
        let Some(url) = r.url_of(id)? else {
            return Ok(());
        };
        let verdict = classify(Facts {
            state: &state.known(),
            page: Some(&rec),
            is_html: |rec: &PageRecord| {
                Ok::<_, crate::store::StoreError>(is_html(r.mime(rec.mime)?.as_ref()))
            },
            own_url: || Ok(url.clone()),
        })?;
        if verdict == Some(Indexability::Indexable) {
            let lastmod = if rec.last_modified > 0 {
                rec.last_modified
            } else {
                rec.fetched_at
            };
            out.push(Entry { url, lastmod });
        }
        Ok(())
    })?;
    Ok(out)
}

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// One `<urlset>` of `entries` (at most [`MAX_URLS`]).
pub fn write_urlset(w: &mut dyn Write, entries: &[Entry]) -> ExportResult {
    writeln!(w, "{HEAD}<urlset xmlns=\"{NS}\">")?;
    for e in entries {
        writeln!(
            w,
            "  <url><loc>{}</loc><lastmod>{}</lastmod></url>",
            escape(&e.url),
            rfc3339(e.lastmod)
        )?;
    }
    writeln!(w, "</urlset>")?;
    Ok(())
}

/// A `<sitemapindex>` naming the parts at `locs`.
pub fn write_index(w: &mut dyn Write, locs: &[String]) -> ExportResult {
    writeln!(w, "{HEAD}<sitemapindex xmlns=\"{NS}\">")?;
    for loc in locs {
        writeln!(w, "  <sitemap><loc>{}</loc></sitemap>", escape(loc))?;
    }
    writeln!(w, "</sitemapindex>")?;
    Ok(())
}

fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    quick_xml::escape::escape(s)
}

/// The parts of a sitemap of `n` URLs split `max` a file: `FILE-1.xml`,
/// `FILE-2.xml`, ... beside the index FILE (its name less `.xml`), each
/// with the range of URLs it holds.
pub fn parts(
    index: &std::path::Path,
    n: usize,
    max: usize,
) -> Vec<(std::path::PathBuf, std::ops::Range<usize>)> {
    let stem = index.file_stem().unwrap_or_default().to_string_lossy();
    (0..n.div_ceil(max.max(1)))
        .map(|i| {
            let path = index.with_file_name(format!("{stem}-{}.xml", i + 1));
            (path, i * max..n.min((i + 1) * max))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    #[test]
    fn parts_sit_beside_the_index_and_cover_every_url_once() {
        let parts = super::parts(Path::new("/out/sitemap.xml"), 5, 2);
        let want = [
            (PathBuf::from("/out/sitemap-1.xml"), 0..2),
            (PathBuf::from("/out/sitemap-2.xml"), 2..4),
            (PathBuf::from("/out/sitemap-3.xml"), 4..5),
        ];
        assert_eq!(parts, want);
        assert_eq!(super::parts(Path::new("s.xml"), 4, 2).len(), 2);
    }
}

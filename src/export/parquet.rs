//! Parquet for the engines a crawl outgrows into (Spark, DuckDB, Athena,
//! BigQuery): one row per fetched URL, a redirect included, with Common
//! Crawl's columnar-index column names, then crawlscope's own. With a
//! WARC written alongside (`--warc`), each row names the response record
//! holding its exchange, as Common Crawl's rows do.

use std::io::Write;

use super::parquet_rows::{Cell, GroupLimits, Kind, ParquetRows};
use super::surt::surt_of_url;
use super::warc::{payload_digest, Span, WarcCounts, WarcWriter};
use super::{each_url, ExportError};
use crate::report::indexability::{classify, is_html, Facts};
use crate::report::link_depth::LinkDepths;
use crate::report::links::latest_link_scores;
use crate::store::prelude::*;
use crate::store::{MimeRecord, PageId, PageRecord, Reader, StoreError, UrlState};

/// The columns, in order (docs/CLI.md, export).
pub const COLUMNS: [(&str, Kind); 22] = [
    ("url", Kind::Text),
    ("url_surtkey", Kind::Text),
    ("url_host_name", Kind::Text),
    ("url_protocol", Kind::Text),
    ("url_port", Kind::Int32),
    ("url_path", Kind::Text),
    ("url_query", Kind::Text),
    ("fetch_time", Kind::TimestampMillis),
    ("fetch_status", Kind::Int16),
    ("fetch_redirect", Kind::Text),
    ("content_digest", Kind::Text),
    ("content_mime_type", Kind::Text),
    ("content_charset", Kind::Text),
    ("content_truncated", Kind::Text),
    ("warc_filename", Kind::Text),
    ("warc_record_offset", Kind::Int64),
    ("warc_record_length", Kind::Int64),
    ("title", Kind::Text),
    ("depth", Kind::Int32),
    ("inlinks", Kind::Int32),
    ("link_score", Kind::Double),
    ("indexability", Kind::Text),
];

/// The WARC written beside the rows, and the file name the rows give it.
pub struct WarcBeside<V: Write> {
    pub warc: WarcWriter<V>,
    pub filename: String,
}

/// Writes the rows to `w` (and every fetched page's exchange to `warc`,
/// when given); what went into the WARC.
pub fn write<W: Write + Send, V: Write>(
    r: &Reader<'_>,
    w: W,
    mut warc: Option<WarcBeside<V>>,
) -> Result<Option<WarcCounts>, ExportError> {
    let mut rows = ParquetRows::new(w, &COLUMNS, GroupLimits::default()).map_err(output)?;
    let depths = LinkDepths::latest(r)?;
    let scores = latest_link_scores(r)?;
    each_url(r, |id, url| {
        let state = r.url_state(id)?.map(UrlState::known);
        let page = r.page(id)?;
        let mime = match &page {
            Some(p) => r.mime(p.mime)?,
            None => None,
        };
        let indexability = match &state {
            Some(state) => classify(Facts {
                state,
                page: page.as_ref(),
                is_html: |_: &PageRecord| Ok::<_, StoreError>(is_html(mime.as_ref())),
                own_url: || Ok(url.to_string()),
            })?,
            None => None,
        };
        let mut row = match (page, &state) {
            (Some(page), _) => {
                let body = r.body(id)?.unwrap_or_default();
                let mut row = Row::of_url(r, id, url)?;
                if let Some(beside) = &mut warc {
                    if let Some(span) = beside.warc.page(r, id, url, &page, &body)? {
                        row.in_warc(&beside.filename, span);
                    }
                }
                row.fetched(page, mime, &body);
                row
            }
            (None, Some(UrlState::Redirected { to, status, .. })) => {
                let mut row = Row::of_url(r, id, url)?;
                row.status = Some(i32::from(*status));
                row.redirect = r.url_of(*to)?;
                row
            }
            _ => return Ok(()),
        };
        row.depth = depths.of(id).and_then(|d| i32::try_from(d).ok());
        row.link_score = scores.get(&id).copied();
        row.indexability = indexability.map(|i| i.as_str().to_string());
        rows.push(row.cells()).map_err(output)
    })?;
    rows.finish().map_err(output)?;
    Ok(warc.map(|b| b.warc.counts()))
}

/// One row, named; [`Row::cells`] puts it in [`COLUMNS`]' order.
#[derive(Default)]
struct Row {
    url: Option<String>,
    surt: Option<String>,
    host: Option<String>,
    protocol: Option<String>,
    port: Option<i32>,
    path: Option<String>,
    query: Option<String>,
    fetch_time: Option<i64>,
    status: Option<i32>,
    redirect: Option<String>,
    digest: Option<String>,
    mime: Option<String>,
    charset: Option<String>,
    truncated: Option<String>,
    warc_filename: Option<String>,
    warc_offset: Option<i64>,
    warc_length: Option<i64>,
    title: Option<String>,
    depth: Option<i32>,
    inlinks: Option<i32>,
    link_score: Option<f64>,
    indexability: Option<String>,
}

impl Row {
    fn cells(self) -> [Cell; 22] {
        [
            Cell::Text(self.url),
            Cell::Text(self.surt),
            Cell::Text(self.host),
            Cell::Text(self.protocol),
            Cell::Int(self.port),
            Cell::Text(self.path),
            Cell::Text(self.query),
            Cell::Long(self.fetch_time),
            Cell::Int(self.status),
            Cell::Text(self.redirect),
            Cell::Text(self.digest),
            Cell::Text(self.mime),
            Cell::Text(self.charset),
            Cell::Text(self.truncated),
            Cell::Text(self.warc_filename),
            Cell::Long(self.warc_offset),
            Cell::Long(self.warc_length),
            Cell::Text(self.title),
            Cell::Int(self.depth),
            Cell::Int(self.inlinks),
            Cell::Double(self.link_score),
            Cell::Text(self.indexability),
        ]
    }
}

impl Row {
    /// The URL's own columns (and its inlinks, which any fetched URL has).
    fn of_url(r: &Reader<'_>, id: PageId, url: &str) -> Result<Row, ExportError> {
        let mut row = Row {
            url: Some(url.to_string()),
            surt: surt_of_url(url),
            inlinks: i32::try_from(r.inlinks(id)?.len()).ok(),
            ..Row::default()
        };
        if let Ok(u) = url::Url::parse(url) {
            row.host = u.host_str().map(str::to_string);
            row.protocol = Some(u.scheme().to_string());
            // Null for the scheme's default port, as Common Crawl writes it.
            row.port = u.port().map(i32::from);
            row.path = Some(u.path().to_string());
            row.query = u.query().map(str::to_string);
        }
        Ok(row)
    }

    /// What the fetch of a page found; `body` as stored (and as the WARC
    /// holds it).
    fn fetched(&mut self, page: PageRecord, mime: Option<MimeRecord>, body: &[u8]) {
        self.fetch_time = Some(page.fetched_at.saturating_mul(1000));
        self.status = Some(i32::from(page.status));
        self.digest = Some(payload_digest(body));
        self.charset = mime.as_ref().and_then(|m| {
            m.params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("charset"))
                .map(|(_, v)| v.clone())
        });
        self.mime = mime.map(|m| m.essence);
        self.truncated = page.truncated.then(|| "length".to_string());
        self.title = page.title;
    }

    /// Where the page's response record is in the WARC written beside.
    fn in_warc(&mut self, filename: &str, span: Span) {
        self.warc_filename = Some(filename.to_string());
        self.warc_offset = i64::try_from(span.offset).ok();
        self.warc_length = i64::try_from(span.length).ok();
    }
}

/// The Parquet writer's errors are the sink's (or a bug in the rows);
/// either way the file could not be written.
fn output(e: parquet::errors::ParquetError) -> ExportError {
    ExportError::Output(e.into())
}

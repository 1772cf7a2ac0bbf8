//! `export`: every fetched page, in page id order, to stdout or `--out
//! FILE`, as the classic `spider_result.txt` text layout or as JSON lines
//! (one `page --json` object a line).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use super::args::ExportFormat;
use super::page::{keyword_line, keywords_json, page_json, rfc3339, urls, PAGE_KEYWORDS};
use super::{CliError, CliResult};
use crate::store::prelude::*;
use crate::store::{PageId, PageRecord, Reader, Store};

/// Keywords and child links listed per page in the spider-result layout.
const SPIDER_KEYWORDS: usize = 10;
const SPIDER_CHILDREN: usize = 10;
/// The line between pages in the spider-result layout.
pub(super) const SEPARATOR: &str =
    "-------------------------------------------------------------------------------";

pub fn run(store: &Store, format: ExportFormat, out: Option<PathBuf>) -> CliResult {
    let sink: Box<dyn Write> = match &out {
        Some(path) => Box::new(File::create(path).map_err(|source| CliError::Write {
            path: path.clone(),
            source,
        })?),
        None => Box::new(io::stdout().lock()),
    };
    let mut w = BufWriter::new(sink);
    let r = store.read()?;
    let mut failure: Option<CliError> = None;
    r.for_each_page(|id, record| {
        let written = match format {
            ExportFormat::SpiderResult => spider_result(&r, &mut w, id, &record),
            ExportFormat::Jsonl => jsonl(&r, &mut w, id),
        };
        match written {
            Ok(()) => Ok(true),
            Err(e) => {
                failure = Some(e);
                Ok(false)
            }
        }
    })?;
    let result = match failure {
        Some(e) => Err(e),
        None => w.flush().map_err(CliError::from),
    };
    match (result, &out) {
        (Err(CliError::Output(source)), Some(path)) => Err(CliError::Write {
            path: path.clone(),
            source,
        }),
        (other, _) => other,
    }
}

/// One page as the spider-result block: title, URL, "last modified, size",
/// "kw freq; ..." (up to 10), up to 10 child URLs, then a line of dashes.
fn spider_result(r: &Reader<'_>, w: &mut impl Write, id: PageId, record: &PageRecord) -> CliResult {
    let Some(url) = r.url_of(id)? else {
        return Ok(());
    };
    let children = r.children(id)?;
    let children = urls(r, &children[..children.len().min(SPIDER_CHILDREN)])?;
    writeln!(w, "{}", record.title.as_deref().unwrap_or("(no title)"))?;
    writeln!(w, "{url}")?;
    writeln!(
        w,
        "{}, {} bytes",
        rfc3339(record.last_modified),
        record.size
    )?;
    writeln!(
        w,
        "{}",
        keyword_line(&keywords_json(r, id, SPIDER_KEYWORDS)?)
    )?;
    for c in &children {
        writeln!(w, "{c}")?;
    }
    writeln!(w, "{SEPARATOR}")?;
    Ok(())
}

fn jsonl(r: &Reader<'_>, w: &mut impl Write, id: PageId) -> CliResult {
    let Some(url) = r.url_of(id)? else {
        return Ok(());
    };
    let p = page_json(r, id, url, PAGE_KEYWORDS)?;
    serde_json::to_writer(&mut *w, &p).map_err(io::Error::from)?;
    writeln!(w)?;
    Ok(())
}

//! The classic `spider_result.txt` layout: per page its title, URL, "last
//! modified, size", up to 10 "keyword freq" pairs and up to 10 child URLs,
//! then a line of dashes. The keywords are the page's own words as it
//! writes them ([`super::own_words`]).

use std::io::Write;

use super::own_words::{form_analyzer, keywords_as_written};
use super::page::{keyword_line, urls, UNTITLED};
use super::{each_page, ExportResult};
use crate::store::prelude::*;
use crate::store::Reader;
use crate::time::rfc3339;

/// Keywords and child links listed per page.
const SPIDER_KEYWORDS: usize = 10;
const SPIDER_CHILDREN: usize = 10;
/// The line between pages.
pub const SEPARATOR: &str =
    "-------------------------------------------------------------------------------";

pub fn write(r: &Reader<'_>, w: &mut impl Write) -> ExportResult {
    let forms = form_analyzer();
    each_page(r, |id, record| {
        let Some(url) = r.url_of(id)? else {
            return Ok(());
        };
        let children = r.children(id)?;
        let children = urls(r, &children[..children.len().min(SPIDER_CHILDREN)])?;
        writeln!(w, "{}", record.title.as_deref().unwrap_or(UNTITLED))?;
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
            keyword_line(&keywords_as_written(r, id, SPIDER_KEYWORDS, &forms)?)
        )?;
        for c in &children {
            writeln!(w, "{c}")?;
        }
        writeln!(w, "{SEPARATOR}")?;
        Ok(())
    })
}

//! JSON lines: one `page --json` object a line, every fetched page.

use std::io::{self, Write};

use super::page::{page_json, PAGE_KEYWORDS};
use super::{each_page, ExportResult};
use crate::report::links::latest_link_scores;
use crate::store::prelude::*;
use crate::store::Reader;

pub fn write(r: &Reader<'_>, w: &mut impl Write) -> ExportResult {
    let scores = latest_link_scores(r)?;
    let docs = crate::documents::Membership::new(r)?;
    let inlinks = super::inlinks::Inlinks::read(r)?;
    let depths = crate::report::link_depth::LinkDepths::latest(r)?;
    each_page(r, |id, _| {
        let Some(url) = r.url_of(id)? else {
            return Ok(());
        };
        let mut p = page_json(r, id, url, PAGE_KEYWORDS, usize::MAX, &inlinks, &depths)?;
        p.link_score = scores.get(&id).copied();
        p.docs = docs.of(&p.url);
        serde_json::to_writer(&mut *w, &p).map_err(io::Error::from)?;
        writeln!(w)?;
        Ok(())
    })
}

//! `export --format links`: every link occurrence of every fetched page,
//! one CSV row each in page order (Screaming Frog's "All Inlinks"): where
//! it is, where it points, its anchor text, its rel (`nofollow` is the one
//! the store keeps), the element it is written in, its position on the
//! page and fragment, which occurrence of that target it is, and what the
//! crawl found of its target ([`super::target`]); then a row per resource
//! (`img`, `script`, ...) with its check. Streamed page by page, in page
//! id order.

use std::io::Write;

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::csv::csv_error;
use super::target::{resource, target, Target};
use super::{each_page, ExportResult};
use crate::store::prelude::*;
use crate::store::{PageId, Reader};

/// The columns, in order (docs/CLI.md, export).
pub const COLUMNS: [&str; 11] = [
    "source",
    "target",
    "anchor",
    "rel",
    "element",
    "nofollow",
    "target_status",
    "target_state",
    "position",
    "fragment",
    "occurrence",
];

pub fn write(r: &Reader<'_>, w: &mut impl Write) -> ExportResult {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(COLUMNS).map_err(csv_error)?;
    each_page(r, |id, _| {
        let Some(source) = r.url_of(id)? else {
            return Ok(());
        };
        let mut nth: FxHashMap<PageId, u32> = FxHashMap::default();
        let mut targets: FxHashMap<PageId, Option<(String, Target)>> = FxHashMap::default();
        for link in r.occurrences(id)? {
            let known = match targets.entry(link.child) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(match r.url_of(link.child)? {
                    Some(url) => Some((url, target(r, link.child)?)),
                    None => None,
                }),
            };
            let Some((url, facts)) = known else {
                continue;
            };
            let n = nth.entry(link.child).or_default();
            *n += 1;
            let row = [
                source.as_str(),
                url,
                &link.anchor,
                &link.rel.to_string(),
                link.element.as_str(),
                if link.rel.nofollow() { "true" } else { "false" },
                &opt(facts.status),
                &facts.state,
                link.position.as_str(),
                link.fragment.as_deref().unwrap_or(""),
                &n.to_string(),
            ];
            out.write_record(row).map_err(csv_error)?;
        }
        // What the page loads: a row per resource, its element named, an
        // image's alt as its anchor, what its check answered.
        for res in r
            .resources(id)?
            .into_iter()
            .filter(|l| !l.element.is_target())
        {
            let Some(url) = r.url_of(res.target)? else {
                continue;
            };
            let facts = resource(r.resource_check(res.target)?.as_ref());
            let n = nth.entry(res.target).or_default();
            *n += 1;
            let row = [
                source.as_str(),
                &url,
                res.alt.as_deref().unwrap_or(""),
                "",
                res.element.as_str(),
                "false",
                &opt(facts.status),
                &facts.state,
                "",
                "",
                &n.to_string(),
            ];
            out.write_record(row).map_err(csv_error)?;
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

fn opt(v: Option<u16>) -> String {
    v.map(|s| s.to_string()).unwrap_or_default()
}

//! `check` of the pages' own records: every page record with its forward
//! record and parts, each frame's dictionary held, and the id maps
//! (URLs, origins, mimetypes, stems) agreeing both ways.

use crate::codec::split_meta_part;
use crate::codec::{read_u32, split_pair_key, split_triple_key, u32_key};
use crate::dictionary::Kind;
use crate::inverted::{stem_index, stems};
use crate::page_records::{self, Part};
use crate::schema::Db;
use crate::sealed::View;
use crate::{PageRead, Result, WordRead};

use super::{missing_dictionary, Problems};

/// Every stored body reads back as the bytes fetched: its hash is the
/// page record's `content_hash` (a flipped byte in a body, or in the
/// shared frame holding it, is named here, not served by `body`).
pub(super) fn check_bodies<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    v.for_each_page(|page, rec| {
        match v.body(page) {
            Ok(Some(body)) if xxhash_rust::xxh3::xxh3_64(&body) != rec.content_hash => p.add(
                format!("page {page}: stored body is not the one fetched (its hash differs)"),
            ),
            Ok(_) => {}
            Err(e) => p.add(format!("page {page}: stored body does not read back: {e}")),
        }
        Ok(true)
    })
}

/// Every page record has its forward record (both are written and removed
/// together); bodies, meta tags, HTTP heads, robots records, origin
/// figures, sitemap sources, audit and render records belong to something.
pub(super) fn check_pages<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    check_page_records(v, p)?;
    without_page(
        v,
        [
            (d.page_audit, "audit record"),
            (d.page_custom, "custom record"),
            (d.render_facts, "render record"),
        ],
        p,
    )?;
    check_bodies_placed(v, p)?;
    check_forward_parts(v, p)?;
    check_by_origin(v, p)?;
    check_by_url(v, p)?;
    // Written with the page and removed with it.
    without_page(
        v,
        [
            (d.near_signatures, "near signature"),
            (d.text_errors, "text error"),
            (d.fragments, "fragment record"),
        ],
        p,
    )
}

/// Each page record's dictionary held and its forward record there, and
/// each page's placement with a page record.
fn check_page_records<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for item in d.pages.iter(t)? {
        let (k, record) = item?;
        let page = read_u32(k)?;
        if let Some(id) = missing_dictionary(v, Kind::Record, record)? {
            p.add(format!(
                "page {page}: page record names zstd dictionary {id}, which the store does not hold"
            ));
        }
        if page_records::get(v, Part::Forward, page)?.is_none() {
            p.add(format!("page {page}: page record without a forward index"));
        }
    }
    for item in d.page_segments.iter(t)? {
        let (k, _) = item?;
        let page = read_u32(k)?;
        if d.pages.get(t, k)?.is_none() {
            p.add(format!("page {page}: records placed without a page record"));
        }
    }
    Ok(())
}

/// Each record of `tables` (keyed by page) with a page record.
fn without_page<V: View + ?Sized>(v: &V, tables: [(Db, &str); 3], p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for (db, what) in tables {
        for item in db.iter(t)? {
            let (k, _) = item?;
            if d.pages.get(t, k)?.is_none() {
                p.add(format!(
                    "page {}: {what} without a page record",
                    read_u32(k)?
                ));
            }
        }
    }
    Ok(())
}

/// Each body chunk's dictionary held, and the body of a page with a
/// record, in the segment its forward record names.
fn check_bodies_placed<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for item in d.bodies.iter(t)? {
        let (key, chunk) = item?;
        let (segment, page, n) = split_triple_key(key)?;
        // A body's frame header is in its first chunk.
        let missing = match n {
            0 => missing_dictionary(v, Kind::Body, chunk)?,
            _ => None,
        };
        if let Some(id) = missing {
            p.add(format!(
                "page {page}: body names zstd dictionary {id}, which the store does not hold"
            ));
        }
        if d.pages.get(t, &u32_key(page))?.is_none() {
            p.add(format!("page {page}: body without a page record"));
        } else if let Some(indexed_in) = page_records::segment_of(v, page)? {
            if indexed_in != segment {
                p.add(format!(
                    "page {page}: body in segment {segment}, forward says {indexed_in}"
                ));
            }
        }
    }
    Ok(())
}

/// The meta tags' and HTTP heads' dictionaries held, and the tables that
/// became forward parts empty.
fn check_forward_parts<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for item in d.forward.iter(t)? {
        let (k, record) = item?;
        let page = split_pair_key(k)?.1;
        for (part, what, kind) in [
            (Part::Meta, "meta tags", Kind::Meta),
            (Part::Head, "HTTP head", Kind::Head),
        ] {
            let mut value = page_records::part(record, part)?;
            if part == Part::Meta && !value.is_empty() {
                value = split_meta_part(value)?.1;
            }
            if let Some(id) = missing_dictionary(v, kind, value)? {
                p.add(format!(
                    "page {page}: {what} names zstd dictionary {id}, which the store does not hold"
                ));
            }
        }
    }
    Ok(())
}

/// Robots records and origin figures of origins with a record.
fn check_by_origin<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for (db, what) in [(&d.robots, "robots record"), (&d.origin_figures, "figures")] {
        for item in db.iter(t)? {
            let (k, _) = item?;
            // Figures are keyed by origin and run: the origin leads.
            let origin = k.get(..4).unwrap_or(k);
            if d.origins.get(t, origin)?.is_none() {
                p.add(format!(
                    "{what} of origin {}, which has no record",
                    read_u32(origin)?
                ));
            }
        }
    }
    Ok(())
}

/// Sitemap sources, external, resource and twin checks of URLs with a
/// record.
fn check_by_url<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for (db, what) in [
        (&d.sitemap_pages, "listed by a sitemap"),
        (&d.sitemap_listings, "listed by a sitemap in a run"),
        (&d.external_checks, "checked as an external link"),
        (&d.page_resources, "holds resource links"),
        (&d.resource_checks, "checked as a resource"),
        (&d.https_twins, "has its https twin checked"),
    ] {
        for item in db.iter(t)? {
            let (k, _) = item?;
            if d.urls.get(t, k)?.is_none() {
                p.add(format!("page {}: {what} but has no URL", read_u32(k)?));
            }
        }
    }
    Ok(())
}

pub(super) fn check_id_maps<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    check_stems(v, p)?;
    for (fwd, back, what) in [
        (&d.origins, &d.origin_ids, "origin"),
        (&d.mimetypes, &d.mime_ids, "mimetype"),
    ] {
        if fwd.len(t)? != back.len(t)? {
            p.add(format!("{what} maps differ in size"));
        }
        for item in back.iter(t)? {
            let (_, id) = item?;
            if fwd.get(t, id)?.is_none() {
                p.add(format!("{what} id {} has no record", read_u32(id)?));
            }
        }
    }
    let mut ids_in_maps = 0u64;
    for item in d.url_ids.iter(t)? {
        let (_, ids) = item?;
        for chunk in ids.chunks_exact(4) {
            ids_in_maps += 1;
            let id = read_u32(chunk)?;
            if d.urls.get(t, &u32_key(id))?.is_none() {
                p.add(format!("URL map names page {id}, which has no URL record"));
            }
        }
    }
    let urls = d.urls.len(t)?;
    if urls != ids_in_maps {
        p.add(format!(
            "{urls} URL records but {ids_in_maps} ids in the URL map"
        ));
    }
    for item in d.urls.iter(t)? {
        let (k, _) = item?;
        let id = read_u32(k)?;
        // A record whose origin is gone cannot spell its URL: a problem
        // to name, not a reason to stop.
        let record = match v.url_record(id) {
            Ok(Some(record)) => record,
            Ok(None) => continue,
            Err(e) => {
                p.add(format!("URL record of page {id}: {e}"));
                continue;
            }
        };
        let url = record.url.clone();
        match url::Url::parse(&url) {
            Ok(u) => {
                if v.page_id(&u).ok().flatten() != Some(id) {
                    p.add(format!("URL {url} does not map back to page {id}"));
                }
                if u.path() != record.path
                    || u.query() != record.query.as_deref()
                    || u.password().is_some()
                    || !u.username().is_empty()
                {
                    p.add(format!(
                        "URL record of page {id}: its parts are not those of {url}"
                    ));
                }
            }
            Err(_) => p.add(format!("page {id}: stored URL does not parse")),
        }
    }
    Ok(())
}

/// Each word in `words` names the `word_ids` record holding its stem,
/// which maps back to its id; each id there has that stem; each record
/// number in `stem_records` names a record of that number.
fn check_stems<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for item in d.stem_records.iter(t)? {
        let (k, key) = item?;
        let n = read_u32(k)?;
        match d.word_ids.get(t, key)? {
            Some(stored) if stem_index::number_of(stem_index::record(v, stored)?)? == n => {}
            _ => p.add(format!("stem record {n} is not where its key says")),
        }
    }
    let mut held = 0u64;
    for item in d.words.iter(t)? {
        let (k, record) = item?;
        stems::each_number(read_u32(k)?, record, |id, n| {
            held += 1;
            match stems::stem(v, id)? {
                None => p.add(format!("word {id}: stem record {n} does not hold it")),
                Some(stem) if stem_index::find(v, &stem)? != Some(id) => {
                    p.add(format!("word {id} does not map back to its id"));
                }
                Some(_) => {}
            }
            Ok(())
        })?;
    }
    let mut mapped = 0u64;
    let mut last: Option<Vec<u8>> = None;
    stem_index::each_from(v, b"", |stem, id| {
        mapped += 1;
        if last.as_deref().is_some_and(|l| l >= stem) {
            p.add(format!("word id {id}: its stem is out of order in the map"));
        }
        last = Some(stem.to_vec());
        if v.word(id)?.as_deref().map(str::as_bytes) != Some(stem) {
            p.add(format!("word id {id} has no record"));
        }
        Ok(true)
    })?;
    if held != mapped {
        p.add(format!(
            "word maps differ in size: {held} stems, {mapped} in the word map"
        ));
    }
    Ok(())
}

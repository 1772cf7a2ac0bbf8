//! `check` of the shared frames a repack writes: every reference into a
//! block (a body's, a page record's and its parts', a stem record's, a
//! count record's, a posting part's) points into a block that is stored, decompresses and
//! holds it. The other steps read records through these references, so
//! `check` stops after this one when it finds a problem here.

use crate::body_blocks::{self, BlockRef, Shelf};
use crate::codec::split_meta_part;
use crate::codec::{read_u32, split_pair_key, split_triple_key};
use crate::page_records::{self, Part};
use crate::sealed::View;
use crate::Result;

use super::Problems;

/// Whether every reference holds (problems added for those that do not).
pub(super) fn check_shelves<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<bool> {
    let d = v.dbs();
    let t = v.txn();
    let mut whole = true;
    let mut holds = |shelf: Shelf, stored: &[u8], what: &dyn Fn() -> String| {
        let found = match shelf {
            Shelf::Bodies => BlockRef::decode(stored, shelf)
                .and_then(|r| r.map(|r| body_blocks::body(v, 0, r)).transpose())
                .map(drop),
            _ => body_blocks::plain(v, shelf, stored).map(drop),
        };
        if let Err(e) = found {
            p.add(format!("{}: {e}", what()));
            whole = false;
        }
    };
    for item in d.bodies.iter(t)? {
        let (k, chunk) = item?;
        let (_, page, n) = split_triple_key(k)?;
        // A reference is a body's only chunk.
        if n == 0 {
            holds(Shelf::Bodies, chunk, &|| format!("page {page}: body"));
        }
    }
    for item in d.pages.iter(t)? {
        let (k, record) = item?;
        let page = read_u32(k)?;
        holds(Shelf::Records, record, &|| {
            format!("page {page}: page record")
        });
    }
    for item in d.forward.iter(t)? {
        let (k, record) = item?;
        let page = split_pair_key(k)?.1;
        let parts = page_records::split(record)?;
        let meta = parts[Part::Meta as usize];
        let meta = match meta.is_empty() {
            true => meta,
            false => split_meta_part(meta)?.1,
        };
        for (part, what) in [
            (parts[Part::Links as usize], "link list"),
            (meta, "meta tags"),
            (parts[Part::Head as usize], "HTTP head"),
        ] {
            holds(Shelf::Records, part, &|| format!("page {page}: {what}"));
        }
    }
    for (db, shelf, what) in [
        (d.word_ids, Shelf::Words, "stem record"),
        (d.doc_freq, Shelf::Counts, "count record"),
        (d.postings, Shelf::Postings, "posting part"),
        (d.large_postings, Shelf::Postings, "posting part"),
    ] {
        for item in db.iter(t)? {
            let (k, record) = item?;
            holds(shelf, record, &|| format!("{what} keyed {k:02x?}"));
        }
    }
    Ok(whole)
}

//! A small store repacked as a crawl leaves it: segments merged into one,
//! every table rewritten without free pages, bodies and page records
//! gathered into shared frames; everything reads back as written, also
//! after a later crawl changed and removed pages and a second repack.

use super::*;
use crate::body_blocks::{BlockRef, Shelf};
use crate::sealed::View;
use crate::types::MetaTag;

/// Page `i`'s body (version `v`): markup every page shares and words of
/// its own, ~8 KB, so that 300 pages fill two blocks.
fn body_of(i: u32, v: u32) -> Vec<u8> {
    let words: Vec<String> = (0..1000)
        .map(|k| format!("w{}x", (i * 7919 + k * 104_729 + v) % 5_000))
        .collect();
    format!(
        "<!doctype html><html><head><title>Page {i}</title><link rel=stylesheet \
         href=/site.css></head><body><nav><a href=/>Home</a> <a href=/about>About</a>\
         </nav><main><h1>Page {i}</h1><p>{}</p></main><footer>The Example \
         Archive</footer></body></html>",
        words.join(" ")
    )
    .into_bytes()
}

/// Crawls `ids` in transactions of 30 pages (version `v` of each body and
/// record), each linking to the next three of `all`; the first 128 of
/// each kind compressed before the crawl's dictionary is trained.
fn crawl(store: &Store, ids: &[PageId], all: &[PageId], v: u32) {
    let dicts = store.dictionaries();
    for batch in ids.chunks(30) {
        store
            .update(|w| {
                for &id in batch {
                    let head = HttpHead {
                        request: vec![("host".into(), "example.com".into())],
                        version: "HTTP/1.1".into(),
                        response: vec![
                            (
                                "date".into(),
                                format!("Fri, 27 Nov 2026 16:{:02}:00 GMT", id % 60),
                            ),
                            ("content-length".into(), format!("{}", 8_000 + id + v)),
                        ],
                    };
                    let mut p = described_page(id, &dicts, &body_of(id, v), head);
                    p.record.size += u64::from(v);
                    p.terms = terms(&["common", &format!("w{id}q"), &format!("v{v}n{id}")]);
                    let at = all.iter().position(|&a| a == id).unwrap_or(0);
                    let links = (1..4).map(|k| all[(at + k) % all.len()]).collect();
                    put(w, id, (p, links))?;
                }
                Ok(())
            })
            .unwrap();
    }
}

/// What a page's records read back as.
type Records = (
    Option<PageRecord>,
    Vec<MetaTag>,
    Option<HttpHead>,
    Vec<OutLink>,
);

fn records_of(store: &Store, ids: &[PageId]) -> Vec<Records> {
    let r = store.read().unwrap();
    ids.iter()
        .map(|&id| {
            (
                r.page(id).unwrap(),
                r.meta_tags(id).unwrap(),
                r.http_head(id).unwrap(),
                r.links(id).unwrap(),
            )
        })
        .collect()
}

/// How many `word_ids` and `doc_freq` records there are, and how many
/// refer to a block.
fn vocabulary_in_blocks(store: &Store) -> [(usize, usize); 2] {
    let r = store.read().unwrap();
    let d = r.dbs();
    [(d.word_ids, Shelf::Words), (d.doc_freq, Shelf::Counts)].map(|(db, shelf)| {
        let mut counts = (0, 0);
        for item in db.iter(r.txn()).unwrap() {
            let shelved = BlockRef::decode(item.unwrap().1, shelf).unwrap();
            counts = (counts.0 + 1, counts.1 + usize::from(shelved.is_some()));
        }
        counts
    })
}

/// The store counts `common` on `n` pages.
fn common_on(store: &Store, n: u32) -> bool {
    let r = store.read().unwrap();
    let id = r.word_id("common").unwrap().unwrap();
    r.doc_freq(id).unwrap() == n
}

/// Page `id` alone holds its version-`v` word.
fn finds_its_word(store: &Store, id: PageId, v: u32) -> bool {
    pages_of(store, &format!("v{v}n{id}")) == [id]
}

/// The records that refer to a record block (page records, and parts of
/// forward records), of the `pages` records, and the bytes they cover
/// against the blocks' bytes.
fn records_in_blocks(store: &Store) -> (usize, usize, usize, usize) {
    let r = store.read().unwrap();
    let reference = |v: &[u8]| BlockRef::decode(v, Shelf::Records).unwrap();
    let (mut referring, mut pages, mut referenced) = (0, 0, 0);
    for item in r.dbs().pages.iter(r.txn()).unwrap() {
        pages += 1;
        if let Some(b) = reference(item.unwrap().1) {
            (referring, referenced) = (referring + 1, referenced + b.len as usize);
        }
    }
    for item in r.dbs().forward.iter(r.txn()).unwrap() {
        let parts = page_records::split(item.unwrap().1).unwrap();
        let meta = (!parts[2].is_empty()).then(|| codec::split_meta_part(parts[2]).unwrap().1);
        for part in [Some(parts[1]), meta, Some(parts[3])].into_iter().flatten() {
            if let Some(b) = reference(part) {
                (referring, referenced) = (referring + 1, referenced + b.len as usize);
            }
        }
    }
    let held = block_sizes(&r, r.dbs().record_blocks).iter().sum();
    (referring, pages, referenced, held)
}

/// The store's blocks decompressed, by number, and the bytes the pages'
/// references cover.
fn blocks_and_referenced(store: &Store) -> (Vec<usize>, usize) {
    let r = store.read().unwrap();
    let sizes = block_sizes(&r, r.dbs().body_blocks);
    let mut referenced = 0;
    for item in r.dbs().bodies.iter(r.txn()).unwrap() {
        let (_, v) = item.unwrap();
        let reference = BlockRef::decode(v, Shelf::Bodies)
            .unwrap()
            .expect("a reference");
        referenced += reference.len as usize;
    }
    (sizes, referenced)
}

#[test]
fn a_repacked_store_reads_back_as_written_and_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let ids = page_ids(&store, 300);
    crawl(&store, &ids, &ids, 0);
    let dictionaries = |s: &Store| {
        let d = s.read().unwrap().compression_dictionaries().unwrap();
        let mut kinds: Vec<&str> = d.iter().map(|(kind, _, _)| *kind).collect();
        kinds.sort_unstable();
        kinds
    };
    assert_eq!(
        dictionaries(&store),
        [
            "HTTP head",
            "body",
            "link list",
            "meta tags record",
            "page record"
        ],
        "the crawl trained a dictionary of each kind"
    );
    let written = records_of(&store, &ids);
    let repacked = store.close_and_repack().unwrap().expect("repacked");
    assert!(
        repacked.after < repacked.before,
        "{} bytes, then {}",
        repacked.before,
        repacked.after
    );
    let store = Store::open(dir.path()).unwrap();
    assert_whole(&store);
    assert_eq!(
        store.read().unwrap().live_segments().unwrap().ids().count(),
        1
    );
    let bodies_are = |store: &Store, expected: &dyn Fn(PageId) -> Option<Vec<u8>>| {
        let r = store.read().unwrap();
        for &id in &ids {
            assert!(
                r.body(id).unwrap() == expected(id),
                "page {id}'s body differs"
            );
        }
    };
    bodies_are(&store, &|id| Some(body_of(id, 0)));
    // 2.5 MB of HTML in two blocks, every byte a page's; every page's
    // four records in record blocks, every byte one's; no dictionary left
    // (no record names one).
    let (blocks, referenced) = blocks_and_referenced(&store);
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks.iter().sum::<usize>(), referenced);
    assert!(records_of(&store, &ids) == written, "records differ");
    let (referring, pages, referenced, held) = records_in_blocks(&store);
    assert_eq!((referring, pages), (4 * 300, 300));
    assert_eq!(referenced, held);
    assert!(
        dictionaries(&store).is_empty(),
        "{:?}",
        dictionaries(&store)
    );
    assert_eq!(pages_of(&store, "common"), ids);
    assert_eq!(pages_of(&store, &format!("w{}q", ids[7])), vec![ids[7]]);
    // Every stem and count record in a block; each found through it.
    for (records, shelved) in vocabulary_in_blocks(&store) {
        assert!(records > 1 && shelved == records, "{shelved} of {records}");
    }
    assert!(common_on(&store, 300));
    assert!(ids.iter().all(|&id| finds_its_word(&store, id, 0)));

    // A later crawl changes a third of the pages (each gets a frame of
    // its own, its old body left in a block) and a page goes.
    crawl(&store, &ids[..100], &ids, 1);
    store.update(|w| w.remove_page(ids[200])).unwrap();
    let changed_records = records_of(&store, &ids);
    for (i, (now, was)) in changed_records.iter().zip(&written).enumerate() {
        match i {
            ..100 => assert!(now != was, "page {i}'s records are the old ones"),
            200 => assert!(now.0.is_none() && now.3.is_empty(), "page {i} not removed"),
            _ => assert!(now == was, "page {i}'s records differ"),
        }
    }
    let changed = |id: PageId| match ids.iter().position(|&p| p == id) {
        Some(200) => None,
        Some(i) if i < 100 => Some(body_of(id, 1)),
        _ => Some(body_of(id, 0)),
    };
    bodies_are(&store, &changed);
    // Its new words went into records that were in blocks, and its
    // counts changed records that were.
    assert!(ids[..100].iter().all(|&id| finds_its_word(&store, id, 1)));
    for (records, shelved) in vocabulary_in_blocks(&store) {
        assert!(shelved < records, "{shelved} of {records}");
    }
    assert!(common_on(&store, 299));
    assert_whole(&store);
    store.close_and_repack().unwrap().expect("repacked again");
    let store = Store::open(dir.path()).unwrap();
    assert_whole(&store);
    bodies_are(&store, &changed);
    assert!(
        records_of(&store, &ids) == changed_records,
        "records differ"
    );
    // The bodies and records no page refers to any more are gone from
    // the blocks.
    let (blocks, referenced) = blocks_and_referenced(&store);
    assert_eq!(blocks.iter().sum::<usize>(), referenced);
    let (referring, pages, referenced, held) = records_in_blocks(&store);
    assert_eq!((referring, pages), (4 * 299, 299));
    assert_eq!(referenced, held);
    assert!(ids[..100].iter().all(|&id| finds_its_word(&store, id, 1)));
    assert!(ids[101..]
        .iter()
        .all(|&id| id == ids[200] || finds_its_word(&store, id, 0)));
    for (records, shelved) in vocabulary_in_blocks(&store) {
        assert_eq!(shelved, records);
    }
    assert!(common_on(&store, 299));
    // A block lost is a problem `check` names, not an error.
    let d = store.read().unwrap().dbs;
    for (table, what) in [
        (d.body_blocks, "body block"),
        (d.record_blocks, "record block"),
        (d.word_blocks, "word block"),
        (d.doc_freq_blocks, "document frequency block"),
    ] {
        let first = {
            let r = store.read().unwrap();
            let (k, v) = table.first(r.txn()).unwrap().expect("a block");
            (k.to_vec(), v.to_vec())
        };
        store
            .update(|w| Ok(table.delete(&mut w.txn, &first.0)?))
            .unwrap();
        assert_problem(&store.read().unwrap(), what);
        store
            .update(|w| Ok(table.put(&mut w.txn, &first.0, &first.1)?))
            .unwrap();
    }
    assert_whole(&store);
}

//! A small store repacked as a crawl leaves it: segments merged into one,
//! every table rewritten without free pages, bodies gathered into shared
//! frames; everything reads back as written, also after a later crawl
//! changed and removed pages and a second repack.

use super::*;
use crate::store::sealed::View;

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

/// Crawls `ids` in transactions of 30 pages (version `v` of each body),
/// the first 128 bodies compressed before the crawl's dictionary is
/// trained.
fn crawl(store: &Store, ids: &[PageId], v: u32) {
    let dicts = store.dictionaries();
    for batch in ids.chunks(30) {
        store
            .update(|w| {
                for &id in batch {
                    let word = format!("w{id}q");
                    let (mut p, links) = page(&["common", &word], &["t"], vec![]);
                    p.compressed_body = dicts.compress(DictionaryKind::Body, &body_of(id, v));
                    put(w, id, (p, links))?;
                }
                Ok(())
            })
            .unwrap();
    }
}

/// The store's blocks decompressed, by number, and the bytes the pages'
/// references cover.
fn blocks_and_referenced(store: &Store) -> (Vec<usize>, usize) {
    let r = store.read().unwrap();
    let mut frames: Vec<Vec<u8>> = Vec::new();
    for item in r.dbs().body_blocks.iter(r.txn()).unwrap() {
        let (k, v) = item.unwrap();
        let block = codec::read_u32(&k[..4]).unwrap() as usize;
        if frames.len() <= block {
            frames.resize(block + 1, Vec::new());
        }
        frames[block].extend_from_slice(v);
    }
    let sizes = frames
        .iter()
        .map(|f| zstd::stream::decode_all(&f[..]).unwrap().len())
        .collect();
    let mut referenced = 0;
    for item in r.dbs().bodies.iter(r.txn()).unwrap() {
        let (_, v) = item.unwrap();
        let reference = body_blocks::BlockRef::decode(v)
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
    crawl(&store, &ids, 0);
    let dictionaries = |s: &Store| {
        let d = s.read().unwrap().compression_dictionaries().unwrap();
        d.iter().filter(|(kind, _, _)| *kind == "body").count()
    };
    assert_eq!(
        dictionaries(&store),
        1,
        "the crawl trained a body dictionary"
    );
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
    // 2.5 MB of HTML in two blocks, every byte a page's; no body
    // dictionary left (no record names one).
    let (blocks, referenced) = blocks_and_referenced(&store);
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks.iter().sum::<usize>(), referenced);
    assert_eq!(dictionaries(&store), 0);
    assert_eq!(pages_of(&store, "common"), ids);
    assert_eq!(pages_of(&store, &format!("w{}q", ids[7])), vec![ids[7]]);

    // A later crawl changes a third of the pages (each gets a frame of
    // its own, its old body left in a block) and a page goes.
    crawl(&store, &ids[..100], 1);
    store.update(|w| w.remove_page(ids[200])).unwrap();
    let changed = |id: PageId| match ids.iter().position(|&p| p == id) {
        Some(200) => None,
        Some(i) if i < 100 => Some(body_of(id, 1)),
        _ => Some(body_of(id, 0)),
    };
    bodies_are(&store, &changed);
    assert_whole(&store);
    store.close_and_repack().unwrap().expect("repacked again");
    let store = Store::open(dir.path()).unwrap();
    assert_whole(&store);
    bodies_are(&store, &changed);
    // The bodies no page refers to any more are gone from the blocks.
    let (blocks, referenced) = blocks_and_referenced(&store);
    assert_eq!(blocks.iter().sum::<usize>(), referenced);
}

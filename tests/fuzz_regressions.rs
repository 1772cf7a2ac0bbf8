//! A corrupt store file read through the public API: each test writes a
//! small store, overwrites records of today's layout with bytes a fuzz
//! target (fuzz/README.md) or a truncated disk could leave, and asserts
//! that opening, reading, searching and `check` answer with an error or a
//! named fault, never a panic, and never reserve more than [`SANE`] bytes.
//!
//! A test binary of its own: its global allocator records every
//! allocation's size, and must not sit under the other integration tests.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use crawlscope::html::MetaTag;
use crawlscope::search;
use crawlscope::store::prelude::*;
use crawlscope::store::{OutLink, PageId, PageRecord, PageWrite, Store, Terms};
use crawlscope::url::Url;
use heed::types::Bytes;
use heed::{Database, EnvOpenOptions, RwTxn};

/// Records the largest allocation each thread asks for: a corrupt record
/// must not make the store reserve gigabytes. (On a machine with enough
/// memory such a reservation succeeds untouched and nothing else fails; on
/// a smaller one the process aborts.)
struct Recording;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: forwards to the system allocator; only records sizes.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Recording = Recording;

/// Reading a few-byte record may allocate this much, no more.
const SANE: usize = 16 << 20;

/// Runs `f`, asserting it allocated at most [`SANE`] bytes at once;
/// `what` names the read in the failure.
fn bounded<R>(what: &str, f: impl FnOnce() -> R) -> R {
    LARGEST.with(|l| l.set(0));
    let r = f();
    let largest = LARGEST.with(Cell::get);
    assert!(
        largest <= SANE,
        "{what} over a corrupt record allocated {largest} bytes"
    );
    r
}

/// A varint claiming 3 GiB: a length or count no record of a few bytes
/// can hold.
const GIGABYTES: [u8; 5] = [0x80, 0x80, 0x80, 0x80, 0x0c];

/// Pages "harbor light" writes, each linking to the next, with a title, a
/// meta tag and enough words that a repack's record blocks come out
/// smaller than the records.
const PAGES: u32 = 8;

/// A store of [`PAGES`] indexed pages; their ids, ascending.
fn store_with_pages(dir: &Path) -> (Store, Vec<PageId>) {
    let store = Store::open(dir).expect("open store");
    let ids = store
        .update(|w| {
            let ids = (0..PAGES)
                .map(|i| w.page_id_for(&Url::parse(&format!("https://example.com/{i}")).unwrap()))
                .collect::<Result<Vec<_>, _>>()?;
            for (i, &id) in ids.iter().enumerate() {
                let write = PageWrite {
                    record: PageRecord {
                        title: Some(format!("Harbor {i}")),
                        status: 200,
                        ..PageRecord::default()
                    },
                    content_type: "text/html".into(),
                    meta: vec![MetaTag {
                        attr: "name".into(),
                        name: "keywords".into(),
                        content: "harbor, light, boats, winter nets".into(),
                    }],
                    terms: Terms::from_pairs([("harbor", 0), ("light", 1), ("boat", 2)]),
                    title_terms: Terms::from_pairs([("harbor", 0)]),
                    ..PageWrite::default()
                };
                let next = OutLink {
                    child: ids[(i + 1) % ids.len()],
                    anchor: "the next harbor".into(),
                    ..OutLink::default()
                };
                w.put_page(id, &write, &[next])?;
            }
            Ok(ids)
        })
        .expect("write pages");
    (store, ids)
}

/// Runs `write` on `table` in a write transaction of the store's own
/// LMDB environment, committed: what a corrupt store file looks like. The
/// store stays open: heed hands back its environment.
fn write_raw(dir: &Path, table: &str, write: impl FnOnce(Database<Bytes, Bytes>, &mut RwTxn)) {
    // heed keeps one environment per path: this is the open store's own
    // (returned as BadOpenOptions when the options differ from the store's).
    // SAFETY: no second LMDB environment is opened on the path.
    let env = match unsafe { EnvOpenOptions::new().open(dir) } {
        Ok(env) => env,
        Err(heed::Error::BadOpenOptions { env, .. }) => env,
        Err(e) => panic!("store environment: {e}"),
    };
    let mut wtxn = env.write_txn().unwrap();
    let db = env
        .open_database(&wtxn, Some(table))
        .unwrap()
        .unwrap_or_else(|| panic!("no table {table}"));
    write(db, &mut wtxn);
    wtxn.commit().unwrap();
}

/// Overwrites the records of `table` that `change` gives a new value.
fn corrupt(dir: &Path, table: &str, change: impl Fn(&[u8], &[u8]) -> Option<Vec<u8>>) {
    write_raw(dir, table, |db, wtxn| {
        let changed: Vec<(Vec<u8>, Vec<u8>)> = db
            .iter(wtxn)
            .unwrap()
            .filter_map(|kv| {
                let (k, v) = kv.unwrap();
                change(k, v).map(|v| (k.to_vec(), v))
            })
            .collect();
        assert!(!changed.is_empty(), "no {table} record to corrupt");
        for (k, v) in changed {
            db.put(wtxn, &k, &v).unwrap();
        }
    });
}

/// `check` on the store lists at least one fault, and its reads stay
/// bounded.
fn check_names_a_fault(store: &Store, what: &str) {
    let r = store.read().unwrap();
    let faults = bounded("check", || r.check(&|_| false));
    match faults {
        Ok(faults) => assert!(!faults.is_empty(), "check found {what} whole"),
        Err(e) => assert!(!e.to_string().is_empty(), "check of {what}"),
    }
}

/// Found by `store_records` (a put into `postings` over a part): a run
/// whose first entry claims tf = 3 Gi positions in 2 bytes. `Entry::positions`
/// reserves `tf` u32s before reading one (12 GiB here), so the run's
/// reader must refuse a count the record cannot hold, as it does.
#[test]
fn an_absurd_posting_tf_is_an_error_not_a_huge_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let (store, ids) = store_with_pages(dir.path());
    let page = ids[0];
    // A part under `segment ‖ word ‖ page` is one run of the key's word:
    // head `length << 1` and word delta 0, then the run's weight class
    // byte, its first entry `page << 1 | several`, tf, two bytes.
    let mut run = vec![0xff];
    run.push(u8::try_from(page << 1 | 1).expect("a small page id"));
    run.extend(GIGABYTES);
    run.extend([0xb1, 0x01]);
    let mut part = vec![u8::try_from(run.len() << 1).unwrap(), 0];
    part.extend(&run);
    // The words whose runs the parts began with.
    let words = std::cell::RefCell::new(Vec::new());
    corrupt(dir.path(), "postings", |k, _| {
        let first_word = u32::from_be_bytes(k[4..8].try_into().unwrap());
        let first_page = &k[8..12];
        (first_page == page.to_be_bytes()).then(|| {
            words.borrow_mut().push(first_word);
            part.clone()
        })
    });

    let r = store.read().unwrap();
    for w in words.into_inner() {
        let got = bounded("postings()", || r.postings(w));
        assert!(got.is_err(), "positions read from 2 bytes: {got:?}");
        let got = bounded("posting()", || r.posting(w, page));
        assert!(got.is_err(), "positions read from 2 bytes: {got:?}");
    }
    // A phrase reads positions; ranking reads the tf alone.
    let _ = bounded("a phrase search", || {
        search::search(&r, "\"harbor light\"", 10)
    });
    let _ = bounded("a search", || search::search(&r, "harbor", 10));
    drop(r);
    check_names_a_fault(&store, "a posting of 3 Gi positions");
}

/// A page's `forward` record (its forward index, links, meta tags and
/// head as `varint length, part` each) whose first length claims 3 GiB:
/// every read of the page's records is an error, never a slice past the
/// record or a reservation of the claimed length.
#[test]
fn a_forward_record_claiming_gigabytes_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (store, ids) = store_with_pages(dir.path());
    let page = ids[1];
    let mut record = GIGABYTES.to_vec();
    record.extend(b"harbor");
    // Keyed `segment ‖ page`.
    corrupt(dir.path(), "forward", |k, _| {
        (k[4..8] == page.to_be_bytes()).then(|| record.clone())
    });

    let r = store.read().unwrap();
    let got = bounded("forward()", || r.forward(page));
    assert!(got.is_err(), "a forward index from 8 bytes: {got:?}");
    let got = bounded("links()", || r.links(page));
    assert!(got.is_err(), "links from 8 bytes: {got:?}");
    let got = bounded("meta_tags()", || r.meta_tags(page));
    assert!(got.is_err(), "meta tags from 8 bytes: {got:?}");
    let _ = bounded("children()", || r.children(page));
    let _ = bounded("a search", || search::search(&r, "harbor light", 10));
    drop(r);
    check_names_a_fault(&store, "a forward record claiming 3 GiB");
}

/// The store as a crawl leaves it, repacked: page records in shared zstd
/// frames (`record_blocks`); the store open again.
fn repacked_store(dir: &Path) -> (Store, Vec<PageId>) {
    let (store, ids) = store_with_pages(dir);
    store
        .close_and_repack()
        .expect("repack")
        .expect("the small store is repacked");
    let store = Store::open(dir).expect("open the repacked store");
    let before = store.read().unwrap().page(ids[0]).unwrap();
    assert!(before.is_some(), "the repacked store reads its pages");
    (store, ids)
}

/// A record block whose zstd frame says it decompresses to 3 GiB: reading
/// a page record from it is an error before anything that size is
/// reserved (a block holds 256 KiB of records).
#[test]
fn a_record_block_claiming_gigabytes_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (store, ids) = repacked_store(dir.path());
    // A zstd frame header: magic, a descriptor for a single segment with
    // an 8-byte content size, the size; then a truncated block.
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    frame.extend((3u64 << 30).to_le_bytes());
    frame.extend([0x01, 0x00, 0x00]);
    corrupt(dir.path(), "record_blocks", |_, _| Some(frame.clone()));

    let r = store.read().unwrap();
    for &page in &ids {
        let got = bounded("page()", || r.page(page));
        assert!(
            got.is_err(),
            "page {page} read from a broken block: {got:?}"
        );
        let _ = bounded("links()", || r.links(page));
        let _ = bounded("meta_tags()", || r.meta_tags(page));
    }
    let _ = bounded("a search", || search::search(&r, "harbor", 10));
    drop(r);
    check_names_a_fault(&store, "a record block claiming 3 GiB");
}

/// A `record_blocks` key naming block 2^32 - 2: a reader sizes its table
/// of decompressed blocks by the last key's block number, and must not
/// reserve a slot for each of four billion blocks that are not there.
#[test]
fn a_record_block_numbered_in_the_billions_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (store, ids) = repacked_store(dir.path());
    write_raw(dir.path(), "record_blocks", |db, wtxn| {
        let key = [(u32::MAX - 1).to_be_bytes(), [0; 4], [0; 4]].concat();
        db.put(wtxn, &key, b"x").unwrap();
    });
    let r = store.read().unwrap();
    for &page in &ids {
        let got = bounded("page()", || r.page(page));
        assert!(
            got.is_err(),
            "page {page} read beside block 2^32 - 2: {got:?}"
        );
    }
    drop(r);
    check_names_a_fault(&store, "a record block numbered 2^32 - 2");
}

//! Inputs the fuzz targets (fuzz/README.md) found to crash the
//! library, minimised, each replayed through the public API by the test
//! named after what must hold. They fail until the bug they record is fixed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use crawlscope::search;
use crawlscope::store::prelude::*;
use crawlscope::store::{PageId, PageRecord, PageWrite, Store, Terms, WordId};
use crawlscope::url::Url;
use heed::types::Bytes;
use heed::{Database, EnvOpenOptions};

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

/// What `f` returns and the largest allocation it made on this thread.
fn largest_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LARGEST.with(|l| l.set(0));
    let r = f();
    (r, LARGEST.with(Cell::get))
}

/// Reading a few-byte record may allocate this much, no more.
const SANE: usize = 16 << 20;

/// A store with one indexed page ("harbor light"); the ids of its page and
/// of the word "harbor".
fn store_with_a_page(dir: &Path) -> (Store, PageId, WordId) {
    let store = Store::open(dir).expect("open store");
    let url = Url::parse("https://example.com/").unwrap();
    let page = store
        .update(|w| {
            let id = w.page_id_for(&url)?;
            let write = PageWrite {
                record: PageRecord {
                    title: Some("Harbor".into()),
                    status: 200,
                    ..PageRecord::default()
                },
                content_type: "text/html".into(),
                terms: Terms::from_pairs([("harbor", 0), ("light", 1)]),
                title_terms: Terms::from_pairs([("harbor", 0)]),
                ..PageWrite::default()
            };
            w.put_page(id, &write, &[])?;
            Ok(id)
        })
        .expect("write page");
    let word = store
        .read()
        .unwrap()
        .word_id("harbor")
        .unwrap()
        .expect("harbor indexed");
    (store, page, word)
}

/// Overwrites every record of `table` whose key starts with `prefix` with
/// `value`, through LMDB directly: what a corrupt store file looks like.
fn corrupt(dir: &Path, table: &str, prefix: &[u8], value: &[u8]) {
    // heed keeps one environment per path: this is the open store's own
    // (returned as BadOpenOptions when the options differ from the store's).
    // SAFETY: no second LMDB environment is opened on the path.
    let env = match unsafe { EnvOpenOptions::new().open(dir) } {
        Ok(env) => env,
        Err(heed::Error::BadOpenOptions { env, .. }) => env,
        Err(e) => panic!("store environment: {e}"),
    };
    let mut wtxn = env.write_txn().unwrap();
    let db: Database<Bytes, Bytes> = env
        .open_database(&wtxn, Some(table))
        .unwrap()
        .unwrap_or_else(|| panic!("no table {table}"));
    let keys: Vec<Vec<u8>> = db
        .prefix_iter(&wtxn, prefix)
        .unwrap()
        .map(|kv| kv.unwrap().0.to_vec())
        .collect();
    assert!(!keys.is_empty(), "no {table} record under {prefix:02x?}");
    for k in keys {
        db.put(&mut wtxn, &k, value).unwrap();
    }
    wtxn.commit().unwrap();
}

/// Found by `store_records` (input 40 01 2c 2c 00 de fa ae b1 02 02 b1 b1:
/// a put into `postings`, over the block of a word, of the 9 bytes below).
/// A posting part's entry claims tf = 640,000,000 positions in 2 bytes, and
/// `Entry::positions` (src/store/postings.rs) reserves `tf` u32s before
/// reading any: 2.5 GB here, 16 GiB for tf = u32::MAX, which aborts the
/// process where memory is short, instead of the `Corrupt` error a
/// truncated record gets everywhere else (`read_positions` checks the count
/// against the bytes left).
#[test]
fn an_absurd_posting_tf_is_an_error_not_a_huge_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let (store, page, word) = store_with_a_page(dir.path());
    // page delta, tf (varint 640,000,000), byte length 2, two bytes.
    let entry = |page: u8| [page, 0xde, 0xfa, 0xae, 0xb1, 0x02, 0x02, 0xb1, 0xb1];
    let page_byte = u8::try_from(page).expect("a small page id");

    corrupt(dir.path(), "postings", &word.to_be_bytes(), &entry(0x00));
    let r = store.read().unwrap();
    let (got, largest) = largest_allocation(|| r.postings(word));
    assert!(got.is_err(), "positions read from 2 bytes: {got:?}");
    assert!(
        largest <= SANE,
        "postings() of a 9-byte record allocated {largest} bytes"
    );
    drop(r);

    corrupt(
        dir.path(),
        "postings",
        &word.to_be_bytes(),
        &entry(page_byte),
    );
    let r = store.read().unwrap();
    let (got, largest) = largest_allocation(|| r.posting(word, page));
    assert!(got.is_err(), "positions read from 2 bytes: {got:?}");
    assert!(
        largest <= SANE,
        "posting() of a 9-byte record allocated {largest} bytes"
    );
    // Phrase search reads positions too.
    let (_, largest) = largest_allocation(|| search::search(&r, "\"harbor light\"", 10));
    assert!(
        largest <= SANE,
        "a phrase search over a 9-byte record allocated {largest} bytes"
    );
}

//! A small store repacked as a crawl leaves it: segments merged into one,
//! every table rewritten without free pages, bodies compressed again with
//! a dictionary trained on them all; everything reads back as written.

use super::*;

/// Page `i`'s body: markup every page shares and words of its own.
fn body_of(i: u32) -> Vec<u8> {
    let words: Vec<String> = (0..300)
        .map(|k| format!("w{}x", (i * 7919 + k * 104_729) % 5_000))
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

#[test]
fn a_repacked_store_reads_back_as_written_and_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let dicts = store.dictionaries();
    let ids = page_ids(&store, 300);
    // Transactions of 30 pages: ten segments, the first 128 bodies
    // compressed before the crawl's dictionary is trained.
    for batch in ids.chunks(30) {
        store
            .update(|w| {
                for &id in batch {
                    let word = format!("w{id}q");
                    let (mut p, links) = page(&["common", &word], &["t"], vec![]);
                    p.compressed_body = dicts.compress(DictionaryKind::Body, &body_of(id));
                    put(w, id, (p, links))?;
                }
                Ok(())
            })
            .unwrap();
    }
    let dictionaries = |s: &Store| s.read().unwrap().compression_dictionaries().unwrap();
    let before = dictionaries(&store);
    drop(dicts);
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
    let r = store.read().unwrap();
    for &id in &ids {
        let body = r.body(id).unwrap();
        assert!(body == Some(body_of(id)), "page {id}'s body differs");
    }
    drop(r);
    assert_eq!(pages_of(&store, "common"), ids);
    assert_eq!(pages_of(&store, &format!("w{}q", ids[7])), vec![ids[7]]);
    // One body dictionary, a new one smaller than the crawl's.
    let bodies = |d: &[(&str, u32, usize)]| -> Vec<(u32, usize)> {
        d.iter()
            .filter(|(kind, _, _)| *kind == "body")
            .map(|&(_, id, size)| (id, size))
            .collect()
    };
    let (old, new) = (bodies(&before), bodies(&dictionaries(&store)));
    assert!(!old.is_empty(), "the crawl trained a body dictionary");
    assert_eq!(new.len(), 1, "{new:?}");
    assert!(old
        .iter()
        .all(|&(id, size)| id != new[0].0 && size > new[0].1));
    // Compressed with it from then on.
    let raw = body_of(1);
    let frame = store.dictionaries().compress(DictionaryKind::Body, &raw);
    assert_eq!(dictionary::frame_dictionary(&frame), Some(new[0].0));
}

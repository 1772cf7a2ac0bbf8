//! Schema 23's codings in a real store: one whose `doc_freq` entries and
//! near signatures are in 22's reads back as it was written once opened
//! by this build (and one of 23 as it is), and `check` names a spelling
//! its stem does not code.

use super::*;
use crate::index::minhash::{Signature, HASHES};
use crate::store::codec::put_varint;
use crate::store::inverted::spelling::Spelling;
use crate::store::inverted::{doc_freq, stem_index};

/// (stem, spelling written on even pages, on odd pages; None: the stem).
const WORDS: &[(&str, Option<&str>, Option<&str>)] = &[
    ("movi", Some("movies"), Some("movies")),
    ("gamma", Some("gam"), None),
    ("go", Some("went"), Some("goes")),
    ("caf\u{e9}", Some("caf\u{e8}s"), Some("caf\u{e9}s")),
    ("beta", None, None),
];

/// A word's df and its spellings as written (None: the stem).
type Written = (u32, Vec<(Option<Vec<u8>>, u32)>);

/// Word `id`'s entry in `block`, its spellings written out by `stem`.
fn written(block: &[u8], id: WordId, stem: &[u8]) -> Written {
    let entry = doc_freq::entry_of(block, id).unwrap();
    let forms = (entry.forms())
        .map(|f| {
            let (s, n) = f.unwrap();
            let written = match s {
                Spelling::Stem => None,
                other => Some(other.written(stem).unwrap()),
            };
            (written, n)
        })
        .collect();
    (entry.df, forms)
}

/// The entries of [`WORDS`], and each page's signature.
fn seen(store: &Store) -> (Vec<Written>, Vec<(PageId, Signature)>) {
    let r = store.read().unwrap();
    let mut words = Vec::new();
    for &(stem, _, _) in WORDS {
        let id = r.word_id(stem).unwrap().unwrap();
        let block = r.dbs.doc_freq.get(&r.txn, &doc_freq::block_key(id));
        words.push(written(block.unwrap().unwrap(), id, stem.as_bytes()));
    }
    let mut sigs = Vec::new();
    r.for_each_signature(|p, s| sigs.push((p, s))).unwrap();
    (words, sigs)
}

/// Every `doc_freq` record as 22 wrote it: `varint df << 2 | n`, then
/// each spelling, an other one whole.
fn records_22(store: &Store) -> Vec<(Vec<u8>, Vec<u8>)> {
    let r = store.read().unwrap();
    let mut records = Vec::new();
    for item in r.dbs.doc_freq.iter(&r.txn).unwrap() {
        let (k, v) = item.unwrap();
        let mut out = Vec::new();
        let block = codec::read_u32(k).unwrap();
        doc_freq::each_entry(block, v, |id, _| {
            let stem = r.word(id)?.unwrap_or_default();
            let (df, forms) = written(v, id, stem.as_bytes());
            put_varint(&mut out, u64::from(df) << 2 | forms.len() as u64);
            for (written, count) in forms {
                put_varint(
                    &mut out,
                    u64::from(count) << 1 | u64::from(written.is_some()),
                );
                if let Some(w) = written {
                    put_varint(&mut out, w.len() as u64);
                    out.extend_from_slice(&w);
                }
            }
            Ok(())
        })
        .unwrap();
        records.push((k.to_vec(), out));
    }
    records
}

/// The `word_ids` records as 22 wrote them: each entry's shared and
/// rest lengths as two varints.
fn stems_22(store: &Store) -> Vec<(Vec<u8>, Vec<u8>)> {
    let r = store.read().unwrap();
    let mut records = Vec::new();
    for item in r.dbs.word_ids.iter(&r.txn).unwrap() {
        let (k, v) = item.unwrap();
        let mut out = Vec::new();
        put_varint(&mut out, u64::from(stem_index::number_of(v).unwrap()));
        let mut last: Vec<u8> = Vec::new();
        stem_index::each_in(v, |stem, id| {
            let shared = last.iter().zip(stem).take_while(|(a, b)| a == b).count();
            put_varint(&mut out, shared as u64);
            put_varint(&mut out, (stem.len() - shared) as u64);
            out.extend_from_slice(&stem[shared..]);
            put_varint(&mut out, u64::from(id));
            last = stem.to_vec();
            Ok(true)
        })
        .unwrap();
        records.push((k.to_vec(), out));
    }
    records
}

#[test]
fn doc_freqs_and_signatures_of_schema_22_read_back_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let signature = |p: u32| Signature(std::array::from_fn(|i| (i as u32 * 37 + p) as u8));
    store
        .update(|w| {
            for i in 0..5u32 {
                let id = w.page_id_for(&url(&format!("http://h/{i}")))?;
                let (mut p, links) = page(&["x"], &["t"], vec![]);
                let mut terms = TermsBuilder::default();
                for (pos, &(stem, even, odd)) in (0..).zip(WORDS) {
                    let written = if i % 2 == 0 { even } else { odd };
                    terms.add(stem, written.unwrap_or(stem), pos);
                }
                p.terms = terms.finish();
                put(w, id, (p, links))?;
                let text = PageText {
                    signature: Some(signature(id)),
                    text_error: None,
                };
                w.put_page_text(id, &text)?;
            }
            Ok(())
        })
        .unwrap();
    let want = seen(&store);
    // Some of each kind: a spelling on every page, the stem on some.
    assert_eq!(want.0[0], (5, vec![(Some(b"movies".to_vec()), 5)]));
    assert_eq!(want.0[4], (5, vec![(None, 5)]));
    assert_eq!(want.0[1].1.len(), 2);
    assert_eq!(want.1.len(), 5);
    // The same words and signatures as 22 wrote them: each spelling
    // whole, each bin's low 16 bits (a high byte a crawl then kept too).
    let old = records_22(&store);
    let stems = stems_22(&store);
    drop(store);
    mark_schema(dir.path(), 22, |w| {
        for (k, v) in &stems {
            w.dbs.word_ids.put(&mut w.txn, k, v)?;
        }
        for (k, v) in &old {
            w.dbs.doc_freq.put(&mut w.txn, k, v)?;
        }
        for (page, sig) in &want.1 {
            let wide: Vec<u8> = sig.0.iter().flat_map(|&b| [b, 0xA5]).collect();
            assert_eq!(wide.len(), HASHES * 2);
            w.dbs
                .near_signatures
                .put(&mut w.txn, &page.to_be_bytes(), &wide)?;
        }
        Ok(())
    });
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(seen(&store), want);
    let r = store.read().unwrap();
    let gamma = r.word_id("gamma").unwrap().unwrap();
    assert_eq!(r.word_form(gamma, "gamma").unwrap(), "gam");
    drop(r);
    assert_whole(&store);
    // A store of 23 is in today's codings: it only takes the new number
    // (23's steps would read its entries as 22's).
    drop(store);
    mark_schema(dir.path(), 23, |_| Ok(()));
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(seen(&store), want);
    assert_whole(&store);
}

#[test]
fn check_names_a_spelling_its_stem_does_not_code() {
    let (_d, store) = temp_store();
    store
        .update(|w| {
            let id = w.page_id_for(&url("http://h/"))?;
            let (mut p, links) = page(&["x"], &["t"], vec![]);
            let mut terms = TermsBuilder::default();
            terms.add("movi", "movies", 0);
            p.terms = terms.finish();
            put(w, id, (p, links))
        })
        .unwrap();
    assert_whole(&store);
    store
        .update(|w| {
            let movi = w.word_id("movi")?.unwrap();
            let key = doc_freq::block_key(movi);
            let old = w.dbs.doc_freq.get(&w.txn, &key)?.unwrap().to_vec();
            let mut record = Vec::new();
            doc_freq::each_entry(codec::read_u32(&key)?, &old, |id, e| {
                let mut forms: Vec<_> = e.forms().collect::<Result<_>>()?;
                if id == movi {
                    // More of the stem than "movi" holds.
                    forms = vec![(
                        Spelling::Other {
                            shared: 9,
                            rest: b"s",
                        },
                        e.df,
                    )];
                }
                doc_freq::put_entry(&mut record, e.df, &mut forms, None);
                Ok(())
            })?;
            w.dbs.doc_freq.put(&mut w.txn, &key, &record)?;
            Ok(())
        })
        .unwrap();
    assert_problem(&store.read().unwrap(), "a spelling not coded by its stem");
}

#[test]
fn an_upgrade_larger_than_the_store_map_grows_it_and_keeps_no_figure() {
    // LMDB maps at least the file: 8,000 signatures of 22's 256 bytes
    // (about 2.5 MB of pages) are written anew, with the old pages still
    // held, in the transaction that opens the store.
    let dir = tempfile::tempdir().unwrap();
    let wide = |p: u32| -> Vec<u8> { (0..HASHES * 2).map(|i| (i as u32 * 31 + p) as u8).collect() };
    let store = Store::open(dir.path()).unwrap();
    store
        .update(|w| {
            w.dbs
                .meta
                .put(&mut w.txn, schema::meta_keys::SCHEMA, &22u32.to_be_bytes())?;
            w.dbs
                .kept
                .put(&mut w.txn, b"summary", b"figures of 16-bit bins")?;
            for p in 1..=8_000u32 {
                let key = p.to_be_bytes();
                w.dbs.near_signatures.put(&mut w.txn, &key, &wide(p))?;
            }
            Ok(())
        })
        .unwrap();
    store.close();
    let small = StoreOptions { map_size: 4096 };
    let store = Store::open_with(dir.path(), small).expect("the map grows for the upgrade");
    let mut sigs = Vec::new();
    store
        .read()
        .unwrap()
        .for_each_signature(|p, s| sigs.push((p, s)))
        .unwrap();
    assert_eq!(sigs.len(), 8_000);
    let r = store.read().unwrap();
    assert!(
        r.dbs.kept.is_empty(&r.txn).unwrap(),
        "no figure kept as current"
    );
    drop(r);
    for (p, s) in sigs {
        let low: Vec<u8> = wide(p).chunks_exact(2).map(|b| b[0]).collect();
        assert_eq!(s.0.to_vec(), low, "page {p}");
    }
}

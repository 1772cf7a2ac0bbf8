//! A repacked store's body posting parts in shared zstd frames: every
//! word's postings (pages, frequencies, positions: what a search ranks
//! and a phrase matches) and title postings read as in a store never
//! repacked that took the same writes,
//! after the repack, after later writes that read and rewrite parts
//! through their references, and after a second repack; `check` finds a
//! reference that leads nowhere.

use super::*;
use crate::body_blocks::{BlockRef, Shelf};
use crate::sealed::View;

/// Words of the pages' text, the first ones the most frequent.
const WORDS: [&str; 40] = [
    "lantern", "harbor", "meadow", "copper", "violin", "orchard", "glacier", "saddle", "thunder",
    "pepper", "marble", "canyon", "falcon", "ribbon", "walnut", "compass", "velvet", "tundra",
    "quartz", "bamboo", "cobalt", "dolphin", "ember", "fjord", "granite", "hazel", "indigo",
    "jasmine", "kettle", "lagoon", "mosaic", "nectar", "oyster", "pebble", "quiver", "raven",
    "saffron", "timber", "umber", "willow",
];

/// Page `i`'s text (version `v`): a navigation every page shares, then
/// 300 words drawn with a skew (word k about as often as 1/(k+1)), and
/// a word of its own.
fn text(i: u32, v: u32) -> String {
    let mut seed = u64::from(i) * 7919 + u64::from(v) * 104_729 + 1;
    let mut words = vec!["home archive gallery contact newsletter".to_string()];
    for _ in 0..300 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (seed >> 33) as f64 / (1u64 << 31) as f64;
        let k = ((WORDS.len() as f64 + 1.0).powf(u) - 1.0) as usize;
        words.push(WORDS[k.min(WORDS.len() - 1)].to_string());
    }
    words.push(format!("page{}own", i % 1000));
    words.join(" ")
}

/// What the two stores take in turn.
enum Step {
    /// Pages `0..n` (version `v`), in transactions of 50.
    Put(std::ops::Range<u32>, u32),
    Remove(&'static [u32]),
    /// The repacked store is repacked; the other merges its segments as
    /// the repack first does.
    Repack,
    /// Both merge their segments into one.
    Merge,
}

fn take(store: Store, dir: &std::path::Path, step: &Step, repack: bool) -> Store {
    match step {
        Step::Put(pages, v) => {
            let pages: Vec<u32> = pages.clone().collect();
            for batch in pages.chunks(50) {
                store
                    .update(|w| {
                        for &i in batch {
                            let id = w.page_id_for(&url(&format!("http://t.test/{i}")))?;
                            let body = text(i, *v);
                            let words: Vec<&str> = body.split(' ').collect();
                            let title = format!("page {i}");
                            let title: Vec<&str> = title.split(' ').collect();
                            w.put_page(id, &page(&words, &title, Vec::new()).0, &[])?;
                        }
                        Ok(())
                    })
                    .unwrap();
            }
        }
        Step::Remove(pages) => store
            .update(|w| {
                for &i in pages.iter() {
                    let id = w.page_id_for(&url(&format!("http://t.test/{i}")))?;
                    w.remove_page(id)?;
                }
                Ok(())
            })
            .unwrap(),
        Step::Repack if repack => {
            store.close_and_repack().unwrap().expect("repacked");
            return Store::open(dir).unwrap();
        }
        Step::Repack | Step::Merge => {
            store.update(|w| w.merge_to_one()).unwrap();
        }
    }
    store
}

/// Posting references in `postings`, and the blocks of `posting_blocks`
/// with the bytes of each (decompressed) that no reference covers.
fn references_and_blocks(store: &Store) -> (usize, Vec<usize>) {
    let r = store.read().unwrap();
    let mut unused = block_sizes(&r, r.dbs().posting_blocks);
    let mut references = 0;
    for item in r.dbs().postings.iter(r.txn()).unwrap() {
        let (_, v) = item.unwrap();
        if let Some(reference) = BlockRef::decode(v, Shelf::Postings).unwrap() {
            references += 1;
            unused[reference.block as usize] -= reference.len as usize;
        }
    }
    (references, unused)
}

/// Every stem of `a` with its body and title postings, beside `b`'s.
fn assert_same_postings(a: &Reader<'_>, b: &Reader<'_>, step: usize) {
    let stems = a.stems_with_prefix("", usize::MAX).unwrap();
    assert!(
        stems.len() > WORDS.len(),
        "step {step}: {} stems",
        stems.len()
    );
    assert_eq!(
        stems,
        b.stems_with_prefix("", usize::MAX).unwrap(),
        "step {step}"
    );
    for (stem, id, _) in stems {
        let body = a.postings(id).unwrap();
        assert_eq!(body, b.postings(id).unwrap(), "step {step}: {stem}");
        let title = a.title_postings(id).unwrap();
        assert_eq!(title, b.title_postings(id).unwrap(), "step {step}: {stem}");
    }
}

#[test]
fn parts_in_blocks_answer_as_parts_do() {
    let (dir, mut blocked) = temp_store();
    let (plain_dir, mut plain) = temp_store();
    // After each step: whether the blocked store holds references.
    let steps = [
        (Step::Put(0..400, 0), false),
        (Step::Repack, true),
        // A removal rewrites the parts holding the pages, plain, beside
        // the references.
        (Step::Remove(&[3, 150, 151, 399]), true),
        // Its references are read, its blocks written anew.
        (Step::Repack, true),
        // New versions in a segment of their own; merged with the
        // repacked one, whose parts are read through their references.
        (Step::Put(100..160, 1), true),
        (Step::Merge, false),
        (Step::Repack, true),
    ];
    for (n, (step, referred)) in steps.iter().enumerate() {
        blocked = take(blocked, dir.path(), step, true);
        plain = take(plain, plain_dir.path(), step, false);
        let (references, unused) = references_and_blocks(&blocked);
        assert_eq!(
            references > 0,
            *referred,
            "step {n}: {references} references"
        );
        if matches!(step, Step::Repack) {
            assert!(unused.len() >= 3, "step {n}: {} blocks", unused.len());
            assert!(
                unused.iter().all(|&u| u == 0),
                "step {n}: {unused:?} unused"
            );
        }
        let (a, b) = (blocked.read().unwrap(), plain.read().unwrap());
        assert_same_postings(&a, &b, n);
        drop((a, b));
        assert_whole(&blocked);
        assert_whole(&plain);
    }
    // A reference to a block not stored, and one past its block's end.
    let (key, stored) = {
        let r = blocked.read().unwrap();
        let (k, v) = r.dbs().postings.first(r.txn()).unwrap().unwrap();
        (
            k.to_vec(),
            BlockRef::decode(v, Shelf::Postings)
                .unwrap()
                .expect("a reference"),
        )
    };
    let wrong = [
        (
            BlockRef {
                block: 999,
                ..stored
            },
            "posting block 999 is referred to",
        ),
        (
            BlockRef {
                offset: 1 << 20,
                ..stored
            },
            "past the end of posting block",
        ),
    ];
    for (r, problem) in wrong {
        blocked
            .update(|w| {
                let v = r.encode(Shelf::Postings);
                w.dbs.postings.put(&mut w.txn, &key, &v)?;
                Ok(())
            })
            .unwrap();
        assert_problem(&blocked.read().unwrap(), problem);
    }
    // A block's chunk gone: the block no longer reads.
    let block = blocked
        .update(|w| {
            let (k, _) = w.dbs.posting_blocks.last(&w.txn)?.unwrap();
            let k = k.to_vec();
            w.dbs.posting_blocks.delete(&mut w.txn, &k)?;
            Ok(codec::split_triple_key(&k)?.0)
        })
        .unwrap();
    assert_problem(&blocked.read().unwrap(), &format!("posting block {block}"));
}

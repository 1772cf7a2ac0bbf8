//! Pair postings: counted by merges as a brute force counts them, kept
//! in step as pages leave, and every disagreement found by `check`.

use super::*;
use crate::inverted::pairs;

/// count the pairs of the words on at least half their pages.
fn pair_store() -> (tempfile::TempDir, Store, Vec<(PageId, Vec<String>)>) {
    let (dir, store) = temp_store();
    let vocab = ["ash", "elm", "oak", "fir"];
    let mut seed = 7u64;
    let mut pages = Vec::new();
    for i in 0..64 {
        let words: Vec<String> = (0..30)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                match (seed >> 33) % 9 {
                    0 => format!("own{i}"),
                    n => vocab[n as usize % vocab.len()].to_string(),
                }
            })
            .collect();
        let id = store
            .update(|w| {
                let id = w.page_id_for(&url(&format!("http://h/{i}")))?;
                let body: Vec<&str> = words.iter().map(String::as_str).collect();
                put(w, id, page(&body, &["t"], vec![]))?;
                Ok(id)
            })
            .unwrap();
        pages.push((id, words));
    }
    (dir, store, pages)
}

/// A segment and its pairs' rows: (pair, page, count), sorted.
type SegmentRows = (u32, Vec<((WordId, WordId), PageId, u32)>);

/// What the store's pairs must say, by brute force: every page of every
/// segment that keeps pairs, each ordered pair of its stems that stands
/// side by side there, and how many times.
fn pairs_by_brute_force(r: &Reader<'_>, pages: &[(PageId, Vec<String>)]) -> Vec<SegmentRows> {
    let mut out = Vec::new();
    for (segment, kept) in r.stored_pairs().unwrap() {
        let mut rows = Vec::new();
        for (page, words) in pages {
            if r.page_segment(*page).unwrap() != Some(segment) {
                continue;
            }
            let ids: Vec<WordId> = words
                .iter()
                .map(|w| r.word_id(w).unwrap().unwrap())
                .collect();
            let mut counts: std::collections::BTreeMap<(WordId, WordId), u32> = Default::default();
            for w in ids.windows(2) {
                if kept.kept.holds(w[0]) && kept.kept.holds(w[1]) {
                    *counts.entry((w[0], w[1])).or_default() += 1;
                }
            }
            rows.extend(counts.into_iter().map(|(pair, n)| (pair, *page, n)));
        }
        rows.sort_unstable();
        out.push((segment, rows));
    }
    out
}

/// The rows each segment's pairs answer, read as a phrase reads them.
fn stored_rows(r: &Reader<'_>) -> Vec<SegmentRows> {
    r.stored_pairs()
        .unwrap()
        .into_iter()
        .map(|(segment, stored)| {
            let kept = r.pairs_kept(segment).unwrap().unwrap();
            let mut rows = Vec::new();
            for (pair, _) in stored.lists {
                let mut list = Vec::new();
                r.pair_counts(segment, &kept, pair, &mut list).unwrap();
                rows.extend(list.into_iter().map(|(p, n)| (pair, p, n)));
            }
            rows.sort_unstable();
            (segment, rows)
        })
        .collect()
}

#[test]
fn merged_segments_count_side_by_side_pairs_and_leave_out_pages_that_leave() {
    let (_d, store, pages) = pair_store();
    let r = store.read().unwrap();
    let kept = r.stored_pairs().unwrap();
    assert!(!kept.is_empty(), "a merge of 64 pages keeps pairs");
    let live = r.live_segments().unwrap();
    let (segment, pairs) = &kept[0];
    let pages_there = live.entries().iter().find(|e| e.0 == *segment).unwrap().1;
    assert!(pages_there >= StoreOptions::default().pair_min_pages);
    let mut stems = ["ash", "elm", "oak", "fir"].map(|w| r.word_id(w).unwrap().unwrap());
    stems.sort_unstable();
    assert_eq!(
        pairs.kept.stems, stems,
        "the page's own words are not common"
    );
    assert_eq!(stored_rows(&r), pairs_by_brute_force(&r, &pages));
    drop(r);
    assert_whole(&store);

    // Pages 3 and 40 indexed again, in other segments: their old
    // segments' pairs leave them out from now on.
    let mut pages = pages;
    for i in [3, 40] {
        let (id, _) = pages[i];
        let segment = store.read().unwrap().page_segment(id).unwrap().unwrap();
        let again = ["ash", "ash", "elm", "oak"];
        store
            .update(|w| put(w, id, page(&again, &["t"], vec![])))
            .unwrap();
        pages[i].1 = again.iter().map(|w| w.to_string()).collect();
        let r = store.read().unwrap();
        let kept = r.pairs_kept(segment).unwrap().unwrap();
        assert!(kept.gone.contains(&id), "{kept:?}");
        assert!(r.page_segment(id).unwrap() != Some(segment));
        assert_eq!(stored_rows(&r), pairs_by_brute_force(&r, &pages));
        drop(r);
        assert_whole(&store);
    }
}

#[test]
fn a_segment_whose_pages_all_leave_takes_its_pairs_along() {
    let (_d, store, pages) = pair_store();
    let before = store.read().unwrap().stored_pairs().unwrap();
    assert!(!before.is_empty());
    store
        .update(|w| {
            for (id, _) in &pages {
                put(w, *id, page(&["ash", "elm"], &["t"], vec![]))?;
            }
            Ok(())
        })
        .unwrap();
    let r = store.read().unwrap();
    let after: Vec<u32> = r.stored_pairs().unwrap().iter().map(|(s, _)| *s).collect();
    assert!(
        before.iter().all(|(s, _)| !after.contains(s)),
        "{after:?} still kept"
    );
    drop(r);
    assert_whole(&store);
}

#[test]
fn check_finds_pair_postings_that_disagree_with_the_positions() {
    let (_d, store, _) = pair_store();
    store
        .update(|w| {
            let (segment, mut kept) = w.stored_pairs()?.remove(0);
            // One page's count, one more.
            kept.lists[0].1[0].1 += 1;
            pairs::drop(&mut w.txn, w.dbs.pair_postings, segment)?;
            pairs::write(&mut w.txn, w.dbs.pair_postings, segment, &kept)
        })
        .unwrap();
    assert_problem(&store.read().unwrap(), "disagree with its positions");
}

#[test]
fn check_finds_any_pair_record_gone() {
    let (_d, store, _) = pair_store();
    let records: Vec<(Vec<u8>, Vec<u8>)> = {
        let r = store.read().unwrap();
        r.dbs
            .pair_postings
            .iter(&r.txn)
            .unwrap()
            .map(|item| item.map(|(k, v)| (k.to_vec(), v.to_vec())).unwrap())
            .collect()
    };
    assert!(records.len() > 4, "{} pair records", records.len());
    for (k, v) in &records {
        store
            .update(|w| Ok(w.dbs.pair_postings.delete(&mut w.txn, k)?))
            .unwrap();
        assert_problem(&store.read().unwrap(), "pair");
        store
            .update(|w| Ok(w.dbs.pair_postings.put(&mut w.txn, k, v)?))
            .unwrap();
    }
    assert_whole(&store);
}

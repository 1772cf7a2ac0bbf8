//! Staged merges against a fresh store: pages written a few a
//! transaction, some indexed again or removed while large segments were
//! being merged, read as the same pages written at once (every word's
//! body and title postings with positions, every page's parents), and
//! `check` (which recounts every segment's pairs from its positions)
//! finds the store whole at every phase.

use std::collections::BTreeSet;

use super::*;
use crate::inverted::pairs::PairRead;
use crate::inverted::staged::{self, Phase};
use crate::schema::LARGE_SEGMENTS;

const PAGES: u32 = 320;

/// The words of page `i` at `version`: ten common words (on every page,
/// so merged segments keep pairs of more first stems than a step merges)
/// around rarer ones.
fn body(i: u32, version: u32) -> Vec<String> {
    let common = [
        "nou", "dub", "obi", "kal", "zer", "pim", "tas", "rog", "wen", "fyl",
    ];
    let rare = [
        "quill", "ember", "larch", "gusto", "mirth", "sable", "tonic",
    ];
    let mut words = Vec::new();
    for k in 0..12 {
        words.push(common[((i + k + version) % 10) as usize].to_string());
        words.push(rare[((i * 7 + k * 3 + version) % 7) as usize].to_string());
    }
    words
}

fn title(i: u32, version: u32) -> Vec<String> {
    vec![
        ["north", "south"][(i % 2) as usize].into(),
        format!("v{version}"),
    ]
}

fn links(ids: &[PageId], i: u32) -> Vec<PageId> {
    [(i * 7 + 1) % PAGES, (i + 3) % PAGES]
        .map(|j| ids[j as usize])
        .to_vec()
}

fn write(w: &mut Writer<'_>, ids: &[PageId], i: u32, version: u32) -> Result<()> {
    let (b, t) = (body(i, version), title(i, version));
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    let t: Vec<&str> = t.iter().map(String::as_str).collect();
    put(w, ids[i as usize], page(&b, &t, links(ids, i)))
}

/// What a reader finds: each word's body and title postings as
/// (page, tf, positions) and each page's parents.
type Seen = (
    Vec<(String, Vec<(PageId, u32, Vec<u32>)>)>,
    Vec<Vec<PageId>>,
);

fn seen(store: &Store, ids: &[PageId]) -> Seen {
    let r = store.read().unwrap();
    let mut words: BTreeSet<String> = BTreeSet::new();
    for i in 0..PAGES {
        for v in 0..4 {
            words.extend(body(i, v));
            words.extend(title(i, v));
        }
    }
    let mut postings = Vec::new();
    for w in words {
        let Some(id) = r.word_id(&w).unwrap() else {
            continue;
        };
        let body: Vec<_> = (r.postings(id).unwrap().into_iter())
            .map(|(p, e)| (p, e.tf, e.positions))
            .collect();
        let titles: Vec<_> = (r.title_postings(id).unwrap().into_iter())
            .map(|(p, positions)| (p, 0, positions))
            .collect();
        postings.push((format!("{w} body"), body));
        postings.push((format!("{w} title"), titles));
    }
    let parents = ids.iter().map(|&p| r.parents(p).unwrap()).collect();
    (postings, parents)
}

#[test]
fn a_store_merged_by_stages_reads_as_the_same_pages_written_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions {
        final_pages: 16,
        pair_min_pages: 8,
        ..Default::default()
    };
    let store = Store::open_with(dir.path(), options).unwrap();
    let ids = page_ids(&store, PAGES);
    // The version each page holds now (None: removed or never written).
    let mut held: Vec<Option<u32>> = vec![None; PAGES as usize];
    let mut phases = BTreeSet::new();
    for t in 0..PAGES / 2 {
        store
            .update(|w| {
                for i in [2 * t, 2 * t + 1] {
                    write(w, &ids, i, 0)?;
                }
                // Earlier pages leave their segments while merges run.
                if t > 0 {
                    write(w, &ids, (t * 3) % (2 * t), 1 + t % 3)?;
                }
                if t % 11 == 7 {
                    w.remove_page(ids[(t * 5 % (2 * t)) as usize])?;
                }
                Ok(())
            })
            .unwrap();
        for i in [2 * t, 2 * t + 1] {
            held[i as usize] = Some(0);
        }
        if t > 0 {
            held[((t * 3) % (2 * t)) as usize] = Some(1 + t % 3);
        }
        if t % 11 == 7 {
            held[(t * 5 % (2 * t)) as usize] = None;
        }
        let r = store.read().unwrap();
        if let Some(st) = staged::staged(&r).unwrap() {
            let phase = match st.phase {
                Phase::Copy { .. } => "copy",
                Phase::Pairs { .. } => "pairs",
                Phase::Drop => "drop",
            };
            // Check each phase the first time it is seen, and often.
            if phases.insert(phase) || t % 16 == 0 {
                drop(r);
                assert_whole(&store);
            }
        }
    }
    assert_eq!(
        phases,
        BTreeSet::from(["copy", "drop", "pairs"]),
        "every phase ran"
    );
    store.finish_merges().unwrap();
    let r = store.read().unwrap();
    assert_eq!(staged::staged(&r).unwrap(), None, "merges finished");
    let live: Vec<(u32, u32)> = r.live_segments().unwrap().entries().to_vec();
    let large: Vec<u32> = live
        .iter()
        .map(|&(s, _)| s)
        .filter(|&s| s >= LARGE_SEGMENTS)
        .collect();
    assert!(!large.is_empty(), "large segments are live: {live:?}");
    assert!(
        large.iter().any(|&s| r.pairs_kept(s).unwrap().is_some()),
        "a large segment keeps pairs"
    );
    assert!(live.len() < 16, "{} live segments", live.len());
    drop(r);
    assert_whole(&store);

    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = Store::open(fresh_dir.path()).unwrap();
    assert_eq!(page_ids(&fresh, PAGES), ids);
    fresh
        .update(|w| {
            for (i, version) in held.iter().enumerate() {
                if let Some(v) = version {
                    write(w, &ids, i as u32, *v)?;
                }
            }
            Ok(())
        })
        .unwrap();
    let (got, want) = (seen(&store, &ids), seen(&fresh, &ids));
    for (g, w) in got.0.iter().zip(&want.0) {
        assert_eq!(g, w);
    }
    assert_eq!(got.0.len(), want.0.len());
    assert_eq!(got.1, want.1, "parents");
}

//! The inverted index as pages put, replace and remove it: postings with
//! their tfs and positions, merged segments, doc freqs and spellings.

use super::*;

#[test]
fn replacing_a_page_leaves_no_stale_postings_or_doc_freqs() {
    let (_d, store) = temp_store();
    let (p, q) = two_pages(&store, "http://h/p", "http://h/q");
    store
        .update(|w| {
            put(
                w,
                p,
                page(&["apple", "banana", "apple"], &["fruit"], vec![q]),
            )?;
            put(w, q, page(&["banana"], &[], vec![]))
        })
        .unwrap();
    assert_eq!(pages_of(&store, "apple"), vec![p]);
    store
        .update(|w| put(w, p, page(&["cherry"], &["tree"], vec![])))
        .unwrap();
    assert_eq!(pages_of(&store, "apple"), Vec::<PageId>::new());
    assert_eq!(pages_of(&store, "banana"), vec![q]);
    assert_eq!(pages_of(&store, "cherry"), vec![p]);
    let r = store.read().unwrap();
    let banana = r.word_id("banana").unwrap().unwrap();
    assert_eq!(r.doc_freq(banana).unwrap(), 1);
    let fruit = r.word_id("fruit").unwrap().unwrap();
    assert_eq!(r.doc_freq(fruit).unwrap(), 0);
    assert!(r.title_postings(fruit).unwrap().is_empty());
    assert!(r.children(p).unwrap().is_empty());
    assert!(r.parents(q).unwrap().is_empty());
    drop(r);
    assert_whole(&store);
}

#[test]
fn merged_segments_keep_every_posting_and_find_a_page_again() {
    let (_d, store) = temp_store();
    // One page per transaction: each is a segment, so tiers fill and merge.
    let body = |n: u32, round: u32| -> Vec<String> {
        (0..6)
            .map(|i| format!("w{}", (n * 7 + i * 3 + round) % 23))
            .collect()
    };
    let mut model: std::collections::BTreeMap<PageId, Vec<String>> = Default::default();
    let mut ids: Vec<PageId> = Vec::new();
    // Each page has a title word and links to the page before it, so title
    // postings and reverse links go through the merges too.
    let title = |n: usize| format!("t{}", n % 5);
    let write =
        |w: &mut Writer<'_>, n: usize, id: PageId, words: &[String], prev: Option<PageId>| {
            let refs: Vec<&str> = words.iter().map(String::as_str).collect();
            let t = title(n);
            put(
                w,
                id,
                page(&refs, &[t.as_str()], prev.into_iter().collect()),
            )
        };
    for n in 0..300u32 {
        let words = body(n, 0);
        let prev = ids.last().copied();
        let id = store
            .update(|w| {
                let id = w.page_id_for(&url(&format!("http://h/{n}")))?;
                write(w, n as usize, id, &words, prev)?;
                Ok(id)
            })
            .unwrap();
        ids.push(id);
        model.insert(id, words);
    }
    let live = store.read().unwrap().live_segments().unwrap();
    assert!(
        live.ids().count() < 3 * segments::FANOUT,
        "300 segments merged down to {live:?}"
    );
    // Pages from merged segments are re-indexed and removed.
    for (k, &id) in ids.iter().enumerate().step_by(7) {
        store
            .update(|w| {
                if k % 2 == 0 {
                    w.remove_page(id)
                } else {
                    let prev = k.checked_sub(1).map(|i| ids[i]);
                    write(w, k, id, &body(k as u32, 1), prev)
                }
            })
            .unwrap();
        if k % 2 == 0 {
            model.remove(&id);
        } else {
            model.insert(id, body(k as u32, 1));
        }
    }
    let r = store.read().unwrap();
    for stem in (0..23).map(|i| format!("w{i}")) {
        let want: Vec<(PageId, Vec<u32>)> = model
            .iter()
            .filter_map(|(&p, words)| {
                let pos: Vec<u32> = (0..words.len() as u32)
                    .filter(|&i| words[i as usize] == stem)
                    .collect();
                (!pos.is_empty()).then_some((p, pos))
            })
            .collect();
        let w = r.word_id(&stem).unwrap().unwrap();
        let got: Vec<(PageId, Vec<u32>)> = r
            .postings(w)
            .unwrap()
            .into_iter()
            .map(|(p, post)| (p, post.positions))
            .collect();
        assert_eq!(got, want, "{stem}");
        for (p, pos) in &want {
            assert_eq!(r.posting(w, *p).unwrap().unwrap().positions, *pos);
        }
        assert_eq!(r.doc_freq(w).unwrap() as usize, want.len());
    }
    let index = |id: PageId| ids.iter().position(|&i| i == id).unwrap();
    for t in (0..5).map(|i| format!("t{i}")) {
        let want: Vec<PageId> = model
            .keys()
            .copied()
            .filter(|&p| title(index(p)) == t)
            .collect();
        let w = r.word_id(&t).unwrap().unwrap();
        let got: Vec<PageId> = r
            .title_postings(w)
            .unwrap()
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(got, want, "title {t}");
        for p in want {
            assert_eq!(r.title_posting(w, p).unwrap(), Some(vec![0]));
        }
    }
    for (k, &id) in ids.iter().enumerate() {
        let want: Vec<PageId> = ids
            .get(k + 1)
            .filter(|next| model.contains_key(next))
            .copied()
            .into_iter()
            .collect();
        assert_eq!(r.parents(id).unwrap(), want, "parents of page {k}");
    }
    drop(r);
    assert_whole(&store);
}

#[test]
fn postings_keep_tf_and_positions() {
    let (_d, store) = temp_store();
    let p = store.update(|w| w.page_id_for(&url("http://h/"))).unwrap();
    store
        .update(|w| put(w, p, page(&["a", "b", "a", "c", "a"], &["b"], vec![])))
        .unwrap();
    let r = store.read().unwrap();
    let a = r.word_id("a").unwrap().unwrap();
    let b = r.word_id("b").unwrap().unwrap();
    assert_eq!(
        r.postings(a).unwrap(),
        vec![(
            p,
            Posting {
                tf: 3,
                positions: vec![0, 2, 4]
            }
        )]
    );
    assert_eq!(r.title_postings(b).unwrap(), vec![(p, vec![0])]);
    let rec = r.page(p).unwrap().unwrap();
    assert_eq!(rec.max_tf, 3);
    assert!((rec.norm - (1.0f32 + 1.0 / 9.0 + 1.0 / 9.0).sqrt()).abs() < 1e-6);
    assert_eq!(r.body(p).unwrap().unwrap(), b"a b a c a");
    assert_eq!(r.meta_tags(p).unwrap(), vec![description("d")]);
    let mime = r.mime(rec.mime).unwrap().unwrap();
    assert_eq!(mime.essence, "text/html");
}

#[test]
fn a_word_no_page_holds_is_kept_at_0_and_a_word_keeps_its_written_form() {
    let (_d, store) = temp_store();
    let head_of = |i: u32| HttpHead {
        request: vec![("host".into(), "h".into())],
        version: "HTTP/1.1".into(),
        response: vec![("etag".into(), format!("\"{i}\""))],
    };
    let dicts = store.dictionaries();
    let ids = store
        .update(|w| {
            let mut ids = Vec::new();
            for i in 0..200 {
                let id = w.page_id_for(&url(&format!("http://h/{i}")))?;
                let mut p = described_page(i, &dicts, b"body", head_of(i));
                // Words written otherwise than as their stem, and one
                // word only the last page holds.
                let mut terms = TermsBuilder::default();
                let written = [
                    ("alpha", "alphas", 0),
                    ("beta", "beta", 1),
                    ("gamma", "gam", 2),
                ];
                let alone = (i == 199).then_some(("solitary", "solitary", 3));
                for (stem, form, pos) in written.into_iter().chain(alone) {
                    terms.add(stem, form, pos);
                }
                p.terms = terms.finish();
                put(w, id, (p, vec![]))?;
                ids.push(id);
            }
            Ok(ids)
        })
        .unwrap();
    // The word only the last page held is kept, at 0.
    store.update(|w| w.remove_page(ids[199])).unwrap();
    let solitary = r_word_id(&store, "solitary");
    let alpha = r_word_id(&store, "alpha");
    let r = store.read().unwrap();
    assert_eq!(
        (
            r.word(solitary).unwrap().as_deref(),
            r.doc_freq(solitary).unwrap()
        ),
        (Some("solitary"), 0)
    );
    assert_eq!(
        (
            r.doc_freq(alpha).unwrap(),
            r.word_form(alpha, "alpha").unwrap()
        ),
        (199, "alphas".to_string())
    );
    // Written shorter than the stem.
    let gamma = r.word_id("gamma").unwrap().unwrap();
    assert_eq!(r.word_form(gamma, "gamma").unwrap(), "gam");
    drop(r);
    assert_whole(&store);
}

fn r_word_id(store: &Store, stem: &str) -> WordId {
    store.read().unwrap().word_id(stem).unwrap().unwrap()
}

#[test]
fn check_finds_a_run_whose_weight_class_is_below_its_pages() {
    let (_d, store) = temp_store();
    for (i, words) in [&["a", "b", "a"][..], &["a", "c"], &["b", "a", "d", "d"]]
        .iter()
        .enumerate()
    {
        let p = store
            .update(|w| w.page_id_for(&url(&format!("http://h/{i}"))))
            .unwrap();
        store
            .update(|w| put(w, p, page(words, &["t"], vec![])))
            .unwrap();
    }
    assert_whole(&store);
    let a = r_word_id(&store, "a");
    store
        .update(|w| {
            let (key, part) = {
                let mut it = w.dbs.postings.iter(&w.txn)?;
                loop {
                    let (k, v) = it.next().expect("a part of word a")?;
                    if crate::codec::split_triple_key(k)?.1 == a {
                        break (k.to_vec(), v.to_vec());
                    }
                }
            };
            // The first run's class byte, lowered to the least class.
            let run = crate::inverted::run::runs(a, &part)
                .next()
                .expect("a run")?;
            let at = run.bytes.as_ptr() as usize - part.as_ptr() as usize;
            assert!(part[at] > 200, "a real weight's class: {}", part[at]);
            let mut lowered = part.clone();
            lowered[at] = 0;
            Ok(w.dbs.postings.put(&mut w.txn, &key, &lowered)?)
        })
        .unwrap();
    assert_problem(&store.read().unwrap(), "below the page's weight");
}

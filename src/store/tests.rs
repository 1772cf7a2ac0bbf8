//! Store tests on a real LMDB environment in a temp dir.

use proptest::prelude::*;
use url::Url;

use super::inverted::pairs;
use super::inverted::segments::{self, SegmentRead};
use super::page_records::Part;
use super::*;

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn terms(words: &[&str]) -> Terms {
    Terms::from_pairs(words.iter().enumerate().map(|(i, w)| (*w, i as u32)))
}

fn page(body: &[&str], title: &[&str], links: Vec<PageId>) -> (PageWrite, Vec<PageId>) {
    (
        PageWrite {
            record: PageRecord {
                status: 200,
                title: Some(title.join(" ")),
                ..Default::default()
            },
            content_type: "text/html; charset=utf-8".into(),
            meta: vec![description("d")],
            compressed_body: compress_body(body.join(" ").as_bytes()),
            terms: terms(body),
            title_terms: terms(title),
            head: Some(HttpHead {
                request: vec![("host".into(), "example.com".into())],
                version: "HTTP/1.1".into(),
                response: vec![("content-type".into(), "text/html".into())],
            }),
        },
        links,
    )
}

fn description(content: &str) -> crate::html::MetaTag {
    crate::html::MetaTag {
        attr: "name".into(),
        name: "description".into(),
        content: content.into(),
    }
}

fn put(w: &mut Writer<'_>, id: PageId, p: (PageWrite, Vec<PageId>)) -> Result<()> {
    let links: Vec<OutLink> =
        p.1.iter()
            .map(|&child| OutLink {
                child,
                anchor: format!("to {child}"),
                nofollow: child % 2 == 1,
            })
            .collect();
    w.put_page(id, &p.0, &links)
}

/// Page ids for two new URLs.
fn two_pages(store: &Store, a: &str, b: &str) -> (PageId, PageId) {
    store
        .update(|w| Ok((w.page_id_for(&url(a))?, w.page_id_for(&url(b))?)))
        .unwrap()
}

fn no_one_dead(_: InstanceId) -> bool {
    false
}

fn assert_whole(store: &Store) {
    let problems = store.read().unwrap().check(&no_one_dead).unwrap();
    assert!(problems.is_empty(), "store not whole: {problems:#?}");
}

/// `check` names a problem that contains `what`.
fn assert_problem(r: &Reader<'_>, what: &str) {
    let problems = r.check(&no_one_dead).unwrap();
    assert!(
        problems.iter().any(|p| p.contains(what)),
        "no problem names {what:?}: {problems:#?}"
    );
}

fn pages_of(store: &Store, stem: &str) -> Vec<PageId> {
    let r = store.read().unwrap();
    match r.word_id(stem).unwrap() {
        Some(w) => r
            .postings_tf(w)
            .unwrap()
            .into_iter()
            .map(|(p, _)| p)
            .collect(),
        None => vec![],
    }
}

#[test]
fn url_ids_are_stable_and_distinct() {
    let (_d, store) = temp_store();
    let (a, b, a2) = store
        .update(|w| {
            Ok((
                w.page_id_for(&url("http://h/a"))?,
                w.page_id_for(&url("http://h/a?x=1"))?,
                w.page_id_for(&url("http://h/a"))?,
            ))
        })
        .unwrap();
    assert_eq!(a, a2);
    assert_ne!(a, b);
    let r = store.read().unwrap();
    assert_eq!(r.url_of(b).unwrap().as_deref(), Some("http://h/a?x=1"));
    assert_eq!(r.page_id(&url("http://h/a")).unwrap(), Some(a));
    assert_eq!(r.page_id(&url("http://h/never")).unwrap(), None);
}

#[test]
fn ids_of_a_transaction_that_failed_are_not_remembered() {
    let (_d, store) = temp_store();
    // The first transaction gives both a URL and a word an id, then fails.
    let failed = store.update(|w| {
        w.page_id_for(&url("http://h/lost"))?;
        w.word_id_keyed("lost", stem_key("lost"))?;
        Err::<(), _>(StoreError::corrupt("fails on purpose"))
    });
    assert!(failed.is_err());
    // Nothing of it may come back from the writers' caches.
    let (id, word) = store
        .update(|w| {
            w.page_id_for(&url("http://h/other"))?;
            Ok((
                w.page_id_for(&url("http://h/lost"))?,
                w.word_id_keyed("lost", stem_key("lost"))?,
            ))
        })
        .unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.url_of(id).unwrap().as_deref(), Some("http://h/lost"));
    assert_eq!(r.word_id("lost").unwrap(), Some(word));
    // Committed, the URL is answered again without a new id.
    let again = store
        .update(|w| w.page_id_for(&url("http://h/lost")))
        .unwrap();
    assert_eq!(again, id);
}

#[test]
fn terms_resolved_on_a_parser_thread_carry_the_committed_ids_only() {
    let (_d, store) = temp_store();
    let known = store.known_words();
    let mut early = terms(&["harbor", "ship"]);
    known.resolve(&mut early);
    assert!(
        early.iter().all(|t| t.id.is_none()),
        "nothing committed yet"
    );
    let (a, b) = two_pages(&store, "http://h/a", "http://h/b");
    store
        .update(|w| put(w, a, page(&["harbor", "ship"], &["harbor"], vec![])))
        .unwrap();
    // A failed transaction's new word is no more known to the parsers
    // than to the writer.
    let failed = store.update(|w| {
        w.word_id_keyed("lost", stem_key("lost"))?;
        Err::<(), _>(StoreError::corrupt("fails on purpose"))
    });
    assert!(failed.is_err());
    let mut p = page(&["ship", "lost", "harbor"], &["ship"], vec![]);
    known.resolve(&mut p.0.terms);
    known.resolve(&mut p.0.title_terms);
    {
        let r = store.read().unwrap();
        let ship = r.word_id("ship").unwrap();
        let ids: Vec<_> = p.0.terms.iter().map(|t| (t.stem, t.id)).collect();
        assert_eq!(
            ids,
            [
                ("ship", ship),
                ("lost", None),
                ("harbor", r.word_id("harbor").unwrap())
            ]
        );
        assert_eq!(p.0.title_terms.iter().next().and_then(|t| t.id), ship);
    }
    store.update(|w| put(w, b, p.clone())).unwrap();
    assert_eq!(pages_of(&store, "ship"), [a, b]);
    assert_eq!(pages_of(&store, "lost"), [b]);
    assert_whole(&store);
}

#[test]
fn a_hash_collision_keeps_both_urls_apart() {
    let (_d, store) = temp_store();
    let a = store
        .update(|w| w.page_id_for(&url("http://h/one")))
        .unwrap();
    // Make /two's hash slot name /one's id, as a real collision would.
    store
        .update(|w| pages::force_collision(w, &url("http://h/two"), a))
        .unwrap();
    let b = store
        .update(|w| w.page_id_for(&url("http://h/two")))
        .unwrap();
    assert_ne!(a, b);
    let r = store.read().unwrap();
    assert_eq!(r.page_id(&url("http://h/two")).unwrap(), Some(b));
    assert_eq!(r.page_id(&url("http://h/one")).unwrap(), Some(a));
    assert_eq!(r.url_of(b).unwrap().as_deref(), Some("http://h/two"));
}

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
fn a_body_of_many_chunks_reads_back_exactly_and_a_shorter_one_replaces_it() {
    let (_d, store) = temp_store();
    // Incompressible, so it takes several chunks.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let noise: Vec<u8> = (0..10_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let with_body = |raw: &[u8]| {
        let (mut p, links) = page(&["a"], &[], vec![]);
        p.compressed_body = compress_body(raw);
        (p, links)
    };
    let id = store
        .update(|w| {
            let id = w.page_id_for(&url("http://h/noise"))?;
            put(w, id, with_body(&noise))?;
            Ok(id)
        })
        .unwrap();
    assert_eq!(store.read().unwrap().body(id).unwrap().unwrap(), noise);
    store.update(|w| put(w, id, with_body(b"short"))).unwrap();
    assert_eq!(store.read().unwrap().body(id).unwrap().unwrap(), b"short");
    store.update(|w| w.remove_page(id)).unwrap();
    assert_eq!(store.read().unwrap().body(id).unwrap(), None);
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
fn removing_a_page_cleans_every_table() {
    let (_d, store) = temp_store();
    let (p, q) = two_pages(&store, "http://h/p", "http://h/q");
    store
        .update(|w| {
            put(w, q, page(&["keep"], &[], vec![p]))?;
            put(w, p, page(&["gone", "keep"], &["gone"], vec![q]))
        })
        .unwrap();
    assert!(store.read().unwrap().http_head(p).unwrap().is_some());
    store.update(|w| w.remove_page(p)).unwrap();
    let r = store.read().unwrap();
    assert!(r.page(p).unwrap().is_none());
    assert!(r.http_head(p).unwrap().is_none());
    assert!(r.body(p).unwrap().is_none());
    assert!(r.meta_tags(p).unwrap().is_empty());
    assert!(r.forward(p).unwrap().is_none());
    assert!(r.children(p).unwrap().is_empty());
    assert!(r.parents(q).unwrap().is_empty());
    // q still links to p: p's URL is known, its parents stay.
    assert_eq!(r.parents(p).unwrap(), vec![q]);
    let gone = r.word_id("gone").unwrap().unwrap();
    assert!(r.postings(gone).unwrap().is_empty());
    assert!(r.title_postings(gone).unwrap().is_empty());
    assert_eq!(r.doc_freq(gone).unwrap(), 0);
    let keep = r.word_id("keep").unwrap().unwrap();
    assert_eq!(r.doc_freq(keep).unwrap(), 1);
    drop(r);
    assert_whole(&store);
}

#[test]
fn links_are_kept_in_both_directions() {
    let (_d, store) = temp_store();
    let ids = store
        .update(|w| {
            (0..4)
                .map(|i| w.page_id_for(&url(&format!("http://h/{i}"))))
                .collect::<Result<Vec<_>>>()
        })
        .unwrap();
    store
        .update(|w| {
            put(w, ids[0], page(&[], &[], vec![ids[1], ids[2], ids[1]]))?;
            put(w, ids[3], page(&[], &[], vec![ids[2]]))
        })
        .unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.children(ids[0]).unwrap(), vec![ids[1], ids[2]]);
    assert_eq!(r.parents(ids[2]).unwrap(), vec![ids[0], ids[3]]);
    assert_eq!(r.parents(ids[1]).unwrap(), vec![ids[0]]);
    assert_eq!(r.link_count().unwrap(), 3);
}

#[test]
fn frontier_is_breadth_first_and_claims_are_exclusive() {
    let (_d, store) = temp_store();
    let ids = store
        .update(|w| {
            // Queued URLs belong to a crawl point.
            let point = w.add_point(&PointRecord {
                url: "http://h/0".into(),
                ..PointRecord::default()
            })?;
            assert_eq!(point, 1);
            let mut ids = vec![];
            for (i, depth) in [2u32, 0, 1, 0].iter().enumerate() {
                let id = w.page_id_for(&url(&format!("http://h/{i}")))?;
                w.enqueue(
                    id,
                    FrontierEntry {
                        page: id,
                        depth: *depth,
                        point: 1,
                        gen: 1,
                        hops: 0,
                    },
                )?;
                ids.push(id);
            }
            Ok(ids)
        })
        .unwrap();
    let me = store
        .update(|w| {
            w.register_instance(InstanceRecord {
                pid: 1,
                heartbeat_ms: 0,
            })
        })
        .unwrap();
    let first = store.update(|w| w.claim(3, me, &[1])).unwrap();
    let order: Vec<PageId> = first.iter().map(|c| c.page).collect();
    assert_eq!(order, vec![ids[1], ids[3], ids[2]]);
    let rest = store.update(|w| w.claim(10, me, &[1])).unwrap();
    assert_eq!(rest.len(), 1);
    assert!(store.update(|w| w.claim(10, me, &[1])).unwrap().is_empty());
    // The holder dies: its claims go back to the queue.
    let dead = |i: InstanceId| i == me;
    let problems = store.read().unwrap().check(&dead).unwrap();
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert_eq!(store.update(|w| w.recover_claims(dead)).unwrap(), 4);
    assert_eq!(store.read().unwrap().frontier_len().unwrap(), 4);
    assert_whole(&store);
}

#[test]
fn a_full_map_grows_without_losing_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_with(
        dir.path(),
        StoreOptions {
            map_size: 256 << 10,
        },
    )
    .unwrap();
    let before = store.map_size();
    let body: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    let body: Vec<&str> = body.iter().map(String::as_str).collect();
    for i in 0..200 {
        store
            .update(|w| {
                let id = w.page_id_for(&url(&format!("http://h/{i}")))?;
                put(w, id, page(&body, &["t"], vec![]))
            })
            .unwrap();
    }
    assert!(store.map_size() > before);
    assert_eq!(store.read().unwrap().page_count().unwrap(), 200);
    assert_whole(&store);
}

#[test]
fn a_store_of_another_schema_version_is_refused_with_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        store
            .update(|w| {
                w.dbs
                    .meta
                    .put(&mut w.txn, schema::meta_keys::SCHEMA, &99u32.to_be_bytes())?;
                Ok(())
            })
            .unwrap();
    }
    // heed caches open environments per path; the check runs at each open.
    match Store::open(dir.path()) {
        Err(
            e @ StoreError::Schema {
                found: 99,
                expected: SCHEMA_VERSION,
                ..
            },
        ) => {
            let msg = e.to_string();
            assert!(
                msg.contains("99") && msg.contains(&SCHEMA_VERSION.to_string()),
                "{msg}"
            );
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a store of schema 99 was opened"),
    }
}

#[test]
fn bulk_ten_thousand_pages_in_batches() {
    let (_d, store) = temp_store();
    let vocab: Vec<String> = (0..2000).map(|i| format!("word{i}")).collect();
    let mut raw_bytes = 0u64;
    for batch in 0..20u32 {
        store
            .update(|w| {
                for n in batch * 500..(batch + 1) * 500 {
                    let id = w.page_id_for(&url(&format!("http://h/p/{n}.html")))?;
                    let words: Vec<&str> = (0..600u32)
                        .map(|i| {
                            vocab
                                [((n.wrapping_mul(7919) ^ i.wrapping_mul(104_729)) % 2000) as usize]
                                .as_str()
                        })
                        .collect();
                    put(
                        w,
                        id,
                        page(&words, &words[..3], vec![id.saturating_sub(1).max(1)]),
                    )?;
                }
                Ok(())
            })
            .unwrap();
        raw_bytes += 500 * 600 * 8;
    }
    let r = store.read().unwrap();
    assert_eq!(r.page_count().unwrap(), 10_000);
    drop(r);
    assert_whole(&store);
    let per_page = store.disk_size() / 10_000;
    eprintln!("bulk: {per_page} store bytes per page ({raw_bytes} raw text bytes)");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_sequence_of_put_replace_remove_stays_consistent(
        ops in prop::collection::vec((0u8..6, any::<bool>(), prop::collection::vec(0u8..12, 0..20), prop::collection::vec(0u8..6, 0..4)), 1..30)
    ) {
        let (_d, store) = temp_store();
        for (target, remove, words, links) in ops {
            store.update(|w| {
                let id = w.page_id_for(&url(&format!("http://h/{target}")))?;
                if remove {
                    w.remove_page(id)
                } else {
                    let words: Vec<String> = words.iter().map(|x| format!("w{x}")).collect();
                    let words: Vec<&str> = words.iter().map(String::as_str).collect();
                    let mut link_ids = vec![];
                    for l in &links {
                        link_ids.push(w.page_id_for(&url(&format!("http://h/{l}")))?);
                    }
                    let title_end = words.len().min(2);
                    put(w, id, page(&words, &words[..title_end], link_ids))
                }
            }).unwrap();
        }
        let problems = store.read().unwrap().check(&no_one_dead).unwrap();
        prop_assert!(problems.is_empty(), "{:?}", problems);
    }
}

/// Page `i` as a site writes it: a title, a description and a heading of
/// its own in the site's words, validators and a head; `raw` is the body.
fn described_page(i: u32, dicts: &Dictionaries, raw: &[u8], head: HttpHead) -> PageWrite {
    let topic = ["gardens", "rivers", "bridges", "markets", "harbours"][i as usize % 5];
    let title = format!("Notes on {topic}, part {i} | The Example Archive");
    let (mut p, _) = page(&["alpha"], &["t"], vec![]);
    p.record = PageRecord {
        title: Some(title.clone()),
        status: 200,
        size: 6_000 + u64::from(i),
        last_modified: 1_795_000_000 + i64::from(i),
        last_modified_header: Some(format!("Mon, 23 Nov 2026 12:{:02}:00 GMT", i % 60)),
        etag: Some(format!("\"6742{i:04x}-1880\"")),
        max_tf: 1,
        description: Some(format!(
            "What the archive holds on {topic}: part {i} of the series, with maps and notes."
        )),
        h1: vec![title],
        ..Default::default()
    };
    p.meta = vec![
        description(p.record.description.as_deref().unwrap_or_default()),
        crate::html::MetaTag {
            attr: "name".into(),
            name: "viewport".into(),
            content: "width=device-width, initial-scale=1".into(),
        },
    ];
    p.compressed_body = dicts.compress(DictionaryKind::Body, raw);
    p.head = Some(head);
    p
}

#[test]
fn trained_dictionaries_compress_later_records_and_travel_with_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let raw_of = |i: u32| {
        let words: Vec<String> = (0..200)
            .map(|j| format!("w{}", (i * 31 + j * 7) % 97))
            .collect();
        format!(
            "<!doctype html><html><head><title>Page {i}</title><link rel=stylesheet \
             href=/site.css></head><body><nav>home about contact archive</nav><p>{}</p>\
             <footer>all rights reserved</footer></body></html>",
            words.join(" ")
        )
        .into_bytes()
    };
    let head_of = |i: u32| HttpHead {
        request: vec![
            ("host".into(), "example.com".into()),
            (
                "user-agent".into(),
                "crawlscope/0.1 (+https://example.com/bot)".into(),
            ),
            (
                "accept".into(),
                "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8".into(),
            ),
        ],
        version: "HTTP/1.1".into(),
        response: vec![
            ("server".into(), "nginx/1.22.1".into()),
            (
                "date".into(),
                format!("Tue, 24 Nov 2026 01:{:02}:00 GMT", i % 60),
            ),
            ("content-type".into(), "text/html; charset=utf-8".into()),
            (
                "last-modified".into(),
                "Mon, 23 Nov 2026 12:00:00 GMT".into(),
            ),
            ("etag".into(), format!("\"6742{i:04x}-1880\"")),
            ("accept-ranges".into(), "bytes".into()),
        ],
    };
    let pages: Vec<u32> = (1..=200).collect();
    let raw_values = |store: &Store, id: PageId| {
        let r = store.read().unwrap();
        let body = bodies::read(&r, id).unwrap().unwrap();
        let head = page_records::get(&r, Part::Head, id)
            .unwrap()
            .unwrap()
            .to_vec();
        let record = r.dbs.pages.get(&r.txn, &codec::u32_key(id)).unwrap();
        let meta = page_records::get(&r, Part::Meta, id).unwrap().unwrap();
        let (described, tags) = pages::split_meta_part(meta).unwrap();
        // The description is left out of the tags: the record has it.
        assert_eq!(described, Some(0));
        (body, head, record.unwrap().to_vec(), tags.to_vec())
    };
    let ids = {
        let store = Store::open(dir.path()).unwrap();
        let dicts = store.dictionaries();
        let ids = store
            .update(|w| {
                let mut ids = Vec::new();
                for &i in &pages {
                    let p = (described_page(i, &dicts, &raw_of(i), head_of(i)), vec![]);
                    let id = w.page_id_for(&url(&format!("http://h/{i}")))?;
                    put(w, id, p)?;
                    ids.push(id);
                }
                Ok(ids)
            })
            .unwrap();
        // The first 128 of each kind are samples, compressed plainly;
        // the rest name the dictionary their samples trained.
        let (early_body, early_head, _, _) = raw_values(&store, ids[0]);
        let (late_body, late_head, late_record, late_meta) = raw_values(&store, ids[199]);
        assert_eq!(dictionary::frame_dictionary(&early_body), None);
        assert_eq!(dictionary::frame_dictionary(&early_head), None);
        assert!(dictionary::frame_dictionary(&late_body).is_some());
        assert!(dictionary::frame_dictionary(&late_head).is_some());
        assert!(
            late_head.len() * 2 < early_head.len(),
            "a head with the dictionary takes {} bytes, without {}",
            late_head.len(),
            early_head.len()
        );
        assert!(late_body.len() < early_body.len());
        // Page records and meta tags: frames that name their dictionary,
        // at most 2/3 of their plain encoding (about half on the bench site).
        let last = described_page(200, &dicts, b"", head_of(200));
        let plain_record = codec::encode(&last.record).unwrap();
        let plain_meta = codec::encode(&last.meta).unwrap();
        for (what, stored, plain) in [
            ("page record", &late_record, plain_record),
            ("meta tags", &late_meta, plain_meta),
        ] {
            assert!(dictionary::frame_dictionary(stored).is_some(), "{what}");
            assert!(
                stored.len() * 3 <= plain.len() * 2,
                "{what} with the dictionary takes {} bytes, plain {}",
                stored.len(),
                plain.len()
            );
        }
        let held = store.read().unwrap().compression_dictionaries().unwrap();
        let kinds: Vec<&str> = held.iter().map(|&(k, _, _)| k).collect();
        assert_eq!(
            kinds,
            ["body", "HTTP head", "page record", "meta tags record"]
        );
        assert_whole(&store);
        ids
    };
    // Another process: the dictionaries come from the store.
    let store = Store::open(dir.path()).unwrap();
    let r = store.read().unwrap();
    let dicts = store.dictionaries();
    for (&i, &id) in pages.iter().zip(&ids) {
        let written = described_page(i, &dicts, b"", head_of(i));
        assert_eq!(r.body(id).unwrap().unwrap(), raw_of(i), "body of page {i}");
        assert_eq!(
            r.http_head(id).unwrap().unwrap(),
            head_of(i),
            "head of page {i}"
        );
        assert_eq!(
            r.meta_tags(id).unwrap(),
            written.meta,
            "meta tags of page {i}"
        );
        let record = r.page(id).unwrap().unwrap();
        let shown = |p: PageRecord| (p.title, p.description, p.h1, p.etag, p.last_modified_header);
        assert_eq!(shown(record), shown(written.record), "record of page {i}");
    }
    drop(r);
    let (late_body, ..) = raw_values(&store, ids[199]);
    let again = store
        .dictionaries()
        .compress(DictionaryKind::Body, &raw_of(7));
    assert_eq!(
        dictionary::frame_dictionary(&again),
        dictionary::frame_dictionary(&late_body),
        "a store that holds a dictionary compresses with it, untrained"
    );

    // A store that lost a dictionary says which record names which one.
    store
        .update(|w| {
            let key = w
                .dbs
                .meta
                .prefix_iter(&w.txn, b"zdict:b")?
                .next()
                .unwrap()?
                .0
                .to_vec();
            w.dbs.meta.delete(&mut w.txn, &key)?;
            Ok(())
        })
        .unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    let r = store.read().unwrap();
    let err = r.body(ids[199]).unwrap_err().to_string();
    assert!(err.contains("names zstd dictionary"), "{err}");
    assert_problem(&r, "body names zstd dictionary");
}

#[test]
fn appended_body_chunks_fill_the_leaves_they_land_in() {
    let (_d, store) = temp_store();
    // Incompressible bodies of the bench site's compressed size, 40 pages
    // to a transaction.
    let mut seed = 7u64;
    let mut body = || -> Vec<u8> {
        (0..2258)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 56) as u8
            })
            .collect()
    };
    let mut stored = 0usize;
    for batch in 0..15u32 {
        let bodies: Vec<Vec<u8>> = (0..40).map(|_| body()).collect();
        stored += bodies.iter().map(Vec::len).sum::<usize>();
        store
            .update(|w| {
                for (i, b) in bodies.iter().enumerate() {
                    let (mut p, links) = page(&["alpha"], &["t"], vec![]);
                    p.compressed_body = b.clone();
                    let id = w.page_id_for(&url(&format!("http://h/{batch}/{i}")))?;
                    put(w, id, (p, links))?;
                }
                Ok(())
            })
            .unwrap();
    }
    let sizes = store.read().unwrap().table_sizes().unwrap();
    let on_disk = sizes.iter().find(|(t, _)| *t == "bodies").unwrap().1 as f64;
    // Chunks of a fixed 992 bytes took 1.24 times the bytes here.
    assert!(
        on_disk / (stored as f64) < 1.06,
        "{on_disk} bytes for {stored}"
    );
}

/// Ids for `n` new URLs, given in one transaction.
fn page_ids(store: &Store, n: u32) -> Vec<PageId> {
    store
        .update(|w| {
            (0..n)
                .map(|i| w.page_id_for(&url(&format!("http://h/{i}"))))
                .collect()
        })
        .unwrap()
}

#[test]
fn page_records_written_across_transactions_out_of_id_order_fill_their_leaves() {
    let (_d, store) = temp_store();
    let ids = page_ids(&store, 1200);
    let words: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    // Each transaction finishes every 12th page: by page id, every one
    // of them lands between pages written earlier.
    for turn in 0..12 {
        store
            .update(|w| {
                for &id in ids.iter().skip(turn).step_by(12) {
                    let body: Vec<&str> = words
                        .iter()
                        .skip(id as usize % 7)
                        .map(String::as_str)
                        .collect();
                    put(w, id, page(&body, &["t"], vec![id / 2, id / 3]))?;
                }
                Ok(())
            })
            .unwrap();
    }
    let r = store.read().unwrap();
    // A page's own records are one record since schema 17. Keyed by page
    // id, these leaves were 64-71% full.
    let fill = leaf_fill(&r, r.dbs.forward);
    assert!(fill > 0.9, "forward: leaves {fill:.2} full");
    drop(r);
    assert_whole(&store);
}

/// How full the leaves of `db` are with its records.
fn leaf_fill(r: &Reader<'_>, db: schema::Db) -> f64 {
    let stat = db.stat(&r.txn).unwrap();
    let mut bytes = 0;
    for item in db.iter(&r.txn).unwrap() {
        let (k, v) = item.unwrap();
        // LMDB's node header and pointer, and its even padding.
        bytes += (8 + k.len() + v.len()).next_multiple_of(2) + 2;
    }
    bytes as f64 / (stat.leaf_pages * (page_size() - 16)) as f64
}

#[test]
fn url_states_queued_claimed_and_done_in_batches_fill_their_leaves() {
    let (_d, store) = temp_store();
    let me = store
        .update(|w| {
            w.add_point(&PointRecord {
                url: "http://h/0".into(),
                ..PointRecord::default()
            })?;
            w.register_instance(InstanceRecord {
                pid: 1,
                heartbeat_ms: 0,
            })
        })
        .unwrap();
    // As a crawl goes: each transaction queues the links it found and
    // claims and finishes pages queued before.
    let mut next = 0u32;
    for _ in 0..40 {
        store
            .update(|w| {
                for _ in 0..60 {
                    let id = w.page_id_for(&url(&format!("http://h/{next}")))?;
                    next += 1;
                    let entry = FrontierEntry {
                        page: id,
                        depth: 1,
                        point: 1,
                        gen: 1,
                        hops: 0,
                    };
                    w.enqueue(id, entry)?;
                }
                for claim in w.claim(50, me, &[1])? {
                    w.set_state(claim.page, &UrlState::Done { point: 1, gen: 1 })?;
                }
                Ok(())
            })
            .unwrap();
    }
    let r = store.read().unwrap();
    assert_eq!(r.dbs.url_state.len(&r.txn).unwrap(), 2400);
    // Grown by each claim, the records split their leaves in half (0.50).
    let fill = leaf_fill(&r, r.dbs.url_state);
    assert!(fill > 0.9, "url_state: leaves {fill:.2} full");
    assert!(matches!(
        r.url_state(2400).unwrap(),
        Some(UrlState::Queued { point: 1, gen: 1 })
    ));
    assert!(matches!(
        r.url_state(1).unwrap(),
        Some(UrlState::Done { point: 1, gen: 1 })
    ));
}

#[test]
fn pages_written_out_of_order_or_twice_in_one_transaction_read_back() {
    let (_d, store) = temp_store();
    let ids = page_ids(&store, 6);
    store
        .update(|w| {
            // Descending: none of these can be appended.
            for &id in ids.iter().rev() {
                put(w, id, page(&["first"], &["t"], vec![ids[0]]))?;
            }
            put(w, ids[2], page(&["second"], &["t2"], vec![ids[5]]))?;
            Ok(())
        })
        .unwrap();
    assert_whole(&store);
    let r = store.read().unwrap();
    for &id in &ids {
        let again = id == ids[2];
        assert_eq!(
            r.children(id).unwrap(),
            vec![if again { ids[5] } else { ids[0] }]
        );
        assert_eq!(r.meta_tags(id).unwrap(), vec![description("d")]);
    }
    drop(r);
    assert_eq!(pages_of(&store, "second"), vec![ids[2]]);
    assert_eq!(pages_of(&store, "first").len(), 5);
}

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
    assert!(pages_there >= pairs::PAIR_MIN_PAGES);
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
            r.word_form(alpha).unwrap().as_deref()
        ),
        (199, Some("alphas"))
    );
    drop(r);
    assert_whole(&store);
}

fn r_word_id(store: &Store, stem: &str) -> WordId {
    store.read().unwrap().word_id(stem).unwrap().unwrap()
}

#[test]
fn a_sites_first_seen_form_is_decided_once_a_transaction_and_agrees_with_the_rule() {
    let (_d, store) = temp_store();
    let twin_host = |w: &mut Writer<'_>, u: &str| {
        let u = url(u);
        let once = w.on_first_seen_site_once(&u).unwrap().into_owned();
        assert_eq!(once, w.on_first_seen_site(&u).unwrap().into_owned(), "{u}");
        once.host_str().unwrap().to_owned()
    };
    store
        .update(|w| {
            w.page_id_for(&url("http://site.test/"))?;
            // Site forms asked twice each: the second answer is the memo's.
            for _ in 0..2 {
                assert_eq!(twin_host(w, "http://www.site.test/a"), "site.test");
                assert_eq!(twin_host(w, "http://www.site.test/b?q"), "site.test");
                assert_eq!(twin_host(w, "http://site.test/c"), "site.test");
                // Another port is another origin, never seen: its own form.
                assert_eq!(twin_host(w, "http://www.site.test:81/d"), "www.site.test");
            }
            // Seen after the site's decision: the www form's larger id
            // leaves that decision as it was.
            w.page_id_for(&url("http://www.site.test/"))?;
            assert_eq!(twin_host(w, "http://www.site.test/e"), "site.test");
            Ok(())
        })
        .unwrap();
}

#[test]
fn run_entries_keep_what_a_later_fetch_or_a_removal_replaced() {
    let (_d, store) = temp_store();
    let seen = |title: &str| RunEntry {
        status: Some(200),
        title: Some(title.into()),
        content_hash: Some(0),
    };
    let (a, b) = store
        .update(|w| {
            let point = w.add_point(&PointRecord {
                url: "http://h/start".into(),
                gen: 2,
                ..PointRecord::default()
            })?;
            assert_eq!(point, 1);
            let a = w.page_id_for(&url("http://h/a"))?;
            let b = w.page_id_for(&url("http://h/b"))?;
            for id in [a, b] {
                put(w, id, page(&["x"], &["one"], vec![]))?;
                w.put_run_entry(1, 1, id, &seen("one"))?;
            }
            Ok((a, b))
        })
        .unwrap();
    let r = store.read().unwrap();
    let kept = r.kept_entries(1, 1).unwrap();
    let as_page = Kept::AsPage { status: 200 };
    assert_eq!(kept, [(a, as_page.clone()), (b, as_page)]);
    drop(r);
    store
        .update(|w| {
            put(w, a, page(&["y"], &["two"], vec![]))?;
            w.put_run_entry(1, 2, a, &seen("two"))?;
            w.remove_page(b)
        })
        .unwrap();
    let r = store.read().unwrap();
    assert_eq!(
        r.run_entries(1, 1).unwrap(),
        [(a, seen("one")), (b, seen("one"))]
    );
    assert_eq!(r.run_entries(1, 2).unwrap(), [(a, seen("two"))]);
    assert_eq!(
        r.kept_entries(1, 2).unwrap(),
        [(a, Kept::AsPage { status: 200 })]
    );
    drop(r);
    assert_whole(&store);
}

//! Store tests on a real LMDB environment in a temp dir: the helpers that
//! write pages, and the tests of pages, URLs, links, the frontier and the
//! store as a whole; the inverted index, the records' encodings and leaf
//! fill, and pair postings have a file each.

mod index;
mod pair_postings;
mod posting_blocks;
mod records;
mod repack;
mod staged;

use ::url::Url;
use proptest::prelude::*;

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

/// Gives `p` the body `raw`, compressed as stored, with the hash the
/// crawl records of what it fetched (`check` compares them).
fn set_body(p: &mut PageWrite, raw: &[u8]) {
    p.compressed_body = compress_body(raw);
    p.record.content_hash = xxhash_rust::xxh3::xxh3_64(raw);
}

fn page(body: &[&str], title: &[&str], links: Vec<PageId>) -> (PageWrite, Vec<PageId>) {
    let mut p = PageWrite {
        record: PageRecord {
            status: 200,
            title: Some(title.join(" ")),
            ..Default::default()
        },
        content_type: "text/html; charset=utf-8".into(),
        meta: vec![description("d")],
        compressed_body: Vec::new(),
        terms: terms(body),
        title_terms: terms(title),
        head: Some(HttpHead {
            request: vec![("host".into(), "example.com".into())],
            version: "HTTP/1.1".into(),
            response: vec![("content-type".into(), "text/html".into())],
        }),
        audit: Some(crate::PageAudit {
            h2: 1,
            ..Default::default()
        }),
        custom: None,
    };
    set_body(&mut p, body.join(" ").as_bytes());
    (p, links)
}

fn description(content: &str) -> crate::types::MetaTag {
    crate::types::MetaTag {
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
                rel: if child % 2 == 1 {
                    crate::types::Rel::NOFOLLOW
                } else {
                    crate::types::Rel::default()
                },
                ..OutLink::default()
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

/// The decompressed size of each block of `table`, a shelf's table
/// (`block ‖ … ‖ chunk` → the frame's chunks), by block number.
fn block_sizes(r: &Reader<'_>, table: schema::Db) -> Vec<usize> {
    let mut frames: Vec<Vec<u8>> = Vec::new();
    for item in table.iter(&r.txn).unwrap() {
        let (k, v) = item.unwrap();
        let block = codec::read_u32(&k[..4]).unwrap() as usize;
        frames.resize(frames.len().max(block + 1), Vec::new());
        frames[block].extend_from_slice(v);
    }
    frames
        .iter()
        .map(|f| zstd::stream::decode_all(&f[..]).unwrap().len())
        .collect()
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
        content_hash: xxhash_rust::xxh3::xxh3_64(raw),
        ..Default::default()
    };
    p.meta = vec![
        description(p.record.description.as_deref().unwrap_or_default()),
        crate::types::MetaTag {
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
                in_flight: 0,
            })
        })
        .unwrap();
    let first = store
        .update(|w| w.claim(3, me, &[1], |_| false))
        .unwrap()
        .claims;
    let order: Vec<PageId> = first.iter().map(|c| c.page).collect();
    assert_eq!(order, vec![ids[1], ids[3], ids[2]]);
    let rest = store
        .update(|w| w.claim(10, me, &[1], |_| false))
        .unwrap()
        .claims;
    assert_eq!(rest.len(), 1);
    assert!(store
        .update(|w| w.claim(10, me, &[1], |_| false))
        .unwrap()
        .claims
        .is_empty());
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
            ..Default::default()
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

/// A store in `dir` marked as of format `version`, with what `also` writes.
fn mark_format(dir: &Path, version: u32, also: impl Fn(&mut Writer<'_>) -> Result<()>) {
    let store = Store::open(dir).unwrap();
    store
        .update(|w| {
            w.dbs.meta.put(
                &mut w.txn,
                schema::meta_keys::FORMAT,
                &version.to_be_bytes(),
            )?;
            also(w)
        })
        .unwrap();
}

#[test]
fn a_store_of_another_format_is_refused_with_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    mark_format(dir.path(), 99, |_| Ok(()));
    // heed caches open environments per path; the check runs at each open.
    match Store::open(dir.path()) {
        Err(
            e @ StoreError::Format {
                found: 99,
                expected: FORMAT_VERSION,
                ..
            },
        ) => {
            let msg = e.to_string();
            assert!(
                msg.contains("99") && msg.contains(&FORMAT_VERSION.to_string()),
                "{msg}"
            );
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a store of format 99 was opened"),
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

/// Records of runs `gens` of `point`, as the writer begins them.
fn add_runs(w: &mut Writer<'_>, point: PointId, gens: std::ops::RangeInclusive<u32>) -> Result<()> {
    for gen in gens {
        w.add_run(&RunRecord {
            point,
            gen,
            started_at: 0,
            ended_at: None,
            ended: RunEnd::Finished,
            crawlers: Vec::new(),
            flags: RunFlags::default(),
            counts: RunCounts::default(),
            running_ms: 0,
            ran_to_ms: 0,
        })?;
    }
    Ok(())
}

#[test]
fn every_run_that_leans_on_a_page_record_is_written_out_when_it_changes() {
    let (_d, store) = temp_store();
    let seen = |title: &str| RunEntry {
        status: Some(200),
        title: Some(title.into()),
        // A page's body is its title: the hash is the record's.
        content_hash: Some(xxhash_rust::xxh3::xxh3_64(title.as_bytes())),
    };
    let runs = 1..=5;
    let a = store
        .update(|w| {
            w.add_point(&PointRecord {
                url: "http://h/start".into(),
                gen: *runs.end(),
                ..PointRecord::default()
            })?;
            add_runs(w, 1, runs.clone())?;
            let a = w.page_id_for(&url("http://h/a"))?;
            put(w, a, page(&["one"], &["one"], vec![]))?;
            for gen in runs.clone() {
                w.put_run_entry(1, gen, a, &seen("one"))?;
            }
            Ok(a)
        })
        .unwrap();
    let r = store.read().unwrap();
    for gen in runs.clone() {
        assert_eq!(
            r.kept_entries(1, gen).unwrap(),
            [(a, Kept::AsPage { status: 200 })]
        );
    }
    drop(r);
    store
        .update(|w| put(w, a, page(&["two"], &["two"], vec![])))
        .unwrap();
    let r = store.read().unwrap();
    for gen in runs {
        assert_eq!(
            r.run_entries(1, gen).unwrap(),
            [(a, seen("one"))],
            "run {gen}"
        );
    }
    drop(r);
    assert_whole(&store);
}

#[test]
fn run_entries_keep_what_a_later_fetch_or_a_removal_replaced() {
    let (_d, store) = temp_store();
    let seen = |title: &str| RunEntry {
        status: Some(200),
        title: Some(title.into()),
        // A page's body is its title: the hash is the record's.
        content_hash: Some(xxhash_rust::xxh3::xxh3_64(title.as_bytes())),
    };
    let (a, b) = store
        .update(|w| {
            let point = w.add_point(&PointRecord {
                url: "http://h/start".into(),
                gen: 2,
                ..PointRecord::default()
            })?;
            assert_eq!(point, 1);
            add_runs(w, 1, 1..=2)?;
            let a = w.page_id_for(&url("http://h/a"))?;
            let b = w.page_id_for(&url("http://h/b"))?;
            for id in [a, b] {
                put(w, id, page(&["one"], &["one"], vec![]))?;
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
            put(w, a, page(&["two"], &["two"], vec![]))?;
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

//! How records are encoded and where they land: bodies in chunks,
//! trained dictionaries, and leaves filled by appends.

use super::*;

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
        super::set_body(&mut p, raw);
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
        let (described, tags) = codec::split_meta_part(meta).unwrap();
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
    // A page's own records are one record, keyed by page id: written a
    // table per part, these leaves were 64-71% full.
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
                in_flight: 0,
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
                for claim in w.claim(50, me, &[1], |_| false)?.claims {
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
        Some(UrlState::Queued {
            point: 1,
            gen: 1,
            ..
        })
    ));
    assert!(matches!(
        r.url_state(1).unwrap(),
        Some(UrlState::Done { point: 1, gen: 1 })
    ));
}

#[test]
fn a_pages_fragment_record_goes_with_it_and_check_sees_one_left_behind() {
    let (_d, store) = temp_store();
    let rec = FragmentRecord {
        ids: vec!["intro".into()],
        links: vec![(7, "intro".into())],
    };
    let id = store
        .update(|w| {
            let id = w.page_id_for(&url("http://h/f"))?;
            put(w, id, page(&["a"], &[], vec![]))?;
            w.put_fragments(id, &rec)?;
            Ok(id)
        })
        .unwrap();
    assert_eq!(
        store.read().unwrap().fragments(id).unwrap(),
        Some(rec.clone())
    );
    assert_whole(&store);
    store.update(|w| w.remove_page(id)).unwrap();
    assert_eq!(store.read().unwrap().fragments(id).unwrap(), None);
    assert_whole(&store);
    // A record without its page (a removal that forgot it) is a problem.
    store.update(|w| w.put_fragments(id, &rec)).unwrap();
    assert_problem(
        &store.read().unwrap(),
        "fragment record without a page record",
    );
}

#[test]
fn a_pages_resources_are_replaced_with_it_and_removed_with_it() {
    use crate::types::Element;
    use crate::{ResourceLink, ResourceRead};
    let (_d, store) = temp_store();
    let link = |target, element| ResourceLink {
        target,
        element,
        alt: None,
    };
    let (id, img) = store
        .update(|w| {
            let id = w.page_id_for(&url("http://h/p"))?;
            let img = w.page_id_for(&url("http://h/i.png"))?;
            put(w, id, page(&["a"], &[], vec![]))?;
            w.put_resources(id, &[link(img, Element::Img), link(img, Element::Preload)])?;
            Ok((id, img))
        })
        .unwrap();
    assert_eq!(store.read().unwrap().resources(id).unwrap().len(), 2);
    store
        .update(|w| w.put_resources(id, &[link(img, Element::Img)]))
        .unwrap();
    let kept = store.read().unwrap().resources(id).unwrap();
    assert_eq!(kept, [link(img, Element::Img)]);
    store.update(|w| w.remove_page(id)).unwrap();
    assert!(store.read().unwrap().resources(id).unwrap().is_empty());
    assert_whole(&store);
    // `check` knows a resource must be a URL of the store.
    store
        .update(|w| w.put_resources(img, &[link(img + 100, Element::Img)]))
        .unwrap();
    assert_problem(
        &store.read().unwrap(),
        &format!("page {img}: loads page {}, which has no URL", img + 100),
    );
}

/// Kept records land whole, each as pushed (an empty one, one larger
/// than the file's read buffer), and again from the first when the same
/// records are kept once more, as a transaction replayed after the map
/// grew reads them; a stamp some write came after keeps nothing.
#[test]
fn kept_records_land_as_pushed_and_replay_from_the_first() {
    let (_d, store) = temp_store();
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let mut records = KeptRecords::new(&store).unwrap();
    records.push("one", b"1").unwrap();
    records.push("empty", b"").unwrap();
    records.push("big", &big).unwrap();
    for round in 0..2 {
        let as_of = store.read().unwrap().write_seq().unwrap();
        assert!(store.keep_figures(as_of, &mut records).unwrap());
        let r = store.read().unwrap();
        assert_eq!(r.kept("one").unwrap(), Some(&b"1"[..]), "round {round}");
        assert_eq!(r.kept("empty").unwrap(), Some(&b""[..]), "round {round}");
        assert_eq!(r.kept("big").unwrap(), Some(&big[..]), "round {round}");
    }
    assert!(!store.keep_figures(0, &mut records).unwrap());
}

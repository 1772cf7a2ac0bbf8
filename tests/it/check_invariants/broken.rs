//! Each invariant `check` claims, broken alone with a raw write: the
//! binary's `check` and `check --json` exit 1 and name it.

use super::*;

/// A posting stream's part (body or title postings, reverse links) to
/// put under `segment ‖ word ‖ page`: one run (word delta 0, its length)
/// of its weight class (0) and one entry (the page, LEB128, shifted past
/// the several-positions flag; then its lone position, 0).
fn one_entry_part(page: [u8; 4]) -> Vec<u8> {
    let mut entry = Vec::new();
    let mut page = u64::from(u32::from_be_bytes(page)) << 1;
    while page >= 0x80 {
        entry.push(page as u8 | 0x80);
        page >>= 7;
    }
    entry.extend([page as u8, 0]);
    [&[0, entry.len() as u8 + 1, 0][..], &entry].concat()
}

fn first_key(entries: &Entries) -> Vec<u8> {
    entries.first().expect("a non-empty table").0.clone()
}

/// The first `doc_freq` record with word 1's count one higher: the
/// record's second entry, after word 0's empty one, begins `varint df <<
/// 2 | spellings`.
fn counted_once_more(record: &[u8]) -> Vec<u8> {
    let len = 1 + record[1..].iter().position(|b| b & 0x80 == 0).unwrap();
    let head = (record[1..=len].iter().rev()).fold(0u64, |v, b| v << 7 | u64::from(b & 0x7f));
    assert!(head >> 2 > 0, "word 1 is on a page");
    let mut out = vec![record[0]];
    let mut v = head + (1 << 2);
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out.extend_from_slice(&record[1 + len..]);
    out
}

fn state_bytes(s: &UrlState) -> Vec<u8> {
    postcard::to_stdvec(s).unwrap()
}

#[test]
fn check_names_each_broken_invariant_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let c = crawled(db);
    assert_whole(db);

    let home = c.id("");
    let queued = c.queued();
    let (point, gen) = c.state("").run();
    // A URL record that keeps its whole URL (as one its parts do not
    // spell does).
    let url_record = |url: &str| {
        let mut record: StoredUrl = postcard::from_bytes(&c.baseline("urls")[0].1).unwrap();
        record.url = Some(url.to_string());
        postcard::to_stdvec(&record).unwrap()
    };
    let title_posting = first_key(c.baseline("title_postings"));
    // `doc_freq`: 64 words' entries to a record, each `varint df << 2 |
    // spellings` and its spellings; word ids start at 1, so the first
    // record's first entry is the one byte of an empty one.
    let (df_key, df_value) = c.baseline("doc_freq")[0].clone();
    assert_eq!((&df_key[..], df_value[0]), (&[0, 0, 0, 0][..], 0));
    // `words`: for 64 ids a record, each id's `word_ids` record number
    // (a varint); the first record's first entry is id 0's empty one.
    // Word 1 sent to a record there is none of (number 60,000).
    let (stem_key, stems) = c.baseline("words")[0].clone();
    assert_eq!((&stem_key[..], stems[0]), (&[0, 0, 0, 0][..], 0));
    let renamed = vec![0, 0xe0, 0xd4, 0x03];
    let links_in = first_key(c.baseline("links_in"));
    let (norms_key, mut norms) = c.baseline("norms")[0].clone();
    let slot = u32::from_be_bytes(home) as usize % 1000 * 4;
    norms[slot..slot + 4].copy_from_slice(&0.5f32.to_le_bytes());

    // A page's own records are keyed `segment ‖ page`.
    let home_segment = c
        .baseline("page_segments")
        .iter()
        .find(|(k, _)| k[..] == home)
        .expect("the home page has a place")
        .1
        .clone();
    let home_placed = [&home_segment[..], &home].concat();
    let elsewhere = [
        &(u32::from_be_bytes(home_segment[..].try_into().unwrap()) + 1).to_be_bytes()[..],
        &home,
    ]
    .concat();
    let home_record = (c.baseline("forward").iter())
        .find(|(k, _)| k[..] == home_placed[..])
        .expect("the home page has a record")
        .1
        .clone();
    // Run history: 64 pages' entries to a record keyed `point ‖ run ‖
    // page / 64`, each entry `page % 64, length, entry`.
    let history = |w: &mut RwTxn<'_>, point: u32, gen: u32, page: [u8; 4]| {
        let page = u32::from_be_bytes(page);
        let key = [point, gen, page / 64].map(u32::to_be_bytes).concat();
        let unanswered = RunEntry {
            status: None,
            title: None,
            content_hash: None,
        };
        let entry = postcard::to_stdvec(&Kept::Whole(unanswered)).unwrap();
        let record = [&[(page % 64) as u8, entry.len() as u8][..], &entry].concat();
        put(c.db("run_history"), w, &key, &record)
    };

    // The crawl's entry of the home page keeps its status alone: its
    // title and hash are the page record's.
    let leaning = format!(
        "run history of page {} leans on a page record it lacks",
        u32::from_be_bytes(home)
    );

    type Corrupt<'a> = Box<dyn Fn(&mut RwTxn<'_>) + 'a>;
    let cases: Vec<(&str, Corrupt, &str)> = vec![
        (
            "a forward index names its page",
            Box::new(|w| del(c.db("pages"), w, &home)),
            "forward index without a page record",
        ),
        (
            "a page has its forward index",
            Box::new(|w| del(c.db("forward"), w, &home_placed)),
            "page record without a forward index",
        ),
        (
            "a page has a place for its records",
            Box::new(|w| del(c.db("page_segments"), w, &home)),
            "page record without a forward index",
        ),
        (
            "a page's records are where its place says",
            Box::new(|w| put(c.db("forward"), w, &elsewhere, &home_record)),
            "forward index in segment",
        ),
        (
            "each title word has its title posting",
            Box::new(|w| del(c.db("title_postings"), w, &title_posting)),
            "has no title posting",
        ),
        (
            "the norms table agrees with the page records",
            Box::new(|w| put(c.db("norms"), w, &norms_key, &norms)),
            "norm factor",
        ),
        (
            "each forward word has its body posting",
            Box::new(|w| del(c.db("postings"), w, &first_key(c.baseline("postings")))),
            "postings expected",
        ),
        (
            "title postings match the forward index",
            Box::new(|w| {
                let mut k = title_posting.clone();
                k[8..].copy_from_slice(&queued);
                put(c.db("title_postings"), w, &k, &one_entry_part(queued));
            }),
            "has no forward index",
        ),
        (
            "doc freqs count the pages holding a word",
            Box::new(|w| put(c.db("doc_freq"), w, &df_key, &counted_once_more(&df_value))),
            "pages hold it",
        ),
        (
            "every indexed word has a doc freq",
            Box::new(|w| del(c.db("doc_freq"), w, &df_key)),
            "doc freqs stored",
        ),
        (
            "each link has its reverse entry",
            Box::new(|w| del(c.db("links_in"), w, &links_in)),
            "has no reverse entry",
        ),
        (
            "links in and out are as many",
            Box::new(|w| {
                // `segment ‖ child ‖ parent`: another parent's.
                let mut k = links_in.clone();
                k[8..].copy_from_slice(&queued);
                put(c.db("links_in"), w, &k, &one_entry_part(queued));
            }),
            "links out but",
        ),
        (
            "the word maps are one-to-one",
            Box::new(|w| del(c.db("word_ids"), w, &first_key(c.baseline("word_ids")))),
            "word maps differ in size",
        ),
        (
            "each word id maps back to its stem",
            Box::new(|w| put(c.db("words"), w, &stem_key, &renamed)),
            "word 1: stem record 60000 does not hold it",
        ),
        (
            "the origin maps are one-to-one",
            Box::new(|w| del(c.db("origins"), w, &first_key(c.baseline("origins")))),
            "origin id",
        ),
        (
            "the mimetype maps are one-to-one",
            Box::new(|w| del(c.db("mimetypes"), w, &first_key(c.baseline("mimetypes")))),
            "mimetype maps differ in size",
        ),
        (
            "the URL map names URL records",
            Box::new(|w| del(c.db("urls"), w, &queued)),
            "which has no URL record",
        ),
        (
            "every URL record is in the URL map",
            Box::new(|w| del(c.db("url_ids"), w, &first_key(c.baseline("url_ids")))),
            "ids in the URL map",
        ),
        (
            "each URL maps back to its page",
            Box::new(|w| {
                put(
                    c.db("urls"),
                    w,
                    &home,
                    &url_record("http://other.invalid/x"),
                )
            }),
            "does not map back to page",
        ),
        (
            "a URL record's parts are those of its string",
            Box::new(|w| {
                let mut record: StoredUrl = postcard::from_bytes(
                    &c.baseline("urls")
                        .iter()
                        .find(|(k, _)| k[..] == home)
                        .unwrap()
                        .1,
                )
                .unwrap();
                record.url = Some(c.base.clone());
                record.path = "/elsewhere".to_string();
                put(
                    c.db("urls"),
                    w,
                    &home,
                    &postcard::to_stdvec(&record).unwrap(),
                )
            }),
            "its parts are not those of",
        ),
        (
            "each stored URL parses",
            Box::new(|w| put(c.db("urls"), w, &home, &url_record("not a url"))),
            "stored URL does not parse",
        ),
        (
            "a frontier entry's URL is queued",
            Box::new(|w| {
                put(
                    c.db("url_state"),
                    w,
                    &queued,
                    &state_bytes(&UrlState::Done { point, gen }),
                )
            }),
            "is in the frontier but not queued",
        ),
        (
            "a frontier entry's URL has a state",
            Box::new(|w| del(c.db("url_state"), w, &queued)),
            "is in the frontier without a state",
        ),
        (
            "each queued URL has a frontier entry",
            Box::new(|w| del(c.db("frontier"), w, &first_key(c.baseline("frontier")))),
            "is queued but not in the frontier",
        ),
        (
            "a frontier entry has its point's mark",
            Box::new(|w| {
                let key = [&point.to_be_bytes()[..], &queued[..]].concat();
                del(c.db("point_urls"), w, &key)
            }),
            "frontier without its mark",
        ),
        (
            "no claim of a crawler that is gone",
            Box::new(|w| {
                let s = UrlState::Claimed {
                    point,
                    gen,
                    by: 1,
                    depth: 1,
                    hops: 0,
                    had: None,
                };
                put(c.db("url_state"), w, &home, &state_bytes(&s));
            }),
            "is claimed by crawler 1, which is gone",
        ),
        (
            "a state belongs to a URL",
            Box::new(|w| {
                put(
                    c.db("url_state"),
                    w,
                    &9999u32.to_be_bytes(),
                    &state_bytes(&UrlState::Done { point, gen }),
                )
            }),
            "has a state but no URL",
        ),
        (
            "a body belongs to a page",
            // Body keys are `segment ‖ page ‖ chunk number`.
            Box::new(|w| {
                let key = [&1u32.to_be_bytes()[..], &queued, &0u32.to_be_bytes()].concat();
                put(c.db("bodies"), w, &key, b"x")
            }),
            "body without a page record",
        ),
        (
            "a stored body is the one fetched",
            // One byte flipped in the middle of the largest body frame: a
            // repacked store keeps its bodies in shared frames.
            Box::new(|w| {
                let table = match c.baseline("body_blocks").is_empty() {
                    true => "bodies",
                    false => "body_blocks",
                };
                let (k, v) = (c.baseline(table).iter())
                    .max_by_key(|(_, v)| v.len())
                    .expect("a stored body");
                let mut flipped = v.clone();
                flipped[v.len() / 2] ^= 0x20;
                put(c.db(table), w, k, &flipped)
            }),
            "stored body",
        ),
        (
            "a robots record belongs to an origin",
            Box::new(|w| put(c.db("robots"), w, &9999u32.to_be_bytes(), &[0])),
            "robots record of origin 9999",
        ),
        (
            "figures belong to an origin",
            // Keyed by origin and run.
            Box::new(|w| {
                let key = [9999u32.to_be_bytes(), 1u32.to_be_bytes()].concat();
                put(c.db("origin_figures"), w, &key, &[0])
            }),
            "figures of origin 9999",
        ),
        (
            "a page a sitemap listed has a URL",
            Box::new(|w| put(c.db("sitemap_pages"), w, &9999u32.to_be_bytes(), &[0])),
            "page 9999: listed by a sitemap but has no URL",
        ),
        (
            "a crawl point's start URL has a state",
            Box::new(|w| del(c.db("url_state"), w, &home)),
            "start URL of crawl point",
        ),
        (
            "every link of a followed page has a state",
            Box::new(|w| del(c.db("url_state"), w, &c.id("private/x"))),
            "which was followed, but without a state",
        ),
        (
            "a queued URL's crawl point exists",
            Box::new(|w| del(c.db("crawl_points"), w, &point.to_be_bytes())),
            "which does not exist",
        ),
        (
            "run history names a crawl point that exists",
            Box::new(|w| history(w, 9999, gen, home)),
            "run history of crawl point 9999, which does not exist",
        ),
        (
            "run history names a URL the store knows",
            Box::new(|w| {
                let page = 9999u32.to_be_bytes();
                history(w, point, gen, page)
            }),
            "run history of page 9999, which has no URL",
        ),
        (
            "a run entry that leans on its page record has one",
            Box::new(|w| del(c.db("pages"), w, &home)),
            leaning.as_str(),
        ),
        (
            "run history is never ahead of its point's run",
            Box::new(|w| history(w, point, gen + 1, home)),
            "past its current run",
        ),
        (
            "every run with history has its run record",
            Box::new(|w| {
                let (k, v) = &c.baseline("crawl_points")[0];
                let mut rec: PointRecord = postcard::from_bytes(v).unwrap();
                rec.gen = gen + 2;
                put(
                    c.db("crawl_points"),
                    w,
                    k,
                    &postcard::to_stdvec(&rec).unwrap(),
                );
                for g in [gen + 1, gen + 2] {
                    history(w, point, g, home);
                }
            }),
            "run 3, which has no run record",
        ),
        (
            "an id counter is past every id in use",
            Box::new(|w| put(c.db("meta"), w, b"next_page_id", &2u64.to_be_bytes())),
            "counter next_page_id is 2, but page id",
        ),
    ];
    let c = &c;
    let mut counters: Vec<(String, Corrupt, String)> = Vec::new();
    for (key, what) in [
        ("next_page_id", "page"),
        ("next_word_id", "word"),
        ("next_origin_id", "origin"),
        ("next_mime_id", "mimetype"),
        ("next_point_id", "crawl point"),
        ("next_segment", "segment"),
        ("frontier_seq", "frontier sequence"),
    ] {
        counters.push((
            format!("counter {key} is kept"),
            Box::new(move |w| del(c.db("meta"), w, key.as_bytes())),
            format!("counter {key} is missing, but {what} id"),
        ));
    }
    let all = cases
        .iter()
        .map(|(n, f, m)| (n.to_string(), f, m.to_string()))
        .chain(counters.iter().map(|(n, f, m)| (n.clone(), f, m.clone())));

    for (invariant, corrupt, names) in all {
        c.install(|w| corrupt(w));
        let (code, out, err) = check(db, false);
        assert_eq!(
            code,
            Some(1),
            "{invariant}: check exited {code:?}: {out}{err}"
        );
        assert!(
            out.lines().any(|l| l.contains(&names)),
            "{invariant}: no line names it ({names:?}):\n{out}{err}"
        );
        assert!(err.contains("problem"), "{invariant}: stderr {err}");

        let (code, out, err) = check(db, true);
        assert_eq!(
            code,
            Some(1),
            "{invariant}: check --json exited {code:?}: {err}"
        );
        let v: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{invariant}: not JSON ({e}): {out}"));
        assert_eq!(v["ok"], false, "{invariant}: {v}");
        let problems = v["problems"].as_array().expect("problems");
        assert!(
            problems
                .iter()
                .any(|p| p.as_str().is_some_and(|p| p.contains(&names))),
            "{invariant}: no problem names it ({names:?}): {v}"
        );
    }
    c.install(|_| {});
    assert_whole(db);
}

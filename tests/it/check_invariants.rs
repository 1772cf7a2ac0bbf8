//! `crawlscope check` catches what it claims to: a real crawl's store is
//! whole, then each invariant is broken alone with raw LMDB writes (heed
//! opened directly on the store, as the `store_records` fuzz target does)
//! and the real binary's `check` and `check --json` must exit 1 naming it.
//! A sweep deletes every entry of every table, one at a time, and `check`
//! must notice each deletion but the few that break nothing.
//!
//! The store is written and checked by other processes (the binary); this
//! process opens its environment once per path (heed keeps one per path
//! per process) and holds no transaction while `check` runs.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::crawl::crawl_ok;
use crate::support::{on_store, page, stderr_of, Reply, Resp, TestServer};
use crawlscope::store::{Kept, PointRecord, RunEntry, UrlState, SCHEMA_VERSION};
use heed::types::Bytes;
use heed::{Database, Env, EnvOpenOptions, RwTxn};

type Db = Database<Bytes, Bytes>;
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// A site whose crawl fills every kind of record: pages with bodies, meta
/// tags, titles and links; a failed page, a redirect, a robots skip, an
/// out-of-scope link, a plain-text page; and, as `--max-pages` stops the
/// crawl early, URLs still queued in the frontier; a sitemap listing a page.
fn site() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/robots.txt",
        Reply::Respond(Resp::text("User-agent: *\nDisallow: /private\n")),
    );
    crate::support::home(
        &s,
        &[
            "/a",
            "/b",
            "/missing",
            "/old",
            "/private/x",
            // Out of scope, on loopback (port 1 refuses): checked, not crawled.
            "http://127.0.0.1:1/elsewhere",
            "/notes.txt",
        ],
    );
    s.route(
        "/a",
        Reply::Respond(Resp::html(
            "<title>Alpha harbor</title><meta name=description content=\"the alpha page\">\
             <p>boats in the harbor at night</p><a href=/>home</a> <a href=/b>b</a> <a href=/c>c</a>\
             <img src=/harbor.png alt=harbor>",
        )),
    );
    s.route(
        "/b",
        Reply::Respond(page("Beta", "winter nets and light", &["/a", "/d"])),
    );
    s.route("/c", Reply::Respond(page("Gamma", "gamma text", &["/e"])));
    s.route("/d", Reply::Respond(page("Delta", "delta text", &[])));
    s.route("/old", Reply::Respond(Resp::redirect(301, "/a")));
    s.route(
        "/sitemap.xml",
        Reply::Respond(Resp::text(&format!(
            "<urlset><url><loc>{}</loc></url></urlset>",
            s.url("a")
        ))),
    );
    s.route(
        "/notes.txt",
        Reply::Respond(Resp::text("plain winter notes")),
    );
    s
}

/// A crawled store in `dir`, its environment and every table by name.
struct Crawled {
    _server: TestServer,
    base: String,
    env: Env,
    tables: Vec<(String, Db)>,
    baseline: Vec<Entries>,
}

fn crawled(dir: &Path) -> Crawled {
    let server = site();
    let base = server.base();
    crawl_ok(
        dir,
        &[
            &base,
            "--max-pages",
            "5",
            "--check-external",
            "--check-fragments",
        ],
    );
    // The point in a document, so that the documents table has a record.
    for args in [
        &["doc", "add", "suite"][..],
        &["point", "update", "1", "--doc", "suite"],
    ] {
        let out = on_store(dir, args);
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    }
    // The store's own options, so LMDB sees the same map and table count.
    // SAFETY: opened once for this path in this process; the crawler that
    // wrote the store has exited.
    let env = unsafe {
        EnvOpenOptions::new()
            .map_size(1 << 32)
            // Room for every table, and for tables a later format adds.
            .max_dbs(64)
            .open(dir)
    }
    .expect("open the crawled store with heed");
    let rtxn = env.read_txn().unwrap();
    // The unnamed database lists the named ones.
    let main: Db = env.open_database(&rtxn, None).unwrap().unwrap();
    let names: Vec<String> = main
        .iter(&rtxn)
        .unwrap()
        .map(|kv| String::from_utf8(kv.unwrap().0.to_vec()).unwrap())
        .collect();
    let tables: Vec<(String, Db)> = names
        .into_iter()
        .map(|name| {
            let db = env.open_database(&rtxn, Some(&name)).unwrap().unwrap();
            (name, db)
        })
        .collect();
    let baseline = tables.iter().map(|(_, db)| entries(&rtxn, *db)).collect();
    // Committed, not dropped: handles opened in an aborted transaction close.
    rtxn.commit().unwrap();
    Crawled {
        _server: server,
        base,
        env,
        tables,
        baseline,
    }
}

fn entries(rtxn: &heed::RoTxn<'_>, db: Db) -> Entries {
    db.iter(rtxn)
        .unwrap()
        .map(|kv| {
            let (k, v) = kv.unwrap();
            (k.to_vec(), v.to_vec())
        })
        .collect()
}

impl Crawled {
    fn db(&self, name: &str) -> Db {
        self.tables
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no table {name}"))
            .1
    }

    fn baseline(&self, name: &str) -> &Entries {
        let i = self.tables.iter().position(|(n, _)| n == name).unwrap();
        &self.baseline[i]
    }

    /// The page id of a URL of the site (`path` relative to its base).
    fn id(&self, path: &str) -> [u8; 4] {
        let url = format!("{}{path}", self.base);
        let parsed = url::Url::parse(&url).unwrap();
        let origin = crawlscope::url::origin(&parsed);
        let (_, origin_id) = (self.baseline("origin_ids").iter())
            .find(|(k, _)| k[..] == *origin.as_bytes())
            .expect("the site's origin has an id");
        let origin_id = u32::from_be_bytes(origin_id[..4].try_into().unwrap());
        self.baseline("urls")
            .iter()
            .find(|(_, v)| {
                let r: StoredUrl = postcard::from_bytes(v).unwrap();
                match r.url {
                    Some(whole) => whole == url,
                    None => {
                        (r.origin, r.path.as_str(), r.query.as_deref())
                            == (origin_id, parsed.path(), parsed.query())
                    }
                }
            })
            .map(|(k, _)| [k[0], k[1], k[2], k[3]])
            .unwrap_or_else(|| panic!("{url} was not seen"))
    }

    fn state(&self, path: &str) -> UrlState {
        let id = self.id(path);
        let (_, v) = self
            .baseline("url_state")
            .iter()
            .find(|(k, _)| k[..] == id)
            .unwrap_or_else(|| panic!("{path} has no state"));
        postcard::from_bytes(v).unwrap()
    }

    /// A URL still queued when the crawl stopped.
    fn queued(&self) -> [u8; 4] {
        let (k, _) = self
            .baseline("url_state")
            .iter()
            .find(|(_, v)| matches!(postcard::from_bytes(v), Ok(UrlState::Queued { .. })))
            .expect("a queued URL");
        [k[0], k[1], k[2], k[3]]
    }

    /// Puts every table back as the crawl left it, then applies `corrupt`.
    fn install(&self, corrupt: impl FnOnce(&mut RwTxn<'_>)) {
        let mut w = self.env.write_txn().unwrap();
        for ((_, db), entries) in self.tables.iter().zip(&self.baseline) {
            db.clear(&mut w).unwrap();
            for (k, v) in entries {
                db.put(&mut w, k, v).unwrap();
            }
        }
        corrupt(&mut w);
        w.commit().unwrap();
    }
}

/// `crawlscope --db DB check`: (exit code, stdout and stderr).
fn check(db: &Path, json: bool) -> (Option<i32>, String, String) {
    let mut c = crate::support::crawlscope();
    c.arg("--db").arg(db).arg("check");
    if json {
        c.arg("--json");
    }
    let out = c.output().expect("run crawlscope check");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_whole(db: &Path) {
    let (code, out, err) = check(db, false);
    assert_eq!(code, Some(0), "check: {out}{err}");
    assert_eq!(out, "store is whole\n");
}

/// A `urls` record as the store keeps it: the whole URL only where its
/// origin, path and query do not spell it.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredUrl {
    origin: u32,
    path: String,
    query: Option<String>,
    username: Option<String>,
    url: Option<String>,
}

fn put(db: Db, w: &mut RwTxn<'_>, k: &[u8], v: &[u8]) {
    db.put(w, k, v).unwrap();
}

fn del(db: Db, w: &mut RwTxn<'_>, k: &[u8]) {
    assert!(db.delete(w, k).unwrap(), "no entry {k:02x?} to delete");
}

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
            "meta tags are a part of their page's record",
            Box::new(|w| {
                let key = [&1u32.to_be_bytes()[..], &queued].concat();
                put(c.db("meta_tags"), w, &key, &[0])
            }),
            "table meta_tags holds records",
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

/// Deletions `check` passes, and why. Harmless ones: `schema_version` is
/// written again by every open of the store (what `check` does first); no
/// crawler id is in use once every crawler has exited, so
/// `next_instance_id` may start again; a robots record is a cache (fetched
/// again when missing, absent under `--ignore-robots`); origin figures and
/// which sitemap listed a page and what an external link answered are
/// statistics and notes, no invariant's parts, and so is what a resource
/// check answered. And ones no record
/// reveals: a page's resources are optional (a page may load nothing),
/// and nothing else records them; a page's body is optional (no body is kept for an image or
/// an error page) and the page record does not say whether it had one; a
/// flag for that would take a schema change. (A page's meta tags and HTTP
/// head are parts of its `forward` record, which a page must have.) Run history is what the
/// next run is compared with, and nothing else records whether a run
/// fetched a URL (its state may since belong to another point's run): a
/// lost entry shows as a "new" URL in `report changes`, nothing more. A
/// near-duplicate signature is optional too (a page too short for one
/// shingle has none), and nothing else records whether a page had one.
fn passes(table: &str, key: &[u8]) -> bool {
    match table {
        "meta" => key == b"schema_version" || key == b"next_instance_id" || key == b"write_seq",
        // Kept figures are read only while their stamp equals the write
        // count: one lost, or the count lost, reads as stale and the
        // reports count afresh.
        "kept" => true,
        "robots" | "bodies" | "origin_figures" | "sitemap_pages" | "external_checks"
        | "run_history" | "near_signatures" | "page_resources" | "resource_checks" => true,
        // A page without its fragment record is "not known": never a finding.
        "fragments" => true,
        // A page without an audit record reads as "not known"; a listing
        // gone reads as a sitemap that did not list the page.
        "page_audit" | "sitemap_listings" => true,
        _ => false,
    }
}

#[test]
fn deleting_any_entry_of_any_table_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let c = crawled(db);
    assert_whole(db);
    // The crawl fills every table but the crawler registry, emptied when
    // the crawler exits, pair postings, kept by merged segments of 512
    // pages or more (the store's unit tests delete each of theirs), the
    // three tables schema 17 keeps empty (their records are parts of
    // `forward`'s), text errors (the site has no unreadable document),
    // render facts (no point renders: tests/it/render.rs fills them) and
    // the blocks of posting parts, stems and counts (a repack puts a
    // table in shared frames only when they come out smaller, which five
    // pages' records do not: the store's unit tests break theirs), and
    // what `--extract`/`--search` rules found (no point has any; a page
    // without a record is one fetched without rules, nothing to miss), and
    // https twins (asked only with --require-https, a run flag:
    // tests/it/crawl_tls.rs fills them).
    let empty: Vec<&str> = c
        .tables
        .iter()
        .zip(&c.baseline)
        .filter(|(_, e)| e.is_empty())
        .map(|((n, _), _)| n.as_str())
        .collect();
    assert_eq!(
        empty,
        [
            "doc_freq_blocks",
            "headers",
            "https_twins",
            "instances",
            "links_out",
            "meta_tags",
            "page_custom",
            "pair_postings",
            "posting_blocks",
            "render_facts",
            "text_errors",
            "word_blocks"
        ]
    );
    assert!(c.tables.len() >= 24, "tables: {}", c.tables.len());

    let mut unnoticed = BTreeSet::new();
    for ((name, table), entries) in c.tables.iter().zip(&c.baseline) {
        for (k, _) in entries {
            if passes(name, k) {
                continue;
            }
            c.install(|w| del(*table, w, k));
            let (code, out, err) = check(db, false);
            match code {
                Some(1) => {}
                Some(0) => {
                    unnoticed.insert(format!("{name} {k:02x?}"));
                }
                other => panic!("{name} {k:02x?}: check exited {other:?}: {out}{err}"),
            }
        }
    }
    assert!(
        unnoticed.is_empty(),
        "deleted alone, these entries went unnoticed: {unnoticed:#?}"
    );
    // The harmless ones are what they say: the store still answers.
    c.install(|w| {
        del(c.db("meta"), w, b"schema_version");
        del(c.db("meta"), w, b"next_instance_id");
    });
    assert_whole(db);
    let rtxn = c.env.read_txn().unwrap();
    let schema = c.db("meta").get(&rtxn, b"schema_version").unwrap();
    assert_eq!(
        schema,
        Some(&SCHEMA_VERSION.to_be_bytes()[..]),
        "open did not write the schema again"
    );
}

//! The store's record decoders: whatever bytes sit in any table (a corrupt
//! or hostile store file), every typed read, the invariant checker, search
//! and the writer paths that decode before they write must answer Ok or Err,
//! never panic.
//!
//! Design (speed): one real `Store` per process, opened once in a temp dir
//! (on /dev/shm when there is one) and filled through the public writer API
//! with a small but complete crawl (pages, bodies, meta tags, postings, title
//! postings, forward index, links, states, frontier, a crawl point, an
//! instance, robots). Its tables are snapshotted. heed hands out the same
//! environment for the same path and options, so the target opens that
//! environment again and gets the store's own handle; with NO_SYNC on (the
//! store is throwaway), each input costs one write transaction that restores
//! the snapshot and applies the input's raw puts and deletes, one commit,
//! then a read snapshot through `Store::read` for the typed reads, and one
//! `Store::update` that is always rolled back for the writer paths.
//!
//! Input format: a sequence of records, at most `MAX_OPS`:
//!   t: table = (t & 0x7f) % (number of tables), tables sorted by name;
//!      t & 0x80: delete
//!   k: k & 0x80 == 0: the key is the snapshot's key number k of that table
//!      (or the page id k & 7 as a u32 key if the table is empty);
//!      else (k & 0x7f) bytes of the input are the key
//!   (put only) two bytes, little-endian: value length, clamped to what is
//!   left; then the value
//! Set CRAWLSCOPE_FUZZ_DEBUG=1 to print the decoded records.
//! Set CRAWLSCOPE_FUZZ_SKIP_POSITIONS=1 to skip the reads of posting positions.

#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crawlscope::html::parse_html;
use crawlscope::index::Analyzer;
use crawlscope::search;
use crawlscope::store::prelude::*;
use crawlscope::store::{
    compress_body, FrontierEntry, InstanceRecord, OutLink, PageRecord, PageWrite, PointRecord,
    RobotsRecord, SkipReason, Store, StoreError, StoreOptions, Terms, TermsBuilder, UrlState,
};
use crawlscope::url::Url;
use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions};
use libfuzzer_sys::fuzz_target;

/// Allocations above this abort the process (a crash libFuzzer records).
/// With ASan, libFuzzer's `-malloc_limit_mb` (default: the RSS limit,
/// 2 GiB) does the same; without a sanitizer (`-s none`, the fast way to
/// run this target) it cannot see allocations, and Linux's overcommit lets
/// an absurd reservation succeed untouched, hiding what would abort on a
/// machine with less memory.
const MAX_ALLOC: usize = 2 << 30;

struct CappedAlloc;

// SAFETY: forwards to the system allocator; only adds a size check.
unsafe impl GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check_size(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn check_size(size: usize) {
    if size > MAX_ALLOC {
        // No allocation here: we are inside the allocator.
        let msg = b"store_records: allocation over 2 GiB (run the input on the ASan build for its stack)\n";
        let _ = std::io::Write::write_all(&mut std::io::stderr(), msg);
        std::process::abort();
    }
}

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

const MAX_OPS: usize = 16;
/// Ids (pages, words, points, ...) looked up per input, at most.
const MAX_IDS: usize = 6;
const MAP_SIZE: usize = 64 << 20;

const URLS: [&str; 4] = [
    "https://example.com/",
    "https://example.com/harbor?x=1",
    "http://other.org:8080/winter/",
    "https://example.com/queued",
];

const PAGES: [(&str, &str); 3] = [
    (
        "<html><head><title>North light harbor</title>\
         <meta name=description content='Boats in the north light'>\
         <meta property=og:title content=Harbor></head>\
         <body><p>The harbor under the north light. Running boats, winter nets.</p>\
         <a href=/harbor?x=1>harbor</a> <a href=http://other.org:8080/winter/>winter</a>\
         <a href=/queued>more</a></body></html>",
        "text/html; charset=utf-8",
    ),
    (
        "<title>Harbor</title><p>Boats run to the north harbor every morning; \
         the light keeper counts them.</p><a href=/>home</a>",
        "text/html",
    ),
    (
        "Plain winter notes: ice on the harbor, no light at night.",
        "text/plain",
    ),
];

struct Fixture {
    store: Store,
    env: Env,
    /// Every table of the store, by name (LMDB's own list, sorted), so new
    /// tables are fuzzed without touching this target.
    tables: Vec<(String, Database<Bytes, Bytes>)>,
    /// Every table's (key, value) pairs after the baseline crawl.
    snapshot: Vec<Vec<(Vec<u8>, Vec<u8>)>>,
    urls: Vec<Url>,
}

static DIR: OnceLock<PathBuf> = OnceLock::new();

extern "C" {
    fn atexit(cb: extern "C" fn()) -> i32;
}

extern "C" fn remove_dir() {
    if let Some(dir) = DIR.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let tmp = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir =
            DIR.get_or_init(|| tmp.join(format!("crawlscope-fuzz-store-{}", std::process::id())));
        let _ = std::fs::remove_dir_all(dir);
        remove_stale_dirs(&tmp);
        // SAFETY: registers a plain function with no arguments.
        unsafe { atexit(remove_dir) };

        let store = Store::open_with(
            dir,
            StoreOptions {
                map_size: MAP_SIZE,
                ..Default::default()
            },
        )
        .expect("open the fuzz store");
        let urls: Vec<Url> = URLS.iter().map(|u| Url::parse(u).expect("URL")).collect();
        store
            .update(|w| baseline(w, &urls))
            .expect("baseline crawl");
        assert!(store.read().unwrap().check(&|_| false).unwrap().is_empty());

        // heed keeps one environment per path: asked again for the store's
        // path, it returns the store's own environment (as `BadOpenOptions`
        // when the options differ from the store's), never a second one.
        // SAFETY: no second LMDB environment is opened on the path.
        let env = match unsafe { EnvOpenOptions::new().map_size(MAP_SIZE).open(dir) } {
            Ok(env) => env,
            Err(heed::Error::BadOpenOptions { env, .. }) => env,
            Err(e) => panic!("the store's environment: {e}"),
        };
        // SAFETY: set once, before any other use of the env on this thread,
        // and the store is throwaway: durability does not matter.
        unsafe { env.set_flags(EnvFlags::NO_SYNC, heed::FlagSetMode::Enable) }.expect("NO_SYNC");
        let rtxn = env.read_txn().unwrap();
        // The unnamed database lists the named ones.
        let main: Database<Bytes, Bytes> = env.open_database(&rtxn, None).unwrap().unwrap();
        let names: Vec<String> = main
            .iter(&rtxn)
            .unwrap()
            .map(|kv| String::from_utf8(kv.unwrap().0.to_vec()).unwrap())
            .collect();
        assert!(names.len() >= 20, "tables: {names:?}");
        let tables: Vec<(String, Database<Bytes, Bytes>)> = names
            .into_iter()
            .map(|name| {
                let db = env.open_database(&rtxn, Some(&name)).unwrap().unwrap();
                (name, db)
            })
            .collect();
        let snapshot = tables
            .iter()
            .map(|(_, db)| {
                db.iter(&rtxn)
                    .unwrap()
                    .map(|kv| {
                        let (k, v) = kv.unwrap();
                        (k.to_vec(), v.to_vec())
                    })
                    .collect()
            })
            .collect();
        drop(rtxn);
        Fixture {
            store,
            env,
            tables,
            snapshot,
            urls,
        }
    })
}

/// A crash or an abort skips `atexit`: remove the stores of fuzz processes
/// that are gone.
fn remove_stale_dirs(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("crawlscope-fuzz-store-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A text's terms as the crawler's parse step groups them.
fn terms_of(text: &str) -> Terms {
    let mut b = TermsBuilder::for_text(text);
    Analyzer::global().analyze_forms(text, 0, |stem, form, pos| b.add(stem, form, pos));
    b.finish()
}

/// A small crawl written the way the crawler writes one.
fn baseline(w: &mut crawlscope::store::Writer<'_>, urls: &[Url]) -> Result<(), StoreError> {
    let ids: Vec<u32> = urls
        .iter()
        .map(|u| w.page_id_for(u))
        .collect::<Result<_, _>>()?;
    let point = w.add_point(&PointRecord {
        url: urls[0].to_string(),
        root: "https://example.com/".into(),
        depth: Some(3),
        max_pages: Some(100),
        excludes: vec!["https://example.com/private/".into()],
        user: Some("u".into()),
        password: Some("p".into()),
        headers: vec![("X-A".into(), "b".into())],
        active: true,
        gen: 1,
        ..PointRecord::default()
    })?;
    for (i, (body, ct)) in PAGES.iter().enumerate() {
        let doc = if ct.starts_with("text/html") {
            parse_html(body.as_bytes(), Some(ct), &urls[i])
        } else {
            crawlscope::html::parse_text(body.as_bytes(), Some(ct))
        };
        let title_terms = terms_of(doc.title.as_deref().unwrap_or(""));
        let write = PageWrite {
            record: PageRecord {
                title: doc.title.clone(),
                status: 200,
                size: body.len() as u64,
                last_modified: 1_717_200_000,
                last_modified_header: Some("Sat, 01 Jun 2024 00:00:00 GMT".into()),
                etag: Some("\"e1\"".into()),
                fetched_at: 1_717_200_001,
                depth: i as u32,
                content_hash: 42,
                ..PageRecord::default()
            },
            content_type: ct.to_string(),
            meta: doc.meta.clone(),
            compressed_body: compress_body(body.as_bytes()),
            terms: terms_of(&doc.text),
            title_terms,
            head: None,
            audit: Some(crawlscope::store::PageAudit {
                h2: doc.h2,
                facts: doc.audit.clone(),
            }),
            custom: None,
        };
        let mut children = Vec::new();
        for link in &doc.links {
            children.push(OutLink {
                child: w.page_id_for(&link.url)?,
                anchor: link.anchor.clone(),
                rel: link.rel,
                ..OutLink::default()
            });
        }
        w.put_page(ids[i], &write, &children)?;
        w.set_state(ids[i], &UrlState::Done { point, gen: 1 })?;
    }
    w.set_state(
        ids[2],
        &UrlState::Skipped {
            point,
            gen: 1,
            reason: SkipReason::OutOfScope,
        },
    )?;
    w.enqueue(
        ids[3],
        FrontierEntry {
            page: ids[3],
            depth: 1,
            point,
            gen: 1,
            hops: 0,
        },
    )?;
    let by = w.register_instance(InstanceRecord {
        pid: 1,
        heartbeat_ms: 5,
        in_flight: 0,
    })?;
    let extra = w.page_id_for(&Url::parse("https://example.com/claimed").unwrap())?;
    w.set_state(
        extra,
        &UrlState::Claimed {
            point,
            gen: 1,
            by,
            depth: 2,
            hops: 1,
            // Claimed again: the fact an earlier run left rides along.
            had: Some(Box::new(UrlState::Done { point, gen: 0 })),
        },
    )?;
    let redirected = w.page_id_for(&Url::parse("https://example.com/old").unwrap())?;
    w.set_state(
        redirected,
        &UrlState::Redirected {
            point,
            gen: 1,
            to: ids[0],
            status: 301,
        },
    )?;
    let failed = w.page_id_for(&Url::parse("https://example.com/broken").unwrap())?;
    w.set_state(
        failed,
        &UrlState::Failed {
            point,
            gen: 1,
            reason: "Internal Server Error".into(),
            status: Some(500),
        },
    )?;
    let origin = w.origin_id_for("https://example.com:443")?;
    w.put_robots(
        origin,
        &RobotsRecord {
            fetched_at: 7,
            status: 200,
            body: b"User-agent: *\nDisallow: /private/\n".to_vec(),
        },
    )?;
    Ok(())
}

/// A raw record change; the table is an index into `Fixture::tables`.
#[derive(Debug)]
enum Op<'a> {
    Put(usize, Vec<u8>, &'a [u8]),
    Delete(usize, Vec<u8>),
}

fn decode_ops<'a>(f: &Fixture, mut d: &'a [u8]) -> Vec<Op<'a>> {
    let mut ops = Vec::new();
    while ops.len() < MAX_OPS {
        let Some((&t, rest)) = d.split_first() else {
            break;
        };
        let Some((&k, rest)) = rest.split_first() else {
            break;
        };
        d = rest;
        let table = usize::from(t & 0x7f) % f.tables.len();
        let key = if k & 0x80 == 0 {
            let snap = &f.snapshot[table];
            if snap.is_empty() {
                u32::from(k & 7).to_be_bytes().to_vec()
            } else {
                snap[usize::from(k) % snap.len()].0.clone()
            }
        } else {
            let n = usize::from(k & 0x7f).min(d.len());
            let (key, rest) = d.split_at(n);
            d = rest;
            key.to_vec()
        };
        if t & 0x80 != 0 {
            ops.push(Op::Delete(table, key));
            continue;
        }
        let len = match d {
            [a, b, rest @ ..] => {
                d = rest;
                usize::from(u16::from_le_bytes([*a, *b]))
            }
            _ => d.len(),
        };
        let (value, rest) = d.split_at(len.min(d.len()));
        d = rest;
        ops.push(Op::Put(table, key, value));
    }
    ops
}

/// Restores the baseline and applies `ops` in one committed transaction.
/// False when LMDB refused a record (e.g. an empty key): nothing to read.
fn install(f: &Fixture, ops: &[Op<'_>]) -> bool {
    let mut wtxn = f.env.write_txn().expect("write txn");
    for ((_, db), snap) in f.tables.iter().zip(&f.snapshot) {
        db.clear(&mut wtxn).expect("clear");
        for (k, v) in snap {
            db.put(&mut wtxn, k, v).expect("restore");
        }
    }
    for op in ops {
        let ok = match op {
            Op::Put(t, k, v) => f.tables[*t].1.put(&mut wtxn, k, v).is_ok(),
            Op::Delete(t, k) => f.tables[*t].1.delete(&mut wtxn, k).is_ok(),
        };
        if !ok {
            return false;
        }
    }
    wtxn.commit().expect("commit");
    true
}

/// CRAWLSCOPE_FUZZ_SKIP_POSITIONS=1 leaves out the reads that decode body
/// posting positions (`postings`, `posting`, phrase search): a way to look
/// past a crash there while it is unfixed, as was needed for the one in
/// tests/fuzz_regressions.rs (a posting's tf sized an allocation unchecked).
fn skip_positions() -> bool {
    static SKIP: OnceLock<bool> = OnceLock::new();
    *SKIP.get_or_init(|| std::env::var_os("CRAWLSCOPE_FUZZ_SKIP_POSITIONS").is_some())
}

fn be32(b: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(..4)?.try_into().ok()?))
}

fn exercise(f: &Fixture, ops: &[Op<'_>]) {
    // Page 1 (the richest page) and word 1 always; then what the input names.
    let mut ids: BTreeSet<u32> = BTreeSet::from([1]);
    for op in ops {
        let (Op::Put(_, k, _) | Op::Delete(_, k)) = op;
        ids.extend(be32(k));
        ids.extend(k.get(4..).and_then(be32));
    }
    let ids: Vec<u32> = ids.into_iter().take(MAX_IDS).collect();
    // `body` reserves its 64 MiB cap on every call (zstd's bulk API cannot
    // read the frame's size without its "experimental" feature), which
    // costs milliseconds under ASan: bodies are read only when the input
    // touches a table that body or snippet reads.
    let reads_bodies = ops.iter().any(|op| {
        let (Op::Put(t, ..) | Op::Delete(t, _)) = op;
        matches!(
            f.tables[*t].0.as_str(),
            "bodies" | "pages" | "mimetypes" | "urls"
        )
    });

    {
        let r = f.store.read().expect("read");
        for &id in &ids {
            let _ = r.url_of(id);
            let _ = r.page(id);
            let _ = r.meta_tags(id);
            let _ = r.mime(id);
            let _ = r.forward(id);
            let _ = r.robots(id);
            let _ = r.children(id);
            let _ = r.parents(id);
            let _ = r.url_state(id);
            let _ = r.point(id);
            let _ = r.word(id);
            let _ = r.doc_freq(id);
            if !skip_positions() {
                let _ = r.postings(id);
            }
            let _ = r.postings_tf(id);
            let _ = r.title_postings(id);
            let _ = search::keywords(&r, id, 5);
            let _ = search::keywords(&r, id, 1);
            if reads_bodies {
                let _ = r.body(id);
                let _ = search::snippet(&r, id, "harbor \"north light\"");
            }
            for &other in ids.iter().take(3) {
                if !skip_positions() {
                    let _ = r.posting(id, other);
                }
                let _ = r.title_posting(id, other);
            }
        }
        for url in &f.urls {
            let _ = r.page_id(url);
        }
        for stem in ["harbor", "light", "boat", "winter"] {
            let _ = r.word_id(stem);
        }
        let _ = r.origin_id("https://example.com:443");
        let _ = r.norm_factors(&ids);
        let _ = r.norm_factors(&[0, 1, 999, 1000, 1001, u32::MAX]);
        let _ = r.for_each_page(|_, _| Ok(true));
        let _ = r.page_count();
        let _ = r.url_count();
        let _ = r.word_count();
        let _ = r.link_count();
        let _ = r.table_sizes();
        let _ = r.points();
        let _ = r.point_by_url("https://example.com/");
        let _ = r.frontier_len();
        let _ = r.frontier_peek(10);
        let _ = r.has_queued(&[1, 2]);
        let _ = r.claims();
        let _ = r.state_counts();
        let _ = r.instances();
        let _ = r.check(&|_| true);
        if skip_positions() {
            let _ = search::search(&r, "harbor light -winter", 10);
        } else {
            let _ = search::search(&r, "harbor \"north light\" -winter", 10);
            let _ = search::search(&r, "boats running \"light keeper\" -\"ice on\"", 1);
        }
    }

    // Writer paths that decode what they replace; always rolled back, so
    // every input starts from the same store (and the store's word cache,
    // filled only on commit, never changes).
    let _ = f.store.update(|w| {
        let _ = w.claim(4, 9, &[1, 2], |_| false);
        let _ = w.recover_claims(|_| true);
        for url in &f.urls {
            let _ = w.page_id_for(url);
        }
        let _ = w.page_id_for(&Url::parse("https://example.com/new").unwrap());
        let _ = w.mime_id_for("text/html; charset=utf-8");
        let _ = w.origin_id_for("https://example.com:443");
        for &id in ids.iter().take(2) {
            let _ = w.put_page(
                id,
                &PageWrite {
                    record: PageRecord::default(),
                    content_type: "text/html".into(),
                    meta: vec![crawlscope::html::MetaTag {
                        attr: "name".into(),
                        name: "a".into(),
                        content: "b".into(),
                    }],
                    compressed_body: Vec::new(),
                    terms: terms_of("harbor new harbor"),
                    title_terms: terms_of("harbor"),
                    head: None,
                    audit: None,
                    custom: None,
                },
                &[1, 2].map(|child| OutLink {
                    child,
                    ..OutLink::default()
                }),
            );
        }
        for &id in ids.iter().rev().take(2) {
            let _ = w.remove_page(id);
        }
        let _ = w.drop_queued(1);
        let _ = w.remove_point(1);
        Err::<(), _>(StoreError::NotFound(
            "rolled back by the fuzz target".into(),
        ))
    });
}

fuzz_target!(|data: &[u8]| {
    // The one decoder that is public: straight on the input.
    let _ = crawlscope::store::Forward::decode(data);
    let f = fixture();
    let ops = decode_ops(f, data);
    if std::env::var_os("CRAWLSCOPE_FUZZ_DEBUG").is_some() {
        for op in &ops {
            match op {
                Op::Put(t, k, v) => eprintln!("put {} {k:02x?} = {v:02x?}", f.tables[*t].0),
                Op::Delete(t, k) => eprintln!("delete {} {k:02x?}", f.tables[*t].0),
            }
        }
    }
    if install(f, &ops) {
        exercise(f, &ops);
    }
});

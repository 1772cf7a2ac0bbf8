//! The crawl's hot paths, one page at a time (criterion):
//!
//! - `html/parse_html`: `crawlscope::html::parse_html` of demo pages as the
//!   server sends them;
//! - `analyze/page_terms`: the analyser over a parsed page's text and title,
//!   grouped into per-stem positions as the crawler's parse step does;
//! - `store/put_page`: a parsed page written with its links (ids looked up or
//!   allocated, then `put_page`), 100 pages per write transaction as the
//!   crawler batches them, reported per page (commits and fsyncs included);
//! - `query/*`: top-50 searches on a 10,000-page store built once (single
//!   word, multi-word, phrase; each iteration is the next query of a set
//!   drawn from the site's vocabulary, frequent and rare).
//!
//! `cargo bench --bench hot_paths` (a couple of minutes, most of it building
//! the store). `CRAWLSCOPE_BENCH_DB=DIR` keeps the query store there and
//! reuses it. Under
//! `cargo test --benches` each bench runs once on a 300-page store.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use crawlscope::demo::DemoSite;
use crawlscope::html::{parse_html, Document, Link};
use crawlscope::index::Analyzer;
use crawlscope::search::{search, DEFAULT_LIMIT};
use crawlscope::store::prelude::*;
use crawlscope::store::{
    compress_body, OutLink, PageRecord, PageWrite, Store, Terms, TermsBuilder, Writer,
};
use crawlscope::url::Url;

#[path = "../bench/queries.rs"]
mod queries;

const HOST: &str = "127.0.0.1:8080";
/// Distinct demo pages the per-page benches cycle through.
const POOL: u32 = 64;
/// Pages per write transaction in `store/put_page`.
const TXN_PAGES: u64 = 100;

fn benching() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// Demo page n as served to `HOST`: its URL and body.
fn fetch(site: &DemoSite, n: u32) -> (Url, bytes::Bytes, &'static str) {
    let path = site.path_of(n);
    let resp = site.render_for_host(HOST, &path).expect("a demo page");
    let url = Url::parse(&format!("http://{HOST}{path}")).expect("a URL");
    (url, resp.body, resp.content_type)
}

/// Spread over the site: pages of every section and depth.
fn pool(site: &DemoSite) -> Vec<(Url, bytes::Bytes, &'static str)> {
    let step = (site.pages() / POOL).max(1);
    (0..POOL)
        .map(|i| fetch(site, (i * step + 7) % site.pages()))
        .collect()
}

/// As `crawl::parse` does: stems with their forms and positions.
fn terms_of(text: &str) -> (Terms, u32) {
    let mut b = TermsBuilder::default();
    let count = Analyzer::global().analyze_forms(text, 0, |stem, form, pos| b.add(stem, form, pos));
    (b.finish(), count)
}

fn page_write(doc: Document, body: &[u8], content_type: &str) -> (PageWrite, Vec<Link>) {
    let (terms, token_count) = terms_of(&doc.text);
    let (title_terms, _) = terms_of(doc.title.as_deref().unwrap_or(""));
    let write = PageWrite {
        record: PageRecord {
            title: doc.title,
            status: 200,
            size: body.len() as u64,
            last_modified: 1_700_000_000,
            fetched_at: 1_700_000_000,
            content_hash: xxhash_rust::xxh3::xxh3_64(body),
            token_count,
            ..PageRecord::default()
        },
        content_type: content_type.to_string(),
        meta: doc.meta,
        compressed_body: compress_body(body),
        terms,
        title_terms,
        head: None,
        audit: Some(crawlscope::store::PageAudit {
            h2: doc.h2,
            facts: doc.audit,
        }),
        custom: None,
    };
    (write, doc.links)
}

/// Runs `f(i)` for the next `iters` values of the counter `next` (so that
/// the samples together go round the whole set) and returns the time taken.
fn cycle(iters: u64, next: &mut usize, mut f: impl FnMut(usize)) -> Duration {
    let t = Instant::now();
    for _ in 0..iters {
        f(*next);
        *next = next.wrapping_add(1);
    }
    t.elapsed()
}

fn html(c: &mut Criterion) {
    let site = DemoSite::new(10_000);
    let pages = pool(&site);
    let mean = pages.iter().map(|p| p.1.len() as u64).sum::<u64>() / pages.len() as u64;
    let mut g = c.benchmark_group("html");
    g.throughput(Throughput::Bytes(mean));
    let mut next = 0;
    g.bench_function("parse_html", |b| {
        b.iter_custom(|iters| {
            cycle(iters, &mut next, |i| {
                let (url, body, ct) = &pages[i % pages.len()];
                black_box(parse_html(black_box(body), Some(ct), url));
            })
        })
    });
    g.finish();
}

fn analyze(c: &mut Criterion) {
    let site = DemoSite::new(10_000);
    let docs: Vec<Document> = pool(&site)
        .iter()
        .map(|(url, body, ct)| parse_html(body, Some(ct), url))
        .collect();
    let mean = docs.iter().map(|d| d.text.len() as u64).sum::<u64>() / docs.len() as u64;
    let mut g = c.benchmark_group("analyze");
    g.throughput(Throughput::Bytes(mean));
    let mut next = 0;
    g.bench_function("page_terms", |b| {
        b.iter_custom(|iters| {
            cycle(iters, &mut next, |i| {
                let d = &docs[i % docs.len()];
                black_box(terms_of(black_box(&d.text)));
                black_box(terms_of(d.title.as_deref().unwrap_or("")));
            })
        })
    });
    g.finish();
}

fn put(
    w: &mut Writer<'_>,
    url: &Url,
    write: &PageWrite,
    links: &[Link],
) -> Result<(), crawlscope::store::StoreError> {
    let id = w.page_id_for(url)?;
    let mut children = Vec::with_capacity(links.len());
    for l in links {
        children.push(OutLink {
            child: w.page_id_for(&l.url)?,
            anchor: l.anchor.clone(),
            rel: l.rel,
            ..OutLink::default()
        });
    }
    w.put_page(id, write, &children)
}

fn store_write(c: &mut Criterion) {
    let site = DemoSite::new(10_000);
    let parsed: Vec<(PageWrite, Vec<Link>)> = pool(&site)
        .into_iter()
        .map(|(url, body, ct)| page_write(parse_html(&body, Some(ct), &url), &body, ct))
        .collect();
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::open(dir.path()).expect("a store");
    // Every write is a new page (a fresh URL), as in a first crawl.
    let mut next: u64 = 0;
    let mut g = c.benchmark_group("store");
    g.throughput(Throughput::Elements(1));
    g.bench_function("put_page", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            let mut left = iters;
            while left > 0 {
                let k = left.min(TXN_PAGES);
                let base = next;
                store
                    .update(|w| {
                        for j in base..base + k {
                            let url = Url::parse(&format!("http://{HOST}/written/{j}.html"))
                                .expect("a URL");
                            let (write, links) = &parsed[j as usize % parsed.len()];
                            put(w, &url, write, links)?;
                        }
                        Ok(())
                    })
                    .expect("a write");
                next += k;
                left -= k;
            }
            t.elapsed()
        })
    });
    g.finish();
}

/// The query store: demo pages parsed and written 1,000 per transaction.
fn build(store: &Store, pages: u32) {
    let site = DemoSite::new(pages);
    let parse = |n: u32| {
        let (url, body, ct) = fetch(&site, n);
        let (write, links) = page_write(parse_html(&body, Some(ct), &url), &body, ct);
        (url, write, links)
    };
    let mut start = 0;
    while start < pages {
        let end = (start + 1000).min(pages);
        let mid = start + (end - start) / 2;
        let batch: Vec<_> = std::thread::scope(|s| {
            let left = s.spawn(|| (start..mid).map(parse).collect::<Vec<_>>());
            let right: Vec<_> = (mid..end).map(parse).collect();
            let mut all = left.join().expect("the parse thread");
            all.extend(right);
            all
        });
        store
            .update(|w| {
                for (url, write, links) in &batch {
                    put(w, url, write, links)?;
                }
                Ok(())
            })
            .expect("a write");
        start = end;
    }
}

fn query(c: &mut Criterion) {
    let pages: u32 = if benching() { 10_000 } else { 300 };
    let (_tmp, path): (Option<tempfile::TempDir>, PathBuf) =
        match std::env::var("CRAWLSCOPE_BENCH_DB") {
            Ok(p) => (None, PathBuf::from(p)),
            Err(_) => {
                let t = tempfile::tempdir().expect("a temp dir");
                let p = t.path().to_path_buf();
                (Some(t), p)
            }
        };
    let store = Store::open(&path).expect("a store");
    let have = store.read().and_then(|r| r.page_count()).expect("a count");
    if have != u64::from(pages) {
        assert_eq!(
            have,
            0,
            "{} holds {have} pages, not {pages}",
            path.display()
        );
        let t = Instant::now();
        build(&store, pages);
        eprintln!(
            "query store: {pages} pages built in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    let sets = queries::queries(&DemoSite::new(pages), 100);
    let mut g = c.benchmark_group("query");
    for (class, qs) in &sets {
        let mut next = 0;
        g.bench_function(*class, |b| {
            b.iter_custom(|iters| {
                cycle(iters, &mut next, |i| {
                    let r = store.read().expect("a snapshot");
                    let res = search(&r, black_box(&qs[i % qs.len()]), DEFAULT_LIMIT);
                    black_box(res.expect("a search"));
                })
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

criterion_group! {
    name = hot_paths;
    config = config();
    targets = html, analyze, store_write, query
}
criterion_main!(hot_paths);

//! Search latency on a demo-site store: builds a store of N demo pages
//! (indexed directly, no HTTP: parse with `crawlscope::html`, analyse, put in
//! batches of 1000 pages a transaction), then times single-word, multi-word
//! and phrase queries drawn from the site's own text, frequent and rare,
//! top 50 each, one fresh read snapshot per query as the TUI does.
//!
//! `cargo bench --bench search` (10,000 pages);
//! `CRAWLSCOPE_BENCH_PAGES=100000 cargo bench --bench search` for the
//! 100,000-page target. `CRAWLSCOPE_BENCH_DB=/some/dir` keeps the built store
//! there and reuses it when it already holds that many pages.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crawlscope::demo::DemoSite;
use crawlscope::index::Analyzer;
use crawlscope::search::{search, DEFAULT_LIMIT};
use crawlscope::store::prelude::*;
use crawlscope::store::{compress_body, group_terms, PageRecord, PageWrite, Store, Writer};
use crawlscope::url::Url;

const BATCH: u32 = 1000;
const HOST: &str = "http://demo.test";
/// Queries per class.
const PER_CLASS: usize = 300;

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// What one page contributes, parsed off the writer thread.
struct Parsed {
    url: Url,
    write: PageWrite,
    links: Vec<Url>,
}

fn parse_page(site: &DemoSite, n: u32) -> Option<Parsed> {
    let path = site.path_of(n);
    let resp = site.render(&path)?;
    let url = Url::parse(&format!("{HOST}{path}")).ok()?;
    let doc = crawlscope::html::parse_html(&resp.body, Some(resp.content_type), &url);
    let a = Analyzer::global();
    let terms = group_terms(a.terms(&doc.text));
    let title_terms = group_terms(doc.title.as_deref().map(|t| a.terms(t)).unwrap_or_default());
    let last_modified = resp
        .last_modified
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    Some(Parsed {
        url,
        links: doc.links,
        write: PageWrite {
            record: PageRecord {
                title: doc.title,
                status: 200,
                size: resp.body.len() as u64,
                last_modified,
                fetched_at: last_modified,
                ..PageRecord::default()
            },
            content_type: resp.content_type.to_string(),
            meta: doc.meta,
            compressed_body: compress_body(&resp.body),
            terms,
            title_terms,
        },
    })
}

fn put(w: &mut Writer<'_>, p: &Parsed) -> Result<(), crawlscope::store::StoreError> {
    let id = w.page_id_for(&p.url)?;
    let mut children = Vec::with_capacity(p.links.len());
    for l in &p.links {
        children.push(w.page_id_for(l)?);
    }
    w.put_page(id, &p.write, &children)
}

fn build(store: &Store, pages: u32) -> BenchResult<()> {
    let site = DemoSite::new(pages);
    let mut start = 0;
    while start < pages {
        let end = (start + BATCH).min(pages);
        // Parsing is the slow part: split it over two threads.
        let mid = start + (end - start) / 2;
        let (a, b) = std::thread::scope(|s| {
            let site = &site;
            let left = s.spawn(move || {
                (start..mid)
                    .filter_map(|n| parse_page(site, n))
                    .collect::<Vec<_>>()
            });
            let right: Vec<Parsed> = (mid..end).filter_map(|n| parse_page(site, n)).collect();
            (left.join().unwrap_or_default(), right)
        });
        store.update(|w| {
            for p in a.iter().chain(&b) {
                put(w, p)?;
            }
            Ok(())
        })?;
        start = end;
        if start % 10_000 == 0 {
            eprint!("\rindexed {start}/{pages}");
        }
    }
    eprintln!();
    Ok(())
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

struct Queries {
    single: Vec<String>,
    multi: Vec<String>,
    phrase: Vec<String>,
}

/// Queries from the site's own words: content words by how many sampled
/// pages hold them (the head is frequent, the tail rare), and phrases from
/// adjacent words of real pages.
fn queries(site: &DemoSite) -> Queries {
    let a = Analyzer::global();
    let sample = site.pages().min(2000);
    let mut df: HashMap<&'static str, u32> = HashMap::new();
    let mut pairs: Vec<String> = Vec::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for n in 0..sample {
        let words: Vec<&'static str> = site.words_of(n).collect();
        let mut seen: Vec<&'static str> = words.clone();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *df.entry(w).or_default() += 1;
        }
        if pairs.len() < PER_CLASS && words.len() > 2 {
            let i = rng.below(words.len() - 1);
            let (x, y) = (words[i], words[i + 1]);
            if !a.is_stopword(x) && !a.is_stopword(y) {
                pairs.push(format!("\"{x} {y}\""));
            }
        }
    }
    let mut vocab: Vec<(&str, u32)> = df
        .into_iter()
        .filter(|(w, _)| !a.is_stopword(w) && a.stem_word(w).is_some())
        .collect();
    vocab.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let head = &vocab[..vocab.len().min(100)];
    let tail = &vocab[vocab.len().saturating_sub(vocab.len() / 2)..];
    let pick = |rng: &mut Rng| -> &str {
        // Half frequent, half rare.
        if rng.below(2) == 0 {
            head[rng.below(head.len())].0
        } else {
            tail[rng.below(tail.len())].0
        }
    };
    let single = (0..PER_CLASS).map(|_| pick(&mut rng).to_string()).collect();
    let multi = (0..PER_CLASS)
        .map(|_| {
            let k = 2 + rng.below(3);
            (0..k).map(|_| pick(&mut rng)).collect::<Vec<_>>().join(" ")
        })
        .collect();
    // Phrases of two frequent words too: the costliest to verify.
    while pairs.len() < PER_CLASS {
        let (x, y) = (head[rng.below(head.len())].0, head[rng.below(head.len())].0);
        pairs.push(format!("\"{x} {y}\""));
    }
    Queries {
        single,
        multi,
        phrase: pairs,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn time_class(store: &Store, name: &str, qs: &[String]) -> BenchResult<()> {
    let mut times = Vec::with_capacity(qs.len());
    let mut hits = 0usize;
    let mut worst = (Duration::ZERO, String::new());
    for q in qs {
        let t = Instant::now();
        let r = store.read()?;
        let res = search(&r, q, DEFAULT_LIMIT)?;
        drop(r);
        let e = t.elapsed();
        if e > worst.0 {
            worst = (e, q.clone());
        }
        hits += res.hits.len();
        times.push(e);
    }
    times.sort_unstable();
    println!(
        "{name:<12} n={:<4} p50 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms  mean hits {:>5.1}  (slowest: {})",
        qs.len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(percentile(&times, 1.0)),
        hits as f64 / qs.len().max(1) as f64,
        worst.1
    );
    Ok(())
}

fn main() -> BenchResult<()> {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then
    // only prove the bench runs, on a tiny store.
    let benching = std::env::args().any(|a| a == "--bench");
    let pages: u32 = match std::env::var("CRAWLSCOPE_BENCH_PAGES") {
        Ok(v) => v.parse()?,
        Err(_) if benching => 10_000,
        Err(_) => 300,
    };
    let (_tmp, path): (Option<tempfile::TempDir>, PathBuf) =
        match std::env::var("CRAWLSCOPE_BENCH_DB") {
            Ok(p) => (None, PathBuf::from(p)),
            Err(_) => {
                let t = tempfile::tempdir()?;
                let p = t.path().to_path_buf();
                (Some(t), p)
            }
        };
    let store = Store::open(&path)?;
    let have = store.read()?.page_count()?;
    let t = Instant::now();
    if have != u64::from(pages) {
        if have != 0 {
            return Err(format!(
                "{} holds {have} pages, not {pages}: use an empty directory",
                path.display()
            )
            .into());
        }
        build(&store, pages)?;
        println!(
            "built {pages} pages in {:.1} s, store {:.0} MB",
            t.elapsed().as_secs_f64(),
            store.disk_size() as f64 / 1e6
        );
    }
    let (words, docs) = {
        let r = store.read()?;
        (r.word_count()?, r.page_count()?)
    };
    println!("store: {docs} pages, {words} words");
    let qs = queries(&DemoSite::new(pages));
    // Warm the page cache and the allocator, as a running console would be.
    for q in qs.single.iter().chain(&qs.multi).chain(&qs.phrase) {
        let r = store.read()?;
        search(&r, q, DEFAULT_LIMIT)?;
    }
    time_class(&store, "single-word", &qs.single)?;
    time_class(&store, "multi-word", &qs.multi)?;
    time_class(&store, "phrase", &qs.phrase)?;
    Ok(())
}

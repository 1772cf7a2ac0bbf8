//! The Rust half of `bench/run.sh` (run it through that script):
//!
//! - `crawlbench measure --db DIR --pages N --host HOST:PORT [--per-class Q]`
//!   reads a store that `crawlscope crawl` filled from `serve-demo --pages N`
//!   and prints `key=value` lines: the bytes the site served (the sum of the
//!   stored page sizes, i.e. Content-Length, and the generator's own sum as a
//!   check), then query latency p50/p99 over single-word, multi-word and
//!   phrase queries drawn from the site's vocabulary (frequent and rare), top
//!   50, in this process, one fresh read snapshot per query as the TUI does.
//! - `crawlbench site-queries --db DIR --site DIR [--per-class Q]` does
//!   the same query timing on a store crawled from a site `sitegen` wrote
//!   (bench/nginx.sh), with queries drawn from the text of its pages.
//!   With `--each`, every query's time, hits and text go to stderr, so
//!   the queries behind a p99 can be picked out.
//! - `crawlbench repeat --db DIR --query Q [--times N]` runs one query N
//!   times (default 200), a fresh snapshot each, and prints its p50 and
//!   min/max: a steady loop for a profiler or a before/after of one query.
//! - `crawlbench header` and `crawlbench row FILE` print the Markdown table
//!   header and the row of one run from the `key=value` file the script
//!   collected (crawl figures, samples, `measure`'s output).

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crawlscope::demo::DemoSite;
use crawlscope::search::{search, DEFAULT_LIMIT};
use crawlscope::store::prelude::*;
use crawlscope::store::Store;

#[path = "queries.rs"]
mod queries;
use queries::{queries, queries_from};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const USAGE: &str =
    "usage: crawlbench measure --db DIR --pages N --host HOST:PORT [--per-class Q] [--each]
       crawlbench site-queries --db DIR --site DIR [--per-class Q] [--each]
       crawlbench repeat --db DIR --query Q [--times N]
       crawlbench header
       crawlbench row METRICS_FILE";

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("measure") => measure(&args[1..]),
        Some("site-queries") => site_queries(&args[1..]),
        Some("repeat") => repeat(&args[1..]),
        Some("header") => {
            header();
            Ok(())
        }
        Some("row") if args.len() == 2 => row(Path::new(&args[1])),
        // `cargo test` builds examples but does not run them; anything else
        // is a usage error.
        _ => Err(USAGE.into()),
    }
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn measure(args: &[String]) -> Res<()> {
    let db = flag(args, "--db").ok_or(USAGE)?;
    let pages: u32 = flag(args, "--pages").ok_or(USAGE)?.parse()?;
    let host = flag(args, "--host").ok_or(USAGE)?;
    let per_class: usize = flag(args, "--per-class").unwrap_or("300").parse()?;
    let store = Store::open(Path::new(db))?;
    let site = DemoSite::new(pages);

    // What was crawled, from the store: the page size is the Content-Length.
    {
        let r = store.read()?;
        let mut mimes: HashMap<u32, String> = HashMap::new();
        let (mut docs, mut raw, mut html_pages, mut html_bytes) = (0u64, 0u64, 0u64, 0u64);
        let mut records = Vec::new();
        r.for_each_page(|_, rec| {
            records.push((rec.status, rec.mime, rec.size));
            Ok(true)
        })?;
        for (status, mime, size) in records {
            if !(200..300).contains(&status) {
                continue;
            }
            docs += 1;
            raw += size;
            let essence = match mimes.get(&mime) {
                Some(e) => e.clone(),
                None => {
                    let e = r.mime(mime)?.map(|m| m.essence).unwrap_or_default();
                    mimes.insert(mime, e.clone());
                    e
                }
            };
            if essence == "text/html" {
                html_pages += 1;
                html_bytes += size;
            }
        }
        println!("docs={docs}");
        println!("raw_bytes={raw}");
        println!("html_pages={html_pages}");
        println!("html_bytes={html_bytes}");
        println!("words={}", r.word_count()?);
        println!("links={}", r.link_count()?);
    }
    // The same sum from the deterministic generator, as the server rendered
    // it for this Host: a check that the crawl fetched the whole site.
    let mut gen = 0u64;
    let mut gen_docs = 0u64;
    let paths = (0..pages).map(|n| site.path_of(n)).chain(site.file_paths());
    for p in paths {
        if let Some(resp) = site.render_for_host(host, &p) {
            gen += resp.body.len() as u64;
            gen_docs += 1;
        }
    }
    println!("gen_docs={gen_docs}");
    println!("gen_bytes={gen}");

    let each = args.iter().any(|a| a == "--each");
    time_queries(&store, &queries(&site, per_class), each)
}

fn site_queries(args: &[String]) -> Res<()> {
    let db = flag(args, "--db").ok_or(USAGE)?;
    let dir = flag(args, "--site").ok_or(USAGE)?;
    let per_class: usize = flag(args, "--per-class").unwrap_or("300").parse()?;
    let store = Store::open_existing(Path::new(db))?;
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d)? {
            let path = e?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "html") {
                files.push(path);
            }
        }
    }
    files.sort();
    // 2,000 pages spread over the site.
    let step = (files.len() / 2000).max(1);
    let mut pages = Vec::new();
    for f in files.iter().step_by(step) {
        pages.push(paragraph_words(&std::fs::read_to_string(f)?));
    }
    let each = args.iter().any(|a| a == "--each");
    time_queries(&store, &queries_from(pages.into_iter(), per_class), each)
}

fn repeat(args: &[String]) -> Res<()> {
    let db = flag(args, "--db").ok_or(USAGE)?;
    let query = flag(args, "--query").ok_or(USAGE)?;
    let n: usize = flag(args, "--times").unwrap_or("200").parse()?;
    let store = Store::open_existing(Path::new(db))?;
    let mut times = Vec::with_capacity(n);
    for _ in 0..n.max(1) {
        let t = Instant::now();
        let r = store.read()?;
        search(&r, query, DEFAULT_LIMIT)?;
        drop(r);
        times.push(t.elapsed());
    }
    times.sort_unstable();
    println!(
        "p50 {:.3} ms, min {:.3}, max {:.3} over {} runs: {query}",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.0)),
        ms(percentile(&times, 1.0)),
        times.len()
    );
    Ok(())
}

/// The words of a page's paragraphs, lowercased, tags dropped.
fn paragraph_words(html: &str) -> Vec<String> {
    let mut words = Vec::new();
    for para in html.split("<p>").skip(1) {
        let text = para.split("</p>").next().unwrap_or("");
        let mut in_tag = false;
        let plain: String = text
            .chars()
            .map(|c| match c {
                '<' => {
                    in_tag = true;
                    ' '
                }
                '>' => {
                    in_tag = false;
                    ' '
                }
                c if in_tag || !c.is_alphanumeric() => ' ',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        words.extend(plain.split_whitespace().map(str::to_string));
    }
    words
}

/// Times each query class, top 50, one fresh read snapshot per query as
/// the console does, after one warm-up pass.
fn time_queries(store: &Store, qs: &[(&str, Vec<String>)], each: bool) -> Res<()> {
    for q in qs.iter().flat_map(|(_, v)| v) {
        let r = store.read()?;
        search(&r, q, DEFAULT_LIMIT)?;
    }
    for (class, list) in qs {
        let mut times = Vec::with_capacity(list.len());
        let mut hits = 0usize;
        // Named, so a profile can start from the query that sets the p99.
        let mut slowest: Option<(Duration, &String)> = None;
        for q in list {
            let t = Instant::now();
            let r = store.read()?;
            let res = search(&r, q, DEFAULT_LIMIT)?;
            drop(r);
            times.push(t.elapsed());
            if each {
                eprintln!(
                    "{class}\t{:.3} ms\t{} hits\t{q}",
                    ms(t.elapsed()),
                    res.hits.len()
                );
            }
            hits += res.hits.len();
            if slowest.as_ref().is_none_or(|(d, _)| t.elapsed() > *d) {
                slowest = Some((t.elapsed(), q));
            }
        }
        times.sort_unstable();
        println!("q_{class}_n={}", list.len());
        println!("q_{class}_p50_ms={:.3}", ms(percentile(&times, 0.50)));
        println!("q_{class}_p99_ms={:.3}", ms(percentile(&times, 0.99)));
        println!("q_{class}_max_ms={:.3}", ms(percentile(&times, 1.0)));
        // How many miss the 10 ms target, not just whether the p99 does.
        let over = times.iter().filter(|t| t.as_millis() >= 10).count();
        println!("q_{class}_over_10ms={over}");
        println!(
            "q_{class}_mean_hits={:.1}",
            hits as f64 / list.len().max(1) as f64
        );
        if let Some((_, q)) = slowest {
            println!("q_{class}_slowest={q:?}");
        }
    }
    Ok(())
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

const COLUMNS: &[&str] = &[
    "site pages",
    "docs fetched",
    "wall s",
    "pages/s",
    "CPU ms/page",
    "peak RSS MiB (anon + file)",
    "raw MB",
    "store MB",
    "store B/page",
    "store B/raw B",
    "1-word p50/p99 ms",
    "multi-word p50/p99 ms",
    "phrase p50/p99 ms",
];

fn header() {
    println!("| {} |", COLUMNS.join(" | "));
    let sep: Vec<&str> = COLUMNS.iter().map(|_| "---:").collect();
    println!("|{}|", sep.join("|"));
}

fn row(path: &Path) -> Res<()> {
    let text = std::fs::read_to_string(path)?;
    let kv: HashMap<&str, &str> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    let num = |k: &str| -> Res<f64> {
        let v = kv
            .get(k)
            .ok_or_else(|| format!("{}: no {k}", path.display()))?;
        Ok(v.parse::<f64>()
            .map_err(|e| format!("{}: {k}={v}: {e}", path.display()))?)
    };
    let json = |k: &str| -> Res<serde_json::Value> {
        let p = kv
            .get(k)
            .ok_or_else(|| format!("{}: no {k}", path.display()))?;
        Ok(serde_json::from_str(&std::fs::read_to_string(p)?)?)
    };
    let summary = json("summary_json")?;
    let stats = json("stats_json")?;
    let get = |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);

    let fetched = get(&summary, "fetched");
    let cpu = num("user_s")? + num("sys_s")?;
    let du = num("du_bytes")?;
    let store_bytes = get(&stats, "store_bytes");
    let raw = num("raw_bytes")?;
    let mib = |kb: f64| kb / 1024.0;
    let q = |c: &str| -> Res<String> {
        Ok(format!(
            "{:.2} / {:.2}",
            num(&format!("q_{c}_p50_ms"))?,
            num(&format!("q_{c}_p99_ms"))?
        ))
    };
    let cells = [
        format!("{:.0}", num("pages")?),
        format!("{fetched:.0}"),
        format!("{:.1}", num("wall_s")?),
        format!("{:.0}", get(&summary, "pages_per_s")),
        format!("{:.2}", 1e3 * cpu / fetched.max(1.0)),
        format!(
            "{:.0} ({:.0} + {:.0})",
            mib(num("maxrss_kb")?),
            mib(num("peak_anon_kb")?),
            mib(num("peak_file_kb")?)
        ),
        format!("{:.1}", raw / 1e6),
        format!("{:.1}", du / 1e6),
        format!("{:.0}", du / fetched.max(1.0)),
        format!("{:.2}", du / raw.max(1.0)),
        q("single")?,
        q("multi")?,
        q("phrase")?,
    ];
    println!("| {} |", cells.join(" | "));

    // The details behind the row, for whoever reads the log.
    let tables: Vec<String> = stats
        .get("tables")
        .and_then(|t| t.as_array())
        .map(|t| {
            t.iter()
                .take(6)
                .filter_map(|e| {
                    let name = e.get(0)?.as_str()?;
                    let b = e.get(1)?.as_f64()?;
                    Some(format!("{name} {:.1} MB", b / 1e6))
                })
                .collect()
        })
        .unwrap_or_default();
    eprintln!(
        "  {} pages: crawl user {:.1} s + sys {:.1} s over {:.1} s wall ({:.0}% of one core); demo server {:.1} s CPU",
        num("pages")?,
        num("user_s")?,
        num("sys_s")?,
        num("wall_s")?,
        100.0 * cpu / num("wall_s")?.max(1e-9),
        num("server_cpu_s")?
    );
    eprintln!(
        "  summary: fetched {fetched:.0}, failed {:.0}, robots {:.0}, out of scope {:.0}, engine {:.1} s; store: {:.0} docs ({:.0} HTML), {:.0} words, {:.0} links",
        get(&summary, "failed"),
        get(&summary, "skipped_robots"),
        get(&summary, "out_of_scope"),
        get(&summary, "elapsed_s"),
        num("docs")?,
        num("html_pages")?,
        num("words")?,
        num("links")?
    );
    eprintln!(
        "  raw: {:.0} bytes served ({:.0} HTML, generator says {:.0} in {:.0} docs{}); store: du {:.0}, stats store_bytes {:.0} ({:.2} per raw HTML byte)",
        raw,
        num("html_bytes")?,
        num("gen_bytes")?,
        num("gen_docs")?,
        if num("gen_bytes")? == raw { ", equal" } else { ", DIFFERENT" },
        du,
        store_bytes,
        du / num("html_bytes")?.max(1.0)
    );
    eprintln!(
        "  RSS peaks of {} samples every {} s: anon {:.0} MiB, file {:.0} MiB, total {:.0} MiB (VmHWM {:.0} MiB, time -v {:.0} MiB)",
        kv.get("samples").copied().unwrap_or("?"),
        kv.get("sample_s").copied().unwrap_or("?"),
        mib(num("peak_anon_kb")?),
        mib(num("peak_file_kb")?),
        mib(num("peak_total_kb")?),
        mib(num("hwm_kb")?),
        mib(num("maxrss_kb")?)
    );
    if num("peak_total_kb")? < 0.9 * num("maxrss_kb")? {
        eprintln!("  (the samples missed the peak: it lasted less than a sampling interval)");
    }
    eprintln!("  largest tables: {}", tables.join(", "));
    for c in ["single", "multi", "phrase"] {
        eprintln!(
            "  {c:<6} n={:.0} p50 {:.2} ms p99 {:.2} ms max {:.2} ms mean hits {:.1}",
            num(&format!("q_{c}_n"))?,
            num(&format!("q_{c}_p50_ms"))?,
            num(&format!("q_{c}_p99_ms"))?,
            num(&format!("q_{c}_max_ms"))?,
            num(&format!("q_{c}_mean_hits"))?
        );
    }
    Ok(())
}

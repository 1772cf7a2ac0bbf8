//! `stats` (counts) and `check` (the store's invariants).

use std::collections::HashMap;
use std::io::IsTerminal;

use serde::Serialize;

use super::{print_json, CliError, CliResult};
use crate::store::prelude::*;
use crate::store::{Store, CHECK_STEPS};

#[derive(Serialize)]
struct StatsJson {
    pages: u64,
    fetched: u64,
    failed: u64,
    queued: u64,
    /// Claimed by a live crawler, not on the wire.
    claimed: u64,
    /// Page requests on the wire, at the crawlers' last heartbeats.
    in_flight: u64,
    words: u64,
    links: u64,
    store_bytes: u64,
    urls: u64,
    skipped: u64,
    /// Bytes per table, largest first.
    tables: Vec<(String, u64)>,
    /// Live index segments (docs/STORE.md).
    segments: usize,
    /// Trained zstd dictionaries the store holds.
    dictionaries: Vec<DictionaryJson>,
    /// With `--frontier`: every crawler sharing it.
    #[serde(skip_serializing_if = "Option::is_none")]
    crawlers: Option<Vec<crate::crawl::shared::Crawler>>,
}

#[derive(Serialize)]
struct DictionaryJson {
    kind: &'static str,
    id: u32,
    bytes: usize,
}

pub fn run(store: &Store, json: bool, frontier: Option<&str>) -> CliResult {
    crate::report::kept::ensure(store);
    let r = store.read()?;
    let counted = crate::report::kept::store_counts(&r)?;
    let mut tables: Vec<(String, u64)> = r
        .table_sizes()?
        .into_iter()
        .map(|(n, b)| (n.to_string(), b))
        .collect();
    tables.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let work = crate::crawl::work_at_hand(&r)?;
    let s = StatsJson {
        pages: r.page_count()?,
        fetched: counted.done,
        failed: counted.failed,
        queued: work.queued,
        claimed: work.claimed,
        in_flight: work.in_flight,
        words: counted.words,
        links: counted.links,
        store_bytes: store.disk_size(),
        urls: r.url_count()?,
        skipped: counted.skipped,
        tables,
        segments: r.segment_ids()?.len(),
        dictionaries: r
            .compression_dictionaries()?
            .into_iter()
            .map(|(kind, id, bytes)| DictionaryJson { kind, id, bytes })
            .collect(),
        crawlers: frontier.map(crate::crawl::shared::crawlers).transpose()?,
    };
    if json {
        return print_json(&s);
    }
    outln!("pages        {}", s.pages);
    outln!("fetched      {}", s.fetched);
    outln!("failed       {}", s.failed);
    outln!("queued       {}", s.queued);
    outln!("claimed      {}", s.claimed);
    outln!("in flight    {}", s.in_flight);
    outln!("skipped      {}", s.skipped);
    outln!("urls seen    {}", s.urls);
    outln!("words        {}", s.words);
    outln!("links        {}", s.links);
    outln!("segments     {}", s.segments);
    for d in &s.dictionaries {
        outln!("dictionary   {} {} ({} bytes)", d.kind, d.id, d.bytes);
    }
    for c in s.crawlers.iter().flatten() {
        outln!(
            "crawler      {} pid {}: {:.1} pages/s, {} in flight, heartbeat {}",
            c.host,
            c.pid,
            c.rate,
            c.in_flight,
            c.heartbeat
        );
    }
    outln!("store bytes  {}", s.store_bytes);
    for (name, bytes) in s.tables.iter().filter(|(_, b)| *b > 0) {
        outln!("  {name:<15} {bytes}");
    }
    Ok(())
}

/// Without a terminal, a store this large (MB) gets a progress line a
/// step; a small one checks in a moment and says nothing.
const LINES_FROM_MB: f64 = 64.0;

#[derive(Serialize)]
struct CheckJson {
    ok: bool,
    problems: Vec<String>,
}

pub fn check(store: &Store, json: bool) -> CliResult {
    // A large store takes minutes to read through: say how far it is, on
    // stderr (a bar on a terminal, else a line a step for a large store).
    let size_mb = store.disk_size() as f64 / 1e6;
    let spinner = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    });
    let started = std::time::Instant::now();
    let path = store.path().display().to_string();
    let mut step = |n: usize, what: &str| {
        let msg = format!("checking {path} ({size_mb:.1} MB): step {n}/{CHECK_STEPS}, {what}");
        match &spinner {
            Some(bar) => bar.set_message(msg),
            None if size_mb >= LINES_FROM_MB => {
                eprintln!("{msg} ({:.1} s)", started.elapsed().as_secs_f64())
            }
            None => {}
        }
    };
    let r = store.read()?;
    let instances: HashMap<_, _> = r.instances()?.into_iter().collect();
    let problems = r.check_telling(&|id| crate::crawl::instance_dead(&instances, id), &mut step);
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let problems = problems?;
    let n = problems.len();
    if json {
        print_json(&CheckJson {
            ok: n == 0,
            problems,
        })?;
    } else if n == 0 {
        outln!("store is whole");
    } else {
        for p in &problems {
            outln!("{p}");
        }
    }
    if n > 0 {
        return Err(CliError::CheckFailed(n));
    }
    Ok(())
}

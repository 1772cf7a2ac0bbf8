//! `crawl`: the engine without a screen. Progress goes to stderr (a bar on
//! a terminal, plain lines otherwise), the summary to stdout (`--json`).
//! Ctrl-C stops gracefully; a second Ctrl-C exits at once. `--quiet`
//! leaves only the summary; `--fail-on` then judges the runs just made.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use tokio::signal::unix::{signal, SignalKind};

use super::args::FindingsFormat;
use super::args::{RunArgs, ScopeArgs, SharedArgs};
use super::crawl_findings;
use super::fail_on::{self, FailOn};
use super::{point, print_json, CliError, CliResult};
use crate::crawl::{self, CrawlCommand, CrawlConfig, CrawlEvent, CrawlStats, Summary};
use crate::points::{self, PointError};
use crate::report::{summary, Ctx, Scope};
use crate::store::prelude::*;
use crate::store::PointId;
use crate::store::Store;
use crate::url::Url;

impl RunArgs {
    pub fn config(&self) -> CrawlConfig {
        let mut cfg = CrawlConfig {
            concurrency: self.concurrency as usize,
            per_host: self.per_host as usize,
            delay: Duration::from_millis(self.delay_ms),
            timeout: Duration::from_secs(self.timeout_s),
            max_body_bytes: self.max_body_bytes,
            ignore_robots: self.ignore_robots,
            insecure: self.insecure,
            require_https: self.require_https,
            ..CrawlConfig::default()
        };
        if let Some(ua) = &self.user_agent {
            cfg.user_agent = ua.clone();
        }
        cfg
    }
}

/// What `crawl` prints besides the crawl itself, and what it exits with.
pub struct Output {
    /// The summary as JSON.
    pub json: bool,
    /// Only the summary.
    pub quiet: bool,
    pub fail_on: Option<FailOn>,
    /// `--format`: the findings printed when the crawl ends.
    pub format: Option<FindingsFormat>,
}

/// What `crawl` crawls: these start URLs' points, or (`--doc`) a
/// document's active points; neither: every active point.
pub struct Points {
    /// `file:` URLs too (see `local`).
    pub urls: Vec<Url>,
    /// `--markdown`: a directory means its Markdown files.
    pub markdown: bool,
    pub doc: Option<String>,
}

pub fn run(
    store: Arc<Store>,
    Points {
        urls,
        markdown,
        doc,
    }: Points,
    scope: ScopeArgs,
    run: RunArgs,
    shared: SharedArgs,
    output: Output,
) -> CliResult {
    let mut cfg = run.config();
    cfg.frontier = shared.spec();
    let shard = cfg.frontier.is_some();
    cfg.parts_off = crawl::PartsOff::from_env()?;
    if !cfg.parts_off.is_empty() {
        eprintln!("bench: parts off: {}", cfg.parts_off);
    }
    if urls.is_empty() {
        // No URL: the flags shape this run of the stored points. Scope and
        // credentials belong to a point, so without one they mean nothing.
        if let Some(flag) = scope.point_only_flag() {
            return Err(CliError::FlagNeedsUrl { flag });
        }
        cfg.depth = scope.depth;
        cfg.max_pages = scope.max_pages;
    }
    let requested = match &doc {
        Some(name) => crate::documents::active_points(&store.read()?, name)?,
        None => super::local::points(urls, &scope, markdown)?
            .iter()
            .map(|(u, scope)| point::upsert(&store, u, scope))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let points = points::crawl_set(&store, requested).map_err(|e| match e {
        PointError::NothingToCrawl => CliError::NothingToCrawl,
        e => e.into(),
    })?;
    let rt = super::runtime()?;
    let (summary, first_failure) =
        rt.block_on(drive(Arc::clone(&store), cfg, &points, output.quiet))?;
    finish_merges(&store);
    keep_figures(&store);
    if output.json {
        print_json(&summary)?;
    } else {
        // With --format, stdout is the findings' document alone.
        let line = format!(
            "fetched {} · not modified {} · unchanged {} · failed {} · robots {} · out of scope {} · excluded {} · too deep {} · nofollow {} · throttled {} · external checked {} ({} broken) · resources checked {} ({} broken) · {:.1}s · {:.0} pages/s",
            summary.fetched,
            summary.not_modified,
            summary.unchanged,
            summary.failed,
            summary.skipped_robots,
            summary.out_of_scope,
            summary.excluded,
            summary.too_deep,
            summary.nofollow,
            summary.throttled,
            summary.external_checked,
            summary.external_broken,
            summary.resources_checked,
            summary.resources_broken,
            summary.elapsed_s,
            summary.pages_per_s
        );
        match output.format {
            Some(_) => eprintln!("{line}"),
            None => outln!("{line}"),
        }
    }
    // Tried and got no answer at all: a dead or mistyped host is a failure,
    // not an empty success. (A crawler that found nothing left to claim,
    // because another took it, tried nothing and is fine.)
    let outcome = match first_failure {
        Some((url, reason))
            if summary.fetched == 0 && summary.not_modified == 0 && summary.unchanged == 0 =>
        {
            Err(CliError::NothingFetched { url, reason })
        }
        _ => findings(&store, &points, &output),
    };
    // The runtime's tasks hold the store until it is gone.
    drop(rt);
    // A shard is not repacked: `merge` writes the store that is kept, and
    // a cluster's shards are small enough to be, each at its end.
    if !shard {
        repack(store);
    }
    outcome
}

/// Ends the index merges under way (and due), so the crawl leaves the
/// fewest segments for its queries to read; a failure costs only speed.
fn finish_merges(store: &Store) {
    let started = std::time::Instant::now();
    match store.finish_merges() {
        Ok(()) => tracing::info!(ms = started.elapsed().as_millis() as u64, "merges finished"),
        Err(e) => tracing::warn!(error = %e, "merges not finished"),
    }
}

/// Counts what the reports of the default view need once, now that the
/// crawl wrote its last, so they read a few records until the next write.
/// A failure costs only speed: the reports count for themselves. (The
/// console counts them when its Findings pane first asks after a crawl.)
fn keep_figures(store: &Store) {
    let started = std::time::Instant::now();
    match crate::report::kept::refresh(store) {
        Ok(kept) => tracing::info!(
            kept,
            ms = started.elapsed().as_millis() as u64,
            "report figures"
        ),
        Err(e) => tracing::warn!(error = %e, "report figures not kept"),
    }
}

/// Gives a small store back the pages its last merges freed, if this
/// process holds it last (see `Store::close_and_repack`); the crawl's
/// outcome does not depend on it, so a failure is only logged.
fn repack(store: Arc<Store>) {
    let Ok(store) = Arc::try_unwrap(store) else {
        return;
    };
    match store.close_and_repack() {
        Ok(Some(r)) => tracing::info!(before = r.before, after = r.after, "store repacked"),
        Ok(None) => {}
        Err(e) => tracing::warn!("store not repacked: {e}"),
    }
}

/// The findings of the run each of `points` made last (this crawl's):
/// printed with `--format`, judged with `--fail-on` (counted kind by
/// kind, summed over the points).
fn findings(store: &Store, points: &[PointId], output: &Output) -> CliResult {
    if output.format.is_none() && output.fail_on.is_none() {
        return Ok(());
    }
    let r = store.read()?;
    let mut runs = Vec::new();
    for &point in points {
        if let Some((id, _)) = r.runs(Some(point))?.pop() {
            runs.push(Ctx::with_scope(&r, Some(point), Scope::Run(id))?);
        }
    }
    if let Some(format) = output.format {
        crawl_findings::print(format, output.fail_on.as_ref(), &runs)?;
    }
    let Some(fail_on) = &output.fail_on else {
        return Ok(());
    };
    let mut total = BTreeMap::new();
    for ctx in &runs {
        fail_on::add(&mut total, summary::summary(ctx)?.findings);
    }
    fail_on.judge(&total)
}

/// The first URL that failed in a run, and why.
type Failure = Option<(String, String)>;

async fn drive(
    store: Arc<Store>,
    cfg: CrawlConfig,
    points: &[u32],
    quiet: bool,
) -> Result<(Summary, Failure), CliError> {
    // One listener for the whole crawl: a `ctrl_c()` future made anew on
    // each turn of the loop misses a Ctrl-C that arrives while an event is
    // being handled, and the crawl then runs to its end.
    let mut interrupt = signal(SignalKind::interrupt()).map_err(CliError::Interrupt)?;
    let mut handle = crawl::start(store, cfg, points.to_vec())?;
    let mut first_failure = None;
    let mut progress = Progress::new(quiet);
    let mut interrupts = 0;
    loop {
        tokio::select! {
            ev = handle.events.recv() => match ev {
                Some(CrawlEvent::Finished(_)) | None => break,
                Some(CrawlEvent::Stats(s)) => progress.stats(&s),
                Some(CrawlEvent::Fetched(f)) => {
                    if let Some(reason) = &f.reason {
                        progress.line(&failed_line(Some(f.status), reason, &f.url));
                        let why = format!("{} {reason}", f.status);
                        first_failure.get_or_insert_with(|| (f.url.clone(), why));
                    }
                }
                Some(CrawlEvent::Failed { url, reason, .. }) => {
                    progress.line(&failed_line(None, &reason, &url));
                    first_failure.get_or_insert((url, reason));
                }
                // Only a shared frontier's cluster pauses a headless crawl.
                Some(CrawlEvent::Paused) => {
                    progress.line("paused: the cluster is paused (no request starts until it resumes)");
                }
                Some(CrawlEvent::Resumed) => progress.line("resumed: the cluster runs again"),
                Some(ev) => {
                    if let Some(notice) = ev.notice() {
                        progress.line(&notice.line());
                    }
                }
            },
            _ = interrupt.recv() => {
                interrupts += 1;
                if interrupts > 1 {
                    eprintln!("interrupted again: exiting now (committed pages are kept)");
                    std::process::exit(130);
                }
                progress.line("stopping: finishing in-flight pages (Ctrl-C again to quit now)");
                let _ = handle.commands.send(CrawlCommand::Stop);
            }
        }
    }
    progress.finish();
    let summary = handle.done.await.map_err(|source| CliError::Task {
        what: "crawl task",
        source,
    })??;
    Ok((summary, first_failure))
}

/// The line a failed URL gets on stderr: `failed 404 Not Found URL`, or
/// `failed - connection refused URL` when nothing answered. The URL comes
/// last, where a reason's spaces cannot blur where it begins.
fn failed_line(status: Option<u16>, reason: &str, url: &str) -> String {
    match status {
        Some(status) => format!("failed {status} {reason} {url}"),
        None => format!("failed - {reason} {url}"),
    }
}

/// Progress on stderr: a bar on a terminal, a line every few seconds
/// otherwise; nothing at all when `quiet`.
struct Progress {
    bar: Option<ProgressBar>,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Progress {
            bar,
            last_line: Instant::now(),
            quiet,
        }
    }

    fn stats(&mut self, s: &CrawlStats) {
        if self.quiet {
            return;
        }
        let secs = s.elapsed.as_secs_f64().max(0.001);
        let mut msg = format!(
            "fetched {} ({:.0}/s) · queue {} · in flight {} · not modified {} · errors {} · throttled {}",
            s.fetched,
            s.fetched as f64 / secs,
            s.queued,
            s.in_flight,
            s.not_modified,
            s.failed,
            s.throttled
        );
        if let Some(n) = s.crawlers {
            msg.push_str(&format!(" · crawlers {n}"));
        }
        match &self.bar {
            Some(bar) => bar.set_message(msg),
            None if self.last_line.elapsed() >= Duration::from_secs(2) => {
                self.last_line = Instant::now();
                eprintln!("{msg}");
            }
            None => {}
        }
    }

    fn line(&self, msg: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(msg),
            None => eprintln!("{msg}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

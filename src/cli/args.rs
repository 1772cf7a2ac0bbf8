//! The command line as clap sees it (the contract is docs/CLI.md). Bad
//! flags and invalid URLs are rejected here, so they exit 2 with clap's
//! one-line `error:` message.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::url::Url;

#[derive(Debug, Parser)]
#[command(
    name = "crawlscope",
    version,
    about = "A web crawl console for the terminal"
)]
pub struct Cli {
    /// The store (an LMDB environment directory).
    #[arg(long, global = true, env = "CRAWLSCOPE_DB")]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The console on the store; a URL starts crawling it at once.
    Tui {
        #[arg(value_parser = Masked(parse_url))]
        url: Option<Url>,
        #[command(flatten)]
        scope: ScopeArgs,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        shared: SharedArgs,
    },
    /// Serve the built-in demo site on loopback and open the console crawling it.
    Demo {
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..))]
        pages: u32,
    },
    /// Serve the demo site alone; prints its base URL first.
    ServeDemo {
        #[arg(long, default_value_t = 0)]
        port: u16,
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..))]
        pages: u32,
    },
    /// Crawl headless. No URL: every active crawl point and the pending frontier.
    Crawl {
        /// Start URLs, or paths: a directory is crawled as a site of
        /// `file:` URLs, a Markdown file's links are checked.
        #[arg(value_name = "URL|PATH", value_parser = Masked(super::target::parse_target))]
        urls: Vec<Url>,
        /// A directory argument means the Markdown files under it (implied
        /// when any argument is a `.md` file).
        #[arg(long, requires = "urls")]
        markdown: bool,
        #[command(flatten)]
        scope: ScopeArgs,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        shared: SharedArgs,
        /// Print the summary as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Exit 3 when the run has findings of these kinds (`report`'s
        /// names, comma-separated, or `any`), after saying how many.
        #[arg(long, value_name = "KIND[,KIND]|any", value_parser = crate::cli::fail_on::parse)]
        fail_on: Option<crate::cli::fail_on::FailOn>,
        /// Only the summary line(s): no progress, no per-page lines.
        #[arg(long)]
        quiet: bool,
        /// Crawl the active crawl points of this document.
        #[arg(long, value_name = "NAME", conflicts_with = "urls", value_parser = parse_doc_name)]
        doc: Option<String>,
        /// When the crawl ends, print its findings (of the --fail-on kinds,
        /// else all) on stdout in this format; the summary goes to stderr.
        #[arg(long, value_enum, conflicts_with = "json")]
        format: Option<FindingsFormat>,
    },
    /// Manage persisted crawl points.
    Point {
        #[command(subcommand)]
        action: PointAction,
        /// `add` also hands the point to the crawlers sharing this
        /// Redis-protocol frontier: the running ones take it up.
        #[arg(long, global = true, value_name = "redis://HOST:PORT[/DB]", env = "CRAWLSCOPE_FRONTIER",
              value_parser = crate::crawl::shared::parse_url)]
        frontier: Option<String>,
    },
    /// Ranked keyword and "phrase" search.
    Search {
        #[arg(allow_hyphen_values = true)]
        query: String,
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Parents and children listed under each hit, the first N of
        /// each (0: only their counts); `page URL` lists them all.
        #[arg(long, value_name = "N", default_value_t = 5)]
        links: usize,
        #[arg(long)]
        json: bool,
        /// Analyse the query with this stopword list (a point's `--stopwords FILE`).
        #[arg(long, value_name = "FILE", value_parser = parse_stopword_file)]
        stopwords: Option<StopwordFile>,
    },
    /// Everything the store knows of one page.
    Page {
        #[arg(value_parser = Masked(parse_url))]
        url: Url,
        /// List the whole forward record, not the top 10 keywords.
        #[arg(long)]
        all_keywords: bool,
        /// List the first N parents by page id (0: all); `parent_count`
        /// says how many there are.
        #[arg(long, value_name = "N", default_value_t = crate::export::page::PAGE_PARENTS)]
        parents: usize,
        #[arg(long)]
        json: bool,
    },
    /// The exact stored bytes of a fetched page, any type.
    Body {
        #[arg(value_parser = Masked(parse_url))]
        url: Url,
        /// Write them to FILE (created whole or not at all) instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The stem of a word and its postings.
    Word {
        #[arg(required_unless_present = "id")]
        word: Option<String>,
        /// Look the word up by its id instead (the id maps work both ways).
        #[arg(long, conflicts_with = "word")]
        id: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// The vocabulary: id, stem, the word as most often written, df.
    Words {
        /// Only stems that begin with it (lowercase).
        prefix: Option<String>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// A crawl point's runs, newest first: when, how each ended, its flags and counts.
    Runs {
        /// Only this crawl point's runs.
        #[arg(long)]
        point: Option<u32>,
        /// Runs listed (newest first); default all.
        #[arg(long)]
        limit: Option<usize>,
        #[arg(long)]
        json: bool,
        /// Only the runs of this document's crawl points.
        #[arg(long, value_name = "NAME", conflicts_with = "point")]
        doc: Option<String>,
        /// List the points' runs on this Redis-protocol frontier instead:
        /// queued, leased and done across the cluster (`--point` and
        /// `--doc` name the store's points: with either, the store's runs).
        #[arg(long, value_name = "redis://HOST:PORT[/DB]", env = "CRAWLSCOPE_FRONTIER",
              value_parser = crate::crawl::shared::parse_url)]
        frontier: Option<String>,
    },
    /// Counts.
    Stats {
        #[arg(long)]
        json: bool,
        /// Also list the crawlers sharing this Redis-protocol frontier.
        #[arg(long, value_name = "redis://HOST:PORT[/DB]", env = "CRAWLSCOPE_FRONTIER",
              value_parser = crate::crawl::shared::parse_url)]
        frontier: Option<String>,
    },
    /// Dump every page (csv: every URL seen).
    Export {
        #[arg(long, value_enum, default_value_t = ExportFormat::SpiderResult)]
        format: ExportFormat,
        #[arg(long, required_if_eq("format", "parquet"))]
        out: Option<PathBuf>,
        /// parquet: also write this WARC, which the rows point into;
        /// cdxj: the WARC to index.
        #[arg(long, required_if_eq("format", "cdxj"))]
        warc: Option<PathBuf>,
    },
    /// A consistent copy of the store, safe while crawls run.
    Copy {
        /// A new directory for the copy (it must not exist).
        dest: PathBuf,
        /// Leave out free pages: smaller, slower to take.
        #[arg(long)]
        compact: bool,
    },
    /// Fold shard stores (each crawler's of a sharded crawl) into one;
    /// merging a newer copy of a shard again updates what it brought.
    Merge {
        /// The shard stores, merged in this order (a later fetch of a URL wins).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// The merged store (created when missing).
        #[arg(long)]
        into: PathBuf,
    },
    /// What the crawl found: broken links, redirects, titles, changes...
    Report(ReportArgs),
    /// Verify the store's invariants; exit 1 when something is wrong.
    Check {
        #[arg(long)]
        json: bool,
    },
    /// Print a completion script for SHELL (e.g. `crawlscope completions
    /// bash > ~/.local/share/bash-completion/completions/crawlscope`).
    Completions { shell: clap_complete::Shell },
    /// Print the man page in roff (`crawlscope man | man -l -`); with a
    /// COMMAND, that command's own page (`crawlscope-COMMAND(1)`, which
    /// the main page's SUBCOMMANDS section refers to).
    Man {
        /// A subcommand, e.g. `crawl`, `point`, or `point-add` for
        /// `point add` (as its page, `crawlscope-point-add(1)`, is named).
        #[arg(value_parser = man_command)]
        command: Option<String>,
    },
    /// Documents: named groups of crawl points whose excludes apply to each.
    Doc {
        #[command(subcommand)]
        action: DocAction,
    },
}

#[derive(Debug, Subcommand)]
pub enum DocAction {
    /// Make a document, or set an existing one's excludes to those given.
    Add {
        #[arg(value_parser = parse_doc_name)]
        name: String,
        /// URL prefix none of its points fetches (repeatable).
        #[arg(long = "exclude", value_parser = Masked(parse_exclude))]
        excludes: Vec<String>,
        /// Print the saved document as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Every document with its excludes and crawl points, deleted ones too.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Give a document a new name, on its crawl points too.
    Rename {
        old: String,
        #[arg(value_parser = parse_doc_name)]
        new: String,
    },
    /// Delete a document: restorable with `doc restore`; its excludes stop applying.
    Rm {
        name: String,
        /// Remove it for good, and its name from every crawl point.
        #[arg(long)]
        purge: bool,
    },
    /// Bring back a deleted document.
    Restore { name: String },
}

fn parse_doc_name(s: &str) -> Result<String, String> {
    crate::documents::parse_name(s).map_err(|e| e.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    SpiderResult,
    Jsonl,
    /// One row per URL seen.
    Csv,
    /// WARC/1.1; gzip per record when --out ends in .gz.
    Warc,
    /// One row per link: source, target, anchor, rel, target's status.
    Links,
    /// Common Crawl's columnar-index columns, one row per fetched URL (needs --out).
    Parquet,
    /// pywb's index of the WARC given with --warc.
    Cdxj,
    /// An XML sitemap of the indexable pages; past 50,000, --out FILE is
    /// a sitemap index and FILE-N.xml its parts.
    Sitemap,
}

#[derive(Debug, Subcommand)]
pub enum PointAction {
    /// Save a crawl point.
    Add {
        #[arg(value_parser = Masked(parse_url))]
        url: Url,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print the saved point as JSON.
        #[arg(long)]
        json: bool,
        /// Put it in this document (`doc add NAME` makes one); repeatable.
        #[arg(long = "doc", value_name = "NAME", value_parser = parse_doc_name)]
        docs: Vec<String>,
    },
    List {
        /// List the soft-deleted points instead.
        #[arg(long)]
        deleted: bool,
        #[arg(long)]
        json: bool,
    },
    /// Change a point's scope (only the flags given change).
    Update {
        id: u32,
        #[command(flatten)]
        scope: ScopeArgs,
        /// Print the saved point as JSON.
        #[arg(long)]
        json: bool,
        /// Its documents become these (`doc add NAME` makes one); repeatable.
        #[arg(long = "doc", value_name = "NAME", value_parser = parse_doc_name)]
        docs: Vec<String>,
        /// Take it out of every document.
        #[arg(long, conflicts_with = "docs")]
        no_doc: bool,
    },
    /// Delete a point: restorable with `point restore`, never crawled.
    Rm {
        id: u32,
        /// Remove it for good.
        #[arg(long)]
        purge: bool,
    },
    /// Bring back a deleted point.
    Restore {
        id: u32,
    },
    Enable {
        id: u32,
    },
    Disable {
        id: u32,
    },
}

/// What a crawl point covers and how it authenticates.
#[derive(Debug, Clone, Default, Args)]
pub struct ScopeArgs {
    /// URL prefix that is in scope (default: the start URL's origin).
    #[arg(long, value_parser = Masked(parse_prefix))]
    pub root: Option<String>,
    /// Deepest link depth fetched (the start URL is depth 0).
    #[arg(long, value_parser = crate::points::parse_depth)]
    pub depth: Option<u32>,
    /// At most this many successful fetches per run.
    #[arg(long, value_parser = crate::points::parse_max_pages)]
    pub max_pages: Option<u64>,
    /// URL prefix never fetched (repeatable).
    #[arg(long = "exclude", value_parser = Masked(parse_exclude))]
    pub excludes: Vec<String>,
    /// HTTP basic auth user (sent only to the point's origin).
    #[arg(long, requires = "password")]
    pub user: Option<String>,
    #[arg(long, requires = "user")]
    pub password: Option<String>,
    /// Extra request header "Name: value" (repeatable; own origin only).
    #[arg(long = "header", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Follow rel=nofollow links and links of nofollow pages too (they are
    /// recorded either way); `--follow-nofollow=false` turns it off again.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub follow_nofollow: Option<bool>,
    /// Read no sitemaps: only links lead to pages (kept on the point).
    #[arg(long, conflicts_with = "sitemaps")]
    pub no_sitemaps: bool,
    /// Read sitemaps again (undoes --no-sitemaps).
    #[arg(long)]
    pub sitemaps: bool,
    /// Check each out-of-scope link once per run (HEAD, GET where HEAD is
    /// refused) and keep the answer for `report external`; never crawl
    /// it. `--check-external=false` turns it off again.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub check_external: Option<bool>,
    /// www.HOST and HOST are two sites (default: one, the first seen is canonical).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub distinct_www: Option<bool>,
    /// Connect to ADDR for HOST:PORT, as curl does (repeatable; IPv6 ADDR in brackets).
    #[arg(long = "resolve", value_name = "HOST:PORT:ADDR", value_parser = crate::points::parse_resolve)]
    pub resolve: Vec<crate::store::Resolve>,
    /// Query parameter added to every request URL of the point, never stored (repeatable).
    #[arg(long = "append-query", value_name = "K=V", value_parser = crate::points::parse_append_query)]
    pub append_query: Vec<(String, String)>,
    /// Statuses that are not broken, lychee's syntax: `200..=299,403`,
    /// `..300`, `400..`, `429` (default: every 4xx and 5xx is broken).
    #[arg(long, value_name = "RANGES", value_parser = parse_accept)]
    pub accept: Option<AcceptRanges>,
    /// A URL matching RE (anywhere in it, in scope or not) is neither
    /// fetched nor checked: `skipped:excluded` (repeatable).
    #[arg(long = "exclude-regex", value_name = "RE", value_parser = parse_exclude_regex)]
    pub exclude_regex: Vec<String>,
    /// A `page#id` link whose fetched HTML target has no element with that
    /// `id` or `name` is a finding (`report fragments`);
    /// `--check-fragments=false` turns it off again.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub check_fragments: Option<bool>,
    /// Index the point's pages without these stopwords instead of the
    /// built-in list: one word a line, `#` comments (kept on the point).
    #[arg(long, value_name = "FILE", value_parser = parse_stopword_file)]
    pub stopwords: Option<StopwordFile>,
    /// Check no resource links (images, scripts, stylesheets, ...; by
    /// default the point's own origin's are checked once per run).
    #[arg(long, conflicts_with = "resources")]
    pub no_resources: bool,
    /// Check resource links again (undoes --no-resources).
    #[arg(long)]
    pub resources: bool,
    /// Load HTML pages in a headless Chromium and read the DOM after their
    /// scripts ran: `off` (default), `js` (every page), `auto` (pages that
    /// look like an application shell). Kept on the point.
    #[arg(long, value_name = "off|js|auto", value_parser = crate::render::parse_mode)]
    pub render: Option<crate::store::RenderMode>,
    /// The most a rendered page may take to settle after load (default 5000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=600_000))]
    pub render_wait_ms: Option<u32>,
    /// Browser tabs rendering at once (default 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub render_concurrency: Option<u32>,
    /// Keep what matches on each HTML page: `NAME=css:SELECTOR` (the
    /// elements' text) or `NAME=regex:RE` (the first group, else the
    /// match); repeatable, replaces the point's rules.
    #[arg(long = "extract", value_name = "NAME=css:SEL|regex:RE", value_parser = crate::custom::parse_extract)]
    pub extract: Vec<String>,
    /// Count TEXT (or RE) in each HTML page's source: `report search
    /// --name NAME` lists the pages with it (`NAME=!TEXT`: without it);
    /// repeatable, replaces the point's rules.
    #[arg(long = "search", value_name = "NAME=[!]TEXT|regex:RE", value_parser = crate::custom::parse_search)]
    pub search: Vec<String>,
    /// When given, only URLs matching one RE are requested: pages,
    /// resources, external links (repeatable; the start URL always is).
    #[arg(long = "include", value_name = "RE", value_parser = parse_exclude_regex)]
    pub include: Vec<String>,
    /// A URL matching RE is requested as REPLACEMENT (`$1` groups); the
    /// store keeps the URL as found (repeatable; the first match wins).
    #[arg(long = "remap", value_name = "'RE REPLACEMENT'", value_parser = parse_remap)]
    pub remap: Vec<String>,
    /// Retries of a network error, 5xx or 429 before it is a finding
    /// (default 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=20))]
    pub max_retries: Option<u32>,
    /// A longer redirect chain is a failure, `too many redirects`
    /// (default 10).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=64))]
    pub max_redirects: Option<u8>,
    /// Netscape cookie file: read before the crawl (cookies sent where
    /// they match), written after it with what the servers set.
    #[arg(long, value_name = "FILE", value_parser = parse_cookie_jar)]
    pub cookie_jar: Option<String>,
    /// Resource and external results are not asked again while younger
    /// than --max-cache-age; `--cache=false` turns it off again.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub cache: Option<bool>,
    /// How long a cached result stands: `30m`, `12h`, `1d` (default 1d).
    #[arg(long, value_name = "DUR", value_parser = crate::crawl::parse_max_age)]
    pub max_cache_age: Option<u64>,
}

fn parse_cookie_jar(s: &str) -> Result<String, String> {
    std::path::absolute(s)
        .map(|p| p.display().to_string())
        .map_err(|e| format!("{s}: {e}"))
}

fn parse_remap(s: &str) -> Result<String, String> {
    crate::crawl::parse_remap(s).map(|_| s.trim().to_string())
}

/// The words of a `--stopwords FILE`, read when the flag is parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopwordFile(pub Vec<String>);

fn parse_stopword_file(path: &str) -> Result<StopwordFile, String> {
    crate::index::read_stopwords(std::path::Path::new(path)).map(StopwordFile)
}

/// `--accept`'s ranges, inclusive (a newtype: clap takes a bare `Vec` as
/// a repeated flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptRanges(pub Vec<(u16, u16)>);

impl ScopeArgs {
    /// The first flag given that only a crawl point can hold (`--depth` and
    /// `--max-pages` also limit a run, so they are not among them).
    pub fn point_only_flag(&self) -> Option<&'static str> {
        [
            (self.root.is_some(), "--root"),
            (!self.excludes.is_empty(), "--exclude"),
            (self.user.is_some(), "--user"),
            (!self.headers.is_empty(), "--header"),
            (self.follow_nofollow.is_some(), "--follow-nofollow"),
            (self.check_external.is_some(), "--check-external"),
            (self.no_sitemaps, "--no-sitemaps"),
            (self.sitemaps, "--sitemaps"),
            (self.distinct_www.is_some(), "--distinct-www"),
            (!self.resolve.is_empty(), "--resolve"),
            (!self.append_query.is_empty(), "--append-query"),
            (self.stopwords.is_some(), "--stopwords"),
            (self.accept.is_some(), "--accept"),
            (!self.exclude_regex.is_empty(), "--exclude-regex"),
            (self.check_fragments.is_some(), "--check-fragments"),
            (self.no_resources, "--no-resources"),
            (self.resources, "--resources"),
            (self.render.is_some(), "--render"),
            (self.render_wait_ms.is_some(), "--render-wait-ms"),
            (self.render_concurrency.is_some(), "--render-concurrency"),
            (!self.extract.is_empty(), "--extract"),
            (!self.search.is_empty(), "--search"),
            (!self.include.is_empty(), "--include"),
            (!self.remap.is_empty(), "--remap"),
            (self.max_retries.is_some(), "--max-retries"),
            (self.max_redirects.is_some(), "--max-redirects"),
            (self.cookie_jar.is_some(), "--cookie-jar"),
            (self.cache.is_some(), "--cache"),
            (self.max_cache_age.is_some(), "--max-cache-age"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// How a crawl behaves.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub per_host: u32,
    /// Minimum gap between requests to one host.
    #[arg(long, default_value_t = 0)]
    pub delay_ms: u64,
    #[arg(long)]
    pub user_agent: Option<String>,
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_s: u64,
    #[arg(long, default_value_t = 8 << 20)]
    pub max_body_bytes: usize,
    #[arg(long)]
    pub ignore_robots: bool,
    /// Accept invalid TLS certificates (self-signed, expired, another
    /// name's): a staging site's; never the default.
    #[arg(long)]
    pub insecure: bool,
    /// Ask the https:// twin of every http:// link met: an http link whose
    /// twin answers is a finding (`report http-links`).
    #[arg(long)]
    pub require_https: bool,
}

/// Crawling together with other crawlers, on any hosts.
#[derive(Debug, Clone, Args)]
pub struct SharedArgs {
    /// Share the frontier (points' queues, claims, politeness) with every
    /// crawler given this Redis-protocol server; the store is this
    /// crawler's shard.
    #[arg(long, value_name = "redis://HOST:PORT[/DB]", env = "CRAWLSCOPE_FRONTIER",
          value_parser = crate::crawl::shared::parse_url)]
    pub frontier: Option<String>,
    /// A claim's lease on the shared frontier, renewed while this crawler
    /// lives; a dead crawler's URLs come back after it.
    #[arg(long, value_name = "N", default_value_t = 30, requires = "frontier",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub lease_s: u64,
}

impl SharedArgs {
    pub fn spec(&self) -> Option<crate::crawl::shared::Spec> {
        self.frontier
            .as_ref()
            .map(|url| crate::crawl::shared::Spec {
                url: url.clone(),
                lease: std::time::Duration::from_secs(self.lease_s),
            })
    }
}

/// What `report` lists, how, and for which pages and runs.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[arg(value_enum, default_value_t = crate::report::Kind::Summary)]
    pub kind: crate::report::Kind,
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// A header row, then one row per item.
    #[arg(long)]
    pub csv: bool,
    /// Rows listed (0: only count); default 50 in a table, all with --json or --csv.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Only this crawl point's URLs (`changes`: compare its runs).
    #[arg(long)]
    pub point: Option<u32>,
    /// Report this run (an id `runs` lists) instead of each point's latest.
    #[arg(long, conflicts_with = "all_runs")]
    pub run: Option<u32>,
    /// Report every URL any run reached.
    #[arg(long)]
    pub all_runs: bool,
    /// `changes`: the earlier run (an id `runs` lists; default: the one before --to).
    #[arg(long)]
    pub from: Option<u32>,
    /// `changes`: the later run (default: the point's latest).
    #[arg(long)]
    pub to: Option<u32>,
    /// Only what this document's crawl points reached.
    #[arg(long, value_name = "NAME", conflicts_with = "point")]
    pub doc: Option<String>,
    /// `near-duplicates`: the similarity (0..1) a pair must reach.
    #[arg(long, default_value_t = crate::report::near_duplicates::DEFAULT_THRESHOLD,
        value_parser = crate::report::near_duplicates::parse_threshold)]
    pub near_threshold: f64,
    /// Exit 3 when what the report covers has findings of these kinds
    /// (comma-separated, or `any`), after the report.
    #[arg(long, value_name = "KIND[,KIND]|any", value_parser = crate::cli::fail_on::parse)]
    pub fail_on: Option<crate::cli::fail_on::FailOn>,
    /// `broken`, `external`, `fragments`, `resources`: the first N
    /// pages of a row's sources (0: all); `source_count` says how many.
    #[arg(long, value_name = "N", default_value_t = crate::report::SOURCES)]
    pub sources: usize,
    /// JUnit XML on stdout: a test case per item, a failure per finding.
    #[arg(long, conflicts_with_all = ["json", "csv"])]
    pub junit: bool,
    /// `extract`, `search`: only the rule of this name.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// A value parser whose refusal shows the value with any password masked
/// (clap's own message would echo it whole): for URLs and URL prefixes.
#[derive(Clone)]
struct Masked<T>(fn(&str) -> Result<T, String>);

impl<T: Clone + Send + Sync + 'static> clap::builder::TypedValueParser for Masked<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let typed = value.to_string_lossy();
        (self.0)(&typed).map_err(|e| {
            let arg = arg.map_or_else(|| "URL".to_string(), ToString::to_string);
            let shown = crate::url::redact(&typed);
            // clap's layout: the error, the usage line, the help hint.
            let usage = cmd.clone().render_usage();
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "invalid value '{shown}' for '{arg}': {e}\n\n{usage}\n\nFor more information, try '--help'.\n"
                ),
            )
            .with_cmd(cmd)
        })
    }
}

fn parse_url(s: &str) -> Result<Url, String> {
    crate::url::parse_start(s).map_err(|e| e.to_string())
}

/// A URL prefix, or a path: `crawl` makes a local point's paths `file:`
/// prefixes, and any other point refuses them.
fn parse_prefix(s: &str) -> Result<String, String> {
    if !s.contains("://") {
        return Ok(s.to_string());
    }
    crate::points::parse_root(s).map_err(|e| e.to_string())
}

fn parse_exclude(s: &str) -> Result<String, String> {
    crate::points::parse_exclude(s).map_err(|e| e.to_string())
}

fn parse_accept(s: &str) -> Result<AcceptRanges, String> {
    crate::accept::parse(s)
        .map(AcceptRanges)
        .map_err(|e| e.to_string())
}

fn parse_exclude_regex(s: &str) -> Result<String, String> {
    crate::exclude_regex::parse(s)
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    crate::crawl::parse_header(s)
}

/// `man COMMAND` takes the name of a subcommand; looked up when parsing
/// (not when the parser is built, which this function is part of).
fn man_command(name: &str) -> Result<String, String> {
    let cli = <Cli as clap::CommandFactory>::command();
    if page_command(&cli, name).is_some() {
        return Ok(name.to_string());
    }
    let names: Vec<&str> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name())
        .collect();
    Err(format!("no such command [commands: {}]", names.join(", ")))
}

/// The command whose man page is `crawlscope-NAME`: a subcommand of
/// `root`, or one of its own (`point-add` is `point`'s `add`; a name may
/// hold a dash itself, as `serve-demo` does).
pub(super) fn page_command<'c>(root: &'c clap::Command, name: &str) -> Option<&'c clap::Command> {
    root.find_subcommand(name).or_else(|| {
        name.match_indices('-')
            .find_map(|(i, _)| page_command(root.find_subcommand(&name[..i])?, &name[i + 1..]))
    })
}

/// How `crawl --format` prints the findings (`crawl_findings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FindingsFormat {
    Table,
    Json,
    Markdown,
    Junit,
}

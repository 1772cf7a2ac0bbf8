//! The store's layout: every LMDB database, the record types kept in them and
//! the format version. A store of another format is refused with both
//! versions named, never misread.

use heed::types::Bytes;
use heed::{Database, Env, RwTxn};
use serde::{Deserialize, Serialize};

/// The layout every store is written in: format 1, released with 0.1.0.
/// From now on a change to any record's encoding takes the next number,
/// an upgrade from every released format (run when a store is opened)
/// and a committed store of the new format beside
/// `tests/fixtures/store-format-1`, which must keep opening (see
/// docs/STORE.md, "Format version").
pub const FORMAT_VERSION: u32 = 1;

pub type PageId = u32;
pub type WordId = u32;
pub type OriginId = u32;
pub type MimeId = u32;
pub type PointId = u32;
pub type InstanceId = u32;
pub type RunId = u32;

pub type Db = Database<Bytes, Bytes>;

/// Handles to every database of the environment.
#[derive(Clone, Copy)]
pub struct Dbs {
    pub meta: Db,
    pub origins: Db,
    pub origin_ids: Db,
    pub urls: Db,
    pub url_ids: Db,
    pub pages: Db,
    pub bodies: Db,
    pub mimetypes: Db,
    pub mime_ids: Db,
    pub word_ids: Db,
    pub postings: Db,
    pub title_postings: Db,
    pub doc_freq: Db,
    pub words: Db,
    /// A page's forward index, links out, meta tags and head (`page_records`).
    pub forward: Db,
    pub links_in: Db,
    pub frontier: Db,
    pub url_state: Db,
    pub crawl_points: Db,
    pub instances: Db,
    pub robots: Db,
    pub norms: Db,
    pub origin_figures: Db,
    pub sitemap_pages: Db,
    pub external_checks: Db,
    pub run_history: Db,
    pub page_segments: Db,
    pub pair_postings: Db,
    /// Every run of every crawl point, by run id (`runs`).
    pub runs: Db,
    /// Documents grouping crawl points, by name (`documents`).
    pub documents: Db,
    /// A page's near-duplicate signature (`page_text`).
    pub near_signatures: Db,
    /// Why a fetched document's text could not be read (`page_text`).
    pub text_errors: Db,
    /// A page's ids and fragment links, for `--check-fragments` (`fragments`).
    pub fragments: Db,
    /// Page id → what the audit reports need beyond the page record
    /// (`page_audit`).
    pub page_audit: Db,
    /// Page id → what the fetching point's `--extract`/`--search` rules
    /// found (`page_custom`).
    pub page_custom: Db,
    /// Page id → the sitemaps that listed it, by point and run
    /// (`sitemap_listings`).
    pub sitemap_listings: Db,
    /// A page's (or stylesheet's) resources: what it loads (`resources`).
    pub page_resources: Db,
    /// What checking a resource answered, by its page id (`resources`).
    pub resource_checks: Db,
    /// Figures derived from the whole store, with the transaction they
    /// are true of (`kept`).
    pub kept: Db,
    /// Page id → how it was rendered in a browser (`render_facts`).
    pub render_facts: Db,
    /// A `word_ids` record's number → its key, so that `words` can name
    /// the record holding a word's stem (`inverted::stems`).
    pub stem_records: Db,
    /// A repacked small store's bodies in shared frames (`body_blocks`).
    pub body_blocks: Db,
    /// A repacked small store's page records, link lists, meta tags and
    /// HTTP heads in shared frames (`record_blocks`).
    pub record_blocks: Db,
    /// A repacked small store's `word_ids` records in shared frames
    /// (`word_blocks`).
    pub word_blocks: Db,
    /// A repacked small store's `doc_freq` records in shared frames
    /// (`doc_freq_blocks`).
    pub doc_freq_blocks: Db,
    /// A repacked small store's body posting parts in shared frames
    /// (`body_blocks`).
    pub posting_blocks: Db,
    /// `point ‖ page` → what the point's latest run decided of the URL
    /// (`point_urls`).
    pub point_urls: Db,
    /// An `http://` URL's page id → what its `https://` twin answered
    /// (`--require-https`; `external`).
    pub https_twins: Db,
    /// The body postings, title postings and reverse links of the large
    /// segments, those a staged merge writes ([`LARGE_SEGMENTS`]).
    pub large_postings: Db,
    pub large_title_postings: Db,
    pub large_links_in: Db,
}

pub const DB_COUNT: u32 = 51;

/// A table written as segment streams (`inverted::segments`), keyed
/// `segment ‖ word (or child) ‖ first page (or parent)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Body,
    Title,
    LinksIn,
}

impl Stream {
    pub const ALL: [Stream; 3] = [Stream::Body, Stream::Title, Stream::LinksIn];
}

/// Segment ids from here up are the large segments, each written by a
/// merge over many transactions (`inverted::staged`). They have tables
/// of their own: a segment is appended at the end of its table (a full
/// leaf after full leaf), and the small segments each transaction adds
/// at the end of theirs would otherwise come between a large one's steps.
pub const LARGE_SEGMENTS: u32 = 1 << 31;

/// Largest record that postings parts and parents records are cut to:
/// LMDB keeps values up to about 2 KiB inside its 4 KiB leaf pages;
/// anything larger takes whole overflow pages.
pub const LEAF_VALUE_BYTES: usize = 1900;

/// Pages per `norms` record: 1000 f32s fill one 4 KiB overflow page.
pub const NORMS_PER_CHUNK: u32 = 1000;

impl Dbs {
    /// Every database with its name, for per-table statistics.
    pub fn named(&self) -> [(&'static str, Db); DB_COUNT as usize] {
        [
            ("meta", self.meta),
            ("origins", self.origins),
            ("origin_ids", self.origin_ids),
            ("urls", self.urls),
            ("url_ids", self.url_ids),
            ("pages", self.pages),
            ("bodies", self.bodies),
            ("mimetypes", self.mimetypes),
            ("mime_ids", self.mime_ids),
            ("word_ids", self.word_ids),
            ("postings", self.postings),
            ("title_postings", self.title_postings),
            ("doc_freq", self.doc_freq),
            ("words", self.words),
            ("forward", self.forward),
            ("links_in", self.links_in),
            ("frontier", self.frontier),
            ("url_state", self.url_state),
            ("crawl_points", self.crawl_points),
            ("instances", self.instances),
            ("robots", self.robots),
            ("norms", self.norms),
            ("origin_figures", self.origin_figures),
            ("sitemap_pages", self.sitemap_pages),
            ("external_checks", self.external_checks),
            ("run_history", self.run_history),
            ("page_segments", self.page_segments),
            ("pair_postings", self.pair_postings),
            ("runs", self.runs),
            ("documents", self.documents),
            ("near_signatures", self.near_signatures),
            ("text_errors", self.text_errors),
            ("fragments", self.fragments),
            ("page_audit", self.page_audit),
            ("page_custom", self.page_custom),
            ("sitemap_listings", self.sitemap_listings),
            ("page_resources", self.page_resources),
            ("resource_checks", self.resource_checks),
            ("kept", self.kept),
            ("render_facts", self.render_facts),
            ("stem_records", self.stem_records),
            ("body_blocks", self.body_blocks),
            ("record_blocks", self.record_blocks),
            ("word_blocks", self.word_blocks),
            ("doc_freq_blocks", self.doc_freq_blocks),
            ("posting_blocks", self.posting_blocks),
            ("point_urls", self.point_urls),
            ("https_twins", self.https_twins),
            ("large_postings", self.large_postings),
            ("large_title_postings", self.large_title_postings),
            ("large_links_in", self.large_links_in),
        ]
    }
}

impl Dbs {
    pub fn create(env: &Env, txn: &mut RwTxn) -> heed::Result<Dbs> {
        let mut db = |name: &str| env.create_database::<Bytes, Bytes>(txn, Some(name));
        Ok(Dbs {
            meta: db("meta")?,
            origins: db("origins")?,
            origin_ids: db("origin_ids")?,
            urls: db("urls")?,
            url_ids: db("url_ids")?,
            pages: db("pages")?,
            bodies: db("bodies")?,
            mimetypes: db("mimetypes")?,
            mime_ids: db("mime_ids")?,
            word_ids: db("word_ids")?,
            postings: db("postings")?,
            title_postings: db("title_postings")?,
            doc_freq: db("doc_freq")?,
            words: db("words")?,
            forward: db("forward")?,
            links_in: db("links_in")?,
            frontier: db("frontier")?,
            url_state: db("url_state")?,
            crawl_points: db("crawl_points")?,
            instances: db("instances")?,
            robots: db("robots")?,
            norms: db("norms")?,
            origin_figures: db("origin_figures")?,
            sitemap_pages: db("sitemap_pages")?,
            external_checks: db("external_checks")?,
            run_history: db("run_history")?,
            page_segments: db("page_segments")?,
            pair_postings: db("pair_postings")?,
            runs: db("runs")?,
            documents: db("documents")?,
            near_signatures: db("near_signatures")?,
            text_errors: db("text_errors")?,
            fragments: db("fragments")?,
            page_audit: db("page_audit")?,
            page_custom: db("page_custom")?,
            sitemap_listings: db("sitemap_listings")?,
            page_resources: db("page_resources")?,
            resource_checks: db("resource_checks")?,
            kept: db("kept")?,
            render_facts: db("render_facts")?,
            stem_records: db("stem_records")?,
            body_blocks: db("body_blocks")?,
            record_blocks: db("record_blocks")?,
            word_blocks: db("word_blocks")?,
            doc_freq_blocks: db("doc_freq_blocks")?,
            posting_blocks: db("posting_blocks")?,
            point_urls: db("point_urls")?,
            https_twins: db("https_twins")?,
            large_postings: db("large_postings")?,
            large_title_postings: db("large_title_postings")?,
            large_links_in: db("large_links_in")?,
        })
    }

    /// The table holding `segment`'s part of `stream`.
    pub fn stream(&self, stream: Stream, segment: u32) -> Db {
        let large = segment >= LARGE_SEGMENTS;
        match (stream, large) {
            (Stream::Body, false) => self.postings,
            (Stream::Body, true) => self.large_postings,
            (Stream::Title, false) => self.title_postings,
            (Stream::Title, true) => self.large_title_postings,
            (Stream::LinksIn, false) => self.links_in,
            (Stream::LinksIn, true) => self.large_links_in,
        }
    }

    /// Both tables of `stream`, small segments' first.
    pub fn stream_tables(&self, stream: Stream) -> [Db; 2] {
        [self.stream(stream, 0), self.stream(stream, LARGE_SEGMENTS)]
    }
}

/// Keys of the `meta` database.
pub mod meta_keys {
    pub const FORMAT: &[u8] = b"format_version";
    /// Where development builds (before 0.1.0) wrote their layout's
    /// number; a store holding it is refused, whatever the number.
    pub const DEVELOPMENT_SCHEMA: &[u8] = b"schema_version";
    pub const NEXT_PAGE: &[u8] = b"next_page_id";
    pub const NEXT_WORD: &[u8] = b"next_word_id";
    pub const NEXT_ORIGIN: &[u8] = b"next_origin_id";
    pub const NEXT_MIME: &[u8] = b"next_mime_id";
    pub const NEXT_POINT: &[u8] = b"next_point_id";
    pub const NEXT_INSTANCE: &[u8] = b"next_instance_id";
    pub const FRONTIER_SEQ: &[u8] = b"frontier_seq";
    pub const NEXT_SEGMENT: &[u8] = b"next_segment";
    /// The next large segment's id, less [`super::LARGE_SEGMENTS`].
    pub const NEXT_LARGE_SEGMENT: &[u8] = b"next_large_segment";
    pub const NEXT_RUN: &[u8] = b"next_run_id";
    /// Counts committed write transactions: what `kept` figures are
    /// stamped with (LMDB's own transaction ids start again at a copy).
    pub const WRITE_SEQ: &[u8] = b"write_seq";
    /// The store's own random id (`merged`), written when it is created.
    pub const STORE_ID: &[u8] = b"store_id";
}

/// What is known of a fetched page (the URL itself lives in `urls`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PageRecord {
    pub title: Option<String>,
    pub status: u16,
    pub mime: MimeId,
    /// Content-Length, else the body's length.
    pub size: u64,
    /// Unix seconds: Last-Modified, else Date, else fetch time.
    pub last_modified: i64,
    /// The Last-Modified header exactly as sent, for If-Modified-Since.
    pub last_modified_header: Option<String>,
    pub etag: Option<String>,
    pub fetched_at: i64,
    pub depth: u32,
    pub content_hash: u64,
    pub truncated: bool,
    /// Largest body term frequency, for tf normalisation.
    pub max_tf: u32,
    /// Euclidean norm of the page's normalised-tf vector (tf / max_tf). idf
    /// changes as the crawl grows, so it is applied at query time.
    pub norm: f32,
    pub token_count: u32,
    /// From sending the request to the whole body, in milliseconds.
    pub response_ms: u32,
    /// The page's `<meta name=description>`.
    pub description: Option<String>,
    /// Each `<h1>`'s text, in page order.
    pub h1: Vec<String>,
    /// The canonical URL: `<link rel=canonical>`, else a `Link: <..>;
    /// rel="canonical"` header.
    pub canonical: Option<String>,
    /// `noindex` / `nofollow` directives and where they were found.
    pub noindex: Option<DirectiveSource>,
    pub nofollow: Option<DirectiveSource>,
}

/// Where a robots directive was found: a `<meta name=robots>` tag (or one
/// named for our user agent) or an `X-Robots-Tag` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DirectiveSource {
    Meta,
    Header,
}

impl DirectiveSource {
    pub fn as_str(self) -> &'static str {
        match self {
            DirectiveSource::Meta => "meta",
            DirectiveSource::Header => "header",
        }
    }
}

/// A link as stored with the page it was found on: one occurrence as
/// written, or (`LinkRead::links`) a target's occurrences folded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OutLink {
    pub child: PageId,
    /// The link's text (an image's alt text counts), cut to 100 characters.
    pub anchor: String,
    /// Its kept `rel` tokens; `rel=nofollow` is recorded in the graph, not
    /// followed (unless asked).
    pub rel: crate::types::Rel,
    pub element: crate::types::LinkElement,
    pub position: crate::types::Position,
    /// The href's `#fragment`, if it had one.
    pub fragment: Option<String>,
}

impl PageRecord {
    /// Where `last_modified` comes from: `header` (Last-Modified), `date`
    /// (the server's Date) or `fetch` (the fetch time).
    pub fn last_modified_source(&self) -> &'static str {
        if self.last_modified_header.is_some() {
            "header"
        } else if self.last_modified != self.fetched_at {
            "date"
        } else {
            "fetch"
        }
    }

    /// How to label `last_modified` for people.
    pub fn last_modified_label(&self) -> &'static str {
        match self.last_modified_source() {
            "header" => "modified",
            "date" => "dated",
            _ => "fetched",
        }
    }
}

/// The HTTP exchange behind a stored page, as sent and as received (both
/// capped), kept for the WARC export. Replaced with the page; a 304 keeps
/// the exchange that brought the stored body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct HttpHead {
    /// Request headers as sent, credentials replaced by `[redacted]`.
    pub request: Vec<(String, String)>,
    /// The response's protocol version: `HTTP/1.1`, `HTTP/2.0`.
    pub version: String,
    /// Response headers as received (`fetch::Response::headers`: lower
    /// case names, in order, capped).
    pub response: Vec<(String, String)>,
}

/// Where a URL stands in the crawl.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlState {
    /// `had`: the settled state an earlier run left (a fetch result or a
    /// skip), which stays the URL's fact until this run settles it anew,
    /// so a run stopped early changes no figure of the URLs it did not
    /// reach. Last, so a fresh queue entry's record stays small.
    Queued {
        point: PointId,
        gen: u32,
        had: Option<Box<UrlState>>,
    },
    Claimed {
        point: PointId,
        gen: u32,
        by: InstanceId,
        depth: u32,
        hops: u8,
        had: Option<Box<UrlState>>,
    },
    Done {
        point: PointId,
        gen: u32,
    },
    /// No usable answer (`status` None), or a 4xx/5xx one.
    Failed {
        point: PointId,
        gen: u32,
        /// The answer's reason phrase (the server's own, else the
        /// standard one), or the name of the failure when nothing answered.
        reason: String,
        status: Option<u16>,
    },
    Skipped {
        point: PointId,
        gen: u32,
        reason: SkipReason,
    },
    Redirected {
        point: PointId,
        gen: u32,
        to: PageId,
        /// 301, 302, 303, 307 or 308.
        status: u16,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SkipReason {
    OutOfScope,
    Excluded,
    Robots,
    TooDeep,
    /// A `rel=nofollow` link, or any link of a page whose robots
    /// directives say nofollow.
    Nofollow,
}

impl SkipReason {
    /// Why, in words.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::OutOfScope => "outside the crawl point's root",
            SkipReason::Excluded => "under an excluded prefix or matching an excluded pattern",
            SkipReason::Robots => "disallowed by robots.txt",
            SkipReason::TooDeep => "deeper than the depth limit",
            SkipReason::Nofollow => "linked with nofollow",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::OutOfScope => "out_of_scope",
            SkipReason::Excluded => "excluded",
            SkipReason::Robots => "robots",
            SkipReason::TooDeep => "too_deep",
            SkipReason::Nofollow => "nofollow",
        }
    }
}

impl UrlState {
    /// The crawl point and run generation this state was written in.
    pub fn run(&self) -> (PointId, u32) {
        match *self {
            UrlState::Queued { point, gen, .. }
            | UrlState::Claimed { point, gen, .. }
            | UrlState::Done { point, gen }
            | UrlState::Failed { point, gen, .. }
            | UrlState::Skipped { point, gen, .. }
            | UrlState::Redirected { point, gen, .. } => (point, gen),
        }
    }

    /// What is known of the URL: its settled state, or, while it is queued
    /// or claimed, the one an earlier run left (None: never settled).
    pub fn fact(&self) -> Option<&UrlState> {
        match self {
            UrlState::Queued { had, .. } | UrlState::Claimed { had, .. } => had.as_deref(),
            settled => Some(settled),
        }
    }

    /// The state people are shown: what is known of the URL ([`Self::fact`]),
    /// else the state itself (queued, never settled). Every face reads a
    /// URL through this, so `page`, the reports and the console agree.
    pub fn known(self) -> UrlState {
        match self.fact().cloned() {
            Some(fact) => fact,
            None => self,
        }
    }

    /// The label the CLI shows: queued, claimed, done, failed, skipped:REASON, redirected.
    /// Why a URL failed or was skipped; None for the other states.
    pub fn reason(&self) -> Option<String> {
        match self {
            UrlState::Failed { reason, .. } => Some(reason.clone()),
            UrlState::Skipped { reason, .. } => Some(reason.describe().to_string()),
            _ => None,
        }
    }

    pub fn label(&self) -> String {
        match self {
            UrlState::Queued { .. } => "queued".into(),
            UrlState::Claimed { .. } => "claimed".into(),
            UrlState::Done { .. } => "done".into(),
            UrlState::Failed { .. } => "failed".into(),
            UrlState::Skipped { reason, .. } => format!("skipped:{}", reason.as_str()),
            UrlState::Redirected { .. } => "redirected".into(),
        }
    }
}

/// A frontier entry: the value under `depth ‖ sequence`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontierEntry {
    pub page: PageId,
    pub depth: u32,
    pub point: PointId,
    pub gen: u32,
    /// Redirect hops that led here (0 for a link).
    pub hops: u8,
}

/// A persisted crawl point: where to start and what is in scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PointRecord {
    pub url: String,
    pub root: String,
    pub depth: Option<u32>,
    pub max_pages: Option<u64>,
    pub excludes: Vec<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub headers: Vec<(String, String)>,
    pub active: bool,
    /// Run generation: bumped when a finished point is crawled again, so
    /// that pages done in an earlier run are revisited (conditionally).
    pub gen: u32,
    /// Soft-deleted (`point rm`): kept, restorable, never crawled.
    pub deleted: bool,
    /// Unix seconds the point was created and last changed, and by whom
    /// (the OS user).
    pub created_at: i64,
    pub updated_at: i64,
    pub updated_by: String,
    /// Follow `rel=nofollow` links and links of nofollow pages too.
    pub follow_nofollow: bool,
    /// Check each out-of-scope link once per run (HEAD, GET where HEAD is
    /// refused); never crawl it.
    pub check_external: bool,
    /// `--no-sitemaps`: only links lead to pages, no sitemap is read.
    pub no_sitemaps: bool,
    /// `www.host` and `host` are two sites (`--distinct-www`); by default
    /// they are one, and the form first seen in the store is canonical.
    pub distinct_www: bool,
    /// `--resolve`: connect to these addresses instead of asking DNS.
    pub resolve: Vec<Resolve>,
    /// `--append-query K=V`: added to every request URL to the point's
    /// site, never to a stored or shown URL.
    pub append_query: Vec<(String, String)>,
    /// The scope (root, excludes, depth, www rule) changed since the point
    /// was last crawled: the next crawl re-scopes the URLs already known.
    pub dirty: bool,
    /// `--no-resources`: the resources pages use are not checked.
    pub no_resources: bool,
    /// `--check-fragments`: `page#id` links are checked against the ids
    /// and names of the fetched target.
    pub check_fragments: bool,
    /// `--accept`: statuses that are not broken, as inclusive ranges;
    /// empty: the default (4xx and 5xx are broken).
    pub accept: Vec<(u16, u16)>,
    /// `--exclude-regex`: a URL matching one is not fetched.
    pub exclude_regex: Vec<String>,
    /// `--stopwords FILE`: the words read from it, replacing the built-in
    /// list for the point's pages (None: the built-in list).
    pub stopwords: Option<Vec<String>>,
    /// The documents (`doc add`) the point belongs to, by name, each once,
    /// in the order given.
    pub docs: Vec<String>,
    /// `--render`: whether pages are loaded in a headless browser.
    pub render: RenderMode,
    /// `--render-wait-ms`: the most a rendered page waits for network
    /// idle (None: the built-in budget).
    pub render_wait_ms: Option<u32>,
    /// `--render-concurrency`: browser tabs (None: the built-in count).
    pub render_concurrency: Option<u32>,
    /// `--extract NAME=css:SEL|regex:RE` and `--search NAME=[!]TEXT|regex:RE`
    /// rules, as typed (`crate::custom`).
    pub extract: Vec<String>,
    pub search: Vec<String>,
    /// `--include`: when given, only URLs matching one are requested.
    pub include: Vec<String>,
    /// `--remap 'RE REPLACEMENT'`: a matching URL is requested as the
    /// replacement; the store keeps the URL as found.
    pub remap: Vec<String>,
    /// `--max-retries` (None: 2).
    pub max_retries: Option<u32>,
    /// `--max-redirects` (None: 10).
    pub max_redirects: Option<u8>,
    /// `--cookie-jar FILE`: the Netscape cookie file read before and
    /// written after the point's crawl (an absolute path).
    pub cookie_jar: Option<String>,
    /// `--cache`: resource and external results younger than
    /// `max_cache_age_s` (None: a day) are not asked again.
    pub cache: bool,
    pub max_cache_age_s: Option<u64>,
}

/// `--render`: how a point's HTML pages are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum RenderMode {
    /// The HTML as served (the default).
    #[default]
    Off,
    /// Every HTML page in scope, after its scripts ran.
    Js,
    /// Only pages whose served HTML looks like an application shell.
    Auto,
}

/// One `--resolve HOST:PORT:ADDR`, as curl takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolve {
    /// Lowercase, as URLs are normalised.
    pub host: String,
    pub port: u16,
    pub addr: std::net::IpAddr,
}

impl std::fmt::Display for Resolve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.addr {
            std::net::IpAddr::V4(a) => write!(f, "{}:{}:{a}", self.host, self.port),
            std::net::IpAddr::V6(a) => write!(f, "{}:{}:[{a}]", self.host, self.port),
        }
    }
}

/// A URL record: the URL split into its parts (the origin's live in its
/// origin record) and whole, for printing and comparing. Never holds a
/// password: `user:password@` is credentials, not part of the URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlRecord {
    pub origin: OriginId,
    pub path: String,
    pub query: Option<String>,
    /// The basic-auth user the URL is fetched as, when its crawl point
    /// has one for this origin.
    pub username: Option<String>,
    /// The normalised URL without user information.
    pub url: String,
}

/// An origin record: `scheme://host:port` in parts (its string is the key
/// of `origin_ids`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OriginRecord {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl OriginRecord {
    /// `scheme://host:port`, as [`crate::url::origin`] writes it.
    pub fn name(&self) -> String {
        format!("{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// A crawler process sharing the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceRecord {
    pub pid: u32,
    pub heartbeat_ms: i64,
    /// Its page requests on the wire at that heartbeat, for `stats`.
    pub in_flight: u32,
}

/// A robots.txt as fetched (body capped), cached per origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsRecord {
    pub fetched_at: i64,
    pub status: u16,
    pub body: Vec<u8>,
}

/// A mimetype split into its parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MimeRecord {
    pub essence: String,
    pub suffix: Option<String>,
    pub params: Vec<(String, String)>,
}

//! The store: one LMDB environment (through heed) holding pages, URLs, the
//! inverted and forward indexes, the link graph, crawl points and the shared
//! frontier. This crate is the only one that touches heed, and it depends on
//! nothing of crawlscope's main crate; everything above it sees typed
//! operations on [`Reader`] (a snapshot) and [`Writer`] (one batched
//! transaction). The values it keeps that the extractor and the renderer
//! build are its own (`types`), as is the URL form its keys take (`url`).
//!
//! Readers never wait on the writer and never see half a page: every page is
//! written, replaced or removed inside a single write transaction.
//!
//! Where things are: `schema` is the layout (every table, the record types,
//! the version), `codec` and `bits` the encodings; `transaction` is the
//! write transaction (the [`Writer`], what it gathers, the commit);
//! `inverted/` is the inverted index (posting streams, segments and their
//! merges, pair postings, the vocabulary); the other tables sit beside it,
//! a file each or two (`pages`, `forward`, `page_records`, `bodies`,
//! `links`, `frontier`, `points`, `history`, ...), each with the `Writer`
//! methods that write its table and the read trait that reads it; a page
//! is written by `Writer::put_page` (`pages`), which hands each part to
//! its table's file; `check/` proves a store whole.

mod bits;
mod bodies;
mod body_blocks;
mod check;
pub mod codec;
mod committed;
mod copy;
mod dictionary;
mod documents;
mod external;
mod forward;
mod fragments;
mod frontier;
mod history;
mod inverted;
mod kept;
mod links;
mod merged;
mod mimes;
mod origin_figures;
mod page_audit;
mod page_custom;
mod page_records;
mod page_text;
mod pages;
mod point_urls;
mod points;
mod record_blocks;
mod render_facts;
mod repack;
mod resources;
mod retrain;
mod runs;
mod schema;
mod sitemap_listings;
mod sitemap_pages;
mod terms;
mod transaction;
pub mod types;
pub mod url;
mod url_records;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard};

use heed::{Env, EnvOpenOptions, RoTxn};

pub use bodies::compress_body;
pub use check::{CheckRead, CHECK_STEPS};
pub use codec::Positions;
pub use copy::Copied;
pub use dictionary::{Dictionaries, Kind as DictionaryKind};
pub use documents::{DocumentRead, DocumentRecord};
pub use external::{ExternalCheck, ExternalRead};
pub use forward::Forward;
pub use fragments::{FragmentRead, FragmentRecord};
pub use frontier::{Claim, FrontierRead, QueuedWork, StateCounts, Taken};
pub use history::{HistoryRead, Kept, RunEntry};
pub use inverted::pairs::PairRead;
pub use inverted::run::{class_bound, Entries as PostingRun, Entry as PostingEntry};
pub use inverted::words::{Posting, WordRead};
pub use kept::{KeptRead, KeptRecords};
pub use links::LinkRead;
pub use merged::{MergedPart, MergedRead, StoreId};
pub use origin_figures::{Exchange, OriginFigures, OriginFiguresRead, RESPONSE_BUCKETS_MS};
pub use page_audit::{AuditRead, PageAudit};
pub use page_custom::{CustomFound, CustomRead, SearchHit};
pub use page_text::{PageText, PageTextRead};
pub use pages::{norm_factor, PageRead, PageWrite};
pub use point_urls::{Decision, PointMark, PointMarkRead};
pub use points::PointRead;
pub use render_facts::RenderRead;
pub use repack::Repacked;
pub use resources::{ResourceCheck, ResourceLink, ResourceRead};
pub use runs::{RunCounts, RunEnd, RunFlags, RunRead, RunRecord};
pub use schema::Stream;
pub use schema::{
    DirectiveSource, FrontierEntry, HttpHead, InstanceId, InstanceRecord, MimeId, MimeRecord,
    OriginId, OriginRecord, OutLink, PageId, PageRecord, PointId, PointRecord, RenderMode, Resolve,
    RobotsRecord, RunId, SkipReason, UrlRecord, UrlState, WordId, FORMAT_VERSION,
};
pub use sitemap_listings::{ListingRead, SitemapListing};
pub use sitemap_pages::SitemapRead;
pub use terms::{stem_key, KnownWords, Term, Terms, TermsBuilder};
pub use transaction::Writer;

/// Every read trait, for `use crawlscope::store::prelude::*`.
pub mod prelude {
    pub use super::CustomRead;
    pub use super::DocumentRead;
    pub use super::FragmentRead;
    pub use super::KeptRead;
    pub use super::RenderRead;
    pub use super::ResourceRead;
    pub use super::{
        AuditRead, CheckRead, ExternalRead, FrontierRead, HistoryRead, LinkRead, ListingRead,
        MergedRead, OriginFiguresRead, PageRead, PageTextRead, PointMarkRead, PointRead, RunRead,
        SitemapRead, WordRead,
    };
}

use committed::Committed;
use schema::{meta_keys, Dbs, DB_COUNT};

/// Errors of the store, each with what a user needs to act on it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no store at {}", .0.display())]
    Missing(PathBuf),
    #[error("cannot open store at {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("store at {path} has format {found}; this crawlscope reads format {expected} (use a new --db path)")]
    Format {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("store at {path} was made by a development build of crawlscope before 0.1.0 (schema {schema}); this crawlscope reads format {expected} (crawl again into a new --db path)")]
    Development {
        path: PathBuf,
        schema: u32,
        expected: u32,
    },
    #[error("store is corrupt: {0}")]
    Corrupt(String),
    #[error("disk full while writing the store at {0}: free some space and run again (everything committed before is kept)")]
    DiskFull(PathBuf),
    #[error("store error: {0}")]
    Lmdb(#[source] heed::Error),
    /// One failed batch transaction, told to each request it carried.
    #[error(transparent)]
    Batch(std::sync::Arc<StoreError>),
    /// LMDB's map is full; `Store::update` grows it and retries, so callers
    /// only see this if growing itself failed.
    #[error("store map is full")]
    MapFull,
    #[error("no such {0}")]
    NotFound(String),
    #[error("{} already exists: copy needs a new path", .0.display())]
    Exists(PathBuf),
    #[error("cannot copy the store to {}: {reason}", path.display())]
    Copy { path: PathBuf, reason: String },
    /// zstd could not set up a compression context (out of memory).
    #[error("cannot compress {0}: zstd could not set up a context")]
    Compress(String),
    /// The shared frontier (`crawl --frontier`) failed or could not be
    /// reached: the writer meets it between its transactions.
    #[error("shared frontier at {0}")]
    Frontier(String),
}

impl StoreError {
    pub fn corrupt(msg: impl Into<String>) -> Self {
        StoreError::Corrupt(msg.into())
    }

    /// Whether the error comes from one record (a corrupt old record, a
    /// value LMDB refuses) rather than the store as a whole (I/O, a full
    /// disk or map): the writer then rolls back only the page that met it.
    pub fn is_confined(&self) -> bool {
        match self {
            StoreError::Corrupt(_) | StoreError::NotFound(_) => true,
            StoreError::Lmdb(heed::Error::Mdb(heed::MdbError::BadValSize))
            | StoreError::Lmdb(heed::Error::Encoding(_) | heed::Error::Decoding(_)) => true,
            StoreError::Batch(e) => e.is_confined(),
            _ => false,
        }
    }
}

impl From<heed::Error> for StoreError {
    fn from(e: heed::Error) -> Self {
        match e {
            heed::Error::Mdb(heed::MdbError::MapFull) => StoreError::MapFull,
            heed::Error::Io(io) if io.raw_os_error() == Some(libc::ENOSPC) => {
                StoreError::DiskFull(PathBuf::new())
            }
            other => StoreError::Lmdb(other),
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// How to open a store.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// Initial LMDB map size in bytes; it grows on demand.
    pub map_size: usize,
    /// A merged segment of at least this many pages gets pair postings.
    /// Tests of phrases over pairs lower it, so a few hundred pages make
    /// segments that have them (the store's own tests run with 8).
    pub pair_min_pages: u32,
    /// Segments this large are final for merges of one transaction, and
    /// merged by stages into large ones (`inverted::staged`). Tests lower
    /// it, so that a few hundred pages make large segments.
    pub final_pages: u32,
}

impl Default for StoreOptions {
    fn default() -> Self {
        // The map is address space, not disk: the file only grows as pages
        // are written, so a generous start avoids most resizes.
        StoreOptions {
            map_size: 1 << 32,
            pair_min_pages: if cfg!(test) {
                8
            } else {
                inverted::pairs::PAIR_MIN_PAGES
            },
            final_pages: inverted::segments::FINAL_PAGES,
        }
    }
}

/// An open store. Cheap to share behind an `Arc`; any thread may read.
pub struct Store {
    env: Env,
    dbs: Dbs,
    path: PathBuf,
    /// LMDB forbids resizing the map while this process has a transaction
    /// open: readers and writers hold this shared, a resize holds it alone.
    resize_lock: RwLock<()>,
    /// Committed stem → word id pairs (by the stem's 128-bit hash): the
    /// most frequent look-up of indexing.
    word_cache: Arc<Committed<u128, WordId>>,
    /// Committed URL → page id pairs (by the URL's 128-bit hash): a page's
    /// links are looked up one by one, most of them seen before.
    url_cache: Committed<u128, PageId>,
    /// Trained zstd dictionaries (bodies, heads), shared with the parsers.
    dictionaries: Arc<Dictionaries>,
    /// Room left in the `bodies` table's last leaf, as this process last
    /// filled it (see `bodies`).
    body_leaf_room: AtomicUsize,
    /// Body hits the last transaction that indexed pages logged: the
    /// next one's log starts that large instead of growing (copying
    /// itself at each doubling) from empty every transaction.
    hits_per_txn: AtomicUsize,
    /// Whether merges count phrase pairs: off only for a benchmark that
    /// weighs them (`crawl::PartsOff`).
    pair_postings: AtomicBool,
    pair_min_pages: u32,
    final_pages: u32,
}

/// The word cache is dropped past this many stems to bound memory.
const WORD_CACHE_MAX: usize = 1 << 20;
/// The URL cache likewise: at most 262,144 slots of 33 bytes (a 16-byte
/// hash, a 4-byte id, alignment, a control byte), ~9 MB.
const URL_CACHE_MAX: usize = 1 << 17;

impl Store {
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with(path, StoreOptions::default())
    }

    /// Opens a store that must already exist: readers never create one, so
    /// a mistyped `--db` is an error rather than an empty answer.
    pub fn open_existing(path: &Path) -> Result<Store> {
        if !path.join("data.mdb").is_file() {
            return Err(StoreError::Missing(path.to_path_buf()));
        }
        Store::open(path)
    }

    pub fn open_with(path: &Path, options: StoreOptions) -> Result<Store> {
        let open_err = |reason: String| StoreError::Open {
            path: path.to_path_buf(),
            reason,
        };
        std::fs::create_dir_all(path).map_err(|e| open_err(e.to_string()))?;
        let page = page_size();
        let map_size = options.map_size.div_ceil(page).max(1) * page;
        // SAFETY: the environment is opened once per path per process (heed
        // keeps a registry), and we never open the data file in other ways.
        let env = unsafe {
            EnvOpenOptions::new()
                .map_size(map_size)
                .max_dbs(DB_COUNT)
                .max_readers(512)
                .open(path)
        }
        .map_err(|e| open_err(e.to_string()))?;
        // Upgrading a large store rewrites whole tables in the opening
        // transaction, which can outgrow a map the size of the file: the
        // map then grows and the transaction is run again, as `update` does.
        let (dbs, dictionaries) = loop {
            let mut txn = env.write_txn().map_err(|e| open_err(e.to_string()))?;
            match Self::prepare(&env, &mut txn, path) {
                Ok(opened) => {
                    txn.commit().map_err(|e| open_err(e.to_string()))?;
                    break opened;
                }
                Err(StoreError::MapFull) => {
                    drop(txn);
                    // SAFETY: the environment was opened just now and this
                    // thread's transaction is gone: none is open on it.
                    unsafe { double_map(&env) }?;
                }
                Err(e) => return Err(e),
            }
        };
        Ok(Store {
            env,
            dbs,
            path: path.to_path_buf(),
            resize_lock: RwLock::new(()),
            word_cache: Arc::new(Committed::new(WORD_CACHE_MAX)),
            url_cache: Committed::new(URL_CACHE_MAX),
            dictionaries,
            body_leaf_room: AtomicUsize::new(0),
            hits_per_txn: AtomicUsize::new(0),
            pair_postings: AtomicBool::new(true),
            pair_min_pages: options.pair_min_pages,
            final_pages: options.final_pages.max(2),
        })
    }

    /// Whether this process's merges count phrase pairs (they do unless a
    /// benchmark says not to): a segment merged without them is read from
    /// its positions, as a small one always is.
    pub fn count_pairs(&self, on: bool) {
        self.pair_postings.store(on, Ordering::Relaxed);
    }

    /// The store's compression dictionaries, for whoever compresses its
    /// records off the writer (the crawl's parser pool).
    pub fn dictionaries(&self) -> Arc<Dictionaries> {
        Arc::clone(&self.dictionaries)
    }

    /// The committed word ids, for parser threads to resolve pages' terms.
    pub fn known_words(&self) -> KnownWords {
        KnownWords(Arc::clone(&self.word_cache))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes the store occupies on disk.
    pub fn disk_size(&self) -> u64 {
        self.env.real_disk_size().unwrap_or(0)
    }

    /// Free bytes on the store's file system, if the OS says.
    pub fn free_space(&self) -> Option<u64> {
        free_bytes(&self.path)
    }

    /// Makes the tables a store lacks and refuses a store of another
    /// format; the store's dictionaries.
    fn prepare(
        env: &Env,
        txn: &mut heed::RwTxn<'_>,
        path: &Path,
    ) -> Result<(Dbs, Arc<Dictionaries>)> {
        let dbs = Dbs::create(env, txn)?;
        let number = |key| -> Result<Option<u32>> {
            dbs.meta.get(txn, key)?.map(codec::read_u32).transpose()
        };
        // Development builds numbered their layouts under another key,
        // from 1 up: a store of theirs must not pass for format 1.
        if let Some(schema) = number(meta_keys::DEVELOPMENT_SCHEMA)? {
            return Err(StoreError::Development {
                path: path.to_path_buf(),
                schema,
                expected: FORMAT_VERSION,
            });
        }
        match number(meta_keys::FORMAT)? {
            None => {
                dbs.meta
                    .put(txn, meta_keys::FORMAT, &FORMAT_VERSION.to_be_bytes())?;
                let id: merged::StoreId = uuid::Uuid::new_v4().into_bytes();
                dbs.meta.put(txn, meta_keys::STORE_ID, &id)?;
            }
            Some(FORMAT_VERSION) => {}
            Some(found) => {
                return Err(StoreError::Format {
                    path: path.to_path_buf(),
                    found,
                    expected: FORMAT_VERSION,
                });
            }
        }
        let dictionaries = Arc::new(Dictionaries::load(&dbs, txn)?);
        Ok((dbs, dictionaries))
    }

    /// The current map size (grows on demand).
    pub fn map_size(&self) -> usize {
        self.env.info().map_size
    }

    /// A consistent snapshot for reading. Do not hold two on one thread
    /// while another thread may write: a map resize waits for readers.
    pub fn read(&self) -> Result<Reader<'_>> {
        let guard = self.resize_lock.read().unwrap_or_else(|p| p.into_inner());
        let txn = self.begin(|env| env.read_txn())?;
        Ok(Reader {
            txn,
            dbs: self.dbs,
            dictionaries: &self.dictionaries,
            blocks: body_blocks::BlockCache::default(),
            _guard: guard,
        })
    }

    /// Runs `f` in one write transaction and commits it. When LMDB's map is
    /// full the transaction is aborted, the map grown, and `f` run again, so
    /// no write is lost; `f` must therefore be repeatable.
    pub fn update<R>(&self, mut f: impl FnMut(&mut Writer<'_>) -> Result<R>) -> Result<R> {
        loop {
            let attempt = {
                let _guard = self.resize_lock.read().unwrap_or_else(|p| p.into_inner());
                let txn = self.begin(|env| env.write_txn())?;
                let mut w = Writer::begin(self, txn);
                f(&mut w).and_then(|r| w.commit().map(|_| r))
            };
            match attempt {
                Err(StoreError::MapFull) => self.grow()?,
                Err(StoreError::DiskFull(_)) => {
                    return Err(StoreError::DiskFull(self.path.clone()))
                }
                // LMDB reports a full file system as ENOSPC or, from some file
                // systems, as a bare I/O error: name the likely cause.
                Err(StoreError::Lmdb(_))
                    if free_bytes(&self.path).is_some_and(|b| b < LOW_SPACE) =>
                {
                    return Err(StoreError::DiskFull(self.path.clone()))
                }
                other => return other,
            }
        }
    }

    fn begin<'e, T>(&'e self, open: impl Fn(&'e Env) -> heed::Result<T>) -> Result<T> {
        match open(&self.env) {
            // Another process grew the map: adopt its size and retry.
            Err(heed::Error::Mdb(heed::MdbError::MapResized)) => {
                // SAFETY: size 0 adopts the size another process set; this
                // process holds no transaction (the open just failed).
                unsafe { self.env.resize(0) }?;
                Ok(open(&self.env)?)
            }
            other => Ok(other?),
        }
    }

    fn grow(&self) -> Result<()> {
        let _exclusive = self.resize_lock.write().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the exclusive lock guarantees no transaction of this
        // process is open while the map is resized.
        unsafe { double_map(&self.env) }
    }
}

/// Doubles `env`'s map.
///
/// # Safety
/// No transaction of this process may be open on `env`.
unsafe fn double_map(env: &Env) -> Result<()> {
    let current = env.info().map_size;
    let new_size = current.saturating_mul(2).div_ceil(page_size()) * page_size();
    tracing::info!(from = current, to = new_size, "growing the store map");
    // SAFETY: the caller has no transaction open on `env`.
    unsafe { env.resize(new_size) }.map_err(StoreError::from)
}

/// Below this much free space, a failed write is taken for a full disk.
const LOW_SPACE: u64 = 8 << 20;

fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `st` a valid out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(v).ok().filter(|&p| p > 0).unwrap_or(4096)
}

mod sealed {
    /// Gives the read operations their transaction without exposing heed.
    pub trait View {
        fn txn(&self) -> &heed::RoTxn<'_>;
        fn dbs(&self) -> &super::Dbs;
        fn dictionaries(&self) -> &super::Dictionaries;
        /// Where the view keeps its last decompressed blocks.
        fn block_cache(&self) -> &super::body_blocks::BlockCache;
    }

    /// Puts `key` with `MDB_APPEND` when it is past the table's last key
    /// (LMDB then starts a new leaf and leaves the full one as it is,
    /// where an ordinary put at the end splits it in half), else with an
    /// ordinary put.
    pub fn put_appending(
        txn: &mut heed::RwTxn<'_>,
        db: super::schema::Db,
        key: &[u8],
        value: &[u8],
    ) -> super::Result<()> {
        match db.put_with_flags(txn, heed::PutFlags::APPEND, key, value) {
            Err(heed::Error::Mdb(heed::MdbError::KeyExist)) => db.put(txn, key, value)?,
            done => done?,
        }
        Ok(())
    }

    /// Every record of `db`, a table keyed by an id, decoded, in id order.
    pub fn all_by_id<V: View + ?Sized, T: serde::de::DeserializeOwned>(
        v: &V,
        db: super::schema::Db,
    ) -> super::Result<Vec<(u32, T)>> {
        let mut out = Vec::new();
        for item in db.iter(v.txn())? {
            let (k, value) = item?;
            out.push((super::codec::read_u32(k)?, super::codec::decode(value)?));
        }
        Ok(out)
    }

    /// The record of `db` keyed by the id `id`, decoded (None: there is
    /// none): the look-up most tables keyed by an id answer.
    pub fn by_id<V: View + ?Sized, T>(
        v: &V,
        db: super::schema::Db,
        id: u32,
        decode: impl FnOnce(&[u8]) -> super::Result<T>,
    ) -> super::Result<Option<T>> {
        db.get(v.txn(), &super::codec::u32_key(id))?
            .map(decode)
            .transpose()
    }
}

/// A read-only snapshot of the store.
pub struct Reader<'s> {
    txn: RoTxn<'s>,
    dbs: Dbs,
    dictionaries: &'s Dictionaries,
    blocks: body_blocks::BlockCache,
    _guard: RwLockReadGuard<'s, ()>,
}

impl sealed::View for Reader<'_> {
    fn txn(&self) -> &RoTxn<'_> {
        &self.txn
    }
    fn dbs(&self) -> &Dbs {
        &self.dbs
    }
    fn dictionaries(&self) -> &Dictionaries {
        self.dictionaries
    }
    fn block_cache(&self) -> &body_blocks::BlockCache {
        &self.blocks
    }
}

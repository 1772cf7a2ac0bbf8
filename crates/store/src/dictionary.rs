//! Trained zstd dictionaries for the records that repeat themselves from
//! page to page: bodies (a site's markup and vocabulary), HTTP heads (a
//! server's headers), link lists (a site's anchor texts), page records
//! (titles, headings, descriptions and validators in a site's words and
//! formats) and meta tags (a site's tag names and descriptions). Compressed
//! one at a time, a 6 KB page or a 400-byte link list cannot use what its
//! neighbours share; with a dictionary trained on the store's first pages
//! it can.
//!
//! The first [`Kind::samples`] records of each kind are compressed plainly
//! and kept as samples; whoever adds the last one trains the dictionary
//! (once per store and process, well under a second; the parser pool does
//! it for bodies). Every record compressed after that names the dictionary
//! in its zstd frame header. The writer puts a dictionary into `meta`
//! (`zdict: ‖ kind ‖ id`) in the transaction of the first record that
//! names it, so a committed record never names a dictionary the store
//! lacks, and readers find it by the id in the frame. A store that already
//! holds a dictionary of a kind compresses with it from the start.

use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap as HashMap;
use zstd::dict::DecoderDictionary;
use zstd::zstd_safe::CParameter;

use super::schema::PageId;
use super::sealed::View;
use super::{Result, StoreError, Writer};

/// A kind of record with a dictionary of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Body,
    Head,
    Links,
    Record,
    Meta,
}

impl Kind {
    pub(super) fn tag(self) -> u8 {
        match self {
            Kind::Body => b'b',
            Kind::Head => b'h',
            Kind::Links => b'l',
            Kind::Record => b'p',
            Kind::Meta => b'm',
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Body => "body",
            Kind::Head => "HTTP head",
            Kind::Links => "link list",
            Kind::Record => "page record",
            Kind::Meta => "meta tags record",
        }
    }

    /// Records sampled before training: about 100 times the dictionary's
    /// size for bodies of a few KB, as zstd advises.
    fn samples(self) -> usize {
        128
    }

    /// Larger records are not sampled (they would crowd out the rest).
    fn max_sample_bytes(self) -> usize {
        match self {
            Kind::Body => 64 << 10,
            Kind::Head | Kind::Links | Kind::Record | Kind::Meta => 4 << 10,
        }
    }

    fn dictionary_bytes(self) -> usize {
        match self {
            Kind::Body => 110 << 10,
            Kind::Head => 4 << 10,
            Kind::Links => 16 << 10,
            Kind::Record | Kind::Meta => 8 << 10,
        }
    }

    /// Bodies at zstd level 3 with a 110 KB dictionary: on the nginx bench
    /// site level 2 was 5% smaller than level 1 with 32 KB at the same
    /// crawl CPU (paired, 0.98 x), and level 3 is 5.7% smaller again
    /// (the 10k store's bodies 24.2 -> 22.8 MB) for 1.2-2.6% more of the
    /// crawl's CPU and the same wall (paired, 10 and 8 runs; an older
    /// build had measured 8% more CPU).
    /// Link lists at level 2 with 16 KB:
    /// 1.63 x on that site's lists (zstd's own bench, dictionary trained
    /// on 128 of them), against 1.58 x at level 1 and 1.19 x without.
    /// Page records and meta tags at level 2 with 8 KB: 0.48 and 0.49 x
    /// their encoded size on that site (4 KB: 0.50, 16 KB: 0.49; level 3
    /// and 5 no smaller).
    fn level(self) -> i32 {
        match self {
            Kind::Body => 3,
            Kind::Links | Kind::Record | Kind::Meta => 2,
            Kind::Head => 1,
        }
    }

    /// The log2 sizes of the hash and chain tables zstd builds over this
    /// kind's dictionary (None: zstd's own for the level). For a 110 KB
    /// dictionary at level 3 zstd picks 2^16 and 2^15 four-byte entries,
    /// 384 KB of tables that every page's frame probes at random: a
    /// parser thread that has just walked a page's tree finds them out of
    /// its 512 KB L2, and the probes were 12.5% of a 10k-page crawl's
    /// samples. At 2^15 and 2^14 (192 KB) the crawl takes 0.93 x the CPU
    /// (paired, 5 runs; 2^14 and 2^13 saved 4% more but cost 2.7% more
    /// of the bodies on the small-page site, 2^14 and 2^14 the same CPU)
    /// for bodies 1.6-1.8% larger (the small-page and the 10k bench sites).
    fn dictionary_tables(self) -> Option<(u32, u32)> {
        match self {
            Kind::Body => Some((15, 14)),
            // Their dictionaries are 16 KB or less: zstd sizes the
            // tables to them.
            Kind::Links | Kind::Record | Kind::Meta | Kind::Head => None,
        }
    }
}

/// Decompressed records larger than this are corrupt frames, not records.
const DECOMPRESSED_CAP: u64 = 64 << 20;

const META_PREFIX: &[u8] = b"zdict:";

const KINDS: [Kind; 5] = [
    Kind::Body,
    Kind::Head,
    Kind::Links,
    Kind::Record,
    Kind::Meta,
];

/// `zdict: ‖ kind`: what every dictionary of `kind` is kept under.
pub(super) fn kind_prefix(kind: Kind) -> Vec<u8> {
    let mut k = META_PREFIX.to_vec();
    k.push(kind.tag());
    k
}

pub(super) fn meta_key(kind: Kind, id: u32) -> Vec<u8> {
    let mut k = kind_prefix(kind);
    k.extend_from_slice(&id.to_be_bytes());
    k
}

/// The dictionary a zstd frame names (None: none, or not a frame).
pub fn frame_dictionary(frame: &[u8]) -> Option<u32> {
    zstd::zstd_safe::get_dict_id_from_frame(frame).map(|id| id.get())
}

/// Whether `bytes` begin like a zstd frame.
pub fn is_frame(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
}

/// A trained dictionary.
struct Trained {
    id: u32,
    bytes: Vec<u8>,
}

/// One kind's dictionary: the one records are compressed with, the
/// samples gathered until it is trained, and prepared decoders by id.
#[derive(Default)]
struct Slot {
    ready: OnceLock<Arc<Trained>>,
    /// None once training was done or tried (or a dictionary was found).
    samples: Mutex<Option<Vec<Vec<u8>>>>,
    decoders: Mutex<HashMap<u32, Arc<DecoderDictionary<'static>>>>,
}

/// The dictionaries of one open store; shared with the parser pool.
#[derive(Default)]
pub struct Dictionaries {
    body: Slot,
    head: Slot,
    links: Slot,
    record: Slot,
    meta: Slot,
}

impl Dictionaries {
    /// The dictionaries `meta` holds (the first of each kind compresses).
    pub(super) fn load(dbs: &super::Dbs, txn: &heed::RoTxn<'_>) -> Result<Dictionaries> {
        let d = Dictionaries::default();
        for kind in KINDS {
            let prefix = kind_prefix(kind);
            let slot = d.slot(kind);
            match dbs.meta.prefix_iter(txn, &prefix)?.next() {
                Some(item) => {
                    let (k, bytes) = item?;
                    let id = super::codec::read_u32(&k[prefix.len()..])?;
                    let _ = slot.ready.set(Arc::new(Trained {
                        id,
                        bytes: bytes.to_vec(),
                    }));
                }
                None => *lock(&slot.samples) = Some(Vec::new()),
            }
        }
        Ok(d)
    }

    fn slot(&self, kind: Kind) -> &Slot {
        match kind {
            Kind::Body => &self.body,
            Kind::Head => &self.head,
            Kind::Links => &self.links,
            Kind::Record => &self.record,
            Kind::Meta => &self.meta,
        }
    }

    /// A zstd frame of `raw`, with this kind's dictionary once there is one.
    pub fn compress(&self, kind: Kind, raw: &[u8]) -> Vec<u8> {
        let slot = self.slot(kind);
        if let Some(d) = slot.ready.get() {
            return compress_with(kind, Some(d), raw);
        }
        let frame = compress_with(kind, None, raw);
        self.offer(kind, raw);
        frame
    }

    /// [`Dictionaries::compress`] for records that must be frames (a
    /// link list: a plain one could be mistaken for one): no frame is an
    /// error.
    pub(super) fn frame(&self, kind: Kind, raw: &[u8]) -> Result<Vec<u8>> {
        let frame = self.compress(kind, raw);
        if frame.is_empty() {
            return Err(StoreError::Compress(format!("a {}", kind.name())));
        }
        Ok(frame)
    }

    /// Keeps `raw` as a sample; the last sample trains the dictionary.
    fn offer(&self, kind: Kind, raw: &[u8]) {
        if raw.is_empty() || raw.len() > kind.max_sample_bytes() {
            return;
        }
        let slot = self.slot(kind);
        let samples = {
            let mut guard = lock(&slot.samples);
            let Some(list) = guard.as_mut() else { return };
            list.push(raw.to_vec());
            if list.len() < kind.samples() {
                return;
            }
            guard.take().unwrap_or_default()
        };
        // Training fails on samples too alike or too few bytes: the
        // records then stay plain frames, which is all they were before.
        let trained = zstd::dict::from_samples(&samples, kind.dictionary_bytes())
            .ok()
            .and_then(|bytes| {
                let id = zstd::zstd_safe::get_dict_id_from_dict(&bytes)?.get();
                Some(Trained { id, bytes })
            });
        if let Some(t) = trained {
            let _ = slot.ready.set(Arc::new(t));
        }
    }

    /// The bytes of dictionary `id` of `kind`, if this process has it.
    fn bytes(&self, kind: Kind, id: u32) -> Option<Vec<u8>> {
        self.slot(kind)
            .ready
            .get()
            .filter(|d| d.id == id)
            .map(|d| d.bytes.clone())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Compresses with a context kept per thread, kind and dictionary:
/// setting one up (and loading a dictionary into it) costs more than a
/// page does. (Two kinds' dictionaries could share an id: it is a hash.)
fn compress_with(kind: Kind, dictionary: Option<&Trained>, raw: &[u8]) -> Vec<u8> {
    type Contexts = Vec<((u8, u32), zstd::bulk::Compressor<'static>)>;
    thread_local! {
        static CONTEXTS: std::cell::RefCell<Contexts> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let id = (kind.tag(), dictionary.map_or(0, |d| d.id));
    let fresh = || context(kind, dictionary.map(|d| &d.bytes[..]));
    let pooled = CONTEXTS.try_with(|cell| {
        let mut contexts = cell.try_borrow_mut().ok()?;
        let i = match contexts.iter().position(|(i, _)| *i == id) {
            Some(i) => i,
            None => {
                // A process holds a store or two, and the writer's thread
                // compresses four kinds: a few contexts suffice.
                if contexts.len() >= 8 {
                    contexts.remove(0);
                }
                contexts.push((id, fresh()?));
                contexts.len() - 1
            }
        };
        contexts[i].1.compress(raw).ok()
    });
    match pooled {
        Ok(Some(frame)) => frame,
        // The thread is ending, or a context could not be had: a fresh one.
        _ => fresh()
            .and_then(|mut c| c.compress(raw).ok())
            .unwrap_or_default(),
    }
}

/// A compression context for `kind`, with `dictionary` loaded.
pub(super) fn context(
    kind: Kind,
    dictionary: Option<&[u8]>,
) -> Option<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::new(kind.level()).ok()?;
    if let Some(d) = dictionary {
        // Set before the dictionary is loaded: zstd builds its tables
        // with the parameters the context has then.
        if let Some((hash, chain)) = kind.dictionary_tables() {
            c.set_parameter(CParameter::HashLog(hash)).ok()?;
            c.set_parameter(CParameter::ChainLog(chain)).ok()?;
        }
        c.context_mut().load_dictionary(d).ok()?;
    }
    Some(c)
}

/// A plain frame of `raw` (no dictionary): for records written without
/// a store's dictionaries at hand.
pub fn compress_plain(raw: &[u8]) -> Vec<u8> {
    compress_with(Kind::Body, None, raw)
}

/// Decompresses page `page`'s record of `kind`, with the dictionary its
/// frame names (read from the store, prepared once per process).
pub(super) fn decompress<V: View + ?Sized>(
    view: &V,
    kind: Kind,
    page: PageId,
    frame: &[u8],
) -> Result<Vec<u8>> {
    use std::io::Read;
    let what = || format!("{} of page {page}", kind.name());
    let corrupt = |e: std::io::Error| StoreError::corrupt(format!("{}: {e}", what()));
    let dictionary = match frame_dictionary(frame) {
        Some(id) => Some(decoder(view, kind, id)?.ok_or_else(|| {
            StoreError::corrupt(format!(
                "{} names zstd dictionary {id}, which the store does not hold",
                what()
            ))
        })?),
        None => None,
    };
    if let Ok(Some(size)) = zstd::zstd_safe::get_frame_content_size(frame) {
        if size <= ONE_SHOT_MAX {
            return one_shot(frame, size as usize, dictionary.as_deref())
                .map_err(|e| StoreError::corrupt(format!("{}: {e}", what())));
        }
    }
    let input: Box<dyn Read + '_> = match &dictionary {
        None => Box::new(zstd::stream::read::Decoder::new(frame).map_err(corrupt)?),
        Some(d) => Box::new(
            zstd::stream::read::Decoder::with_prepared_dictionary(frame, d).map_err(corrupt)?,
        ),
    };
    // Streamed, so a 6 KB body costs 6 KB (the bulk API reserves its
    // whole cap), and capped against a corrupt frame that never ends.
    let mut out = Vec::with_capacity(frame.len() * 4);
    input
        .take(DECOMPRESSED_CAP + 1)
        .read_to_end(&mut out)
        .map_err(corrupt)?;
    if out.len() as u64 > DECOMPRESSED_CAP {
        return Err(StoreError::corrupt(format!("{} exceeds 64 MiB", what())));
    }
    Ok(out)
}

/// A frame decompressed with `dictionary` (empty: none), without a
/// store's view (the repack reads the old file's records with the
/// dictionaries it read from it); None when it does not decompress, or
/// past [`DECOMPRESSED_CAP`].
pub(super) fn decompress_with(frame: &[u8], dictionary: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let decoder = zstd::stream::read::Decoder::with_dictionary(frame, dictionary).ok()?;
    let mut out = Vec::with_capacity(frame.len() * 4);
    decoder
        .take(DECOMPRESSED_CAP + 1)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() as u64 <= DECOMPRESSED_CAP).then_some(out)
}

/// Frames that say they hold at most this much are decompressed in one
/// call ([`one_shot`]); larger ones, or ones that do not say, stream.
const ONE_SHOT_MAX: u64 = 256 << 10;

/// Decompresses a frame of `size` bytes in one call, with a context kept
/// per thread: setting up a streaming decoder costs more than a 400-byte
/// link list takes to decompress, and a report reads 100,000 of them.
pub(super) fn one_shot(
    frame: &[u8],
    size: usize,
    dictionary: Option<&DecoderDictionary<'static>>,
) -> std::result::Result<Vec<u8>, String> {
    use zstd::zstd_safe::{get_error_name, DCtx};
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<DCtx<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let mut out = Vec::with_capacity(size);
    let mut run = |dctx: &mut DCtx<'static>| match dictionary {
        Some(d) => dctx.decompress_using_ddict(&mut out, frame, d.as_ddict()),
        None => dctx.decompress(&mut out, frame),
    };
    let done = CONTEXT
        .try_with(|cell| {
            let mut context = cell.try_borrow_mut().ok()?;
            Some(run(context.get_or_insert_with(DCtx::create)))
        })
        .ok()
        .flatten()
        // The thread is ending (or decompressing within a decompression):
        // a context of its own.
        .unwrap_or_else(|| run(&mut DCtx::create()));
    match done {
        Ok(n) if n == size => Ok(out),
        Ok(n) => Err(format!("the frame says {size} bytes but holds {n}")),
        Err(code) => Err(get_error_name(code).to_string()),
    }
}

/// The prepared decoder of dictionary `id`, from the store on first use
/// (None: the store does not hold it).
fn decoder<V: View + ?Sized>(
    view: &V,
    kind: Kind,
    id: u32,
) -> Result<Option<Arc<DecoderDictionary<'static>>>> {
    let slot = view.dictionaries().slot(kind);
    if let Some(d) = lock(&slot.decoders).get(&id) {
        return Ok(Some(d.clone()));
    }
    let Some(bytes) = view.dbs().meta.get(view.txn(), &meta_key(kind, id))? else {
        return Ok(None);
    };
    let d = Arc::new(DecoderDictionary::copy(bytes));
    lock(&slot.decoders).insert(id, d.clone());
    Ok(Some(d))
}

/// Every dictionary the store holds: (kind, id, bytes), for `stats`.
pub(super) fn held<V: View + ?Sized>(view: &V) -> Result<Vec<(&'static str, u32, usize)>> {
    let mut out = Vec::new();
    for kind in KINDS {
        let prefix = kind_prefix(kind);
        for item in view.dbs().meta.prefix_iter(view.txn(), &prefix)? {
            let (k, v) = item?;
            out.push((
                kind.name(),
                super::codec::read_u32(&k[prefix.len()..])?,
                v.len(),
            ));
        }
    }
    Ok(out)
}

/// Whether the store holds dictionary `id` of `kind` (for `check`).
pub(super) fn holds<V: View + ?Sized>(view: &V, kind: Kind, id: u32) -> Result<bool> {
    Ok(view
        .dbs()
        .meta
        .get(view.txn(), &meta_key(kind, id))?
        .is_some())
}

impl Writer<'_> {
    /// Puts the dictionary `frame` names into the store, if this
    /// transaction or an earlier one has not: before the frame commits.
    pub(super) fn keep_dictionary(&mut self, kind: Kind, frame: &[u8]) -> Result<()> {
        let Some(id) = frame_dictionary(frame) else {
            return Ok(());
        };
        if self.pending.dictionaries.contains(&(kind, id)) {
            return Ok(());
        }
        let key = meta_key(kind, id);
        if self.dbs.meta.get(&self.txn, &key)?.is_none() {
            let bytes = self.dictionaries.bytes(kind, id).ok_or_else(|| {
                StoreError::corrupt(format!(
                    "a {} names zstd dictionary {id}, which this store never trained",
                    kind.name()
                ))
            })?;
            self.dbs.meta.put(&mut self.txn, &key, &bytes)?;
        }
        self.pending.dictionaries.push((kind, id));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_frame_decompresses_in_one_call_and_a_damaged_one_is_an_error() {
        let raw = b"to 12 Home to 13 Section to 14 next page to 15 archive".repeat(3);
        let frame = compress_plain(&raw);
        let size = zstd::zstd_safe::get_frame_content_size(&frame)
            .ok()
            .flatten();
        assert_eq!(size, Some(raw.len() as u64), "the frame says its size");
        assert_eq!(one_shot(&frame, raw.len(), None).unwrap(), raw);
        // Cut short, or holding more than it says: errors, not panics.
        assert!(one_shot(&frame[..frame.len() - 4], raw.len(), None).is_err());
        assert!(one_shot(&frame, raw.len() - 1, None).is_err());
    }

    #[test]
    fn a_body_context_builds_small_tables_over_its_dictionary_and_round_trips() {
        // Any bytes serve zstd as a dictionary of raw content.
        let words = |from: u64, n: u64| -> String {
            (from..from + n)
                .map(|i| format!("w{} ", i * 7919 % 20_000))
                .collect()
        };
        let dictionary = words(0, 20_000)[..110 << 10].to_owned();
        let page = words(20_000, 900);
        let size_of = |mut c: zstd::bulk::Compressor<'static>| {
            let frame = c.compress(page.as_bytes()).unwrap();
            let d = DecoderDictionary::copy(dictionary.as_bytes());
            assert_eq!(
                one_shot(&frame, page.len(), Some(&d)).unwrap(),
                page.as_bytes()
            );
            c.context_mut().sizeof()
        };
        let ours = size_of(context(Kind::Body, Some(dictionary.as_bytes())).unwrap());
        let zstds =
            size_of(zstd::bulk::Compressor::with_dictionary(3, dictionary.as_bytes()).unwrap());
        // zstd's own tables are 2^16 + 2^15 entries of 4 bytes; ours a half.
        assert!(
            zstds - ours >= 190 << 10,
            "ours {ours} bytes against zstd's {zstds}"
        );
    }
}

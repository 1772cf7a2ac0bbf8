//! A repacked small store's page records, link lists, meta tags and HTTP
//! heads in shared zstd frames (`record_blocks`), as its bodies are in
//! `body_blocks`: reading such a record through its reference
//! ([`plain`]), and gathering every page's records into blocks when the
//! store is repacked ([`gather`]).
//!
//! A crawl compresses each record alone, its kind's first 128 without a
//! dictionary and the rest with one trained on those. On a site of a few
//! hundred pages that costs more than it saves: on the 300-page bench
//! site the four kinds took 173 KB with 29 KB of dictionaries, and 81 KB
//! as frames of all pages (heads, which differ only in a date and a
//! length, fell from 41 KB to 2 KB). A block holds the records of a run
//! of pages, each page's four together (a `page` view and a report that
//! reads a page's record and its links decompress one block), and is
//! bounded ([`BLOCK_RAW`]) because a record read decompresses its block.
//!
//! Only the repack writes blocks: a crawl still writes each record in a
//! frame of its own (a page crawled again after the repack gets new
//! ones), and the four kinds' dictionaries leave `meta` with the records
//! that named them (a later crawl trains new ones). A block keeps the
//! records no page refers to any more until the next repack, which reads
//! every record through its reference and writes the blocks anew.

use std::borrow::Cow;
use std::collections::BTreeMap;

use heed::types::Bytes;
use heed::{Database, RoTxn};
use rustc_hash::FxHashMap as HashMap;

use super::body_blocks::{self, BlockRef, Shelf};
use super::codec::split_meta_part;
use super::codec::{put_varint, read_u32, split_pair_key, u32_key};
use super::dictionary::{self, frame_dictionary, kind_prefix, Kind};
use super::page_records::{self, Part};
use super::schema::PageId;
use super::sealed::View;
use super::{Result, StoreError};

/// A block holds pages' records until it holds this many bytes of them:
/// reading one record decompresses its block (about 0.3 ms).
const BLOCK_RAW: usize = 256 << 10;

/// Stored record bytes past which a store's records are left as they are
/// (every record is held in memory while the repack gathers them).
const MAX_STORED: usize = 16 << 20;

/// The kinds whose records go into blocks, and whose dictionaries go.
const KINDS: [Kind; 4] = [Kind::Record, Kind::Links, Kind::Meta, Kind::Head];

/// A page's record of `kind` in its plain encoding: read from its block,
/// decompressed from its own frame, or as stored (a plain record: never a
/// link list, which is always compressed).
pub(super) fn plain<'a, V: View + ?Sized>(
    v: &'a V,
    kind: Kind,
    page: PageId,
    stored: &'a [u8],
) -> Result<Cow<'a, [u8]>> {
    if BlockRef::decode(stored, Shelf::Records)?.is_some() {
        return body_blocks::plain(v, Shelf::Records, stored).map(Cow::Borrowed);
    }
    if kind == Kind::Links || dictionary::is_frame(stored) {
        return dictionary::decompress(v, kind, page, stored).map(Cow::Owned);
    }
    Ok(Cow::Borrowed(stored))
}

/// What the repack writes instead of the store's `pages` and `forward`
/// records, its record blocks and the four kinds' dictionaries.
pub(super) struct Rerecorded {
    /// `pages` records (page → reference), in key order.
    pub pages: Vec<(Vec<u8>, Vec<u8>)>,
    /// `forward` records, their parts but the forward index references.
    pub forward: Vec<(Vec<u8>, Vec<u8>)>,
    /// `record_blocks` records, in key order.
    pub chunks: Vec<([u8; 12], Vec<u8>)>,
}

impl Rerecorded {
    /// Whether `key` of `meta` is a dictionary of a kind the blocks hold
    /// (they go: no record names one any more).
    pub(super) fn replaces(key: &[u8]) -> bool {
        KINDS.iter().any(|&k| key.starts_with(&kind_prefix(k)))
    }
}

/// The store's tables that hold page records.
pub(super) struct RecordTables {
    pub meta: Database<Bytes, Bytes>,
    pub pages: Database<Bytes, Bytes>,
    pub forward: Database<Bytes, Bytes>,
    /// None in a store no build with record blocks has opened.
    pub blocks: Option<Database<Bytes, Bytes>>,
}

/// One page's records in their plain encodings, and where they go.
#[derive(Default)]
struct PageItems {
    record: Option<Vec<u8>>,
    /// The `forward` key and the forward index part, kept as it is.
    forward: Option<(Vec<u8>, Vec<u8>)>,
    links: Vec<u8>,
    /// The meta tags part's index of the left-out description, then the
    /// tags (both empty: no part).
    meta_at: Vec<u8>,
    meta: Vec<u8>,
    head: Vec<u8>,
}

/// Records read back from the source store without a store's view.
struct Unframer {
    dictionaries: HashMap<(u8, u32), Vec<u8>>,
    /// Old record blocks, decompressed.
    blocks: HashMap<u32, Vec<u8>>,
}

impl Unframer {
    fn plain(&self, kind: Kind, page: PageId, stored: &[u8]) -> Result<Vec<u8>> {
        let what = || StoreError::corrupt(format!("{} of page {page}", kind.name()));
        if let Some(r) = BlockRef::decode(stored, Shelf::Records)? {
            let block = self.blocks.get(&r.block).ok_or_else(what)?;
            return r.slice(block).map(<[u8]>::to_vec).ok_or_else(what);
        }
        if kind != Kind::Links && !dictionary::is_frame(stored) {
            return Ok(stored.to_vec());
        }
        let dictionary = match frame_dictionary(stored) {
            Some(id) => self
                .dictionaries
                .get(&(kind.tag(), id))
                .ok_or_else(what)?
                .as_slice(),
            None => &[],
        };
        dictionary::decompress_with(stored, dictionary).ok_or_else(what)
    }
}

/// Every page's records of `t` gathered into blocks (None: they are left
/// as they are, because they would not come out smaller, or are too many
/// to hold).
pub(super) fn gather(txn: &RoTxn<'_>, t: &RecordTables) -> Result<Option<Rerecorded>> {
    let mut before = 0;
    let mut unframer = Unframer {
        dictionaries: HashMap::default(),
        blocks: HashMap::default(),
    };
    for kind in KINDS {
        let prefix = kind_prefix(kind);
        for item in t.meta.prefix_iter(txn, &prefix)? {
            let (k, v) = item?;
            let id = read_u32(&k[prefix.len()..])?;
            unframer.dictionaries.insert((kind.tag(), id), v.to_vec());
            before += v.len();
        }
    }
    if let Some(db) = t.blocks {
        let Some((blocks, bytes)) = body_blocks::unpack_all(txn, db)? else {
            return Ok(None);
        };
        unframer.blocks = blocks;
        before += bytes;
    }
    let mut pages: BTreeMap<PageId, PageItems> = BTreeMap::new();
    for item in t.pages.iter(txn)? {
        let (k, v) = item?;
        let page = read_u32(k)?;
        before += v.len();
        pages.entry(page).or_default().record = Some(unframer.plain(Kind::Record, page, v)?);
    }
    for item in t.forward.iter(txn)? {
        let (k, v) = item?;
        let page = split_pair_key(k)?.1;
        before += v.len();
        if before > MAX_STORED {
            return Ok(None);
        }
        let parts = page_records::split(v)?;
        let items = pages.entry(page).or_default();
        items.forward = Some((k.to_vec(), parts[Part::Forward as usize].to_vec()));
        let links = parts[Part::Links as usize];
        if !links.is_empty() {
            items.links = unframer.plain(Kind::Links, page, links)?;
        }
        let meta = parts[Part::Meta as usize];
        if !meta.is_empty() {
            let (at, tags) = split_meta_part(meta)?;
            put_varint(&mut items.meta_at, at.map_or(0, |i| i as u64 + 1));
            items.meta = unframer.plain(Kind::Meta, page, tags)?;
        }
        let head = parts[Part::Head as usize];
        if !head.is_empty() {
            items.head = unframer.plain(Kind::Head, page, head)?;
        }
    }
    let all = pages.iter().flat_map(|(&page, p)| {
        let record = p.record.as_deref().unwrap_or_default();
        [record, &p.links, &p.meta, &p.head]
            .into_iter()
            .filter(|item| !item.is_empty())
            .map(move |item| (page, item))
    });
    let Some(packed) = body_blocks::pack(all, BLOCK_RAW, Shelf::Records)? else {
        return Ok(None);
    };
    let mut after = packed.stored();
    let mut references = packed.references.into_iter();
    let mut next = |item: &[u8]| -> Result<Vec<u8>> {
        if item.is_empty() {
            return Ok(Vec::new());
        }
        references
            .next()
            .ok_or_else(|| StoreError::corrupt("fewer block references than records"))
    };
    let mut out = Rerecorded {
        pages: Vec::new(),
        forward: Vec::new(),
        chunks: packed.chunks,
    };
    for (page, p) in &pages {
        let record = next(p.record.as_deref().unwrap_or_default())?;
        let links = next(&p.links)?;
        let mut meta = p.meta_at.clone();
        meta.extend_from_slice(&next(&p.meta)?);
        let head = next(&p.head)?;
        if p.record.is_some() {
            after += record.len();
            out.pages.push((u32_key(*page).to_vec(), record));
        }
        // Only a forward record has parts.
        if let Some((key, forward)) = &p.forward {
            let value = page_records::encode([forward, &links, &meta, &head]);
            after += value.len();
            out.forward.push((key.clone(), value));
        }
    }
    // Keyed by segment first: not in page order.
    out.forward.sort_unstable();
    Ok((after < before).then_some(out))
}

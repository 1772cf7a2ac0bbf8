//! A repacked small store's bodies in shared zstd frames ("blocks"): the
//! `body_blocks` table (`block ‖ first page ‖ chunk` → the frame, cut to
//! fill leaves as bodies are) and the references that the `bodies` table
//! keeps for those pages instead of a frame of their own; and the same
//! for the other tables a repack puts in shared frames ("shelves": page
//! records, stem and count records, posting parts), each a [`Shelf`]
//! naming its table and how a reference into it begins: packing a
//! table's records into blocks ([`pack`], [`shelve`]) and reading them
//! back ([`plain`], [`body`]).
//!
//! A page compressed alone can use only what the body dictionary learnt
//! of its neighbours; a frame of many pages uses all of them. On the
//! 300-page bench site (1.85 MB of HTML) the bodies took 594 KB as frames
//! of one page with a 29 KB dictionary, and 484 KB as one frame of all of
//! them (zstd level 16; the repack now takes 12, see [`Shelf::level`]).
//! Only the repack writes
//! blocks (`retrain`): a crawl still stores each page in a frame of its
//! own, and a page crawled again after the repack drops its reference and
//! gets one. A block keeps the bodies no page refers to any more until the
//! next repack writes the blocks anew.
//!
//! Reading a body decompresses its whole block, so blocks are bounded
//! ([`BLOCK_RAW`]) and hold pages in id order, the order exports read
//! them in; a view's [`BlockCache`] keeps its last body block, and every
//! block of the other shelves it read.

use std::sync::{Arc, Mutex, OnceLock};

use heed::types::Bytes;
use heed::{Database, RoTxn};
use rustc_hash::FxHashMap as HashMap;

use super::bodies::LeafFill;
use super::codec::{put_varint, u32_key, VarintReader};
use super::schema::{Db, Dbs, PageId};
use super::sealed::View;
use super::{Result, StoreError};

/// The tables of shared frames, and how a reference into each begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shelf {
    /// `body_blocks`: a body's reference is a 0 byte, where a zstd frame
    /// begins with 0x28 (its magic number) or 0x50-0x5F (a skippable one).
    Bodies,
    /// `record_blocks` (`record_blocks`): `0xFF 0x00`, which no frame
    /// begins with, and no plain record either: a plain page record
    /// begins with its title's option tag (0 or 1), plain meta tags with
    /// their count (at most 100), and a plain head with its count of
    /// request headers as a varint, which never ends in a 0 byte past its
    /// first.
    Records,
    /// `word_blocks`: the `word_ids` records; `0xFF 0x00` too, where a
    /// record begins with its number as a varint.
    Words,
    /// `doc_freq_blocks`: the `doc_freq` records; `0xFF 0x00` too, where
    /// a record begins with its first entry's head as a varint.
    Counts,
    /// `posting_blocks`: the body posting parts; `0x00 0x00`, which no
    /// part begins with (`inverted::run`): a part of today begins with a
    /// run head `length << 1 | …` of a length of at least 1, a varint
    /// whose first byte is not 0; one written before 2026-11-27 with its
    /// first run's word delta, 0, and then that run's length, again at
    /// least 1. The parts are bit-coded already, so zstd gains by entropy
    /// coding alone (the 300-page bench site's 462 KB of parts: 392 KB
    /// in blocks of 64 KiB; alone, 406 KB, and two still fill a leaf).
    /// Every read of a part (searches, merges, a page's removal, pair
    /// counts, `check`) goes through [`plain`].
    Postings,
}

impl Shelf {
    fn mark(self) -> &'static [u8] {
        match self {
            Shelf::Bodies => &[0],
            Shelf::Records | Shelf::Words | Shelf::Counts => &[0xFF, 0],
            Shelf::Postings => &[0, 0],
        }
    }

    /// zstd's level. Bodies take 12, the last level before the binary
    /// tree strategies: those shrink HTML by a tenth more at ten times
    /// the time, which on a store near the repack's bound (32 MB) was
    /// half a minute of a 3,400-page crawl's end (bench/README.md,
    /// "Several hosts"). The index's records are a tenth of the bodies,
    /// and bit-coded parts gain most from 18 (the 300-page bench site's
    /// 462 KB of parts: 416 KB at 16, 399 at 17, 392 at 18, 393 at 19).
    fn level(self) -> i32 {
        match self {
            Shelf::Bodies => 12,
            Shelf::Records | Shelf::Words | Shelf::Counts | Shelf::Postings => 18,
        }
    }

    fn db(self, dbs: &Dbs) -> Db {
        match self {
            Shelf::Bodies => dbs.body_blocks,
            Shelf::Records => dbs.record_blocks,
            Shelf::Words => dbs.word_blocks,
            Shelf::Counts => dbs.doc_freq_blocks,
            Shelf::Postings => dbs.posting_blocks,
        }
    }

    /// The place of its blocks in a view's [`BlockCache`] (None: bodies,
    /// of which it keeps the last).
    fn arena(self) -> Option<usize> {
        match self {
            Shelf::Bodies => None,
            Shelf::Records => Some(0),
            Shelf::Words => Some(1),
            Shelf::Counts => Some(2),
            Shelf::Postings => Some(3),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shelf::Bodies => "body",
            Shelf::Records => "record",
            Shelf::Words => "word",
            Shelf::Counts => "document frequency",
            Shelf::Postings => "posting",
        }
    }
}

/// Bodies are gathered into a block until it holds this many bytes of
/// HTML: a body read decompresses its whole block (about 1 ms a MiB).
pub const BLOCK_RAW: usize = 2 << 20;

/// The largest block a read decompresses: far over what a repack writes,
/// so that a corrupt frame cannot make a read allocate gigabytes.
const MAX_BLOCK_RAW: u64 = 16 << 20;

/// Where a page's body is inside a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef {
    pub block: u32,
    pub offset: u32,
    pub len: u32,
}

impl BlockRef {
    /// The record of a page whose body (or record) is in a block of
    /// `shelf`.
    pub fn encode(&self, shelf: Shelf) -> Vec<u8> {
        let mut out = shelf.mark().to_vec();
        for v in [self.block, self.offset, self.len] {
            put_varint(&mut out, u64::from(v));
        }
        out
    }

    /// The body in its block, decompressed (None: the block is shorter).
    pub fn slice<'a>(&self, block: &'a [u8]) -> Option<&'a [u8]> {
        let start = self.offset as usize;
        block.get(start..start.saturating_add(self.len as usize))
    }

    /// The reference into `shelf` a record holds; None when it is a
    /// frame (or a plain record).
    pub fn decode(stored: &[u8], shelf: Shelf) -> Result<Option<BlockRef>> {
        let Some(rest) = stored.strip_prefix(shelf.mark()) else {
            return Ok(None);
        };
        let mut r = VarintReader::new(rest);
        let reference = BlockRef {
            block: r.next_u32()?,
            offset: r.next_u32()?,
            len: r.next_u32()?,
        };
        if !r.is_empty() {
            return Err(StoreError::corrupt(format!(
                "a {} block reference runs on past its length",
                shelf.name()
            )));
        }
        Ok(Some(reference))
    }
}

/// The blocks a view decompressed: of bodies only the last (2 MiB each;
/// exports read every page in id order, and a block holds consecutive
/// ids), of the other shelves every one, for as long as the view lives,
/// so a record read through its reference borrows from it as it borrows
/// from the map (a run's entries do). Those blocks are small and read
/// all over: a search's ten results' keywords are stems of every record,
/// and keeping one block of stems made each look-up decompress another
/// (a search of the 300-page store took 25 ms where it took 8). Only a
/// repack writes blocks, so what a view holds is never stale.
#[derive(Default)]
pub struct BlockCache {
    body: Mutex<Option<(u32, Arc<Vec<u8>>)>>,
    /// By [`Shelf::arena`].
    shelves: [Arena; 4],
}

/// One shelf's blocks, by number, each decompressed on first use (sized
/// at the first, from the table's last key).
#[derive(Default)]
struct Arena(OnceLock<Box<[Slot]>>);

/// A block of an arena, once decompressed.
type Slot = OnceLock<Box<[u8]>>;

impl BlockCache {
    /// `stored`, a record of a table on `shelf` (not bodies), as its plain
    /// bytes: itself, or the slice of the block its reference points to.
    pub fn plain<'a>(
        &'a self,
        txn: &RoTxn<'_>,
        dbs: &Dbs,
        shelf: Shelf,
        stored: &'a [u8],
    ) -> Result<&'a [u8]> {
        let Some(r) = BlockRef::decode(stored, shelf)? else {
            return Ok(stored);
        };
        let name = shelf.name();
        let arena = shelf
            .arena()
            .and_then(|i| self.shelves.get(i))
            .ok_or_else(|| StoreError::corrupt(format!("a {name} reference read as a record")))?;
        let cells = match arena.0.get() {
            Some(cells) => cells,
            None => {
                let db = shelf.db(dbs);
                let count = match db.last(txn)? {
                    Some((k, _)) => u64::from(super::codec::read_u32(k.get(..4).unwrap_or(k))?) + 1,
                    None => 0,
                };
                // Blocks are numbered from 0 and each has a record: a
                // larger number is corrupt, and would size the slots.
                if count > db.len(txn)? {
                    return Err(StoreError::corrupt(format!(
                        "{name} block {} is numbered past the blocks stored",
                        count - 1
                    )));
                }
                let count = count as usize;
                (arena.0).get_or_init(|| (0..count).map(|_| OnceLock::new()).collect())
            }
        };
        let cell = cells.get(r.block as usize).ok_or_else(|| {
            StoreError::corrupt(format!(
                "{name} block {} is referred to but not stored",
                r.block
            ))
        })?;
        let block = match cell.get() {
            Some(raw) => raw,
            None => {
                let raw = unpack(txn, dbs, shelf, r.block)?;
                cell.get_or_init(|| raw.into_boxed_slice())
            }
        };
        r.slice(block).ok_or_else(|| {
            StoreError::corrupt(format!(
                "a {name} record lies past the end of {name} block {}",
                r.block
            ))
        })
    }
}

/// Block `block` of `shelf` read and decompressed.
pub fn unpack(txn: &heed::RoTxn<'_>, dbs: &Dbs, shelf: Shelf, block: u32) -> Result<Vec<u8>> {
    let mut frame = Vec::new();
    for item in shelf.db(dbs).prefix_iter(txn, &u32_key(block))? {
        frame.extend_from_slice(item?.1);
    }
    let name = shelf.name();
    if frame.is_empty() {
        return Err(StoreError::corrupt(format!(
            "{name} block {block} is referred to but not stored"
        )));
    }
    let corrupt = |what: &str| StoreError::corrupt(format!("{name} block {block}: {what}"));
    // A repack writes each frame with its size.
    let size = match zstd::zstd_safe::get_frame_content_size(&frame) {
        Ok(Some(size)) if size <= MAX_BLOCK_RAW => size as usize,
        Ok(Some(_)) => return Err(corrupt("longer than any block is")),
        _ => return Err(corrupt("not a frame that says its size")),
    };
    super::dictionary::one_shot(&frame, size, None).map_err(|e| corrupt(&e))
}

/// [`BlockCache::plain`] in a view.
pub fn plain<'v, V: View + ?Sized>(v: &'v V, shelf: Shelf, stored: &'v [u8]) -> Result<&'v [u8]> {
    v.block_cache().plain(v.txn(), v.dbs(), shelf, stored)
}

/// The body `r` points to, from the view's last body block when it is
/// that one.
pub fn body<V: View + ?Sized>(v: &V, page: PageId, r: BlockRef) -> Result<Vec<u8>> {
    let cache = &v.block_cache().body;
    let held = cache.lock().ok().and_then(|held| {
        (held.as_ref())
            .filter(|(n, _)| *n == r.block)
            .map(|(_, raw)| Arc::clone(raw))
    });
    let raw = match held {
        Some(raw) => raw,
        None => {
            let raw = Arc::new(unpack(v.txn(), v.dbs(), Shelf::Bodies, r.block)?);
            if let Ok(mut held) = cache.lock() {
                *held = Some((r.block, Arc::clone(&raw)));
            }
            raw
        }
    };
    r.slice(&raw).map(<[u8]>::to_vec).ok_or_else(|| {
        StoreError::corrupt(format!(
            "body of page {page} lies past the end of body block {}",
            r.block
        ))
    })
}

/// Bodies gathered into blocks: what the repack writes to `body_blocks`
/// and, for each page, to `bodies`.
pub struct Blocks {
    /// `body_blocks` records, in key order.
    pub chunks: Vec<([u8; 12], Vec<u8>)>,
    /// `bodies` records (`segment ‖ page ‖ 0` → reference), in key order.
    pub references: Vec<([u8; 12], Vec<u8>)>,
    /// The frames' bytes.
    pub bytes: usize,
}

/// Gathers `bodies` (segment, page, HTML) into blocks of pages in id
/// order; None when zstd fails.
pub fn gather(mut bodies: Vec<(u32, PageId, Vec<u8>)>) -> Result<Option<Blocks>> {
    bodies.sort_unstable_by_key(|&(_, page, _)| page);
    let items = bodies.iter().map(|(_, page, body)| (*page, &body[..]));
    let Some(packed) = pack(items, BLOCK_RAW, Shelf::Bodies)? else {
        return Ok(None);
    };
    let mut references: Vec<_> = bodies
        .iter()
        .zip(packed.references)
        .map(|((segment, page, _), r)| (super::codec::triple_key(*segment, *page, 0), r))
        .collect();
    references.sort_unstable();
    Ok(Some(Blocks {
        chunks: packed.chunks,
        references,
        bytes: packed.bytes,
    }))
}

/// Items packed into blocks by [`pack`].
pub struct Packed {
    /// The shelf's table's records, in key order.
    pub chunks: Vec<([u8; 12], Vec<u8>)>,
    /// Each item's reference, in the items' order.
    pub references: Vec<Vec<u8>>,
    /// The frames' bytes.
    pub bytes: usize,
}

/// What a chunk costs beside its bytes: its key, and LMDB's node header
/// and pointer.
const CHUNK_OVERHEAD: usize = 12 + 8 + 2;

impl Packed {
    /// What the blocks take in their table: a few records' blocks cost
    /// more than they save.
    pub fn stored(&self) -> usize {
        self.bytes + self.chunks.len() * CHUNK_OVERHEAD
    }
}

/// Packs `items` in their order into blocks of at most `bound` bytes (an
/// item larger has a block of its own), each a zstd frame cut into chunks
/// that fill leaves, keyed by the block's number and its first item's
/// number (the page it belongs to, or its place in its table); None when
/// zstd fails.
pub fn pack<'a>(
    items: impl Iterator<Item = (PageId, &'a [u8])>,
    bound: usize,
    shelf: Shelf,
) -> Result<Option<Packed>> {
    let mut out = Packed {
        chunks: Vec::new(),
        references: Vec::new(),
        bytes: 0,
    };
    let mut fill = LeafFill::after(0);
    let mut number = 0u32;
    let mut raw = Vec::new();
    let mut first = 0;
    let mut items = items.peekable();
    while let Some((page, item)) = items.next() {
        if raw.is_empty() {
            first = page;
        }
        let r = BlockRef {
            block: number,
            offset: u32_of(raw.len())?,
            len: u32_of(item.len())?,
        };
        out.references.push(r.encode(shelf));
        raw.extend_from_slice(item);
        let full = items
            .peek()
            .is_none_or(|(_, next)| raw.len() + next.len() > bound);
        if !full {
            continue;
        }
        let Ok(frame) = zstd::bulk::compress(&raw, shelf.level()) else {
            return Ok(None);
        };
        out.bytes += frame.len();
        fill.cut(number, first, &frame, |key, chunk| {
            out.chunks.push((*key, chunk.to_vec()));
            Ok(())
        })?;
        raw.clear();
        number = number
            .checked_add(1)
            .ok_or_else(|| StoreError::corrupt("over 2^32 blocks"))?;
    }
    Ok(Some(out))
}

/// A shelf's blocks decompressed, by number, and the bytes their frames
/// took.
pub type Unpacked = (HashMap<u32, Vec<u8>>, usize);

/// Every block of a shelf's table in a store being repacked; None when
/// one does not decompress.
pub fn unpack_all(txn: &RoTxn<'_>, db: Database<Bytes, Bytes>) -> Result<Option<Unpacked>> {
    let mut frames: HashMap<u32, Vec<u8>> = HashMap::default();
    let mut bytes = 0;
    for item in db.iter(txn)? {
        let (k, v) = item?;
        frames
            .entry(super::codec::read_u32(k.get(..4).unwrap_or(k))?)
            .or_default()
            .extend_from_slice(v);
        bytes += v.len();
    }
    let mut blocks = HashMap::default();
    for (block, frame) in frames {
        let Some(raw) = super::dictionary::decompress_with(&frame, &[]) else {
            return Ok(None);
        };
        blocks.insert(block, raw);
    }
    Ok(Some((blocks, bytes)))
}

/// A table's values put on a shelf by [`shelve`].
pub struct Shelved {
    /// The table's records: each key with its value's reference, in key
    /// order.
    pub references: Vec<(Vec<u8>, Vec<u8>)>,
    /// The shelf's table's records, in key order.
    pub chunks: Vec<([u8; 12], Vec<u8>)>,
}

/// Every value of `table` in key order (those an earlier repack put on
/// `shelf` read from `old`, the shelf's table) packed into blocks of at
/// most `bound` bytes, each key given its reference; None when that is
/// not smaller, or an old block does not decompress.
pub fn shelve(
    txn: &RoTxn<'_>,
    table: Database<Bytes, Bytes>,
    old: Option<Database<Bytes, Bytes>>,
    shelf: Shelf,
    bound: usize,
) -> Result<Option<Shelved>> {
    let (blocks, mut before) = match old {
        Some(db) => match unpack_all(txn, db)? {
            Some(unpacked) => unpacked,
            None => return Ok(None),
        },
        None => (HashMap::default(), 0),
    };
    let mut records: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for item in table.iter(txn)? {
        let (k, v) = item?;
        before += v.len();
        let value = match BlockRef::decode(v, shelf)? {
            Some(r) => (blocks.get(&r.block).and_then(|b| r.slice(b)))
                .ok_or_else(|| {
                    StoreError::corrupt(format!(
                        "a {} block reference points nowhere",
                        shelf.name()
                    ))
                })?
                .to_vec(),
            None => v.to_vec(),
        };
        records.push((k.to_vec(), value));
    }
    let items = (0..).zip(records.iter().map(|(_, v)| &v[..]));
    let Some(packed) = pack(items, bound, shelf)? else {
        return Ok(None);
    };
    let after = packed.stored() + packed.references.iter().map(Vec::len).sum::<usize>();
    if after >= before {
        return Ok(None);
    }
    let keys = records.into_iter().map(|(k, _)| k);
    Ok(Some(Shelved {
        references: keys.zip(packed.references).collect(),
        chunks: packed.chunks,
    }))
}

fn u32_of(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| StoreError::corrupt("a body block over 4 GiB"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHELVES: [Shelf; 5] = [
        Shelf::Bodies,
        Shelf::Records,
        Shelf::Words,
        Shelf::Counts,
        Shelf::Postings,
    ];

    #[test]
    fn a_reference_reads_back_and_is_never_taken_for_a_frame() {
        for r in [
            BlockRef {
                block: 0,
                offset: 0,
                len: 0,
            },
            BlockRef {
                block: u32::MAX,
                offset: 1 << 21,
                len: 6000,
            },
        ] {
            for shelf in SHELVES {
                assert_eq!(BlockRef::decode(&r.encode(shelf), shelf).unwrap(), Some(r));
            }
        }
        let frame = zstd::bulk::compress(b"<p>a page</p>", 3).unwrap();
        for shelf in SHELVES {
            assert_eq!(BlockRef::decode(&frame, shelf).unwrap(), None);
            assert_eq!(BlockRef::decode(&[], shelf).unwrap(), None);
            let mut cut = shelf.mark().to_vec();
            cut.push(0x80);
            assert!(BlockRef::decode(&cut, shelf).is_err(), "cut short");
            let mut long = shelf.mark().to_vec();
            long.extend_from_slice(&[1, 2, 3, 4]);
            assert!(BlockRef::decode(&long, shelf).is_err(), "runs on");
        }
        // What a shelf's table holds plain is never taken for a reference:
        // a posting part of today (head 1 << 1 | 1) or written before
        // 2026-11-27 (delta 0, length 1); a plain page record (its title's
        // option tag), a plain head's count of request headers (127 and
        // 255: a varint never ends in 0), a stem record's number.
        for (shelf, plain) in [
            (Shelf::Postings, &[3, 5][..]),
            (Shelf::Postings, &[0, 1, 5]),
            (Shelf::Records, &[0, 0]),
            (Shelf::Records, &[1, 0]),
            (Shelf::Records, &[0x7F, 0]),
            (Shelf::Records, &[0xFF, 1]),
            (Shelf::Words, &[1, 0x23]),
        ] {
            assert_eq!(BlockRef::decode(plain, shelf).unwrap(), None, "{plain:?}");
        }
    }
}

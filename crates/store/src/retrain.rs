//! A small store's bodies compressed again when it is repacked, in shared
//! frames of many pages (`body_blocks`). A crawl compresses each page
//! alone, its first 128 without a dictionary and the rest with one of
//! 110 KB trained on those: on a site of a few hundred pages that is most
//! of the bodies without a dictionary, and a dictionary larger than what
//! it saves. A frame of many pages uses every page's neighbours instead
//! (the 300-page bench site: 594 KB of bodies and a 29 KB dictionary as
//! frames of one page at level 15, 484 KB as one frame of all of them at
//! level 16). The body dictionaries leave `meta` (no record names them any
//! more: the store's later crawls train one again if they store enough
//! new bodies); nothing changes unless the blocks come out smaller than
//! the bodies and dictionaries they replace.

use std::collections::hash_map::Entry;

use heed::types::Bytes;
use heed::{Database, RoTxn};
use rustc_hash::FxHashMap as HashMap;

use super::body_blocks::{self, BlockRef, Blocks, Shelf};
use super::codec::read_u32;
use super::dictionary::{decompress_with, frame_dictionary, kind_prefix, Kind};
use super::schema::PageId;
use super::Result;

/// Stored body bytes past which a store's bodies are left as they are
/// (every body is held in memory, and compressed in blocks).
const MAX_STORED: usize = 8 << 20;

/// What the repack writes instead of the store's bodies, blocks and body
/// dictionaries.
pub(super) struct Rebodied {
    pub blocks: Blocks,
}

impl Rebodied {
    /// Whether `key` of `meta` is a body dictionary (they go).
    pub(super) fn replaces(key: &[u8]) -> bool {
        key.starts_with(&kind_prefix(Kind::Body))
    }
}

/// The store's tables that hold bodies.
pub(super) struct BodyTables {
    pub meta: Database<Bytes, Bytes>,
    pub bodies: Database<Bytes, Bytes>,
    /// None in a store no build with blocks has opened.
    pub blocks: Option<Database<Bytes, Bytes>>,
}

/// The bodies of `t` gathered into blocks (None: they are left as they
/// are).
pub(super) fn retrain(txn: &RoTxn<'_>, t: &BodyTables) -> Result<Option<Rebodied>> {
    let prefix = kind_prefix(Kind::Body);
    let mut old: HashMap<u32, Vec<u8>> = HashMap::default();
    let mut before = 0;
    for item in t.meta.prefix_iter(txn, &prefix)? {
        let (k, v) = item?;
        old.insert(read_u32(&k[prefix.len()..])?, v.to_vec());
        before += v.len();
    }
    let mut blocks: HashMap<u32, Vec<u8>> = HashMap::default();
    if let Some(db) = t.blocks {
        for item in db.iter(txn)? {
            let (k, v) = item?;
            let block = read_u32(k.get(..4).unwrap_or(k))?;
            blocks.entry(block).or_default().extend_from_slice(v);
            before += v.len();
        }
    }
    let mut stored: Vec<((u32, PageId), Vec<u8>)> = Vec::new();
    for item in t.bodies.iter(txn)? {
        let (k, v) = item?;
        if k.len() != 12 {
            return Ok(None);
        }
        let id = (read_u32(&k[..4])?, read_u32(&k[4..8])?);
        match stored.last_mut() {
            Some((last, frame)) if *last == id => frame.extend_from_slice(v),
            _ => stored.push((id, v.to_vec())),
        }
        before += v.len();
        if before > MAX_STORED {
            return Ok(None);
        }
    }
    let mut unpacked: HashMap<u32, Vec<u8>> = HashMap::default();
    let mut raws = Vec::with_capacity(stored.len());
    for ((segment, page), frame) in stored {
        let raw = match BlockRef::decode(&frame, Shelf::Bodies)? {
            Some(r) => {
                let block = match unpacked.entry(r.block) {
                    Entry::Occupied(o) => o.into_mut(),
                    Entry::Vacant(v) => {
                        match blocks.get(&r.block).and_then(|f| decompress_with(f, &[])) {
                            Some(raw) => v.insert(raw),
                            None => return Ok(None),
                        }
                    }
                };
                match r.slice(block) {
                    Some(raw) => raw.to_vec(),
                    None => return Ok(None),
                }
            }
            None => {
                let dictionary = match frame_dictionary(&frame) {
                    Some(id) => match old.get(&id) {
                        Some(d) => &d[..],
                        None => return Ok(None),
                    },
                    None => &[],
                };
                match decompress_with(&frame, dictionary) {
                    Some(raw) => raw,
                    None => return Ok(None),
                }
            }
        };
        raws.push((segment, page, raw));
    }
    let Some(blocks) = body_blocks::gather(raws)? else {
        return Ok(None);
    };
    Ok((blocks.bytes < before).then_some(Rebodied { blocks }))
}

//! A small store's bodies compressed again when it is repacked, with one
//! dictionary trained on all of them and sized to them. A crawl trains
//! its body dictionary (110 KB) once 128 bodies are in and compresses
//! those 128 without one: on a site of a few hundred pages that is most
//! of the bodies without a dictionary, and a dictionary larger than what
//! it saves (the bench site's 317 pages: 842 KB of bodies and dictionary,
//! 713 KB with one of 32 KB trained on them all). Here the dictionary is
//! a sixty-fourth of the bodies' bytes (4-110 KB), the old body
//! dictionaries leave `meta`, and the store's later crawls compress with
//! the new one; nothing changes unless the bodies and their dictionary
//! come out smaller. They are compressed at a higher level than the
//! crawl's ([`LEVEL`]).

use std::io::Read;

use heed::types::Bytes;
use heed::{Database, RoTxn};
use rustc_hash::FxHashMap as HashMap;

use super::bodies::LeafFill;
use super::codec::read_u32;
use super::dictionary::{frame_dictionary, kind_prefix, meta_key, Kind};
use super::schema::PageId;
use super::Result;

/// Stored body bytes past which a store's bodies are left as they are
/// (every body is held in memory, and training grows with them).
const MAX_STORED: usize = 8 << 20;

/// Bodies larger than this are not sampled (as in the crawl).
const MAX_SAMPLE: usize = 64 << 10;

/// The samples a dictionary is trained on, at most: zstd trains on 2 MB
/// in about a quarter of a second.
const MAX_SAMPLES: usize = 2 << 20;

/// The level bodies are compressed at again. The crawl's 3 is what its
/// parser threads afford; once, at its end, a small store can afford
/// more: on the 300-page bench site's bodies with their dictionary, 3
/// made 648 KB, 9 606 KB, 15 586 KB, 19 584 KB (the `zstd` tool), and
/// 15 takes about half of 19's time.
const LEVEL: i32 = 15;

/// What the repack writes instead of the store's bodies and their
/// dictionaries.
pub(super) struct Rebodied {
    /// The new dictionary's `meta` key and bytes.
    pub dictionary: (Vec<u8>, Vec<u8>),
    /// The `bodies` table's records, in key order.
    pub chunks: Vec<([u8; 12], Vec<u8>)>,
}

impl Rebodied {
    /// Whether `key` of `meta` is a body dictionary (the old ones go).
    pub(super) fn replaces(key: &[u8]) -> bool {
        key.starts_with(&kind_prefix(Kind::Body))
    }
}

/// The bodies of `bodies` compressed again with a dictionary trained on
/// them (None: they are left as they are).
pub(super) fn retrain(
    txn: &RoTxn<'_>,
    meta: Database<Bytes, Bytes>,
    bodies: Database<Bytes, Bytes>,
) -> Result<Option<Rebodied>> {
    let prefix = kind_prefix(Kind::Body);
    let mut old: HashMap<u32, Vec<u8>> = HashMap::default();
    let mut before = 0;
    for item in meta.prefix_iter(txn, &prefix)? {
        let (k, v) = item?;
        old.insert(read_u32(&k[prefix.len()..])?, v.to_vec());
        before += v.len();
    }
    let mut frames: Vec<((u32, PageId), Vec<u8>)> = Vec::new();
    for item in bodies.iter(txn)? {
        let (k, v) = item?;
        if k.len() != 12 {
            return Ok(None);
        }
        let id = (read_u32(&k[..4])?, read_u32(&k[4..8])?);
        match frames.last_mut() {
            Some((last, frame)) if *last == id => frame.extend_from_slice(v),
            _ => frames.push((id, v.to_vec())),
        }
        before += v.len();
        if before > MAX_STORED {
            return Ok(None);
        }
    }
    let mut raws = Vec::with_capacity(frames.len());
    for (_, frame) in &frames {
        let dictionary = match frame_dictionary(frame) {
            Some(id) => match old.get(&id) {
                Some(d) => &d[..],
                None => return Ok(None),
            },
            None => &[],
        };
        match decompress(frame, dictionary) {
            Some(raw) => raws.push(raw),
            None => return Ok(None),
        }
    }
    let raw_bytes: usize = raws.iter().map(Vec::len).sum();
    let mut sampled = 0;
    let samples: Vec<&[u8]> = raws
        .iter()
        .map(|r| &r[..])
        .filter(|r| !r.is_empty() && r.len() <= MAX_SAMPLE)
        .take_while(|r| {
            sampled += r.len();
            sampled <= MAX_SAMPLES
        })
        .collect();
    let size = (raw_bytes / 64).clamp(4 << 10, 110 << 10);
    let Ok(dictionary) = zstd::dict::from_samples(&samples, size) else {
        return Ok(None);
    };
    let Some(id) = zstd::zstd_safe::get_dict_id_from_dict(&dictionary) else {
        return Ok(None);
    };
    let Ok(mut compressor) = zstd::bulk::Compressor::with_dictionary(LEVEL, &dictionary) else {
        return Ok(None);
    };
    let mut after = dictionary.len();
    let mut fill = LeafFill::after(0);
    let mut chunks = Vec::new();
    for ((segment, page), raw) in frames.iter().map(|(id, _)| *id).zip(&raws) {
        let Ok(frame) = compressor.compress(raw) else {
            return Ok(None);
        };
        after += frame.len();
        fill.cut(segment, page, &frame, |key, chunk| {
            chunks.push((*key, chunk.to_vec()));
            Ok(())
        })?;
    }
    if after >= before {
        return Ok(None);
    }
    Ok(Some(Rebodied {
        dictionary: (meta_key(Kind::Body, id.get()), dictionary),
        chunks,
    }))
}

/// A body frame decompressed with `dictionary` (empty: none); None when
/// it does not decompress, or past 64 MiB.
fn decompress(frame: &[u8], dictionary: &[u8]) -> Option<Vec<u8>> {
    const CAP: u64 = 64 << 20;
    let decoder = zstd::stream::read::Decoder::with_dictionary(frame, dictionary).ok()?;
    let mut out = Vec::with_capacity(frame.len() * 4);
    decoder.take(CAP + 1).read_to_end(&mut out).ok()?;
    (out.len() as u64 <= CAP).then_some(out)
}

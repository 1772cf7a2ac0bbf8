//! The found items of each list kind (and `depth`'s page order) kept for
//! the default view, beside [`kept`](super::kept)'s figures and under the
//! same stamp: the crawl-end pass finds each kind once, counts it for
//! `report summary` and stores its items worst first ([`records`]); a
//! report whose snapshot they are true of decodes them
//! ([`ListKind::keeper`]) and turns only the rows it shows into URLs and
//! text, instead of reading every page and state. Kinds that read little
//! to find (`hosts`: the origin table; `javascript`: the render facts) are
//! not kept, nor `changes` (its runs are flags) or near-duplicates at a
//! threshold other than the default.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Ctx, ListKind, Result, Scope};
use crate::store::prelude::*;
use crate::store::{codec, PageId, Reader, StoreError};

/// How a kind's items are stored: its record's name in the `kept` table
/// and the codec.
pub struct Keeper<I> {
    pub name: &'static str,
    encode: fn(&[I]) -> Result<Vec<u8>, StoreError>,
    decode: fn(&[u8]) -> Result<Vec<I>, StoreError>,
}

impl<I: Serialize + DeserializeOwned> Keeper<I> {
    /// Items stored as they are found.
    pub fn as_is(name: &'static str) -> Keeper<I> {
        Keeper {
            name,
            encode: |items| codec::encode(&items),
            decode: codec::decode,
        }
    }
}

impl<I> Keeper<I> {
    /// Items stored in a form of their own (groups shared, not repeated).
    pub fn with(
        name: &'static str,
        encode: fn(&[I]) -> Result<Vec<u8>, StoreError>,
        decode: fn(&[u8]) -> Result<Vec<I>, StoreError>,
    ) -> Keeper<I> {
        Keeper {
            name,
            encode,
            decode,
        }
    }
}

/// Items whose groups of pages (the pages sharing a title, an h1...) are
/// stored once each, not once per item listing them.
/// Written with borrowed fields and groups (`&str`, `&[PageId]`
/// encode as `String`, `Vec`) and read back owned.
#[derive(Serialize, Deserialize)]
struct Grouped<T, G> {
    items: Vec<(T, Option<u32>)>,
    groups: Vec<G>,
}

/// A group of pages as items share it.
pub type Group = Rc<Vec<PageId>>;

/// Encodes items that share groups (the same `Rc`), each group once:
/// `split` gives an item's other fields (borrowed: nothing is copied
/// for the encoding) and its group.
pub fn encode_grouped<'a, I, T: Serialize>(
    items: &'a [I],
    split: impl Fn(&'a I) -> (T, Option<&'a Group>),
) -> Result<Vec<u8>, StoreError> {
    let mut index: FxHashMap<*const Vec<PageId>, u32> = FxHashMap::default();
    let mut groups: Vec<&[PageId]> = Vec::new();
    let items = (items.iter().map(split))
        .map(|(item, group)| {
            let at = group.map(|g| {
                *index.entry(Rc::as_ptr(g)).or_insert_with(|| {
                    groups.push(g);
                    (groups.len() - 1) as u32
                })
            });
            (item, at)
        })
        .collect();
    codec::encode(&Grouped { items, groups })
}

/// The items [`encode_grouped`] stored, each group shared again: `join`
/// makes an item of its fields and group.
pub fn decode_grouped<T: DeserializeOwned, I>(
    bytes: &[u8],
    join: impl Fn(T, Option<Group>) -> I,
) -> Result<Vec<I>, StoreError> {
    let kept: Grouped<T, Vec<PageId>> = codec::decode(bytes)?;
    let groups: Vec<Group> = kept.groups.into_iter().map(Rc::new).collect();
    (kept.items.into_iter())
        .map(|(item, at)| {
            let group = match at {
                Some(i) => Some(Rc::clone(groups.get(i as usize).ok_or_else(|| {
                    StoreError::corrupt(format!("kept findings: no group {i}"))
                })?)),
                None => None,
            };
            Ok(join(item, group))
        })
        .collect()
}

/// Payloads at least this long are compressed (a page's worth is not
/// worth a frame).
const COMPRESS_FROM: usize = 4096;
const RAW: u8 = 0;
const ZSTD: u8 = 1;

fn pack(bytes: Vec<u8>) -> Result<Vec<u8>, StoreError> {
    if bytes.len() < COMPRESS_FROM {
        let mut out = Vec::with_capacity(bytes.len() + 1);
        out.push(RAW);
        out.extend_from_slice(&bytes);
        return Ok(out);
    }
    let mut out = vec![ZSTD];
    out.extend_from_slice(
        &zstd::bulk::compress(&bytes, 1)
            .map_err(|e| StoreError::corrupt(format!("compress kept findings: {e}")))?,
    );
    Ok(out)
}

fn unpack(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, StoreError> {
    match bytes.split_first() {
        Some((&RAW, rest)) => Ok(rest.into()),
        Some((&ZSTD, rest)) => zstd::stream::decode_all(rest)
            .map(Into::into)
            .map_err(|e| StoreError::corrupt(format!("kept findings: {e}"))),
        _ => Err(StoreError::corrupt("kept findings: unknown encoding")),
    }
}

/// Whether `ctx` is the default view, the one kept.
pub(super) fn default_view(ctx: &Ctx<'_, '_>) -> bool {
    !ctx.scoped() && ctx.scope() == Scope::Latest
}

/// `K`'s items as kept, when `ctx` is the default view and they are true
/// of its snapshot; None: find them.
pub fn read<K: ListKind>(ctx: &Ctx<'_, '_>) -> Result<Option<Vec<K::Item>>> {
    let Some(keeper) = K::keeper() else {
        return Ok(None);
    };
    read_named(ctx, keeper.name, keeper.decode)
}

fn read_named<T>(
    ctx: &Ctx<'_, '_>,
    name: &str,
    decode: fn(&[u8]) -> Result<T, StoreError>,
) -> Result<Option<T>> {
    if !default_view(ctx) {
        return Ok(None);
    }
    let Some(bytes) = ctx.r.kept(name)? else {
        return Ok(None);
    };
    Ok(Some(decode(&unpack(bytes)?)?))
}

/// `depth`'s record: every page as (depth, page), deepest first.
const DEPTH_ORDER: &str = "found:depth";

/// Every page as (depth, page) deepest first, kept when current.
pub fn depth_order(ctx: &Ctx<'_, '_>) -> Result<Option<Vec<(u32, PageId)>>> {
    read_named(ctx, DEPTH_ORDER, codec::decode)
}

/// Each kept kind's items found afresh in `ctx` (the default view) as
/// `kept` records, each kind counted in `ctx` for the summary made next.
pub fn records(ctx: &Ctx<'_, '_>) -> Result<Vec<(&'static str, Vec<u8>)>> {
    use super::*;
    let mut out = Vec::new();
    // Each kind is packed as soon as it is found: at a million pages the
    // encoded lists together are hundreds of MB before compression.
    let mut add = |found: Option<(&'static str, Vec<u8>)>| -> Result<()> {
        if let Some((name, bytes)) = found {
            out.push((name, pack(bytes)?));
        }
        Ok(())
    };
    add(found::<broken::Broken>(ctx)?)?;
    add(found::<redirects::Redirects>(ctx)?)?;
    add(found::<titles::Titles>(ctx)?)?;
    add(found::<descriptions::Descriptions>(ctx)?)?;
    add(found::<headings::Headings>(ctx)?)?;
    add(found::<duplicates::Duplicates>(ctx)?)?;
    add(found::<directives::Directives>(ctx)?)?;
    add(found::<canonicals::Canonicals>(ctx)?)?;
    add(found::<slow::Slow>(ctx)?)?;
    add(found::<large::Large>(ctx)?)?;
    add(found::<mimetypes::Mimetypes>(ctx)?)?;
    add(found::<external::External>(ctx)?)?;
    add(found::<near_duplicates::NearDuplicates>(ctx)?)?;
    add(found::<fragments::Fragments>(ctx)?)?;
    add(found::<indexability::NonIndexable>(ctx)?)?;
    add(found::<links::Links>(ctx)?)?;
    add(found::<sitemaps::Sitemaps>(ctx)?)?;
    add(found::<resources::Resources>(ctx)?)?;
    add(found::<resources::BrokenResources>(ctx)?)?;
    add(found::<images::Images>(ctx)?)?;
    add(Some((DEPTH_ORDER, codec::encode(&depth::order(ctx)?)?)))?;
    Ok(out)
}

/// Whether every kept kind's record is true of `r`'s snapshot (a store
/// whose figures an older build kept has none).
pub fn all_current(r: &Reader<'_>) -> Result<bool> {
    r.kept(DEPTH_ORDER).map(|d| d.is_some()).map_err(Into::into)
}

/// `K`'s items found afresh and encoded, its count noted in `ctx`.
fn found<K: ListKind>(ctx: &Ctx<'_, '_>) -> Result<Option<(&'static str, Vec<u8>)>> {
    let Some(keeper) = K::keeper() else {
        return Ok(None);
    };
    let items = K::find(ctx)?;
    ctx.note_found(keeper.name, items.len());
    Ok(Some((keeper.name, (keeper.encode)(&items)?)))
}

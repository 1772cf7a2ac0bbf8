//! The found items of each list kind kept for
//! the default view, beside [`kept`](super::kept)'s figures and under the
//! same stamp: the crawl-end pass finds each kind once, counts it for
//! `report summary` and hands on its items worst first, each record to
//! the store as it is made ([`records`]); a
//! report whose snapshot they are true of decodes them
//! ([`ListKind::keeper`]) and turns only the rows it shows into URLs and
//! text, instead of reading every page and state. Kinds that read little
//! to find (`hosts`: the origin table; `javascript`: the render facts) are
//! not kept, nor `changes` (its runs are flags) or near-duplicates at a
//! threshold other than the default.

use std::io::Write;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::kinds::VisitList;
use super::{Ctx, Kind, ListKind, Result, Scope};
use crate::store::prelude::*;
use crate::store::{codec, PageId, StoreError};

/// How a kind's items are stored: its record's name in the `kept` table,
/// the codec, and the pass of the crawl-end walk that finds them.
pub struct Keeper<I> {
    pub name: &'static str,
    encode: Encode<I>,
    decode: fn(&[u8]) -> Result<Vec<I>, StoreError>,
    pass: Pass,
}

/// When the crawl-end walk ([`records`]) finds a kept kind. The passes run
/// in this order and each drops, once done, what no later pass reads, so
/// the walk never holds every page's texts, the resource uses and the link
/// graph at once; a kind goes in the first pass after the last that drops
/// something it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Before anything is dropped (near-duplicates).
    First,
    /// Reads the meta descriptions (the longest texts), dropped after.
    Descriptions,
    /// Reads the titles, dropped after.
    Titles,
    /// Reads the `<h1>`s, dropped after.
    Headings,
    /// Reads none of the texts: the default.
    Pages,
    /// Reads the resource uses, dropped after.
    Resources,
    /// Reads the link graph, which is only read after the resource uses
    /// are dropped.
    Links,
}

impl Pass {
    const ALL: [Pass; 7] = [
        Pass::First,
        Pass::Descriptions,
        Pass::Titles,
        Pass::Headings,
        Pass::Pages,
        Pass::Resources,
        Pass::Links,
    ];

    /// Drops what this pass was the last to read.
    fn drop_after(self, ctx: &mut Ctx<'_, '_>) {
        match self {
            Pass::Descriptions => ctx.forget(|rec| rec.description = None),
            Pass::Titles => ctx.forget(|rec| rec.title = None),
            Pass::Headings => ctx.forget(|rec| rec.h1 = Vec::new()),
            Pass::Resources => ctx.forget_resource_uses(),
            Pass::First | Pass::Pages | Pass::Links => {}
        }
    }
}

/// How the crawl-end pass writes a kind's record.
enum Encode<I> {
    /// Its items as [`ListKind::find`] gives them.
    Items(fn(&[I], &mut dyn Write) -> Result<(), StoreError>),
    /// Found and written by the kind itself, its texts borrowed from the
    /// context instead of copied into items; returns how many.
    Found(FindKept),
}

/// A kind's items found and written, borrowed ([`Keeper::found_by`]).
pub type FindKept = fn(&Ctx<'_, '_>, &mut dyn Write) -> Result<usize>;

impl<I: Serialize + DeserializeOwned> Keeper<I> {
    /// Items stored as they are found.
    pub fn as_is(name: &'static str) -> Keeper<I> {
        Keeper {
            name,
            encode: Encode::Items(|items, w| codec::encode_to(&items, w)),
            decode: codec::decode,
            pass: Pass::Pages,
        }
    }
}

impl<I> Keeper<I> {
    /// Items stored in a form of their own (groups shared, not repeated),
    /// which `find` finds and writes without making the items: a kind
    /// whose items copy a text of every page (titles, descriptions)
    /// would otherwise hold every text twice.
    pub fn found_by(
        name: &'static str,
        find: FindKept,
        decode: fn(&[u8]) -> Result<Vec<I>, StoreError>,
    ) -> Keeper<I> {
        Keeper {
            name,
            encode: Encode::Found(find),
            decode,
            pass: Pass::Pages,
        }
    }

    /// Found in `pass` rather than with the kinds that read no text.
    pub fn in_pass(self, pass: Pass) -> Keeper<I> {
        Keeper { pass, ..self }
    }
}

/// Items whose groups of pages (the pages sharing a title, an h1...) are
/// stored once each, not once per item listing them.
#[derive(Deserialize)]
struct Grouped<T> {
    items: Vec<(T, Option<u32>)>,
    groups: Vec<Vec<PageId>>,
}

/// A group of pages as items share it.
pub type Group = Rc<Vec<PageId>>;

/// Encodes items that share groups (the same `Rc`), each group once, as
/// [`Grouped`]: `split` gives an item's other fields and its group. The
/// fields are borrowed (`&str` encodes as `String`) and the items written
/// one by one: nothing is copied for the encoding.
pub fn encode_grouped<'a, I, T: Serialize>(
    items: &'a [I],
    split: impl Fn(&'a I) -> (T, Option<&'a Group>),
    w: &mut dyn Write,
) -> Result<(), StoreError> {
    let mut index: FxHashMap<*const Vec<PageId>, u32> = FxHashMap::default();
    let mut groups: Vec<&[PageId]> = Vec::new();
    for g in items.iter().filter_map(|i| split(i).1) {
        index.entry(Rc::as_ptr(g)).or_insert_with(|| {
            groups.push(g);
            (groups.len() - 1) as u32
        });
    }
    let listed = Listed {
        items,
        split,
        index: &index,
    };
    // A struct's fields encode as a tuple's do.
    codec::encode_to(&(listed, groups), w)
}

/// [`Grouped::items`] written from the items themselves.
struct Listed<'a, 'x, I, F> {
    items: &'a [I],
    split: F,
    index: &'x FxHashMap<*const Vec<PageId>, u32>,
}

impl<'a, I, T, F> Serialize for Listed<'a, '_, I, F>
where
    T: Serialize,
    F: Fn(&'a I) -> (T, Option<&'a Group>),
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.items.iter().map(|i| {
            let (fields, group) = (self.split)(i);
            (fields, group.and_then(|g| self.index.get(&Rc::as_ptr(g))))
        }))
    }
}

/// The items [`encode_grouped`] stored, each group shared again: `join`
/// makes an item of its fields and group.
pub fn decode_grouped<T: DeserializeOwned, I>(
    bytes: &[u8],
    join: impl Fn(T, Option<Group>) -> I,
) -> Result<Vec<I>, StoreError> {
    let kept: Grouped<T> = codec::decode(bytes)?;
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

/// How a record's payload is written: plain (by older builds, for small
/// ones), or a zstd frame.
const RAW: u8 = 0;
const ZSTD: u8 = 1;

/// A record written by `write` straight into a zstd frame: at a million
/// pages one kind's plain encoding is hundreds of MB, never held whole.
/// Returns what `write` returns, and the record.
pub(super) fn packed<T>(write: impl FnOnce(&mut dyn Write) -> Result<T>) -> Result<(T, Vec<u8>)> {
    let failed = |e: std::io::Error| StoreError::corrupt(format!("compress kept findings: {e}"));
    let mut frame = zstd::stream::Encoder::new(vec![ZSTD], 1).map_err(failed)?;
    let out = write(&mut frame)?;
    let record = frame.finish().map_err(failed)?;
    Ok((out, record))
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

pub(super) fn read_named<T>(
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

/// Where the crawl-end pass hands each record as it is made (name,
/// payload), so that none waits in memory for the others.
pub type Keep<'k> = dyn FnMut((&'static str, Vec<u8>)) -> Result<()> + 'k;

/// Each kept kind's items found afresh in `ctx` (the default view) as
/// `kept` records handed to `keep`, each kind counted in `ctx` for the
/// summary made next; below [`KEPT_FROM`] pages none.
pub fn records(ctx: &mut Ctx<'_, '_>, keep: &mut Keep<'_>) -> Result<()> {
    records_kept_from(ctx, KEPT_FROM, keep)
}

/// [`records`] with the kinds' items kept from `kept_from` pages in the
/// view (what a test of their coding asks of a small site).
pub fn records_kept_from(
    ctx: &mut Ctx<'_, '_>,
    kept_from: usize,
    keep: &mut Keep<'_>,
) -> Result<()> {
    // The first pass reads no page facts: its records wait until the
    // pages, read after it, say whether any are kept. Below `kept_from`
    // each kind is found for its count only; its items are not worth
    // their room: a report finds them again in milliseconds.
    let mut first = Vec::new();
    found_in(ctx, Pass::First, &mut |record| {
        first.push(record);
        Ok(())
    })?;
    let kept = ctx.pages()?.len() >= kept_from;
    let mut drop_items = |_| Ok(());
    let keep: &mut Keep<'_> = if kept { keep } else { &mut drop_items };
    first.into_iter().try_for_each(&mut *keep)?;
    for pass in Pass::ALL.into_iter().filter(|&p| p != Pass::First) {
        found_in(ctx, pass, keep)?;
    }
    Ok(())
}

/// The kinds kept in `pass` found and handed to `keep`, then what no
/// later pass reads dropped.
fn found_in(ctx: &mut Ctx<'_, '_>, pass: Pass, keep: &mut Keep<'_>) -> Result<()> {
    for kind in Kind::ALL {
        // A kind that counts other items than it lists (`resources`)
        // keeps both; one that counts what it lists is found once.
        kind.visit_list(Found { ctx, pass, keep }).transpose()?;
        kind.visit_counted(Found { ctx, pass, keep }).transpose()?;
    }
    pass.drop_after(ctx);
    Ok(())
}

/// Pages in the default view below which no kind's items are kept: a
/// report of a store that small finds them in tens of milliseconds (a
/// 10k-page store's slowest kind, `broken`, took 47 ms before they were
/// kept: bench/README.md), and the 300-page bench site's lists took 13
/// of its store's 510 pages of 4 KiB. `depth`'s order is kept whatever
/// the size (`depth::kept_record`): it marks the figures current.
pub const KEPT_FROM: usize = 10_000;

/// `K`'s items from a record [`records_kept_from`] made.
pub fn items_of<K: ListKind>(record: &[u8]) -> Result<Option<Vec<K::Item>>> {
    let Some(keeper) = K::keeper() else {
        return Ok(None);
    };
    Ok(Some((keeper.decode)(&unpack(record)?)?))
}

/// A kind's items found afresh and encoded for `keep` when it is kept in
/// `pass` and not yet found, its count noted in `ctx`.
struct Found<'c, 'a, 's, 'o, 'k> {
    ctx: &'c Ctx<'a, 's>,
    pass: Pass,
    keep: &'o mut Keep<'k>,
}

impl VisitList for Found<'_, '_, '_, '_, '_> {
    type Out = Result<()>;
    fn visit<K: ListKind>(self, _: &'static str) -> Result<()> {
        let Some(keeper) = K::keeper() else {
            return Ok(());
        };
        if keeper.pass != self.pass || self.ctx.noted(keeper.name).is_some() {
            return Ok(());
        }
        (self.keep)(found::<K>(self.ctx, keeper)?)
    }
}

fn found<K: ListKind>(
    ctx: &Ctx<'_, '_>,
    keeper: Keeper<K::Item>,
) -> Result<(&'static str, Vec<u8>)> {
    let (n, record) = packed(|w| match keeper.encode {
        Encode::Items(encode) => {
            let items = K::find(ctx)?;
            encode(&items, w)?;
            Ok(items.len())
        }
        Encode::Found(find) => find(ctx, w),
    })?;
    ctx.note_found(keeper.name, n);
    Ok((keeper.name, record))
}

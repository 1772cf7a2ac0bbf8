//! Rewrites an older schema's records in this build's encodings, inside the
//! transaction that opens the store: the upgrade happens whole or not at
//! all, and no reader ever meets a record of the old layout.

use std::ops::Bound::{Excluded, Unbounded};

use heed::types::Bytes;
use heed::{Env, PutFlags, RwTxn};

use super::codec;
use super::dictionary::{self, Dictionaries, Kind};
use super::history::{self, Kept, RunEntry};
use super::links;
use super::old_words::{self, OldWord, Packer};
use super::page_records;
use super::pages::Forward;
use super::pairs;
use super::postings::{self, PartWriter};
use super::schema::{Db, Dbs, OriginRecord, PageId, UrlRecord, WordId};
use super::sealed;
use super::segments;
use super::stem_index;
use super::stems;
use super::url_records;
use super::{Result, StoreError};

/// The table a rebuilt one passes through (left empty); the environment
/// keeps one named table spare for it.
pub const SCRATCH: &str = "upgrade";

/// Records taken per pass: a cursor cannot stay open across the puts.
const BATCH: usize = 4096;

/// From schema 5 or 6 (schema 7): posting entries flag tf 1 instead of
/// spelling it out, and each segment's postings are one stream of parts
/// instead of parts of one word each. Forward records and reverse links
/// keep their layout until [`from_schema_11`] rewrites every old store's
/// (a reverse link of theirs, one `segment ‖ child ‖ parent` key with no
/// value, reads as a later schema's record of one parent).
pub fn from_schema_6(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    rebuild(dbs.postings, scratch, txn, |txn| {
        restream(dbs.postings, scratch, txn)
    })
}

/// From schema 14 or older, back to 7 (schema 15): the streams of parts
/// (body postings from schema 7 on, title postings from 11, reverse
/// links from 12; older ones are streamed by the steps below, in this
/// build's layout) are cut again in this build's: schema 14's bit-coded
/// runs with their lists' lengths added, schema 13's and older byte-coded
/// ones with their later entries bit-coded. It runs before the other
/// steps, because counting pairs (schema 9's step) reads the postings.
pub fn from_schema_14(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>, found: u32) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    let streams = [
        (dbs.postings, 7),
        (dbs.title_postings, 11),
        (dbs.links_in, 12),
    ];
    for (db, since) in streams {
        if found >= since {
            rebuild(db, scratch, txn, |txn| recode(db, scratch, txn, found))?;
        }
    }
    Ok(())
}

/// From schema 15 or older (schema 16), after the other steps (which
/// write `words` a record per id): `words` packs 64 stems to a record,
/// `word_ids` packs sorted runs of stems (`stem_index`), and `urls`
/// keeps a URL whole only where its parts do not spell it.
pub fn from_schema_15(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    rewrite(dbs.words, scratch, txn, |txn, batch| {
        let ids = (batch.iter().map(|(k, _)| codec::read_u32(k))).collect::<Result<Vec<_>>>()?;
        let stems = batch.iter().map(|(_, stem)| stem.as_slice());
        stems::append(txn, scratch, ids.into_iter().zip(stems))
    })?;
    let mut by_stem = Vec::new();
    for item in dbs.word_ids.iter(txn)? {
        let (stem, id) = item?;
        by_stem.push((stem.to_vec(), codec::read_u32(id)?));
    }
    dbs.word_ids.clear(txn)?;
    stem_index::append_sorted(
        txn,
        dbs.word_ids,
        by_stem.iter().map(|(s, id)| (s.as_slice(), *id)),
    )?;
    rewrite(dbs.urls, scratch, txn, |txn, batch| {
        for (k, v) in &batch {
            let record: UrlRecord = codec::decode(v)?;
            let origin = (dbs.origins.get(txn, &codec::u32_key(record.origin))?)
                .map(codec::decode::<OriginRecord>)
                .transpose()?;
            let value = url_records::encode(&record, origin.as_ref())?;
            scratch.put_with_flags(txn, PutFlags::APPEND, k, &value)?;
        }
        Ok(())
    })
}

/// From schema 16 or older (schema 17), after every other step (which
/// read and write the four tables): a page's forward index, outgoing
/// links, meta tags and HTTP head, four records under `segment ‖ page`,
/// become the parts of one `forward` record (`page_records`), and the
/// other three tables are left empty; run entries are kept whole, 64
/// pages' to a record (`history`). A part without a forward record
/// (which every page with parts has: they were written and removed
/// together) had no page to belong to and is not kept.
pub fn from_schema_16(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    let [forward, links, meta, head] = page_records::schema_16_tables(dbs);
    rewrite(forward, scratch, txn, |txn, batch| {
        for (k, value) in &batch {
            let part = |db: Db| -> Result<Vec<u8>> {
                Ok(db.get(txn, k)?.map(<[u8]>::to_vec).unwrap_or_default())
            };
            let (l, mut m, h) = (part(links)?, part(meta)?, part(head)?);
            if !m.is_empty() {
                // No description is left out of the tags (`split_meta_part`).
                m.insert(0, 0);
            }
            let record = page_records::encode([value, &l, &m, &h]);
            scratch.put_with_flags(txn, PutFlags::APPEND, k, &record)?;
        }
        Ok(())
    })?;
    for db in [links, meta, head] {
        db.clear(txn)?;
    }
    // Run entries stay whole (deciding which lean on their page record
    // would mean reading every record): the next run writes most of its
    // own as a status alone.
    rewrite(dbs.run_history, scratch, txn, |txn, batch| {
        for (k, v) in &batch {
            let whole = Kept::Whole(codec::decode::<RunEntry>(v)?);
            history::put_kept(txn, scratch, history::split_key(k)?, &whole)?;
        }
        Ok(())
    })
}

/// Rebuilds `db` from its own records, which `f` is handed a batch at a
/// time to write into `scratch` in key order.
fn rewrite(
    db: Db,
    scratch: Db,
    txn: &mut RwTxn<'_>,
    f: impl FnMut(&mut RwTxn<'_>, Vec<(Vec<u8>, Vec<u8>)>) -> Result<()>,
) -> Result<()> {
    rebuild(db, scratch, txn, |txn| {
        each_batch(db, txn, |v| Ok(v.to_vec()), f)
    })
}

/// A stream's parts in `found`'s layout, each segment's cut again in this
/// build's.
fn recode(old: Db, to: Db, txn: &mut RwTxn<'_>, found: u32) -> Result<()> {
    let mut out: Option<PartWriter> = None;
    each_batch(
        old,
        txn,
        |v| Ok(v.to_vec()),
        |txn, batch| {
            for (key, part) in batch {
                let (segment, key_word, _) = codec::split_triple_key(&key)?;
                let writer = segment_writer(&mut out, segment, to, txn)?;
                for run in postings::runs(key_word, &part) {
                    let run = run?;
                    let entries: Box<dyn Iterator<Item = _>> = if found == 14 {
                        Box::new(postings::schema_14_entries(run.bytes))
                    } else {
                        Box::new(postings::old_entries(run.bytes))
                    };
                    for e in entries {
                        writer.push(run.word, &e?)?;
                    }
                }
                let parts = writer.take_done();
                append(to, txn, parts)?;
            }
            Ok(())
        },
    )?;
    if let Some(w) = out {
        append(to, txn, w.finish())?;
    }
    Ok(())
}

/// The writer of `segment`'s parts, the one before it (when the stream
/// moved to a new segment) finished into `to`.
fn segment_writer<'w>(
    out: &'w mut Option<PartWriter>,
    segment: u32,
    to: Db,
    txn: &mut RwTxn<'_>,
) -> Result<&'w mut PartWriter> {
    match out.take() {
        Some(w) if w.segment() == segment => Ok(out.insert(w)),
        done => {
            if let Some(w) = done {
                append(to, txn, w.finish())?;
            }
            Ok(out.insert(PartWriter::new(segment)))
        }
    }
}

/// From schema 7 (schema 8): a page's forward index, outgoing links, meta
/// tags and HTTP head move from `page` keys to `segment ‖ page` keys
/// (`page_records`), the segment being the one its forward record names,
/// and `page_segments` is filled with it.
pub fn from_schema_7(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    // The segment leads the forward record.
    each_batch(
        dbs.forward,
        txn,
        |v| Ok(codec::u32_key(codec::VarintReader::new(v).next_u32()?).to_vec()),
        |txn, batch| {
            for (page, segment) in &batch {
                dbs.page_segments
                    .put_with_flags(txn, PutFlags::APPEND, page, segment)?;
            }
            Ok(())
        },
    )?;
    for db in page_records::schema_16_tables(dbs) {
        rebuild(db, scratch, txn, |txn| {
            place(db, dbs.page_segments, scratch, txn)
        })?;
    }
    Ok(())
}

/// From schema 8 (schema 9): each page's link list becomes a zstd frame.
/// The first lists train the link-list dictionary, as a crawl's would,
/// and the rest name it.
pub fn from_schema_8(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    let dictionaries = Dictionaries::load(dbs, txn)?;
    rebuild(dbs.links_out, scratch, txn, |txn| {
        append_all(dbs.links_out, scratch, txn, |v| {
            dictionaries.frame(Kind::Links, v)
        })
    })?;
    dictionary::keep_trained(&dictionaries, dbs, txn, Kind::Links)
}

/// From schema 9 (schema 10): every live segment a merge would have given
/// pairs gets them now, so an upgraded store answers frequent pairs as
/// quickly as a new one.
pub fn from_schema_9(dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let live = segments::live_in(txn, dbs.meta)?;
    for &(segment, pages) in live.entries() {
        if pages >= pairs::PAIR_MIN_PAGES {
            pairs::build(txn, dbs, segment, pages)?;
        }
    }
    Ok(())
}

/// From schema 10 (schema 13's words): each word's count and forms move
/// into the packed `doc_freq` blocks (its stem is already in `words`,
/// where this schema keeps it too); title postings, one record per
/// `segment ‖ word ‖ page`, become each segment's stream of parts, as
/// body postings are. Page records, meta tags and heads read as they are.
pub fn from_schema_10(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    let mut positions = Vec::new();
    rebuild(dbs.title_postings, scratch, txn, |txn| {
        stream_keyed(dbs.title_postings, scratch, txn, |page, v, block| {
            codec::Positions::counted(v)?.decode_into(&mut positions)?;
            postings::push_entry(block, page, &positions);
            Ok(())
        })
    })?;
    pack_words(dbs, scratch, txn, dbs.words, |txn, id, stem| {
        let old = dbs.doc_freq.get(txn, id)?.unwrap_or_default();
        Ok((stem.to_vec(), old_words::schema_10(old)?))
    })
}

/// From schema 11 or 12 (schema 13): each word's `doc_freq` record, its
/// count, stem and forms, becomes its `words` record and an entry of the
/// packed `doc_freq` blocks.
pub fn from_schema_12(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>) -> Result<()> {
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    pack_words(dbs, scratch, txn, dbs.doc_freq, |txn, id, v| {
        let (stem, word) = old_words::schema_12(v)?;
        sealed::put_appending(txn, dbs.words, id, &stem)?;
        Ok((stem, word))
    })
}

/// Rebuilds `doc_freq` packed from `source`, a record per word id in id
/// order, which `word` reads as the word's stem and old counts (writing
/// what else the upgrade needs).
fn pack_words(
    dbs: &Dbs,
    scratch: Db,
    txn: &mut RwTxn<'_>,
    source: Db,
    mut word: impl FnMut(&mut RwTxn<'_>, &[u8], &[u8]) -> Result<(Vec<u8>, OldWord)>,
) -> Result<()> {
    rebuild(dbs.doc_freq, scratch, txn, |txn| {
        let mut packer = Packer::new(scratch);
        each_batch(
            source,
            txn,
            |v| Ok(v.to_vec()),
            |txn, batch| {
                for (id, v) in &batch {
                    let (stem, old) = word(txn, id, v)?;
                    packer.push(txn, codec::read_u32(id)?, &stem, &old)?;
                }
                Ok(())
            },
        )?;
        packer.finish(txn)
    })
}

/// From schema 11 or older (schema 12): forward records hold their words
/// as a bit-coded set instead of varint deltas (records of schemas 5 and
/// 6, `found`, spell out every tf; later ones flag tf 1), and reverse
/// links, a record per child and segment of its parents (`segment ‖ child
/// ‖ first parent`, the others as ascending deltas), become each
/// segment's posting stream.
pub fn from_schema_11(env: &Env, dbs: &Dbs, txn: &mut RwTxn<'_>, found: u32) -> Result<()> {
    let decode = if found < 7 {
        Forward::decode_schema_6
    } else {
        Forward::decode_schema_11
    };
    let scratch = env.create_database::<Bytes, Bytes>(txn, Some(SCRATCH))?;
    rebuild(dbs.forward, scratch, txn, |txn| {
        append_all(dbs.forward, scratch, txn, |v| Ok(decode(v)?.encode()))
    })?;
    rebuild(dbs.links_in, scratch, txn, |txn| {
        stream_keyed(dbs.links_in, scratch, txn, |first, deltas, block| {
            postings::push_entry(block, first, &links::LINK_POSITION);
            let mut r = codec::VarintReader::new(deltas);
            let mut parent = first;
            while !r.is_empty() {
                let delta = r.next_u32()?;
                parent = parent
                    .checked_add(delta)
                    .filter(|_| delta > 0)
                    .ok_or_else(|| StoreError::corrupt("parents not ascending"))?;
                postings::push_entry(block, parent, &links::LINK_POSITION);
            }
            Ok(())
        })
    })
}

/// Records keyed `segment ‖ word ‖ page` in key order (schema 10's title
/// postings, schema 11's reverse links) as each segment's posting stream
/// in `to`: `push` appends the entries a record holds, given its key's
/// page, to its word's block.
fn stream_keyed(
    old: Db,
    to: Db,
    txn: &mut RwTxn<'_>,
    mut push: impl FnMut(PageId, &[u8], &mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    // The (segment, word) being gathered, its block, and its segment's parts.
    let mut open: Option<(u32, WordId, Vec<u8>, PartWriter)> = None;
    each_batch(
        old,
        txn,
        |v| Ok(v.to_vec()),
        |txn, batch| {
            for (k, v) in &batch {
                let (segment, word, page) = codec::split_triple_key(k)?;
                if let Some((s, w, block, mut parts)) = open.take() {
                    if (s, w) == (segment, word) {
                        open = Some((s, w, block, parts));
                    } else {
                        parts.push_block(w, &block, true)?;
                        if s == segment {
                            append(to, txn, parts.take_done())?;
                            open = Some((segment, word, Vec::new(), parts));
                        } else {
                            append(to, txn, parts.finish())?;
                        }
                    }
                }
                let (_, _, block, _) = open
                    .get_or_insert_with(|| (segment, word, Vec::new(), PartWriter::new(segment)));
                push(page, v, block)?;
            }
            Ok(())
        },
    )?;
    if let Some((_, w, block, mut parts)) = open {
        parts.push_block(w, &block, true)?;
        append(to, txn, parts.finish())?;
    }
    Ok(())
}

/// Copies a table keyed by page id into `to` keyed `segment ‖ page`.
fn place(from: Db, places: Db, to: Db, txn: &mut RwTxn<'_>) -> Result<()> {
    each_batch(
        from,
        txn,
        |v| Ok(v.to_vec()),
        |txn, batch| {
            for (page, v) in &batch {
                let Some(segment) = places.get(txn, page)? else {
                    return Err(StoreError::corrupt(format!(
                        "page {}: a record but no forward index",
                        codec::read_u32(page)?
                    )));
                };
                let key = [segment, &page[..]].concat();
                // Pages are not in segment order: an ordinary put here, and
                // `rebuild` appends them back in key order.
                to.put(txn, &key, v)?;
            }
            Ok(())
        },
    )?;
    Ok(())
}

/// Fills `scratch` with `db`'s records as this build writes them, then
/// copies them back in key order: appended, the rebuilt table's leaves are
/// full, where records shortened in place would leave the old leaves part
/// empty.
fn rebuild(
    db: Db,
    scratch: Db,
    txn: &mut RwTxn<'_>,
    fill: impl FnOnce(&mut RwTxn<'_>) -> Result<()>,
) -> Result<()> {
    scratch.clear(txn)?;
    fill(txn)?;
    db.clear(txn)?;
    append_all(scratch, db, txn, |v| Ok(v.to_vec()))?;
    scratch.clear(txn)?;
    Ok(())
}

/// Old parts, one word of one segment each in key order, cut again as
/// each segment's stream.
fn restream(old: Db, to: Db, txn: &mut RwTxn<'_>) -> Result<()> {
    let mut out: Option<PartWriter> = None;
    each_batch(old, txn, postings::part_from_schema_6, |txn, batch| {
        for (key, run) in batch {
            let (segment, word, _) = codec::split_triple_key(&key)?;
            let writer = segment_writer(&mut out, segment, to, txn)?;
            for e in postings::old_entries(&run) {
                writer.push(word, &e?)?;
            }
            let parts = writer.take_done();
            append(to, txn, parts)?;
        }
        Ok(())
    })?;
    if let Some(w) = out {
        append(to, txn, w.finish())?;
    }
    Ok(())
}

fn append(db: Db, txn: &mut RwTxn<'_>, parts: Vec<postings::Part>) -> Result<()> {
    for (k, v) in parts {
        db.put_with_flags(txn, PutFlags::APPEND, &k, &v)?;
    }
    Ok(())
}

/// Hands `f` the records of `db`, converted, a batch at a time in key
/// order (a cursor cannot stay open across the puts `f` makes).
fn each_batch(
    db: Db,
    txn: &mut RwTxn<'_>,
    convert: impl Fn(&[u8]) -> Result<Vec<u8>>,
    mut f: impl FnMut(&mut RwTxn<'_>, Vec<(Vec<u8>, Vec<u8>)>) -> Result<()>,
) -> Result<()> {
    let mut after: Option<Vec<u8>> = None;
    loop {
        let batch = read_batch(db, txn, after.as_deref(), &convert)?;
        let Some((last, _)) = batch.last() else {
            return Ok(());
        };
        after = Some(last.clone());
        f(txn, batch)?;
    }
}

/// Up to [`BATCH`] records of `db` after the key `after`, converted.
fn read_batch(
    db: Db,
    txn: &RwTxn<'_>,
    after: Option<&[u8]>,
    convert: impl Fn(&[u8]) -> Result<Vec<u8>>,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let start = match after {
        None => Unbounded,
        Some(k) => Excluded(k),
    };
    db.range(txn, &(start, Unbounded))?
        .take(BATCH)
        .map(|item| {
            let (k, v) = item?;
            Ok((k.to_vec(), convert(v)?))
        })
        .collect()
}

fn append_all(
    from: Db,
    to: Db,
    txn: &mut RwTxn<'_>,
    convert: impl Fn(&[u8]) -> Result<Vec<u8>>,
) -> Result<()> {
    each_batch(from, txn, &convert, |txn, batch| {
        for (k, v) in &batch {
            to.put_with_flags(txn, PutFlags::APPEND, k, v)?;
        }
        Ok(())
    })?;
    Ok(())
}

//! `check` of the inverted index and the link graph against the forward
//! records: every posting stream's entries in a live segment and on a
//! page whose forward record names them, body runs' weight classes
//! above their pages' weights, doc freqs as the pages count them, pair postings as a fresh count, reverse links as the pages'
//! links out.

use std::collections::{HashMap, HashSet};

use crate::body_blocks::{self, BlockRef, Shelf};
use crate::codec::{read_u32, split_pair_key, split_triple_key, u32_key};
use crate::dictionary::{self, Kind};
use crate::forward::Forward;
use crate::inverted::segments::SegmentRead;
use crate::inverted::{self, doc_freq, pairs, staged};
use crate::page_records::{self, Part};
use crate::schema::{PageId, Stream, WordId};
use crate::sealed::View;
use crate::PairRead;
use crate::{LinkRead, PageRead, Result, WordRead};

use super::{missing_dictionary, InUse, Problems};

/// The segment and page of a record keyed `segment ‖ page`
/// (`page_records`), noting a record under another segment than the
/// page's place.
fn placed_page<V: View + ?Sized>(
    v: &V,
    k: &[u8],
    what: &str,
    p: &mut Problems,
) -> Result<(u32, PageId)> {
    let (segment, page) = split_pair_key(k)?;
    let placed = page_records::segment_of(v, page)?;
    if placed != Some(segment) {
        let placed = placed.map_or("nowhere".to_string(), |s| format!("in segment {s}"));
        p.add(format!(
            "page {page}: {what} in segment {segment}, the page's records are placed {placed}"
        ));
    }
    Ok((segment, page))
}

pub(super) fn check_index<V: View + ?Sized>(
    v: &V,
    listed: &HashMap<u32, u32>,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<()> {
    let read = read_forwards(v, in_use, p)?;
    if *listed != read.segment_pages {
        p.add(format!(
            "live posting segments {:?}, forward records lead to {:?}",
            sorted(listed),
            sorted(&read.segment_pages)
        ));
    }
    let factors = check_norm_factors(v, &read.forwards, p)?;
    check_postings(v, listed, in_use, &read.forwards, &factors, p)?;
    check_doc_freqs(v, &read.df, p)
}

/// What the forward records say the index holds.
struct ForwardRead {
    /// Pages per word.
    df: HashMap<WordId, u32>,
    /// Page -> (segment, body words with tf, title word count).
    forwards: Forwards,
    /// Live segment -> pages whose forward record leads to it.
    segment_pages: HashMap<u32, u32>,
}

/// Reads every forward record, noting one placed wrongly, without its
/// page record, or with a title word lacking its title posting.
fn read_forwards<V: View + ?Sized>(
    v: &V,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<ForwardRead> {
    let d = v.dbs();
    let t = v.txn();
    let mut read = ForwardRead {
        df: HashMap::new(),
        forwards: HashMap::new(),
        segment_pages: HashMap::new(),
    };
    for item in d.forward.iter(t)? {
        let (k, val) = item?;
        let (keyed, page) = placed_page(v, k, "forward index", p)?;
        let fwd = Forward::decode(page_records::part(val, Part::Forward)?)?;
        if fwd.segment != keyed {
            p.add(format!(
                "page {page}: forward index in segment {keyed} says segment {}",
                fwd.segment
            ));
        }
        if d.pages.get(t, &u32_key(page))?.is_none() {
            p.add(format!("page {page}: forward index without a page record"));
        }
        let segment = v.resolve_segment(fwd.segment)?;
        for &w in &fwd.title {
            if v.segment_title_posting(segment, w, page)?.is_none() {
                p.add(format!("page {page}: title word {w} has no title posting"));
            }
        }
        for w in fwd.all_words() {
            *read.df.entry(w).or_default() += 1;
        }
        in_use.note_segment(fwd.segment);
        let terms = fwd.terms.iter().copied().collect();
        *read.segment_pages.entry(segment).or_default() += 1;
        read.forwards
            .insert(page, (segment, terms, fwd.title.len() as u64));
    }
    Ok(read)
}

/// Each indexed page's stored norm factor against its record's; the
/// factors, for the postings' weight classes.
fn check_norm_factors<V: View + ?Sized>(
    v: &V,
    forwards: &Forwards,
    p: &mut Problems,
) -> Result<HashMap<PageId, f32>> {
    let mut pages: Vec<PageId> = forwards.keys().copied().collect();
    pages.sort_unstable();
    let factors: HashMap<PageId, f32> =
        pages.iter().copied().zip(v.norm_factors(&pages)?).collect();
    for (&page, &factor) in &factors {
        if let Some(rec) = v.page(page)? {
            let want = crate::norm_factor(rec.max_tf, rec.norm);
            if (want - factor).abs() > want.abs() * 1e-6 {
                p.add(format!(
                    "page {page}: norm factor {factor}, record says {want}"
                ));
            }
        }
    }
    Ok(factors)
}

/// The body and title postings against the forward records: each in the
/// forward's segment, as many per page as it names, body runs' weight
/// classes above their pages' weights.
fn check_postings<V: View + ?Sized>(
    v: &V,
    listed: &HashMap<u32, u32>,
    in_use: &mut InUse,
    forwards: &Forwards,
    factors: &HashMap<PageId, f32>,
    p: &mut Problems,
) -> Result<()> {
    let mut body_seen: HashMap<PageId, u64> = HashMap::new();
    for_each_stream_entry(
        Stream::Body,
        "postings",
        v,
        listed,
        in_use,
        p,
        |segment, w, e, p| {
            *body_seen.entry(e.page).or_default() += 1;
            posting_against_forward(forwards, segment, w, e, p);
            // A search passes runs by their class: one too low hides pages.
            let weight = factors.get(&e.page).map(|&f| e.tf as f32 * f);
            if weight.is_some_and(|w| inverted::run::class_bound(e.class) < f64::from(w)) {
                p.add(format!(
                    "segment {segment}: the postings run of word {w} holding page {} has weight class {}, below the page's weight",
                    e.page, e.class
                ));
            }
        },
    )?;
    let mut title_seen: HashMap<PageId, u64> = HashMap::new();
    for_each_stream_entry(
        Stream::Title,
        "title postings",
        v,
        listed,
        in_use,
        p,
        |segment, w, e, p| {
            let page = e.page;
            match forwards.get(&page) {
                None => p.add(format!(
                    "title posting of word {w} for page {page} that has no forward index"
                )),
                Some((seg, _, _)) if *seg != segment => p.add(format!(
                "page {page}: title posting of word {w} in segment {segment}, forward says {seg}"
            )),
                Some(_) => {}
            }
            *title_seen.entry(page).or_default() += 1;
        },
    )?;
    for (page, (_, terms, titles)) in forwards {
        let body = body_seen.get(page).copied().unwrap_or(0);
        if body != terms.len() as u64 {
            p.add(format!(
                "page {page}: {} postings expected, {body} found",
                terms.len()
            ));
        }
        let title = title_seen.get(page).copied().unwrap_or(0);
        if title != *titles {
            p.add(format!(
                "page {page}: {titles} title postings expected, {title} found"
            ));
        }
    }
    Ok(())
}

/// Each stored doc freq as the forward records count its word's pages,
/// and every spelling of a counted word coded by its stem.
fn check_doc_freqs<V: View + ?Sized>(
    v: &V,
    df: &HashMap<WordId, u32>,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut stored = 0usize;
    for item in d.doc_freq.iter(t)? {
        let (k, val) = item?;
        let val = body_blocks::plain(v, Shelf::Counts, val)?;
        doc_freq::each_entry(read_u32(k)?, val, |w, entry| {
            let got = entry.df;
            stored += usize::from(got > 0);
            let want = df.get(&w).copied().unwrap_or(0);
            if got != want {
                p.add(format!(
                    "word {w}: doc freq {got}, but {want} pages hold it"
                ));
            }
            if got == 0 {
                return Ok(());
            }
            let Some(stem) = inverted::stems::stem(v, w)? else {
                p.add(format!("word {w}: counted but has no stem"));
                return Ok(());
            };
            for form in entry.forms() {
                if !form?.0.fits(&stem) {
                    p.add(format!("word {w}: a spelling not coded by its stem"));
                }
            }
            Ok(())
        })?;
    }
    if stored != df.len() {
        p.add(format!(
            "{} words indexed but {stored} doc freqs stored",
            df.len()
        ));
    }
    Ok(())
}

/// Walks every entry of a posting stream (body or title postings,
/// reverse links; both its tables), each part read through its reference
/// if it has one, checking that parts are in live segments, begin at
/// their key and hold every (segment, word, page) once in key order, and
/// hands each entry to `each` with its segment and word. The segments a
/// staged merge holds apart (being written, or merged and being
/// deleted) are passed.
fn for_each_stream_entry<V: View + ?Sized>(
    stream: Stream,
    what: &str,
    v: &V,
    listed: &HashMap<u32, u32>,
    in_use: &mut InUse,
    p: &mut Problems,
    mut each: impl FnMut(u32, WordId, &inverted::run::Entry<'_>, &mut Problems),
) -> Result<()> {
    let apart = staged::staged(v)?.map_or(Vec::new(), |st| st.not_live().to_vec());
    let mut prev: Option<(u32, u32, PageId)> = None;
    let [small, large] = v.dbs().stream_tables(stream);
    for item in small.iter(v.txn())?.chain(large.iter(v.txn())?) {
        let (k, stored) = item?;
        let (segment, key_word, first) = split_triple_key(k)?;
        in_use.note_segment(segment);
        if apart.contains(&segment) {
            continue;
        }
        // Every reference leads to its part (`check_shelves`).
        let part = body_blocks::plain(v, Shelf::Postings, stored)?;
        if !listed.contains_key(&segment) {
            p.add(format!(
                "{what} part {key_word}/{first} in segment {segment}, which is not live"
            ));
        }
        if part.is_empty() {
            p.add(format!(
                "segment {segment}: {what} part keyed {key_word}/{first} is empty"
            ));
        }
        let mut at_key = true;
        for run in inverted::run::runs(key_word, part) {
            let run = run?;
            let w = run.word;
            for e in run.entries() {
                let e = e?;
                let here = (segment, w, e.page);
                if at_key && (w, e.page) != (key_word, first) {
                    p.add(format!(
                        "segment {segment}: {what} part keyed {key_word}/{first} begins with {w}/{}",
                        e.page
                    ));
                }
                at_key = false;
                if prev.is_some_and(|prev| prev >= here) {
                    p.add(format!(
                        "segment {segment}: {what} entry of word {w} for page {} out of order",
                        e.page
                    ));
                }
                prev = Some(here);
                each(segment, w, &e, p);
            }
        }
    }
    Ok(())
}

/// Forward records by page: segment, (word -> tf) and title length.
type Forwards = HashMap<PageId, (u32, HashMap<WordId, u32>, u64)>;

/// Every segment's pairs are live and read (less the pages gone from it)
/// as counting its postings afresh for the same stems gives (the pairs
/// are counted from them and follow every change).
pub(super) fn check_pairs<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let live = v.live_segments()?;
    let apart = staged::staged(v)?.map_or(Vec::new(), |st| st.not_live().to_vec());
    for (segment, stored) in v.stored_pairs()? {
        if apart.contains(&segment) {
            continue;
        }
        if !live.ids().any(|s| s == segment) {
            p.add(format!(
                "segment {segment}: pair postings, but it is not live"
            ));
            continue;
        }
        let Some(fresh) = pairs::recount(v, segment, &stored.kept.stems)? else {
            p.add(format!(
                "segment {segment}: pair postings, but a page is too long to count"
            ));
            continue;
        };
        let read = &stored.lists;
        let differs = (0..read.len().max(fresh.len())).find(|&i| read.get(i) != fresh.get(i));
        if let Some(((a, b), _)) = differs.and_then(|i| read.get(i).or(fresh.get(i))) {
            p.add(format!(
                "segment {segment}: pair postings of words {a} {b} disagree with its positions"
            ));
        }
    }
    Ok(())
}

/// A body posting agrees with its page's forward record.
fn posting_against_forward(
    forwards: &Forwards,
    segment: u32,
    w: WordId,
    e: &inverted::run::Entry<'_>,
    p: &mut Problems,
) {
    let Some((seg, terms, _)) = forwards.get(&e.page) else {
        return p.add(format!(
            "posting of word {w} for page {} that has no forward index",
            e.page
        ));
    };
    if *seg != segment {
        p.add(format!(
            "page {}: posting of word {w} in segment {segment}, forward says {seg}",
            e.page
        ));
    }
    match terms.get(&w) {
        None => p.add(format!(
            "page {}: posting of word {w} not in its forward index",
            e.page
        )),
        Some(&tf) if tf != e.tf => p.add(format!(
            "page {}: word {w} tf {tf} in forward, {} in posting",
            e.page, e.tf
        )),
        Some(_) => {}
    }
}

fn sorted(m: &HashMap<u32, u32>) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = m.iter().map(|(&a, &b)| (a, b)).collect();
    v.sort_unstable();
    v
}

pub(super) fn check_links<V: View + ?Sized>(
    v: &V,
    listed: &HashMap<u32, u32>,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut reverse: HashSet<(u32, PageId, PageId)> = HashSet::new();
    let mut in_count = 0u64;
    for_each_stream_entry(
        Stream::LinksIn,
        "reverse links",
        v,
        listed,
        in_use,
        p,
        |segment, child, e, _| {
            in_count += 1;
            reverse.insert((segment, child, e.page));
        },
    )?;
    let mut out_count = 0u64;
    for item in d.forward.iter(t)? {
        let (k, record) = item?;
        let frame = page_records::part(record, Part::Links)?;
        if frame.is_empty() {
            continue;
        }
        let parent = split_pair_key(k)?.1;
        let Some(segment) = v.page_segment(parent)? else {
            p.add(format!("page {parent}: links without a forward index"));
            continue;
        };
        let in_block = BlockRef::decode(frame, Shelf::Records).unwrap_or(None);
        if in_block.is_none() && !dictionary::is_frame(frame) {
            p.add(format!("page {parent}: links not compressed"));
            continue;
        }
        if let Some(id) = missing_dictionary(v, Kind::Links, frame)? {
            p.add(format!(
                "page {parent}: link list names zstd dictionary {id}, which the store does not hold"
            ));
            continue;
        }
        for child in v.children(parent)? {
            out_count += 1;
            if !reverse.contains(&(segment, child, parent)) {
                p.add(format!("link {parent} -> {child} has no reverse entry"));
            }
        }
    }
    if in_count != out_count {
        p.add(format!("{out_count} links out but {in_count} links in"));
    }
    Ok(())
}

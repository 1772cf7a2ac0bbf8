//! Proof that a store is whole: walks every table and reports each broken
//! invariant (page ↔ forward, index ↔ forward, doc freqs, both link
//! directions, id maps, frontier ↔ states, a state for every URL the crawl
//! decided on, crawl points of queued URLs, id counters beyond every id in
//! use, claims of dead processes, run history of known points and URLs,
//! pair postings that match a fresh count from their segment's postings)
//! as one readable line.

use std::collections::{HashMap, HashSet};

use super::codec::{self, read_u32, read_u64, split_pair_key, split_triple_key, u32_key};
use super::dictionary::{self, Kind};
use super::history::{self, Kept};
use super::inverted::segments::SegmentRead;
use super::inverted::{self, doc_freq, pairs, stem_index, stems};
use super::page_records::{self, Part};
use super::pages::{split_meta_part, Forward};
use super::schema::{meta_keys, Db, FrontierEntry, InstanceId, PageId, PointId, UrlState, WordId};
use super::sealed::View;
use super::PairRead;
use super::{FrontierRead, LinkRead, PageRead, PointRead, Result, WordRead};

/// Problems are capped so a badly broken store still answers quickly.
const MAX_PROBLEMS: usize = 200;

/// The invariant checker.
pub trait CheckRead: View {
    /// Every invariant that does not hold; empty when the store is whole.
    /// `is_dead` says whether a crawler instance no longer runs.
    fn check(&self, is_dead: &dyn Fn(InstanceId) -> bool) -> Result<Vec<String>> {
        let mut p = Problems::default();
        let mut in_use = InUse::default();
        // Live segment -> its page count: the streams' parts must be in one.
        let listed: HashMap<u32, u32> = self.live_segments()?.entries().iter().copied().collect();
        check_pages(self, &mut p)?;
        check_index(self, &listed, &mut in_use, &mut p)?;
        check_pairs(self, &mut p)?;
        check_links(self, &listed, &mut in_use, &mut p)?;
        check_id_maps(self, &mut p)?;
        check_frontier(self, is_dead, &mut in_use, &mut p)?;
        check_seen_urls(self, &mut p)?;
        check_history(self, &mut in_use, &mut p)?;
        check_counters(self, &in_use, &mut p)?;
        Ok(p.list)
    }
}

impl<T: View + ?Sized> CheckRead for T {}

#[derive(Default)]
struct Problems {
    list: Vec<String>,
}

impl Problems {
    fn add(&mut self, msg: String) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(msg);
        }
    }
}

/// The largest id of each kind that records name, beyond the keys of the
/// kind's own table: `meta`'s counter must be past all of them, or the next
/// id handed out would be one already in use.
#[derive(Default)]
struct InUse {
    segment: u64,
    point: u64,
    instance: u64,
    frontier_seq: u64,
}

/// The zstd dictionary `frame` names when the store does not hold it.
fn missing_dictionary<V: View + ?Sized>(v: &V, kind: Kind, frame: &[u8]) -> Result<Option<u32>> {
    match dictionary::frame_dictionary(frame) {
        Some(id) if !dictionary::holds(v, kind, id)? => Ok(Some(id)),
        _ => Ok(None),
    }
}

/// Every page record has its forward record (both are written and removed
/// together); bodies, meta tags, HTTP heads, robots records, origin
/// figures and sitemap sources belong to something.
fn check_pages<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for item in d.pages.iter(t)? {
        let (k, record) = item?;
        let page = read_u32(k)?;
        if let Some(id) = missing_dictionary(v, Kind::Record, record)? {
            p.add(format!(
                "page {page}: page record names zstd dictionary {id}, which the store does not hold"
            ));
        }
        if page_records::get(v, Part::Forward, page)?.is_none() {
            p.add(format!("page {page}: page record without a forward index"));
        }
    }
    for item in d.page_segments.iter(t)? {
        let (k, _) = item?;
        let page = read_u32(k)?;
        if d.pages.get(t, k)?.is_none() {
            p.add(format!("page {page}: records placed without a page record"));
        }
    }
    for item in d.bodies.iter(t)? {
        let (key, chunk) = item?;
        let (segment, page, n) = split_triple_key(key)?;
        // A body's frame header is in its first chunk.
        let missing = match n {
            0 => missing_dictionary(v, Kind::Body, chunk)?,
            _ => None,
        };
        if let Some(id) = missing {
            p.add(format!(
                "page {page}: body names zstd dictionary {id}, which the store does not hold"
            ));
        }
        if d.pages.get(t, &u32_key(page))?.is_none() {
            p.add(format!("page {page}: body without a page record"));
        } else if let Some(indexed_in) = page_records::segment_of(v, page)? {
            if indexed_in != segment {
                p.add(format!(
                    "page {page}: body in segment {segment}, forward says {indexed_in}"
                ));
            }
        }
    }
    for item in d.forward.iter(t)? {
        let (k, record) = item?;
        let page = split_pair_key(k)?.1;
        for (part, what, kind) in [
            (Part::Meta, "meta tags", Kind::Meta),
            (Part::Head, "HTTP head", Kind::Head),
        ] {
            let mut value = page_records::part(record, part)?;
            if part == Part::Meta && !value.is_empty() {
                value = split_meta_part(value)?.1;
            }
            if let Some(id) = missing_dictionary(v, kind, value)? {
                p.add(format!(
                    "page {page}: {what} names zstd dictionary {id}, which the store does not hold"
                ));
            }
        }
    }
    let emptied = [
        ("links_out", d.links_out),
        ("meta_tags", d.meta_tags),
        ("headers", d.headers),
    ];
    for (name, db) in emptied {
        if !db.is_empty(t)? {
            p.add(format!(
                "table {name} holds records: since schema 17 they are parts of the forward records"
            ));
        }
    }
    for (db, what) in [(&d.robots, "robots record"), (&d.origin_figures, "figures")] {
        for item in db.iter(t)? {
            let (k, _) = item?;
            if d.origins.get(t, k)?.is_none() {
                p.add(format!(
                    "{what} of origin {}, which has no record",
                    read_u32(k)?
                ));
            }
        }
    }
    for (db, what) in [
        (&d.sitemap_pages, "listed by a sitemap"),
        (&d.external_checks, "checked as an external link"),
    ] {
        for item in db.iter(t)? {
            let (k, _) = item?;
            if d.urls.get(t, k)?.is_none() {
                p.add(format!("page {}: {what} but has no URL", read_u32(k)?));
            }
        }
    }
    Ok(())
}

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

fn check_index<V: View + ?Sized>(
    v: &V,
    listed: &HashMap<u32, u32>,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut df: HashMap<WordId, u32> = HashMap::new();
    // page -> (segment, body words with tf, title word count)
    let mut forwards: Forwards = HashMap::new();
    // live segment -> pages whose forward record leads to it
    let mut segment_pages: HashMap<u32, u32> = HashMap::new();
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
            *df.entry(w).or_default() += 1;
        }
        in_use.segment = in_use.segment.max(u64::from(fwd.segment));
        let terms = fwd.terms.iter().copied().collect();
        *segment_pages.entry(segment).or_default() += 1;
        forwards.insert(page, (segment, terms, fwd.title.len() as u64));
    }
    if *listed != segment_pages {
        p.add(format!(
            "live posting segments {:?}, forward records lead to {:?}",
            sorted(listed),
            sorted(&segment_pages)
        ));
    }
    let mut pages: Vec<PageId> = forwards.keys().copied().collect();
    pages.sort_unstable();
    for (page, factor) in pages.iter().zip(v.norm_factors(&pages)?) {
        if let Some(rec) = v.page(*page)? {
            let want = super::norm_factor(rec.max_tf, rec.norm);
            if (want - factor).abs() > want.abs() * 1e-6 {
                p.add(format!(
                    "page {page}: norm factor {factor}, record says {want}"
                ));
            }
        }
    }
    let mut body_seen: HashMap<PageId, u64> = HashMap::new();
    for_each_stream_entry(
        d.postings,
        "postings",
        v,
        listed,
        in_use,
        p,
        |segment, w, e, p| {
            *body_seen.entry(e.page).or_default() += 1;
            posting_against_forward(&forwards, segment, w, e, p);
        },
    )?;
    let mut title_seen: HashMap<PageId, u64> = HashMap::new();
    let title_stream = d.title_postings;
    for_each_stream_entry(
        title_stream,
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
    for (page, (_, terms, titles)) in &forwards {
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
    let mut stored = 0usize;
    for item in d.doc_freq.iter(t)? {
        let (k, val) = item?;
        doc_freq::each_entry(read_u32(k)?, val, |w, entry| {
            let got = entry.df;
            stored += usize::from(got > 0);
            let want = df.get(&w).copied().unwrap_or(0);
            if got != want {
                p.add(format!(
                    "word {w}: doc freq {got}, but {want} pages hold it"
                ));
            }
            if got > 0 && v.word(w)?.is_none() {
                p.add(format!("word {w}: counted but has no stem"));
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

/// Walks every entry of a posting stream (`db`: body or title postings,
/// reverse links),
/// checking that parts are in live segments, begin at their key and hold
/// every (segment, word, page) once in key order, and hands each entry to
/// `each` with its segment and word.
fn for_each_stream_entry<V: View + ?Sized>(
    db: Db,
    what: &str,
    v: &V,
    listed: &HashMap<u32, u32>,
    in_use: &mut InUse,
    p: &mut Problems,
    mut each: impl FnMut(u32, WordId, &inverted::run::Entry<'_>, &mut Problems),
) -> Result<()> {
    let mut prev: Option<(u32, u32, PageId)> = None;
    for item in db.iter(v.txn())? {
        let (k, part) = item?;
        let (segment, key_word, first) = split_triple_key(k)?;
        in_use.segment = in_use.segment.max(u64::from(segment));
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
fn check_pairs<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let live = v.live_segments()?;
    for (segment, stored) in v.stored_pairs()? {
        if !live.ids().any(|s| s == segment) {
            p.add(format!(
                "segment {segment}: pair postings, but it is not live"
            ));
            continue;
        }
        let Some(fresh) = pairs::recount(v.txn(), v.dbs().postings, segment, &stored.kept.stems)?
        else {
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

fn check_links<V: View + ?Sized>(
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
        d.links_in,
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
        if !dictionary::is_frame(frame) {
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

/// Each stem in `words` maps back to its id in `word_ids`, and each id
/// there has that stem.
fn check_stems<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut held = 0u64;
    for item in d.words.iter(t)? {
        let (k, record) = item?;
        stems::each_stem(read_u32(k)?, record, |id, stem| {
            held += 1;
            if stem_index::find(v, stem)? != Some(id) {
                p.add(format!("word {id} does not map back to its id"));
            }
            Ok(())
        })?;
    }
    let mut mapped = 0u64;
    let mut last: Option<Vec<u8>> = None;
    stem_index::each_from(v, b"", |stem, id| {
        mapped += 1;
        if last.as_deref().is_some_and(|l| l >= stem) {
            p.add(format!("word id {id}: its stem is out of order in the map"));
        }
        last = Some(stem.to_vec());
        if v.word(id)?.as_deref().map(str::as_bytes) != Some(stem) {
            p.add(format!("word id {id} has no record"));
        }
        Ok(true)
    })?;
    if held != mapped {
        p.add(format!(
            "word maps differ in size: {held} stems, {mapped} in the word map"
        ));
    }
    Ok(())
}

fn check_id_maps<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    check_stems(v, p)?;
    for (fwd, back, what) in [
        (&d.origins, &d.origin_ids, "origin"),
        (&d.mimetypes, &d.mime_ids, "mimetype"),
    ] {
        if fwd.len(t)? != back.len(t)? {
            p.add(format!("{what} maps differ in size"));
        }
        for item in back.iter(t)? {
            let (_, id) = item?;
            if fwd.get(t, id)?.is_none() {
                p.add(format!("{what} id {} has no record", read_u32(id)?));
            }
        }
    }
    let mut ids_in_maps = 0u64;
    for item in d.url_ids.iter(t)? {
        let (_, ids) = item?;
        for chunk in ids.chunks_exact(4) {
            ids_in_maps += 1;
            let id = read_u32(chunk)?;
            if d.urls.get(t, &u32_key(id))?.is_none() {
                p.add(format!("URL map names page {id}, which has no URL record"));
            }
        }
    }
    let urls = d.urls.len(t)?;
    if urls != ids_in_maps {
        p.add(format!(
            "{urls} URL records but {ids_in_maps} ids in the URL map"
        ));
    }
    for item in d.urls.iter(t)? {
        let (k, _) = item?;
        let id = read_u32(k)?;
        // A record whose origin is gone cannot spell its URL: a problem
        // to name, not a reason to stop.
        let record = match v.url_record(id) {
            Ok(Some(record)) => record,
            Ok(None) => continue,
            Err(e) => {
                p.add(format!("URL record of page {id}: {e}"));
                continue;
            }
        };
        let url = record.url.clone();
        match url::Url::parse(&url) {
            Ok(u) => {
                if v.page_id(&u).ok().flatten() != Some(id) {
                    p.add(format!("URL {url} does not map back to page {id}"));
                }
                if u.path() != record.path
                    || u.query() != record.query.as_deref()
                    || u.password().is_some()
                    || !u.username().is_empty()
                {
                    p.add(format!(
                        "URL record of page {id}: its parts are not those of {url}"
                    ));
                }
            }
            Err(_) => p.add(format!("page {id}: stored URL does not parse")),
        }
    }
    Ok(())
}

/// Run history names a crawl point that exists (removing one drops its
/// history), a URL the store knows, and at most two runs per point, none
/// newer than the point's current run.
fn check_history<V: View + ?Sized>(v: &V, in_use: &mut InUse, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let points: HashMap<PointId, u32> = v
        .points()?
        .into_iter()
        .map(|(id, rec)| (id, rec.gen))
        .collect();
    let mut runs: HashMap<PointId, HashSet<u32>> = HashMap::new();
    for item in d.run_history.iter(t)? {
        let (k, val) = item?;
        let (point, gen, block) = history::split_key(k)?;
        for entry in history::block_entries(block, val) {
            let (page, kept) = entry?;
            if let Kept::AsPage { .. } = kept {
                if d.pages.get(t, &u32_key(page))?.is_none() {
                    p.add(format!(
                        "run history of page {page} leans on a page record it lacks"
                    ));
                }
            }
            if d.urls.get(t, &u32_key(page))?.is_none() {
                p.add(format!("run history of page {page}, which has no URL"));
            }
        }
        in_use.point = in_use.point.max(u64::from(point));
        match points.get(&point) {
            None => p.add(format!(
                "run history of crawl point {point}, which does not exist"
            )),
            Some(&current) if gen > current => p.add(format!(
                "run history of crawl point {point} run {gen}, past its current run {current}"
            )),
            Some(_) => {}
        }
        runs.entry(point).or_default().insert(gen);
    }
    for (point, gens) in runs {
        if gens.len() > 2 {
            p.add(format!(
                "crawl point {point} keeps the history of {} runs (at most 2)",
                gens.len()
            ));
        }
    }
    Ok(())
}

fn check_frontier<V: View + ?Sized>(
    v: &V,
    is_dead: &dyn Fn(InstanceId) -> bool,
    in_use: &mut InUse,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let points = point_ids(v)?;
    // Removing a point drops its queued URLs, frontier entries and states
    // alike; a queued URL of a missing point is a lost point record.
    let no_point = |page: PageId, point: PointId, p: &mut Problems| {
        if !points.contains(&point) {
            p.add(format!(
                "page {page} is queued for crawl point {point}, which does not exist"
            ));
        }
    };
    let mut entries = 0u64;
    for item in d.frontier.iter(t)? {
        let (k, val) = item?;
        entries += 1;
        match k.get(4..12) {
            Some(seq) => in_use.frontier_seq = in_use.frontier_seq.max(read_u64(seq)?),
            None => p.add("frontier key is not 12 bytes".to_string()),
        }
        let e: FrontierEntry = codec::decode(val)?;
        in_use.point = in_use.point.max(u64::from(e.point));
        no_point(e.page, e.point, p);
        match d.url_state.get(t, &u32_key(e.page))? {
            Some(s) => {
                if !matches!(codec::decode::<UrlState>(s)?, UrlState::Queued { .. }) {
                    p.add(format!("page {} is in the frontier but not queued", e.page));
                }
            }
            None => p.add(format!(
                "page {} is in the frontier without a state",
                e.page
            )),
        }
    }
    let mut queued = 0u64;
    for item in d.url_state.iter(t)? {
        let (k, val) = item?;
        let page = read_u32(k)?;
        let state = codec::decode::<UrlState>(val)?;
        in_use.point = in_use.point.max(u64::from(state.run().0));
        match state {
            UrlState::Queued { point, .. } => {
                queued += 1;
                no_point(page, point, p);
            }
            UrlState::Claimed { by, .. } => {
                in_use.instance = in_use.instance.max(u64::from(by));
                if is_dead(by) {
                    p.add(format!(
                        "page {page} is claimed by crawler {by}, which is gone"
                    ));
                }
            }
            _ => {}
        }
        if d.urls.get(t, &u32_key(page))?.is_none() {
            p.add(format!("page {page} has a state but no URL"));
        }
    }
    if queued != entries {
        p.add(format!(
            "{queued} URLs queued but {entries} frontier entries"
        ));
    }
    Ok(())
}

fn point_ids<V: View + ?Sized>(v: &V) -> Result<HashSet<PointId>> {
    Ok(v.points()?.into_iter().map(|(id, _)| id).collect())
}

/// Every URL the crawl decided on has a state: each start URL of a crawl
/// point, and each link of a page followed (done) for a point that still
/// exists, since following a page queues, skips or leaves to its owner
/// every link. Links of pages not followed (an error status) are recorded
/// without a state, and removing a point drops the states of its queued
/// URLs: those are the only URLs seen without one.
fn check_seen_urls<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let has_state =
        |page: PageId| -> Result<bool> { Ok(d.url_state.get(t, &u32_key(page))?.is_some()) };
    let points = point_ids(v)?;
    for (point, rec) in v.points()? {
        let Ok(url) = url::Url::parse(&rec.url) else {
            p.add(format!("crawl point {point}: start URL does not parse"));
            continue;
        };
        // A corrupt URL record (one whose origin is gone) is named where
        // the URL records are checked.
        if let Ok(Some(page)) = v.page_id(&url) {
            if !has_state(page)? {
                p.add(format!(
                    "page {page}: start URL of crawl point {point} without a state"
                ));
            }
        }
    }
    for item in d.forward.iter(t)? {
        let (k, record) = item?;
        if page_records::part(record, Part::Links)?.is_empty() {
            continue;
        }
        let parent = split_pair_key(k)?.1;
        let followed = match v.url_state(parent)? {
            Some(UrlState::Done { point, .. }) => points.contains(&point),
            _ => false,
        };
        if !followed {
            continue;
        }
        for child in v.children(parent)? {
            if !has_state(child)? {
                p.add(format!(
                    "page {child}: linked from page {parent}, which was followed, but without a state"
                ));
            }
        }
    }
    Ok(())
}

/// Each id counter in `meta` is past every id in use (a missing counter
/// starts again at 1).
fn check_counters<V: View + ?Sized>(v: &V, in_use: &InUse, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let last_key = |db: &Db| -> Result<u64> {
        db.last(t)?
            .map_or(Ok(0), |(k, _)| read_u32(k).map(u64::from))
    };
    for (key, what, used) in [
        (meta_keys::NEXT_PAGE, "page", last_key(&d.urls)?),
        (
            meta_keys::NEXT_WORD,
            "word",
            u64::from(stems::next_id(v, d.words)?.saturating_sub(1)),
        ),
        (meta_keys::NEXT_ORIGIN, "origin", last_key(&d.origins)?),
        (meta_keys::NEXT_MIME, "mimetype", last_key(&d.mimetypes)?),
        (
            meta_keys::NEXT_POINT,
            "crawl point",
            last_key(&d.crawl_points)?.max(in_use.point),
        ),
        (
            meta_keys::NEXT_INSTANCE,
            "crawler",
            last_key(&d.instances)?.max(in_use.instance),
        ),
        (meta_keys::NEXT_SEGMENT, "segment", in_use.segment),
        (
            meta_keys::FRONTIER_SEQ,
            "frontier sequence",
            in_use.frontier_seq,
        ),
    ] {
        let next = d.meta.get(t, key)?.map(read_u64).transpose()?;
        if used >= next.unwrap_or(1) {
            let name = String::from_utf8_lossy(key);
            p.add(match next {
                Some(n) => format!("counter {name} is {n}, but {what} id {used} is in use"),
                None => format!("counter {name} is missing, but {what} id {used} is in use"),
            });
        }
    }
    Ok(())
}

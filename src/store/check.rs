//! Proof that a store is whole: walks every table and reports each broken
//! invariant (index ↔ forward, doc freqs, both link directions, id maps,
//! frontier ↔ states, claims of dead processes) as one readable line.

use std::collections::HashMap;

use super::codec::{self, pair_key, read_u32, split_pair_key, u32_key};
use super::pages::Forward;
use super::postings;
use super::schema::{FrontierEntry, InstanceId, PageId, UrlState, WordId};
use super::sealed::View;
use super::{LinkRead, PageRead, Result};

/// Problems are capped so a badly broken store still answers quickly.
const MAX_PROBLEMS: usize = 200;

/// The invariant checker.
pub trait CheckRead: View {
    /// Every invariant that does not hold; empty when the store is whole.
    /// `is_dead` says whether a crawler instance no longer runs.
    fn check(&self, is_dead: &dyn Fn(InstanceId) -> bool) -> Result<Vec<String>> {
        let mut p = Problems::default();
        check_index(self, &mut p)?;
        check_links(self, &mut p)?;
        check_id_maps(self, &mut p)?;
        check_frontier(self, is_dead, &mut p)?;
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

fn check_index<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut df: HashMap<WordId, u32> = HashMap::new();
    // page -> (segment, body words with tf, title word count)
    let mut forwards: HashMap<PageId, (u32, HashMap<WordId, u32>, u64)> = HashMap::new();
    for item in d.forward.iter(t)? {
        let (k, val) = item?;
        let page = read_u32(k)?;
        let fwd = Forward::decode(val)?;
        if d.pages.get(t, &u32_key(page))?.is_none() {
            p.add(format!("page {page}: forward index without a page record"));
        }
        for &w in &fwd.title {
            if d.title_postings.get(t, &pair_key(w, page))?.is_none() {
                p.add(format!("page {page}: title word {w} has no title posting"));
            }
        }
        for w in fwd.all_words() {
            *df.entry(w).or_default() += 1;
        }
        let terms = fwd.terms.iter().copied().collect();
        forwards.insert(page, (fwd.segment, terms, fwd.title.len() as u64));
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
    for item in d.postings.iter(t)? {
        let (k, block) = item?;
        let (w, segment) = postings::split_part_key(k)?;
        for e in postings::entries(block) {
            let e = e?;
            *body_seen.entry(e.page).or_default() += 1;
            match forwards.get(&e.page) {
                None => p.add(format!(
                    "posting of word {w} for page {} that has no forward index",
                    e.page
                )),
                Some((seg, terms, _)) => {
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
            }
        }
    }
    let mut title_seen: HashMap<PageId, u64> = HashMap::new();
    for item in d.title_postings.iter(t)? {
        let (k, _) = item?;
        let (w, page) = split_pair_key(k)?;
        if !forwards.contains_key(&page) {
            p.add(format!(
                "title posting of word {w} for page {page} that has no forward index"
            ));
        }
        *title_seen.entry(page).or_default() += 1;
    }
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
        stored += 1;
        let w = read_u32(k)?;
        let got = super::words::DocFreq::decode(val)?.df;
        let want = df.get(&w).copied().unwrap_or(0);
        if got != want {
            p.add(format!(
                "word {w}: doc freq {got}, but {want} pages hold it"
            ));
        }
    }
    if stored != df.len() {
        p.add(format!(
            "{} words indexed but {stored} doc freqs stored",
            df.len()
        ));
    }
    Ok(())
}

fn check_links<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut out_count = 0u64;
    for item in d.links_out.iter(t)? {
        let (k, _) = item?;
        let parent = read_u32(k)?;
        for child in v.children(parent)? {
            out_count += 1;
            if d.links_in.get(t, &pair_key(child, parent))?.is_none() {
                p.add(format!("link {parent} -> {child} has no reverse entry"));
            }
        }
    }
    let in_count = d.links_in.len(t)?;
    if in_count != out_count {
        p.add(format!("{out_count} links out but {in_count} links in"));
    }
    Ok(())
}

fn check_id_maps<V: View + ?Sized>(v: &V, p: &mut Problems) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    for (fwd, back, what) in [
        (&d.words, &d.word_ids, "word"),
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
    for item in d.words.iter(t)? {
        let (id, stem) = item?;
        if d.word_ids.get(t, stem)? != Some(id) {
            p.add(format!(
                "word {} does not map back to its id",
                read_u32(id)?
            ));
        }
    }
    let mut ids_in_maps = 0u64;
    for item in d.url_ids.iter(t)? {
        let (_, ids) = item?;
        for chunk in ids.chunks_exact(4) {
            ids_in_maps += 1;
            let id = read_u32(chunk)?;
            if v.url_of(id)?.is_none() {
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
        let url = v.url_of(id)?.unwrap_or_default();
        match url::Url::parse(&url) {
            Ok(u) => {
                if v.page_id(&u)? != Some(id) {
                    p.add(format!("URL {url} does not map back to page {id}"));
                }
            }
            Err(_) => p.add(format!("page {id}: stored URL does not parse")),
        }
    }
    Ok(())
}

fn check_frontier<V: View + ?Sized>(
    v: &V,
    is_dead: &dyn Fn(InstanceId) -> bool,
    p: &mut Problems,
) -> Result<()> {
    let d = v.dbs();
    let t = v.txn();
    let mut entries = 0u64;
    for item in d.frontier.iter(t)? {
        let (_, val) = item?;
        entries += 1;
        let e: FrontierEntry = codec::decode(val)?;
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
        match codec::decode::<UrlState>(val)? {
            UrlState::Queued { .. } => queued += 1,
            UrlState::Claimed { by, .. } if is_dead(by) => p.add(format!(
                "page {page} is claimed by crawler {by}, which is gone"
            )),
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

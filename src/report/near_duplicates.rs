//! `report near-duplicates`: pairs of 2xx HTML pages whose texts are at
//! least `--near-threshold` similar (the estimated Jaccard similarity of
//! their 5-word shingle sets, from the minhash signatures the parser
//! stored), most similar first. Pages with identical bodies are the
//! `duplicates` report's and are not paired here.
//!
//! Candidates come from LSH banding: the signature is cut into bands of
//! rows, and two pages that agree on every row of some band are compared.
//! The rows per band are chosen for the threshold, so that a pair at the
//! threshold is a candidate with a probability of at least 99.5% while
//! pairs far below it rarely are. Pages with identical signatures are
//! grouped first, so a site of many same-text pages costs its answer, not
//! the answer times the bands.

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::kept_lists::{Keeper, Pass};
use super::{is_ok, Ctx, ListKind, Result, Row};
use crate::index::minhash::{Signature, HASHES};
use crate::store::{PageId, PageTextRead};

/// Screaming Frog's default.
pub const DEFAULT_THRESHOLD: f64 = 0.90;

/// `--near-threshold`: a number in 0..1.
pub fn parse_threshold(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("{s:?} is not a similarity between 0 and 1")),
    }
}

/// The list kind at the default threshold (summary and console counts).
pub struct NearDuplicates;

#[derive(Serialize, Deserialize)]
pub struct Item {
    a: PageId,
    b: PageId,
    similarity: f64,
}

#[derive(Debug, Serialize)]
pub struct NearDuplicateRow {
    pub a: String,
    pub b: String,
    /// The share of the 128 signature bins the pages agree on, less the
    /// share that agree by chance (see `Signature::similarity`).
    pub similarity: f64,
}

impl ListKind for NearDuplicates {
    type Item = Item;
    type Row = NearDuplicateRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        find(ctx, DEFAULT_THRESHOLD)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<NearDuplicateRow> {
        Ok(NearDuplicateRow {
            a: ctx.url(item.a)?,
            b: ctx.url(item.b)?,
            similarity: item.similarity,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:near-duplicates").in_pass(Pass::First))
    }
}

/// A page with a signature: its id and its body's hash.
type Member = (PageId, u64);

/// Every signed page, sorted so that pages with the same signature sit
/// together: each run of them is a class, compared once. One flat vector
/// holds each page's signature once (no map of classes beside it): at a
/// million pages the signatures are most of what the count holds.
struct Classes {
    signed: Vec<(Signature, Member)>,
    /// Where each class starts in `signed`, then its length.
    starts: Vec<u32>,
}

impl Classes {
    fn of(mut signed: Vec<(Signature, Member)>) -> Classes {
        signed.sort_unstable_by(|x, y| x.0 .0.cmp(&y.0 .0).then(x.1.cmp(&y.1)));
        let mut starts: Vec<u32> = (0..signed.len())
            .filter(|&i| i == 0 || signed[i - 1].0 != signed[i].0)
            .map(|i| i as u32)
            .collect();
        starts.push(signed.len() as u32);
        Classes { signed, starts }
    }

    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    fn members(&self, class: usize) -> &[(Signature, Member)] {
        &self.signed[self.starts[class] as usize..self.starts[class + 1] as usize]
    }

    fn signature(&self, class: usize) -> &Signature {
        &self.signed[self.starts[class] as usize].0
    }
}

/// Every pair at `threshold` or above, most similar first.
pub fn find(ctx: &Ctx<'_, '_>, threshold: f64) -> Result<Vec<Item>> {
    let hashes = hashes(ctx)?;
    let mut signed = Vec::with_capacity(hashes.len());
    ctx.r.for_each_signature(|page, sig| {
        if let Ok(i) = hashes.binary_search_by_key(&page, |m| m.0) {
            signed.push((sig, hashes[i]));
        }
    })?;
    drop(hashes);
    Ok(pairs(signed, threshold))
}

/// The pairs at `threshold` or above among signed pages (each with its
/// body's hash), most similar first.
/// Each 2xx page's body hash, in id order (searched, not mapped): from
/// the pages the context holds, else read in a pass of their own. The
/// crawl-end count finds near-duplicates before it holds the pages, so
/// that the signatures, its largest figure, are never held beside them.
fn hashes(ctx: &Ctx<'_, '_>) -> Result<Vec<Member>> {
    if let Some(pages) = ctx.pages.get() {
        return Ok((pages.iter())
            .filter(|(_, rec)| is_ok(rec.status))
            .map(|(id, rec)| (*id, rec.content_hash))
            .collect());
    }
    let mut out = Vec::new();
    ctx.for_each_page(|id, rec| {
        if is_ok(rec.status) {
            out.push((id, rec.content_hash));
        }
    })?;
    Ok(out)
}

fn pairs(signed: Vec<(Signature, Member)>, threshold: f64) -> Vec<Item> {
    let classes = Classes::of(signed);
    let mut items = Vec::new();
    for c in 0..classes.len() {
        let members = classes.members(c);
        for (n, &(_, x)) in members.iter().enumerate() {
            for &(_, y) in &members[n + 1..] {
                pair(x, y, 1.0, &mut items);
            }
        }
    }
    for (i, j) in candidates(&classes, rows_for(threshold)) {
        let (i, j) = (i as usize, j as usize);
        let s = classes.signature(i).similarity(classes.signature(j));
        if s >= threshold {
            for &(_, x) in classes.members(i) {
                for &(_, y) in classes.members(j) {
                    pair(x, y, s, &mut items);
                }
            }
        }
    }
    items.sort_unstable_by(|p, q| {
        q.similarity
            .total_cmp(&p.similarity)
            .then(p.a.cmp(&q.a))
            .then(p.b.cmp(&q.b))
    });
    items
}

fn pair((a, ha): (PageId, u64), (b, hb): (PageId, u64), similarity: f64, out: &mut Vec<Item>) {
    if ha != hb {
        out.push(Item {
            a: a.min(b),
            b: a.max(b),
            similarity,
        });
    }
}

/// Rows per band: the most (the fewest candidates) that still make a
/// pair at `threshold` a candidate with probability 0.995 (a row agreeing
/// as often as such a pair's bins do, chance included).
fn rows_for(threshold: f64) -> usize {
    let row = Signature::agreement_at(threshold);
    [16, 8, 4, 2]
        .into_iter()
        .find(|&r| {
            let bands = (HASHES / r) as i32;
            1.0 - (1.0 - row.powi(r as i32)).powi(bands) >= 0.995
        })
        .unwrap_or(1)
}

/// Pairs of classes (by index, lower first) that agree on every row of
/// some band.
fn candidates(classes: &Classes, rows: usize) -> FxHashSet<(u32, u32)> {
    let mut pairs = FxHashSet::default();
    let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(classes.len());
    for band in 0..HASHES / rows {
        keyed.clear();
        for i in 0..classes.len() {
            let bins = &classes.signature(i).0[band * rows..(band + 1) * rows];
            let key = bins.iter().fold(band as u64, |h, &v| {
                (h ^ u64::from(v)).wrapping_mul(0x100_0000_01b3)
            });
            keyed.push((key, i as u32));
        }
        keyed.sort_unstable();
        for group in keyed.chunk_by(|x, y| x.0 == y.0) {
            for (n, &(_, i)) in group.iter().enumerate() {
                for &(_, j) in &group[n + 1..] {
                    pairs.insert((i.min(j), i.max(j)));
                }
            }
        }
    }
    pairs
}

impl Row for NearDuplicateRow {
    const COLUMNS: &'static [&'static str] = &["a", "b", "similarity"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.a.clone(),
            self.b.clone(),
            format!("{:.3}", self.similarity),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reproducible stream of bins.
    fn bins(seed: &mut u64) -> [u8; HASHES] {
        std::array::from_fn(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed as u8
        })
    }

    #[test]
    fn banding_finds_the_planted_pairs_among_100k_pages_quickly() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        let mut signed: Vec<(Signature, Member)> = Vec::new();
        let mut page = 0;
        let mut add = |sig: [u8; HASHES], hash: u64| {
            page += 1;
            signed.push((Signature(sig), (page, hash)));
            page
        };
        // 100 pairs that differ in 8 bins (0.937, less chance's share:
        // 239/255), 100 that differ in 20 (0.84), and an exact copy (same
        // body: never a pair).
        let mut planted = Vec::new();
        for (differ, want) in [(8, true), (20, false)] {
            for _ in 0..100 {
                let a = bins(&mut seed);
                let mut b = a;
                for k in 0..differ {
                    b[k * 5 % HASHES] ^= 0x5a;
                }
                let (x, y) = (add(a, seed), add(b, seed ^ 1));
                if want {
                    planted.push((x, y));
                }
            }
        }
        let same = bins(&mut seed);
        let copies = (add(same, 7), add(same, 7));
        while add(bins(&mut seed), seed) < 100_000 {}
        let started = std::time::Instant::now();
        let found = pairs(signed, DEFAULT_THRESHOLD);
        // The figure for a debug build (about 2 s on the 2-core box, where
        // a release build is ten times faster); comparing every pair would
        // take hours.
        let took = started.elapsed();
        eprintln!("100k signatures: {took:?}");
        assert!(took < std::time::Duration::from_secs(30), "{took:?}");
        let got: Vec<(PageId, PageId)> = found.iter().map(|i| (i.a, i.b)).collect();
        planted.sort_unstable();
        let mut sorted = got.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, planted);
        assert!(!got.contains(&copies));
        assert!(found.iter().all(|i| i.similarity == 239.0 / 255.0));
    }

    #[test]
    fn thresholds_parse_in_range_and_pick_fewer_rows_when_lower() {
        assert_eq!(parse_threshold("0.95"), Ok(0.95));
        assert_eq!(parse_threshold("1"), Ok(1.0));
        assert!(parse_threshold("1.5").is_err());
        assert!(parse_threshold("-0.1").is_err());
        assert!(parse_threshold("most").is_err());
        assert_eq!(rows_for(0.9), 8);
        assert_eq!(rows_for(0.5), 2);
        assert!(rows_for(0.99) >= rows_for(0.9));
    }
}

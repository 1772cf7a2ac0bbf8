//! `report links` and the link score: a PageRank over the internal link
//! graph of the report's scope, read once ([`Graph::read`]) into flat
//! arrays (each page's followed children as one slice of a shared
//! vector). Nodes are the fetched pages; a link passes score unless it is
//! `rel=nofollow`, on a page whose robots directives say nofollow, or to
//! the page itself. Damping 0.85; a page without followed links shares
//! its score with every page; rounds stop when the scores move less than
//! 1e-9 in all, or after 50.
//!
//! The score is scaled 0-100 on a log scale, as Screaming Frog's is: the
//! least linked page 0, the best 100, each tenfold of PageRank the same
//! step between (every page 100 when all are equal).

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::kept_lists::{Keeper, Pass};
use super::{Ctx, ListKind, ReportError, Result, Row};
use crate::store::prelude::*;
use crate::store::{PageId, Reader, StoreError};

const DAMPING: f64 = 0.85;
const MAX_ROUNDS: usize = 50;
const TOLERANCE: f64 = 1e-9;

/// The link graph of the scope's fetched pages.
pub struct Graph {
    /// Node index → page id, ascending.
    pub pages: Vec<PageId>,
    /// Followed links of node i, in block `i / BLOCK`: from the previous
    /// node's end in that block (0 for a block's first node) to `ends[i]`.
    /// Blocks, each fitted when full, hold the links without the slack and
    /// the copies of one vector growing to tens of millions.
    ends: Vec<u32>,
    blocks: Vec<Vec<u32>>,
    /// Other pages of the scope linking to each node (nofollow included;
    /// a page's links to itself are not its inlinks, as everywhere:
    /// `LinkRead::inlinks`).
    pub inlinks: Vec<u32>,
    /// Pages each node links to, in scope or not.
    pub outlinks: Vec<u32>,
    /// Every URL a fetched page of the scope links to (but itself).
    pub linked: PageSet,
}

/// Nodes per block of [`Graph`]'s links.
const BLOCK: usize = 1 << 16;

impl Graph {
    pub fn read(ctx: &Ctx<'_, '_>) -> Result<Graph> {
        let records = ctx.pages()?;
        let pages: Vec<PageId> = records.iter().map(|(id, _)| *id).collect();
        // Page ids are dense: a node per id is smaller than a map.
        let mut index = vec![u32::MAX; pages.last().map_or(0, |&p| p as usize + 1)];
        for (i, &p) in pages.iter().enumerate() {
            index[p as usize] = i as u32;
        }
        let mut g = Graph::of(pages);
        let mut followed = Vec::new();
        for (i, (id, rec)) in records.iter().enumerate() {
            let links = ctx.r.link_marks(*id)?;
            g.outlinks[i] = links.len() as u32;
            for &(child, nofollow) in links.iter().filter(|(child, _)| child != id) {
                g.linked.insert(child);
                let Some(&t) = index.get(child as usize).filter(|&&t| t != u32::MAX) else {
                    continue;
                };
                g.inlinks[t as usize] += 1;
                if !nofollow && rec.nofollow.is_none() {
                    followed.push(t);
                }
            }
            g.push_node(followed.drain(..));
        }
        if let Some(last) = g.blocks.last_mut() {
            last.shrink_to_fit();
        }
        Ok(g)
    }

    /// A graph of `pages` without links yet ([`Graph::push_node`]).
    fn of(pages: Vec<PageId>) -> Graph {
        Graph {
            ends: Vec::with_capacity(pages.len()),
            blocks: Vec::new(),
            inlinks: vec![0; pages.len()],
            outlinks: vec![0; pages.len()],
            linked: PageSet::default(),
            pages,
        }
    }

    /// The next node's followed links (nodes come in order); a full
    /// block is fitted and a new one begun.
    fn push_node(&mut self, children: impl IntoIterator<Item = u32>) {
        let node = self.ends.len();
        if node.is_multiple_of(BLOCK) {
            if let Some(full) = self.blocks.last_mut() {
                full.shrink_to_fit();
            }
            self.blocks.push(Vec::new());
        }
        let block = &mut self.blocks[node / BLOCK];
        block.extend(children);
        self.ends.push(block.len() as u32);
    }

    fn children(&self, node: usize) -> &[u32] {
        let start = match node % BLOCK {
            0 => 0,
            _ => self.ends[node - 1] as usize,
        };
        &self.blocks[node / BLOCK][start..self.ends[node] as usize]
    }

    /// Each node's PageRank (summing to 1).
    pub fn page_rank(&self) -> Vec<f64> {
        let n = self.pages.len();
        if n == 0 {
            return Vec::new();
        }
        let nf = n as f64;
        let mut rank = vec![1.0 / nf; n];
        let mut next = vec![0.0; n];
        for _ in 0..MAX_ROUNDS {
            let mut dangling = 0.0;
            next.fill(0.0);
            for (node, r) in rank.iter().enumerate() {
                let children = self.children(node);
                if children.is_empty() {
                    dangling += r;
                    continue;
                }
                let share = r / children.len() as f64;
                for &c in children {
                    next[c as usize] += share;
                }
            }
            let base = (1.0 - DAMPING) / nf + DAMPING * dangling / nf;
            let mut moved = 0.0;
            for (r, x) in rank.iter_mut().zip(&next) {
                let v = base + DAMPING * x;
                moved += (v - *r).abs();
                *r = v;
            }
            if moved < TOLERANCE {
                break;
            }
        }
        rank
    }
}

/// A set of page ids as one bit each (ids are dense: a million-page
/// store's set is 128 KB, where a hash set is tens of MB).
#[derive(Default)]
pub struct PageSet {
    bits: Vec<u64>,
}

impl PageSet {
    pub fn insert(&mut self, page: PageId) {
        let (word, bit) = (page as usize / 64, page % 64);
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << bit;
    }

    pub fn contains(&self, page: &PageId) -> bool {
        let (word, bit) = (*page as usize / 64, *page % 64);
        self.bits.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }
}

/// PageRanks scaled 0-100 on a log scale, one decimal (see the module's
/// doc).
pub fn scaled(rank: &[f64]) -> Vec<f64> {
    let (min, max) = rank
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    let span = (max / min).ln();
    rank.iter()
        .map(|&r| match span > 1e-12 {
            true => ((r / min).ln() / span * 1000.0).round() / 10.0,
            false => 100.0,
        })
        .collect()
}

/// The scope's link graph, read once per context.
pub fn graph<'c>(ctx: &'c Ctx<'_, '_>) -> Result<&'c Graph> {
    if let Some(g) = ctx.graph.get() {
        return Ok(g);
    }
    let read = Graph::read(ctx)?;
    Ok(ctx.graph.get_or_init(|| read))
}

/// Each node of [`graph`]'s link score, ranked once per context.
fn scores<'c>(ctx: &'c Ctx<'_, '_>) -> Result<&'c [f64]> {
    if let Some(s) = ctx.scores.get() {
        return Ok(s);
    }
    let ranked = scaled(&graph(ctx)?.page_rank());
    Ok(ctx.scores.get_or_init(|| ranked))
}

/// Every fetched page's link score in the scope.
pub fn link_scores(ctx: &Ctx<'_, '_>) -> Result<FxHashMap<PageId, f64>> {
    Ok(scored(ctx)?.collect())
}

/// Every fetched page of the scope and its link score, in page id order.
pub fn scored<'c>(
    ctx: &'c Ctx<'_, '_>,
) -> Result<impl ExactSizeIterator<Item = (PageId, f64)> + 'c> {
    let g = graph(ctx)?;
    Ok(g.pages.iter().copied().zip(scores(ctx)?.iter().copied()))
}

/// Every fetched page's link score as of each point's latest runs (what
/// `page` and the exports show), for callers that speak the store's
/// errors.
pub fn latest_link_scores(r: &Reader<'_>) -> Result<FxHashMap<PageId, f64>, StoreError> {
    if let Some(kept) = kept_link_scores(r)? {
        return Ok(kept);
    }
    let scores = Ctx::new(r, None).and_then(|ctx| link_scores(&ctx));
    scores.map_err(ReportError::into_store)
}

pub struct Links;

#[derive(Serialize, Deserialize)]
pub struct Item {
    page: PageId,
    score: f64,
    inlinks: u32,
    outlinks: u32,
}

#[derive(Debug, Serialize)]
pub struct LinkRow {
    pub url: String,
    pub link_score: f64,
    pub inlinks: u32,
    /// Pages linking here: inlinks are counted one per page, so this
    /// equals `inlinks`.
    pub unique_inlinks: u32,
    pub outlinks: u32,
    /// The page's links to itself, not among its inlinks.
    pub self_links: u32,
}

impl ListKind for Links {
    type Item = Item;
    type Row = LinkRow;

    /// Best score first, then most inlinks, then page id.
    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let g = graph(ctx)?;
        let scores = scores(ctx)?;
        // The graph's nodes are the scope's pages in order; a page that
        // answered 404 is a node (links reach it) but not a page to rank.
        let records = ctx.pages()?;
        let mut items: Vec<Item> = (0..g.pages.len())
            .filter(|&i| records.get(i).is_some_and(|(_, r)| super::is_ok(r.status)))
            .map(|i| Item {
                page: g.pages[i],
                score: scores[i],
                inlinks: g.inlinks[i],
                outlinks: g.outlinks[i],
            })
            .collect();
        items.sort_by(|a, b| {
            (b.score.total_cmp(&a.score))
                .then(b.inlinks.cmp(&a.inlinks))
                .then(a.page.cmp(&b.page))
        });
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<LinkRow> {
        Ok(LinkRow {
            url: ctx.url(item.page)?,
            link_score: item.score,
            inlinks: item.inlinks,
            unique_inlinks: item.inlinks,
            outlinks: item.outlinks,
            self_links: ctx.r.self_links(item.page)?,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:links").in_pass(Pass::Links))
    }
}

impl Row for LinkRow {
    const COLUMNS: &'static [&'static str] = &[
        "url",
        "link_score",
        "inlinks",
        "unique_inlinks",
        "outlinks",
        "self_links",
    ];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.link_score.to_string(),
            self.inlinks.to_string(),
            self.unique_inlinks.to_string(),
            self.outlinks.to_string(),
            self.self_links.to_string(),
        ]
    }
}

/// Every page's link score, kept for the default view.
const LINK_SCORES: &str = "link_scores";

/// The record [`LINK_SCORES`] keeps, scored afresh.
pub(super) fn kept_record(ctx: &Ctx<'_, '_>) -> Result<(&'static str, Vec<u8>)> {
    Ok((LINK_SCORES, encode_scores(scored(ctx)?)))
}

/// Every page's link score in the default view, when kept and current.
pub fn kept_link_scores(r: &Reader<'_>) -> Result<Option<FxHashMap<PageId, f64>>, StoreError> {
    let Some(bytes) = r.kept(LINK_SCORES)? else {
        return Ok(None);
    };
    Ok(Some(score_records(bytes).collect()))
}

/// One page's link score, when the scores are kept and current: `Some(None)`
/// for a page that has none (not fetched, or outside the view).
pub fn kept_link_score(r: &Reader<'_>, page: PageId) -> Result<Option<Option<f64>>, StoreError> {
    let Some(bytes) = r.kept(LINK_SCORES)? else {
        return Ok(None);
    };
    let n = bytes.len() / SCORE_BYTES;
    let at = |i: usize| record(&bytes[i * SCORE_BYTES..(i + 1) * SCORE_BYTES]);
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let (id, score) = at(mid);
        match id.cmp(&page) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(Some(Some(score))),
        }
    }
    Ok(Some(None))
}

/// A score record: the page id and the score in tenths (scores have one
/// decimal, 0-100), so the f64 read back is the one computed.
const SCORE_BYTES: usize = 6;

/// Scores in page id order (the graph's node order), encoded without a
/// map or a sorted copy of a million of them.
fn encode_scores(scores: impl ExactSizeIterator<Item = (PageId, f64)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(scores.len() * SCORE_BYTES);
    for (page, score) in scores {
        out.extend_from_slice(&page.to_be_bytes());
        out.extend_from_slice(&((score * 10.0).round() as u16).to_be_bytes());
    }
    out
}

fn record(b: &[u8]) -> (PageId, f64) {
    let page = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let tenths = u16::from_be_bytes([b[4], b[5]]);
    (page, f64::from(tenths) / 10.0)
}

fn score_records(bytes: &[u8]) -> impl Iterator<Item = (PageId, f64)> + '_ {
    bytes.chunks_exact(SCORE_BYTES).map(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[&[u32]]) -> Graph {
        let mut g = Graph::of((0..edges.len() as u32).collect());
        for e in edges {
            g.push_node(e.iter().copied());
        }
        g
    }

    #[test]
    fn rank_follows_the_links_and_sums_to_one() {
        // 0 ↔ 1, 2 → 0, 3 → 0 and 3 → 2; 4 links nowhere.
        let g = graph(&[&[1], &[0], &[0], &[0, 2], &[]]);
        let rank = g.page_rank();
        assert!((rank.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let mut order: Vec<usize> = (0..5).collect();
        order.sort_by(|&a, &b| rank[b].total_cmp(&rank[a]));
        assert_eq!(order, [0, 1, 2, 3, 4]);
        assert!((rank[3] - rank[4]).abs() < 1e-12, "no inlinks, same rank");
        let s = scaled(&rank);
        assert_eq!((s[0], s[3]), (100.0, 0.0));
        assert!(s[1] > s[2] && s[2] > s[3]);
    }

    #[test]
    fn links_across_blocks_stay_with_their_node() {
        // Node i links to i + 1 and to 0 (the last node to 0 alone):
        // three blocks, their boundaries inside the ring.
        let n = 2 * BLOCK + 5;
        let edges: Vec<Vec<u32>> = (0..n)
            .map(|i| match i + 1 < n {
                true => vec![i as u32 + 1, 0],
                false => vec![0],
            })
            .collect();
        let refs: Vec<&[u32]> = edges.iter().map(Vec::as_slice).collect();
        let g = graph(&refs);
        assert_eq!(g.blocks.len(), 3);
        for node in [0, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, n - 1] {
            assert_eq!(g.children(node), edges[node], "node {node}");
        }
        let rank = g.page_rank();
        assert!((rank.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        // Down the ring each node passes half its rank on: it falls to
        // where it stays, on both sides of a block's boundary.
        assert!(rank[0] > rank[1] && rank[1] > rank[2]);
        assert!((rank[BLOCK] - rank[BLOCK - 1]).abs() < 1e-15);
    }

    #[test]
    fn equal_pages_all_score_100() {
        let g = graph(&[&[1], &[0]]);
        assert_eq!(scaled(&g.page_rank()), [100.0, 100.0]);
    }
}

//! `report broken`: every URL that failed or answered 4xx/5xx (less the
//! statuses its run's `--accept` lists), with every
//! page that links to it and the link's text there ("found on ... as
//! ..."), the most linked first. A URL reached through redirects is linked
//! from the pages linking to each hop of the chains that lead to it, each
//! with the hops its link went through ("via 301 ...").

use serde::{Deserialize, Serialize};

use super::accepted::Accepted;
use super::kept_lists::{Keeper, Pass};
use super::redirects::{Hop, RedirectsInto, MAX_HOPS};
use super::{opt_cell, Ctx, ListKind, Result, Row};
use crate::html::resources::Element;
use crate::store::prelude::*;
use crate::store::{PageId, UrlState};

pub struct Broken;

/// A broken link target: also what `report external` lists.
#[derive(Serialize, Deserialize)]
pub struct Item {
    pub page: PageId,
    pub status: Option<u16>,
    pub reason: String,
    pub parents: Vec<PageId>,
    /// The redirect chains that end at the URL, each with the pages
    /// linking to its first hop.
    pub chains: Vec<Chain>,
    /// What loads it, when it is a resource of the reported pages.
    pub element: Option<Element>,
}

/// Redirects (with their 3xx) that lead, hop by hop, to a broken URL, and
/// the pages linking to the first of them.
#[derive(Serialize, Deserialize)]
pub struct Chain {
    pub hops: Vec<(PageId, u16)>,
    pub parents: Vec<PageId>,
}

impl Item {
    /// Pages linking to the URL, straight or through redirects.
    fn linked_from(&self) -> usize {
        self.parents.len() + self.chains.iter().map(|c| c.parents.len()).sum::<usize>()
    }
}

#[derive(Debug, Serialize)]
pub struct BrokenRow {
    pub url: String,
    /// The status answered; null when none was (refused, timeout, ...).
    pub status: Option<u16>,
    pub reason: String,
    /// The first `--sources` pages linking to it, straight first.
    pub sources: Vec<Source>,
    /// How many pages link to it, listed or not.
    pub source_count: usize,
    /// The element that loads it (`img`, `script`, ...) when it is a
    /// resource; absent for a link target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<&'static str>,
}

/// A page linking to a broken URL, and the link's text there.
#[derive(Debug, Serialize)]
pub struct Source {
    pub url: String,
    pub anchor: String,
    /// The redirects the link went through, first hop first; absent for
    /// a link straight to the URL.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<Hop>,
}

impl ListKind for Broken {
    type Item = Item;
    type Row = BrokenRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let into = redirects_into(ctx)?;
        let accepted = Accepted::read(ctx.r)?;
        let mut items = Vec::new();
        for (id, state) in ctx.states()? {
            if let UrlState::Failed {
                point,
                gen,
                reason,
                status,
            } = state
            {
                let status = *status;
                if !accepted.is_broken(*point, *gen, status) {
                    continue;
                }
                items.push(Item {
                    page: *id,
                    status,
                    reason: reason.clone(),
                    parents: ctx.r.parents(*id)?,
                    chains: chains_to(ctx, &into, *id)?,
                    element: None,
                });
            }
        }
        add_broken_resources(ctx, &mut items)?;
        most_linked_first(&mut items);
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<BrokenRow> {
        row(ctx, item)
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:broken").in_pass(Pass::Resources))
    }
}

/// Adds the broken resources: a resource crawled as a page too (a frame)
/// that is already a row gets its element; the others are rows of their
/// own, the pages loading them as their sources.
fn add_broken_resources(ctx: &Ctx<'_, '_>, items: &mut Vec<Item>) -> Result<()> {
    let resources = super::resources::items(super::resources::uses(ctx)?);
    for r in resources.into_iter().filter(|r| r.broken()) {
        if let Some(item) = items.iter_mut().find(|i| i.page == r.page) {
            item.element.get_or_insert(r.element);
            continue;
        }
        let Some(check) = r.check else { continue };
        items.push(Item {
            page: r.page,
            status: check.status,
            reason: check.reason.unwrap_or_default(),
            parents: r.sources,
            chains: Vec::new(),
            element: Some(r.element),
        });
    }
    Ok(())
}

/// The redirects of the report's URLs, to walk back from a broken URL.
pub(super) fn redirects_into(ctx: &Ctx<'_, '_>) -> Result<RedirectsInto> {
    let mut into = RedirectsInto::default();
    for (id, state) in ctx.states()? {
        into.add(*id, state);
    }
    Ok(into)
}

/// Every chain of redirects that leads to `end`, with the pages linking
/// to its first hop.
pub(super) fn chains_to(
    ctx: &Ctx<'_, '_>,
    into: &RedirectsInto,
    end: PageId,
) -> Result<Vec<Chain>> {
    let mut chains = Vec::new();
    chains_into(ctx, into, end, &[], &mut chains)?;
    Ok(chains)
}

/// Every chain of redirects that leads to `end` through `hops` (the hops
/// found so far, first hop first), walking back a hop at a time; a loop
/// or an overlong chain ends the walk.
fn chains_into(
    ctx: &Ctx<'_, '_>,
    into: &RedirectsInto,
    end: PageId,
    hops: &[(PageId, u16)],
    out: &mut Vec<Chain>,
) -> Result<()> {
    if hops.len() >= MAX_HOPS {
        return Ok(());
    }
    let first = hops.first().map_or(end, |h| h.0);
    for &(from, status) in into.to(first) {
        if from == end || hops.iter().any(|h| h.0 == from) {
            continue;
        }
        let mut longer = Vec::with_capacity(hops.len() + 1);
        longer.push((from, status));
        longer.extend_from_slice(hops);
        out.push(Chain {
            hops: longer.clone(),
            parents: ctx.r.parents(from)?,
        });
        chains_into(ctx, into, end, &longer, out)?;
    }
    Ok(())
}

pub fn most_linked_first(items: &mut [Item]) {
    items.sort_by(|a, b| {
        b.linked_from()
            .cmp(&a.linked_from())
            .then(a.page.cmp(&b.page))
    });
}

/// A broken target with the pages linking to it, straight or through
/// redirects (as many as the report lists).
pub fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<BrokenRow> {
    let source_count = item.linked_from();
    let text = match item.element {
        Some(_) => AnchorOf::LinkOrAlt,
        None => AnchorOf::Link,
    };
    let mut sources = sources(ctx, item.page, ctx.listed(&item.parents, 0), text)?;
    for chain in &item.chains {
        let parents = ctx.listed(&chain.parents, sources.len());
        if parents.is_empty() {
            break;
        }
        let mut via = Vec::with_capacity(chain.hops.len());
        for &(page, status) in &chain.hops {
            via.push(Hop {
                url: ctx.url(page)?,
                status,
            });
        }
        for mut source in self::sources(ctx, chain.hops[0].0, parents, AnchorOf::Link)? {
            source.via.clone_from(&via);
            sources.push(source);
        }
    }
    Ok(BrokenRow {
        url: ctx.url(item.page)?,
        status: item.status,
        reason: item.reason,
        sources,
        source_count,
        element: item.element.map(Element::as_str),
    })
}

/// Which text of a page stands for its link to a target.
#[derive(Clone, Copy)]
pub enum AnchorOf<'a> {
    /// Its first link's anchor text.
    Link,
    /// That, else the alt text of the image it loads from there.
    LinkOrAlt,
    /// The anchor text of its link with this fragment.
    Fragment(&'a str),
}

/// Each page of `parents` with the text of its link to `target`.
pub fn sources(
    ctx: &Ctx<'_, '_>,
    target: PageId,
    parents: &[PageId],
    text: AnchorOf<'_>,
) -> Result<Vec<Source>> {
    let mut out = Vec::with_capacity(parents.len());
    for &p in parents {
        let links = ctx
            .r
            .occurrences(p)?
            .into_iter()
            .filter(|l| l.child == target);
        let mut anchor = match text {
            AnchorOf::Fragment(f) => links
                .filter(|l| l.fragment.as_deref() == Some(f))
                .map(|l| l.anchor)
                .find(|a| !a.is_empty()),
            AnchorOf::Link | AnchorOf::LinkOrAlt => links.map(|l| l.anchor).find(|a| !a.is_empty()),
        }
        .unwrap_or_default();
        if anchor.is_empty() && matches!(text, AnchorOf::LinkOrAlt) {
            anchor = ctx
                .r
                .resources(p)?
                .into_iter()
                .filter(|r| r.target == target)
                .find_map(|r| r.alt)
                .unwrap_or_default();
        }
        out.push(Source {
            url: ctx.url(p)?,
            anchor,
            via: Vec::new(),
        });
    }
    Ok(out)
}

/// "found on URL as "anchor"" (then "via 301 URL" for each redirect), a
/// line each.
pub fn source_lines(sources: &[Source]) -> Vec<String> {
    sources
        .iter()
        .map(|s| {
            let mut line = format!("found on {} as {:?}", s.url, s.anchor);
            for hop in &s.via {
                line.push_str(&format!(" via {} {}", hop.status, hop.url));
            }
            line
        })
        .collect()
}

/// Source URLs joined with a space, their anchors with ` | `, and the
/// redirects each went through (`301 URL > 302 URL`, empty for a link
/// straight to the target) with ` | ` (empty when every link is).
pub fn source_cells(sources: &[Source]) -> [String; 3] {
    let via = if sources.iter().all(|s| s.via.is_empty()) {
        String::new()
    } else {
        sources
            .iter()
            .map(|s| {
                s.via
                    .iter()
                    .map(|h| format!("{} {}", h.status, h.url))
                    .collect::<Vec<_>>()
                    .join(" > ")
            })
            .collect::<Vec<_>>()
            .join(" | ")
    };
    [
        sources
            .iter()
            .map(|s| s.url.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        sources
            .iter()
            .map(|s| s.anchor.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
        via,
    ]
}

impl Row for BrokenRow {
    const COLUMNS: &'static [&'static str] = &[
        "url",
        "status",
        "reason",
        "sources",
        "anchors",
        "source_count",
        "element",
        "via",
    ];
    fn cells(&self) -> Vec<String> {
        let [sources, anchors, via] = source_cells(&self.sources);
        vec![
            self.url.clone(),
            opt_cell(self.status),
            self.reason.clone(),
            sources,
            anchors,
            self.source_count.to_string(),
            self.element.unwrap_or("").to_string(),
            via,
        ]
    }
    fn table_columns() -> &'static [&'static str] {
        &["url", "status", "reason", "linked from"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            opt_cell(self.status),
            self.reason.clone(),
            self.source_count.to_string(),
        ]
    }
    fn details(&self) -> Vec<String> {
        source_lines(&self.sources)
    }
}

//! `report redirects`: every redirect chain from where it starts (a URL
//! that redirects and that no redirect leads to), hop by hop, with where
//! it ends, the status there, and whether it loops; loops first, then the
//! longest chains.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::kept_lists::Keeper;
use super::{opt_cell, status_of, Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::{PageId, UrlState};

/// Hops followed before a chain is taken for a loop (the crawler gives up
/// after 10, so a longer chain in the store is one).
pub const MAX_HOPS: usize = 32;

pub struct Redirects;

#[derive(Serialize, Deserialize)]
pub struct Item {
    hops: Vec<(PageId, u16)>,
    end: PageId,
    looped: bool,
}

#[derive(Debug, Serialize)]
pub struct RedirectRow {
    pub url: String,
    pub chain: Vec<Hop>,
    #[serde(rename = "final")]
    pub end: String,
    pub final_status: Option<u16>,
    #[serde(rename = "loop")]
    pub looped: bool,
}

/// One redirecting URL and its 3xx code.
#[derive(Debug, Clone, Serialize)]
pub struct Hop {
    pub url: String,
    pub status: u16,
}

impl ListKind for Redirects {
    type Item = Item;
    type Row = RedirectRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let states = ctx.states()?;
        let targets: FxHashSet<PageId> = states
            .iter()
            .filter_map(|(_, s)| match s {
                UrlState::Redirected { to, .. } => Some(*to),
                _ => None,
            })
            .collect();
        let mut items = Vec::new();
        for (id, state) in states {
            if matches!(state, UrlState::Redirected { .. }) && !targets.contains(id) {
                items.push(follow(ctx, *id)?);
            }
        }
        items.sort_by(|a, b| {
            b.looped
                .cmp(&a.looped)
                .then(b.hops.len().cmp(&a.hops.len()))
                .then(a.hops[0].0.cmp(&b.hops[0].0))
        });
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<RedirectRow> {
        let mut chain = Vec::with_capacity(item.hops.len());
        for &(page, status) in &item.hops {
            chain.push(Hop {
                url: ctx.url(page)?,
                status,
            });
        }
        Ok(RedirectRow {
            url: chain[0].url.clone(),
            chain,
            end: ctx.url(item.end)?,
            final_status: if item.looped {
                None
            } else {
                status_of(ctx.r, item.end)?
            },
            looped: item.looped,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:redirects"))
    }
}

/// The redirects leading to each URL, with their 3xx: the way back from a
/// chain's end to where it starts. Filled from every URL's state.
#[derive(Default)]
pub struct RedirectsInto(FxHashMap<PageId, Vec<(PageId, u16)>>);

impl RedirectsInto {
    /// Notes `page`'s state: a redirect leads to its target.
    pub fn add(&mut self, page: PageId, state: &UrlState) {
        if let UrlState::Redirected { to, status, .. } = state {
            self.0.entry(*to).or_default().push((page, *status));
        }
    }

    /// The redirecting URLs whose hop leads straight to `page`.
    pub fn to(&self, page: PageId) -> &[(PageId, u16)] {
        self.0.get(&page).map_or(&[], Vec::as_slice)
    }
}

/// The chain from `start` (a redirected URL) to the first URL that does
/// not redirect. The crawler refuses the hop that closes a loop and fails
/// that URL with `redirect loop (...)`, so a loop ends there.
fn follow(ctx: &Ctx<'_, '_>, start: PageId) -> Result<Item> {
    let mut hops = Vec::new();
    let mut seen = FxHashSet::default();
    let mut at = start;
    loop {
        let state = ctx.r.url_state(at)?;
        match state {
            Some(UrlState::Redirected { to, status, .. }) => {
                if !seen.insert(at) || hops.len() >= MAX_HOPS {
                    return Ok(Item {
                        hops,
                        end: at,
                        looped: true,
                    });
                }
                hops.push((at, status));
                at = to;
            }
            Some(UrlState::Failed { ref reason, .. }) if reason.starts_with("redirect loop") => {
                return Ok(Item {
                    hops,
                    end: at,
                    looped: true,
                })
            }
            _ => {
                return Ok(Item {
                    hops,
                    end: at,
                    looped: false,
                })
            }
        }
    }
}

impl Row for RedirectRow {
    const COLUMNS: &'static [&'static str] = &[
        "url",
        "chain",
        "chain_status",
        "final",
        "final_status",
        "loop",
    ];
    fn cells(&self) -> Vec<String> {
        let join =
            |f: &dyn Fn(&Hop) -> String| self.chain.iter().map(f).collect::<Vec<_>>().join(" ");
        vec![
            self.url.clone(),
            join(&|h| h.url.clone()),
            join(&|h| h.status.to_string()),
            self.end.clone(),
            opt_cell(self.final_status),
            self.looped.to_string(),
        ]
    }
    fn table_columns() -> &'static [&'static str] {
        &["url", "hops", "final", "final_status", "loop"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.chain.len().to_string(),
            self.end.clone(),
            opt_cell(self.final_status),
            if self.looped { "loop" } else { "" }.to_string(),
        ]
    }
    fn details(&self) -> Vec<String> {
        self.chain
            .iter()
            .map(|h| format!("{} {}", h.status, h.url))
            .collect()
    }
}

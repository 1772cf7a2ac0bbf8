//! `report fragments`: links to `page#frag` whose target, an HTML page a
//! fragment-checking run fetched, has no element with that `id` or
//! `name`, each with the pages linking so and that link's own text there, the
//! most linked first. Only pages a run with `--check-fragments` reached
//! count as sources; a target without a record (not HTML, not fetched by
//! such a run) is not known, so never a finding.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::broken::{source_cells, source_lines, sources, AnchorOf, Source};
use super::kept_lists::Keeper;
use super::{Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::{FragmentRecord, PageId, UrlState};

pub struct Fragments;

/// A fragment no element of its target has, and the pages linking to it.
#[derive(Serialize, Deserialize)]
pub struct Item {
    target: PageId,
    fragment: String,
    sources: Vec<PageId>,
}

#[derive(Debug, Serialize)]
pub struct FragmentRow {
    pub url: String,
    pub fragment: String,
    /// The first `--sources` pages linking so.
    pub sources: Vec<Source>,
    /// How many pages link so, listed or not.
    pub source_count: usize,
}

impl ListKind for Fragments {
    type Item = Item;
    type Row = FragmentRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let checking: FxHashSet<(u32, u32)> = ctx
            .r
            .runs(None)?
            .into_iter()
            .filter(|(_, run)| run.flags.check_fragments)
            .map(|(_, run)| (run.point, run.gen))
            .collect();
        if checking.is_empty() {
            return Ok(Vec::new());
        }
        let records: FxHashMap<PageId, FragmentRecord> =
            ctx.r.all_fragments()?.into_iter().collect();
        let mut missing: FxHashMap<(PageId, &str), Vec<PageId>> = FxHashMap::default();
        for (page, state) in ctx.states()? {
            let UrlState::Done { point, gen } = state else {
                continue;
            };
            let Some(rec) = records.get(page) else {
                continue;
            };
            if !checking.contains(&(*point, *gen)) {
                continue;
            }
            for (target, fragment) in &rec.links {
                if records.get(target).is_some_and(|t| !t.has_id(fragment)) {
                    missing
                        .entry((*target, fragment.as_str()))
                        .or_default()
                        .push(*page);
                }
            }
        }
        let mut items: Vec<Item> = missing
            .into_iter()
            .map(|((target, fragment), sources)| Item {
                target,
                fragment: fragment.to_string(),
                sources,
            })
            .collect();
        items.sort_by(|a, b| {
            b.sources
                .len()
                .cmp(&a.sources.len())
                .then(a.target.cmp(&b.target))
                .then(a.fragment.cmp(&b.fragment))
        });
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, mut item: Item) -> Result<FragmentRow> {
        item.sources.sort_unstable();
        Ok(FragmentRow {
            url: ctx.url(item.target)?,
            source_count: item.sources.len(),
            sources: sources(
                ctx,
                item.target,
                ctx.listed(&item.sources, 0),
                AnchorOf::Fragment(&item.fragment),
            )?,
            fragment: item.fragment,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:fragments"))
    }
}

impl Row for FragmentRow {
    const COLUMNS: &'static [&'static str] = &["url", "fragment", "sources", "anchors"];
    fn cells(&self) -> Vec<String> {
        let [sources, anchors, _] = source_cells(&self.sources);
        vec![self.url.clone(), self.fragment.clone(), sources, anchors]
    }
    /// The page to fix first: the first page holding the link, which the
    /// console's Findings pane opens in the graph.
    fn table_columns() -> &'static [&'static str] {
        &["url", "links to", "linked from"]
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.sources
                .first()
                .map(|s| s.url.clone())
                .unwrap_or_default(),
            format!("{}#{}", self.url, self.fragment),
            self.source_count.to_string(),
        ]
    }
    fn details(&self) -> Vec<String> {
        source_lines(&self.sources)
    }
}

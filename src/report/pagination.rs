//! `report pagination`: what is wrong with the `rel=next` / `rel=prev`
//! targets of each page (`<link>` or `<a>`): a target that answered other
//! than 200 (`target_not_200`) or may not be indexed
//! (`target_not_indexable`), and a sequence that does not hold
//! (`sequence_broken`: the next page's prev, or the prev page's next, is
//! not this page; known only of targets fetched as pages).

use serde::Serialize;

use super::audit_pages::{id_of, target, Audited, Target};
use super::{Ctx, ListKind, Result, Row};
use crate::store::PageId;

pub struct Pagination;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    /// snake_case would write `target_not200`.
    #[serde(rename = "target_not_200")]
    TargetNot200,
    TargetNotIndexable,
    SequenceBroken,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::TargetNot200 => "target_not_200",
            Issue::TargetNotIndexable => "target_not_indexable",
            Issue::SequenceBroken => "sequence_broken",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rel {
    Next,
    Prev,
}

pub struct Item {
    page: PageId,
    issue: Issue,
    rel: Rel,
    target: String,
}

#[derive(Debug, Serialize)]
pub struct PaginationRow {
    pub url: String,
    pub issue: Issue,
    pub rel: Rel,
    pub target: String,
}

impl ListKind for Pagination {
    type Item = Item;
    type Row = PaginationRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let pages = Audited::read(ctx, |f| f.next.is_some() || f.prev.is_some())?;
        let facts_at = |id: PageId| pages.facts_of(id);
        let mut items = Vec::new();
        for (page, facts) in pages.kept() {
            let rels = [(Rel::Next, &facts.next), (Rel::Prev, &facts.prev)];
            for (rel, url) in rels {
                let Some(url) = url else {
                    continue;
                };
                let Some(id) = id_of(ctx, url)? else {
                    continue;
                };
                let issue = match target(ctx, id)? {
                    Target::Not200 => Some(Issue::TargetNot200),
                    Target::NotIndexable => Some(Issue::TargetNotIndexable),
                    Target::Unknown => None,
                    Target::Ok => {
                        // The target's own link the other way.
                        let back = facts_at(id).map(|f| match rel {
                            Rel::Next => &f.prev,
                            Rel::Prev => &f.next,
                        });
                        match back {
                            Some(Some(b)) if id_of(ctx, b)? == Some(*page) => None,
                            Some(_) => Some(Issue::SequenceBroken),
                            None => None,
                        }
                    }
                };
                if let Some(issue) = issue {
                    items.push(Item {
                        page: *page,
                        issue,
                        rel,
                        target: url.clone(),
                    });
                }
            }
        }
        items.sort_by_key(|a| (a.issue, a.page, a.rel));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<PaginationRow> {
        Ok(PaginationRow {
            url: ctx.url(item.page)?,
            issue: item.issue,
            rel: item.rel,
            target: item.target,
        })
    }
}

impl Row for PaginationRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "rel", "target"];
    fn cells(&self) -> Vec<String> {
        let rel = match self.rel {
            Rel::Next => "next",
            Rel::Prev => "prev",
        };
        vec![
            self.url.clone(),
            self.issue.as_str().to_string(),
            rel.to_string(),
            self.target.clone(),
        ]
    }
}

//! `report hreflang`: what is wrong with the `<link rel=alternate
//! hreflang>` alternates of each page that has some. Per alternate: a code
//! that is no language[-script][-region] nor `x-default`
//! (`invalid_code`), a target that answered other than 200
//! (`target_not_200`) or may not be indexed (`target_not_indexable`), a
//! target page that does not name the page back (`no_return_link`, known
//! only of targets fetched as pages); per page: no alternate naming the
//! page itself (`no_self_reference`), none `x-default` (`no_x_default`).

use serde::Serialize;

use super::audit_pages::{id_of, target, Audited, Target};
use super::{Ctx, ListKind, Result, Row};
use crate::html::audit_facts::valid_hreflang;
use crate::store::PageId;

pub struct Hreflang;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    /// snake_case would write `target_not200`.
    #[serde(rename = "target_not_200")]
    TargetNot200,
    TargetNotIndexable,
    NoReturnLink,
    InvalidCode,
    NoSelfReference,
    NoXDefault,
}

impl Issue {
    fn as_str(self) -> &'static str {
        match self {
            Issue::TargetNot200 => "target_not_200",
            Issue::TargetNotIndexable => "target_not_indexable",
            Issue::NoReturnLink => "no_return_link",
            Issue::InvalidCode => "invalid_code",
            Issue::NoSelfReference => "no_self_reference",
            Issue::NoXDefault => "no_x_default",
        }
    }
}

pub struct Item {
    page: PageId,
    issue: Issue,
    /// The alternate's code and target (None for an issue of the page).
    alternate: Option<(String, String)>,
}

#[derive(Debug, Serialize)]
pub struct HreflangRow {
    pub url: String,
    pub issue: Issue,
    pub hreflang: Option<String>,
    pub target: Option<String>,
}

impl ListKind for Hreflang {
    type Item = Item;
    type Row = HreflangRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let pages = Audited::read(ctx, |f| !f.hreflang.is_empty())?;
        let alternates_of = |id: PageId| pages.facts_of(id).map(|f| &f.hreflang);
        let mut items = Vec::new();
        for (page, facts) in pages.kept() {
            let mut push = |issue, alternate: Option<&(String, String)>| {
                items.push(Item {
                    page: *page,
                    issue,
                    alternate: alternate.cloned(),
                })
            };
            let mut named_self = false;
            for alt @ (code, url) in &facts.hreflang {
                if !valid_hreflang(code) {
                    push(Issue::InvalidCode, Some(alt));
                }
                let Some(id) = id_of(ctx, url)? else {
                    continue;
                };
                if id == *page {
                    named_self = true;
                    continue;
                }
                match target(ctx, id)? {
                    Target::Not200 => push(Issue::TargetNot200, Some(alt)),
                    Target::NotIndexable => push(Issue::TargetNotIndexable, Some(alt)),
                    Target::Ok => {
                        if let Some(back) = alternates_of(id) {
                            let mut names_page = false;
                            for (_, t) in back {
                                names_page |= id_of(ctx, t)? == Some(*page);
                            }
                            if !names_page {
                                push(Issue::NoReturnLink, Some(alt));
                            }
                        }
                    }
                    Target::Unknown => {}
                }
            }
            if !named_self {
                push(Issue::NoSelfReference, None);
            }
            if !facts
                .hreflang
                .iter()
                .any(|(c, _)| c.eq_ignore_ascii_case("x-default"))
            {
                push(Issue::NoXDefault, None);
            }
        }
        items.sort_by_key(|a| (a.issue, a.page));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<HreflangRow> {
        let (hreflang, target) = item.alternate.unzip();
        Ok(HreflangRow {
            url: ctx.url(item.page)?,
            issue: item.issue,
            hreflang,
            target,
        })
    }
}

impl Row for HreflangRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "hreflang", "target"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            self.issue.as_str().to_string(),
            self.hreflang.clone().unwrap_or_default(),
            self.target.clone().unwrap_or_default(),
        ]
    }
}

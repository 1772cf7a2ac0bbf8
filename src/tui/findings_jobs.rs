//! The Findings pane's store work: the counts per kind (`report summary`'s
//! own, one read), a kind's rows as the pane lists them, and a kind written
//! as CSV (`report --csv`'s lines). Like [`jobs`](super::jobs) they block
//! and run on the blocking pool, never on the thread that draws.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::outfile::PartFile;
use crate::report::{self as rep, Ctx, Kind, ListKind, Row};
use crate::store::prelude::*;
use crate::store::{PageId, Store};

/// Rows the pane lists of one kind; the rest are counted (the export
/// writes them all).
pub(crate) const LIST_ROWS: usize = 10_000;

/// How many findings of each kind there are, as `report summary` counts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Counts {
    /// Kind name and count, in the summary's order.
    pub kinds: Vec<(&'static str, usize)>,
    /// Whether any external link was checked: zero broken external links
    /// means nothing until one was.
    pub external: ExternalChecked,
    /// The runs counted, as the pane's title names them (`as of run 3`).
    pub as_of: Option<String>,
}

/// Whether `--check-external` checked any link, and if not, why not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ExternalChecked {
    Yes,
    /// The crawl checks them, but no page linked out of scope.
    NoneFound,
    /// No crawl asked for the checks.
    No,
}

/// One finding as the pane lists it: the page to open in the graph (for a
/// broken link, the target), its URL and what is wrong, in words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FindingRow {
    pub page: PageId,
    pub url: String,
    pub issue: String,
}

/// A kind's first rows and how many it has in all.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub kind: &'static str,
    pub rows: Vec<FindingRow>,
    pub total: usize,
}

pub(crate) fn counts(store: &Store) -> Result<Counts, String> {
    rep::kept::ensure(store);
    let r = store.read().map_err(|e| e.to_string())?;
    let ctx = Ctx::new(&r, None).map_err(|e| e.to_string())?;
    let s = rep::summary::summary(&ctx).map_err(|e| e.to_string())?;
    Ok(Counts {
        kinds: s.findings.into_iter().collect(),
        external: external_checked(&ctx).map_err(|e| e.to_string())?,
        as_of: ctx.as_of(|run| format!("run {}", run.id)),
    })
}

/// What `report external` would say of the checks, as the pane tells it.
fn external_checked(ctx: &Ctx<'_, '_>) -> rep::Result<ExternalChecked> {
    Ok(if rep::external::any_checked(ctx)? {
        ExternalChecked::Yes
    } else if rep::external::nothing_checked(ctx)? == rep::external::NONE_FOUND {
        ExternalChecked::NoneFound
    } else {
        ExternalChecked::No
    })
}

pub(crate) fn list(store: &Store, kind: &'static str) -> Result<Listed, String> {
    let r = store.read().map_err(|e| e.to_string())?;
    let ctx = Ctx::new(&r, None).map_err(|e| e.to_string())?;
    let (rows, total) = visit(kind, Rows { ctx: &ctx })??;
    Ok(Listed { kind, rows, total })
}

/// Writes every row of `kind` to `crawlscope-findings-KIND.csv` in `dir`,
/// whole or not at all; says where and how many rows.
pub(crate) fn export(store: &Store, kind: &'static str, dir: &Path) -> Result<String, String> {
    let path = dir.join(format!("crawlscope-findings-{kind}.csv"));
    let r = store.read().map_err(|e| e.to_string())?;
    let ctx = Ctx::new(&r, None).map_err(|e| e.to_string())?;
    let n = visit(
        kind,
        Csv {
            ctx: &ctx,
            path: &path,
        },
    )??;
    Ok(format!("{n} {kind} rows written to {}", path.display()))
}

/// Something done with one list kind, whichever it is.
trait Visit {
    type Out;
    fn visit<K: ListKind>(self) -> Self::Out;
}

/// Runs `v` on the list kind named `kind` (a name `report summary` counts).
fn visit<V: Visit>(kind: &str, v: V) -> Result<V::Out, String> {
    let unknown = || format!("{kind} is not a list kind");
    Ok(match Kind::from_str(kind, false).map_err(|_| unknown())? {
        Kind::Broken => v.visit::<rep::broken::Broken>(),
        Kind::Redirects => v.visit::<rep::redirects::Redirects>(),
        Kind::Titles => v.visit::<rep::titles::Titles>(),
        Kind::Descriptions => v.visit::<rep::descriptions::Descriptions>(),
        Kind::Headings => v.visit::<rep::headings::Headings>(),
        Kind::Duplicates => v.visit::<rep::duplicates::Duplicates>(),
        Kind::Directives => v.visit::<rep::directives::Directives>(),
        Kind::Canonicals => v.visit::<rep::canonicals::Canonicals>(),
        Kind::External => v.visit::<rep::external::External>(),
        Kind::NearDuplicates => v.visit::<rep::near_duplicates::NearDuplicates>(),
        Kind::Fragments => v.visit::<rep::fragments::Fragments>(),
        Kind::Resources => v.visit::<rep::resources::BrokenResources>(),
        Kind::Images => v.visit::<rep::images::Images>(),
        // Not findings: `report summary` does not count them.
        Kind::Slow
        | Kind::Large
        | Kind::Mimetypes
        | Kind::Hosts
        | Kind::Summary
        | Kind::Depth
        | Kind::Changes => return Err(unknown()),
        Kind::Indexability => v.visit::<rep::indexability::NonIndexable>(),
        Kind::Sitemaps => v.visit::<rep::sitemaps::Sitemaps>(),
        // Every page has a row: a listing, not findings.
        Kind::Links => return Err(unknown()),
        Kind::Javascript => v.visit::<rep::javascript::Javascript>(),
        Kind::Hreflang => v.visit::<rep::hreflang::Hreflang>(),
        Kind::StructuredData => v.visit::<rep::structured_data::StructuredData>(),
        Kind::Pagination => v.visit::<rep::pagination::Pagination>(),
        Kind::Security => v.visit::<rep::security::Security>(),
    })
}

struct Rows<'c, 'a, 's> {
    ctx: &'c Ctx<'a, 's>,
}

impl Visit for Rows<'_, '_, '_> {
    type Out = Result<(Vec<FindingRow>, usize), String>;

    fn visit<K: ListKind>(self) -> Self::Out {
        let listing = rep::list::<K>(self.ctx, LIST_ROWS).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for (url, issue) in listing.rows.iter().flat_map(url_and_issue) {
            out.push(FindingRow {
                page: page_of(self.ctx, &url)?,
                url,
                issue,
            });
        }
        Ok((out, listing.total))
    }
}

/// A row's URL and the rest of its table cells as words. A row that names
/// a group rather than a page (duplicates) gives a line per URL it lists;
/// a pair (near-duplicates) opens its first page, `a`.
fn url_and_issue<R: Row>(row: &R) -> Vec<(String, String)> {
    let cols = R::table_columns();
    let cells = row.table_cells();
    let words = |cols: &[&str], cells: &[String]| {
        cols.iter()
            .zip(cells)
            .filter(|(_, c)| !c.is_empty())
            .map(|(k, c)| format!("{k}: {c}"))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    if matches!(cols.first(), Some(&"url") | Some(&"a")) {
        let url = cells.first().cloned().unwrap_or_default();
        vec![(url, words(&cols[1..], cells.get(1..).unwrap_or_default()))]
    } else {
        let issue = words(cols, &cells);
        row.details()
            .into_iter()
            .map(|url| (url, issue.clone()))
            .collect()
    }
}

/// The page a listed URL names: every listed URL comes from the store, so
/// one it does not know is a damaged store.
fn page_of(ctx: &Ctx<'_, '_>, url: &str) -> Result<PageId, String> {
    let missing = || format!("the store is damaged: listed URL {url} has no page id");
    let parsed = url::Url::parse(url).map_err(|_| missing())?;
    ctx.r
        .page_id(&parsed)
        .map_err(|e| e.to_string())?
        .ok_or_else(missing)
}

struct Csv<'c, 'a, 's> {
    ctx: &'c Ctx<'a, 's>,
    path: &'c PathBuf,
}

impl Visit for Csv<'_, '_, '_> {
    type Out = Result<usize, String>;

    fn visit<K: ListKind>(self) -> Self::Out {
        let listing = rep::list::<K>(self.ctx, usize::MAX).map_err(|e| e.to_string())?;
        let mut file = PartFile::create(self.path).map_err(|e| e.to_string())?;
        let write_err = |e: std::io::Error| format!("cannot write {}: {e}", self.path.display());
        for line in rep::csv_lines(&listing.rows) {
            writeln!(file, "{line}").map_err(write_err)?;
        }
        file.commit().map_err(|e| e.to_string())?;
        Ok(listing.rows.len())
    }
}

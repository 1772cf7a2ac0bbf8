//! Findings: what a crawl found, one file per kind, each reading one store
//! snapshot through [`Ctx`]. List kinds find their items worst first as
//! ids (cheap, so `summary` can count every kind) and turn only the rows
//! shown into URLs and text ([`ListKind`]); `summary`, `depth` and
//! `changes` answer one object each. Faces print the rows ([`Row`]).

pub mod accepted;
mod audit_pages;
pub mod broken;
pub mod canonicals;
pub mod changes;
pub mod custom;
pub mod depth;
pub mod descriptions;
pub mod directives;
pub mod duplicates;
pub mod external;
pub mod fragments;
pub mod headings;
pub mod hosts;
pub mod hreflang;
pub mod http_links;
pub mod images;
pub mod indexability;
pub mod javascript;
pub mod kept;
pub mod kept_lists;
pub mod kinds;
pub mod large;
pub mod link_depth;
pub mod links;
pub mod mimetypes;
pub mod near_duplicates;
pub mod page_facts;
pub mod pagination;
pub mod pixels;
pub mod redirects;
pub mod resources;
pub mod scope;
pub mod security;
mod shared;
pub mod sitemaps;
pub mod slow;
pub mod structured_data;
pub mod summary;
pub mod titles;

use std::cell::{OnceCell, RefCell};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::store::prelude::*;
use crate::store::{MimeId, MimeRecord, PageId, PageRecord, PointId, Reader, StoreError, UrlState};
pub use kinds::Kind;
pub use page_facts::PageFacts;
pub use scope::{NamedRun, Scope};

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no crawl point {0} (crawlscope point list)")]
    NoPoint(PointId),
    #[error("no run {0} (crawlscope runs)")]
    NoRun(crate::store::RunId),
    #[error("run {run} is not a run of crawl point {point}")]
    RunOfAnotherPoint {
        run: crate::store::RunId,
        point: PointId,
    },
    #[error("several crawl points have runs to compare ({0}): give --point ID")]
    PointNeeded(String),
    #[error(transparent)]
    Doc(#[from] crate::documents::DocError),
    #[error("no --{kind} rule named {name:?} on the points reported (rules: {known})")]
    NoRule {
        kind: &'static str,
        name: String,
        known: String,
    },
    #[error("run {run} is not a run of a crawl point of document {doc:?}")]
    RunOutsideDocument {
        run: crate::store::RunId,
        doc: String,
    },
}

pub type Result<T, E = ReportError> = std::result::Result<T, E>;

impl ReportError {
    /// For a store-wide figure read by callers that speak the store's
    /// errors: a report's own error (a point or run gone) is the store
    /// not saying what it should.
    pub fn into_store(self) -> StoreError {
        match self {
            ReportError::Store(e) => e,
            other => StoreError::corrupt(other.to_string()),
        }
    }
}

/// One row of a list report: its JSON object (the `Serialize` impl) and
/// its cells for CSV and tables, list fields joined with a space (texts
/// that hold spaces themselves, anchors and headings, with ` | `).
pub trait Row: Serialize {
    const COLUMNS: &'static [&'static str];
    fn cells(&self) -> Vec<String>;

    /// The columns of the table people read (default: the CSV's); what a
    /// row lists at length goes in [`Row::details`] instead.
    fn table_columns() -> &'static [&'static str] {
        Self::COLUMNS
    }
    fn table_cells(&self) -> Vec<String> {
        self.cells()
    }
    /// Lines printed under the row in the table.
    fn details(&self) -> Vec<String> {
        Vec::new()
    }
    /// Whether the row is a finding: a kind that lists more than it
    /// counts (`resources`: every resource) says which rows pass.
    fn is_finding(&self) -> bool {
        true
    }
}

/// A CSV header line then a line per row, fields as [`csv_field`] quotes
/// them: what `report --csv` prints and the console's export writes.
pub fn csv_lines<R: Row>(rows: &[R]) -> impl Iterator<Item = String> + '_ {
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .map(|c| csv_field(c))
            .collect::<Vec<_>>()
            .join(",")
    };
    let head = R::COLUMNS.iter().map(|c| c.to_string()).collect();
    std::iter::once(line(head)).chain(rows.iter().map(move |r| line(r.cells())))
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a
/// line break, quotes doubled.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A kind that answers a list, worst first.
pub trait ListKind {
    /// A finding as ids: what counting needs.
    type Item;
    type Row: Row;
    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>>;
    fn row(ctx: &Ctx<'_, '_>, item: Self::Item) -> Result<Self::Row>;
    /// How the items are kept for the default view ([`kept_lists`]);
    /// None: not kept (finding them reads little).
    fn keeper() -> Option<kept_lists::Keeper<Self::Item>> {
        None
    }
}

/// The first `limit` rows of a list kind and how many there are in all.
pub struct Listing<R> {
    pub rows: Vec<R>,
    pub total: usize,
}

/// The items read from the kept findings when they are current, else
/// found afresh.
pub fn list<K: ListKind>(ctx: &Ctx<'_, '_>, limit: usize) -> Result<Listing<K::Row>> {
    let items = match kept_lists::read::<K>(ctx)? {
        Some(items) => items,
        None => K::find(ctx)?,
    };
    listing::<K>(ctx, items, limit)
}

/// The first `limit` of a kind's `items` as rows, and how many there are
/// (for a kind found with settings of its own: `near-duplicates`).
pub fn listing<K: ListKind>(
    ctx: &Ctx<'_, '_>,
    items: Vec<K::Item>,
    limit: usize,
) -> Result<Listing<K::Row>> {
    let total = items.len();
    let rows = items
        .into_iter()
        .take(limit)
        .map(|i| K::row(ctx, i))
        .collect::<Result<_>>()?;
    Ok(Listing { rows, total })
}

/// One snapshot of the store as the reports read it, restricted to a
/// crawl point's URLs when one is given. Tables are read once, on first
/// use, and shared by every kind (`summary` runs them all).
pub struct Ctx<'a, 's> {
    pub r: &'a Reader<'s>,
    point: Option<PointId>,
    scope: Scope,
    /// The runs whose URLs the scope covers (None: all), and the runs it
    /// names; the URLs are read on first use.
    plan: Option<scope::Plan>,
    view: OnceCell<scope::View>,
    named: Vec<NamedRun>,
    states: OnceCell<Vec<(PageId, UrlState)>>,
    pages: OnceCell<Vec<(PageId, PageFacts)>>,
    urls: RefCell<FxHashMap<PageId, String>>,
    mimes: RefCell<FxHashMap<MimeId, Option<MimeRecord>>>,
    /// `--doc`: the document's crawl points, the only ones reported.
    doc_points: Option<FxHashSet<PointId>>,
    /// The resource tables, read once for every kind that needs them.
    resource_uses: OnceCell<resources::Uses>,
    /// Item counts of the kinds already found in this snapshot, by their
    /// kept names: the crawl-end pass finds each kind once.
    found: RefCell<FxHashMap<&'static str, usize>>,
    /// The link graph and its nodes' link scores, read and ranked once
    /// for every kind that needs them.
    graph: OnceCell<links::Graph>,
    link_depths: OnceCell<link_depth::LinkDepths>,
    scores: OnceCell<Vec<f64>>,
    /// How many of a row's sources are turned into URLs ([`SOURCES`]).
    sources: usize,
    /// `--name`: the one `--extract`/`--search` rule `extract` and
    /// `search` list (None: every rule).
    rule: Option<String>,
}

/// A row's sources listed unless asked otherwise: a stylesheet every page
/// of a million-page site loads has a million, and each listed one is a
/// URL (and a link record) to read.
pub const SOURCES: usize = 100;

impl<'a, 's> Ctx<'a, 's> {
    /// A context over `r` as of each point's latest runs; `point` must
    /// exist.
    pub fn new(r: &'a Reader<'s>, point: Option<PointId>) -> Result<Ctx<'a, 's>> {
        Ctx::with_scope(r, point, Scope::Latest)
    }

    /// A context over `r` for the runs `scope` asks for.
    pub fn with_scope(
        r: &'a Reader<'s>,
        point: Option<PointId>,
        scope: Scope,
    ) -> Result<Ctx<'a, 's>> {
        if let Some(p) = point {
            if r.point(p)?.is_none() {
                return Err(ReportError::NoPoint(p));
            }
        }
        let (view, named) = scope::view(r, point, scope)?;
        Ok(Ctx::of(r, point, scope, view, named))
    }

    fn of(
        r: &'a Reader<'s>,
        point: Option<PointId>,
        scope: Scope,
        plan: Option<scope::Plan>,
        named: Vec<NamedRun>,
    ) -> Ctx<'a, 's> {
        Ctx {
            r,
            point,
            scope,
            plan,
            view: OnceCell::new(),
            named,
            states: OnceCell::new(),
            pages: OnceCell::new(),
            urls: RefCell::default(),
            mimes: RefCell::default(),
            doc_points: None,
            resource_uses: OnceCell::new(),
            found: RefCell::default(),
            graph: OnceCell::new(),
            link_depths: OnceCell::new(),
            scores: OnceCell::new(),
            sources: SOURCES,
            rule: None,
        }
    }

    /// A context over what the crawl points of document `doc` reached in
    /// the runs `scope` asks for (`report --doc`).
    pub fn for_document(r: &'a Reader<'s>, doc: &str, scope: Scope) -> Result<Ctx<'a, 's>> {
        let points = crate::documents::points_of(r, doc)?;
        let (view, named) = scope::view_of_points(r, &points, scope, doc)?;
        let mut ctx = Ctx::of(r, None, scope, Some(view), named);
        ctx.doc_points = Some(points.into_iter().collect());
        Ok(ctx)
    }

    /// Lists the first `n` of a row's sources (0: all of them).
    pub fn listing_sources(mut self, n: usize) -> Self {
        self.sources = if n == 0 { usize::MAX } else { n };
        self
    }

    /// Lists only the findings of the `--extract`/`--search` rule `name`.
    pub fn of_rule(mut self, name: Option<String>) -> Self {
        self.rule = name;
        self
    }

    /// Whether a custom rule's findings are listed (see [`Ctx::of_rule`]).
    pub fn lists_rule(&self, name: &str) -> bool {
        self.rule.as_deref().is_none_or(|r| r == name)
    }

    /// The first of `pages` a row lists after `listed` sources (see
    /// [`Ctx::listing_sources`]).
    pub fn listed<'p>(&self, pages: &'p [PageId], listed: usize) -> &'p [PageId] {
        &pages[..pages.len().min(self.sources.saturating_sub(listed))]
    }

    /// Whether the report covers crawl point `p`'s findings: every point's
    /// without `--point` or `--doc`.
    pub fn covers_point(&self, p: PointId) -> bool {
        self.point.is_none_or(|only| only == p)
            && self.doc_points.as_ref().is_none_or(|set| set.contains(&p))
    }

    /// Whether the report covers only some crawl points' URLs.
    pub fn scoped(&self) -> bool {
        self.point.is_some() || self.doc_points.is_some()
    }

    pub fn point(&self) -> Option<PointId> {
        self.point
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The runs the report answers for: the one asked for, else each
    /// point's latest (none with `--all-runs`).
    pub fn named_runs(&self) -> &[NamedRun] {
        &self.named
    }

    /// The runs (store-wide ids) the rows may come from when some are
    /// older than the runs named (a partial run refreshes its complete
    /// run's view): empty when the named runs alone give them.
    pub fn rows_from_runs(&self) -> Vec<crate::store::RunId> {
        let mut ids = self
            .plan
            .as_ref()
            .map_or(Vec::new(), |p| p.rows_from().to_vec());
        ids.sort_unstable();
        ids
    }

    /// Whether the report counts run `id`'s work: every run's when it
    /// covers every run of the store.
    pub fn counts_run(&self, id: crate::store::RunId) -> bool {
        self.plan.as_ref().is_none_or(|p| p.ids().any(|i| i == id))
    }

    /// The runs the report answers for, each said by `describe`: with
    /// [`NamedRun::describe`], the text header's `as of point 1, run 3
    /// (2026-11-27T02:12:08Z, finished)` (each point's, joined with `; `),
    /// then `; rows from runs 1, 3` when some come from older runs; `as of
    /// all runs`; None when no run is named.
    pub fn as_of(&self, describe: impl Fn(&NamedRun) -> String) -> Option<String> {
        if self.scope == Scope::AllRuns {
            return Some("as of all runs".to_string());
        }
        if self.named.is_empty() {
            return None;
        }
        let runs: Vec<String> = self.named.iter().map(describe).collect();
        let mut text = format!("as of {}", runs.join("; "));
        let older = self.rows_from_runs();
        if !older.is_empty() {
            let ids: Vec<String> = older.iter().map(|id| id.to_string()).collect();
            text.push_str(&format!("; rows from runs {}", ids.join(", ")));
        }
        Some(text)
    }

    /// The state of every URL the scope covers (see [`scope`]): those its
    /// runs decided on last, and those they reached whose state another
    /// run wrote since. A URL queued or claimed again reads as the fact an
    /// earlier run left, which a run stopped before reaching it keeps.
    pub fn states(&self) -> Result<&[(PageId, UrlState)]> {
        if let Some(s) = self.states.get() {
            return Ok(s);
        }
        let view = self.view()?;
        // Sized once: growing a million states by doubling would hold
        // up to three times their size while it copies.
        let mut out = Vec::with_capacity(capacity(self.r.url_count()?));
        self.r.for_each_state(|id, state| {
            match view {
                None => out.push((id, state.known())),
                Some(v) => out.extend(v.state_of(id, state).map(|s| (id, s))),
            }
            Ok(true)
        })?;
        // The table is read in key order (ids ascending), which
        // [`Ctx::includes`] searches.
        if !out.is_sorted_by_key(|(id, _)| *id) {
            out.sort_by_key(|(id, _)| *id);
        }
        fit(&mut out);
        Ok(self.states.get_or_init(|| out))
    }

    /// The URLs the scope covers, read on first use; None: every URL.
    fn view(&self) -> Result<Option<&scope::View>> {
        let Some(plan) = &self.plan else {
            return Ok(None);
        };
        if let Some(v) = self.view.get() {
            return Ok(Some(v));
        }
        let built = plan.build(self.r)?;
        Ok(Some(self.view.get_or_init(|| built)))
    }

    /// What the reports read of every fetched page (the point's pages
    /// only, with a point).
    pub fn pages(&self) -> Result<&[(PageId, PageFacts)]> {
        if let Some(p) = self.pages.get() {
            return Ok(p);
        }
        let mut out = Vec::with_capacity(capacity(self.r.page_count()?));
        self.for_each_page(|id, rec| out.push((id, PageFacts::from(rec))))?;
        fit(&mut out);
        Ok(self.pages.get_or_init(|| out))
    }

    /// Each fetched page's record in the view, in id order, read afresh
    /// and not kept (see [`Ctx::pages`]).
    pub fn for_each_page(&self, mut f: impl FnMut(PageId, PageRecord)) -> Result<()> {
        let mut err = None;
        self.r.for_each_page(|id, rec| match self.includes(id) {
            Ok(true) => {
                f(id, rec);
                Ok(true)
            }
            Ok(false) => Ok(true),
            Err(e) => {
                err = Some(e);
                Ok(false)
            }
        })?;
        err.map_or(Ok(()), Err)
    }

    /// Each URL's link depth over the scope, walked once per context.
    pub fn link_depths(&self) -> Result<&link_depth::LinkDepths> {
        if let Some(d) = self.link_depths.get() {
            return Ok(d);
        }
        let read = link_depth::LinkDepths::read(self)?;
        Ok(self.link_depths.get_or_init(|| read))
    }

    /// Whether a page belongs to the report: always over every run of the
    /// store, else when the scope covers it and did not only skip it (a
    /// page another point fetched is not the page of a point that skipped
    /// its URL).
    pub fn includes(&self, page: PageId) -> Result<bool> {
        if self.plan.is_none() {
            return Ok(true);
        }
        let states = self.states()?;
        Ok(match states.binary_search_by_key(&page, |(id, _)| *id) {
            Ok(i) => !matches!(states[i].1, UrlState::Skipped { .. }),
            Err(_) => false,
        })
    }

    /// Drops what `forget` clears of each page held (a text the kinds
    /// still to come do not read): at a million pages the texts are more
    /// than the rest of what the pages hold.
    pub fn forget(&mut self, forget: impl Fn(&mut PageFacts)) {
        for (_, rec) in self.pages.get_mut().into_iter().flatten() {
            forget(rec);
        }
    }

    /// Drops the resource uses once the kinds that read them are done.
    pub fn forget_resource_uses(&mut self) {
        self.resource_uses.take();
    }

    /// Drops the link graph and its scores once the kinds that read them
    /// are done.
    pub fn forget_graph(&mut self) {
        self.graph.take();
        self.scores.take();
    }

    /// Notes that kind `name` found `n` items in this snapshot.
    pub fn note_found(&self, name: &'static str, n: usize) {
        self.found.borrow_mut().insert(name, n);
    }

    /// How many items the kind kept as `name` found, when noted.
    pub fn noted(&self, name: &str) -> Option<usize> {
        self.found.borrow().get(name).copied()
    }

    /// How many items kind `K` finds in this snapshot.
    pub fn count<K: ListKind>(&self) -> Result<usize> {
        let noted = K::keeper().and_then(|k| self.noted(k.name));
        match noted {
            Some(n) => Ok(n),
            None => Ok(K::find(self)?.len()),
        }
    }

    /// A page's URL.
    pub fn url(&self, page: PageId) -> Result<String> {
        if let Some(u) = self.urls.borrow().get(&page) {
            return Ok(u.clone());
        }
        let url = self.url_once(page)?;
        self.urls.borrow_mut().insert(page, url.clone());
        Ok(url)
    }

    /// A page's URL read and not kept: what a pass over every page reads
    /// (a million of them kept would be ~100 MB).
    pub fn url_once(&self, page: PageId) -> Result<String> {
        Ok(self
            .r
            .url_of(page)?
            .ok_or_else(|| StoreError::corrupt(format!("page {page} has no URL record")))?)
    }

    pub fn urls(&self, pages: &[PageId]) -> Result<Vec<String>> {
        pages.iter().map(|&p| self.url(p)).collect()
    }

    pub fn mime(&self, id: MimeId) -> Result<Option<MimeRecord>> {
        if let Some(m) = self.mimes.borrow().get(&id) {
            return Ok(m.clone());
        }
        let m = self.r.mime(id)?;
        self.mimes.borrow_mut().insert(id, m.clone());
        Ok(m)
    }

    /// Whether a page is an HTML document fetched with a 2xx: what the
    /// title, description and heading checks look at.
    pub fn is_html_ok(&self, rec: &PageFacts) -> Result<bool> {
        if !is_ok(rec.status) {
            return Ok(false);
        }
        Ok(self
            .mime(rec.mime)?
            .is_some_and(|m| m.essence == "text/html" || m.essence == "application/xhtml+xml"))
    }
}

/// A table's row count as a vector's capacity.
fn capacity(rows: u64) -> usize {
    usize::try_from(rows).unwrap_or(0)
}

/// Gives back what a vector sized for a whole table holds beyond the
/// part a narrower view kept (one point of many).
fn fit<T>(v: &mut Vec<T>) {
    if v.len() < v.capacity() / 2 {
        v.shrink_to_fit();
    }
}

pub fn is_ok(status: u16) -> bool {
    (200..300).contains(&status)
}

/// Where a redirect chain or a canonical ends: the status its target
/// answered, None when it answered none (failed, or not fetched).
pub fn status_of(r: &Reader<'_>, page: PageId) -> Result<Option<u16>> {
    Ok(match r.url_state(page)? {
        Some(UrlState::Done { .. }) => r.page(page)?.map(|rec| rec.status),
        Some(UrlState::Failed { status, .. }) => status,
        Some(UrlState::Redirected { status, .. }) => Some(status),
        _ => None,
    })
}

/// An optional number as a cell: empty when absent.
pub fn opt_cell<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Pages ordered by a figure, largest first (ties by page id): `slow` and
/// `large`.
pub fn top_pages(
    ctx: &Ctx<'_, '_>,
    figure: impl Fn(&PageFacts) -> u64,
) -> Result<Vec<(PageId, u64)>> {
    let mut v: Vec<(PageId, u64)> = ctx
        .pages()?
        .iter()
        .map(|(id, rec)| (*id, figure(rec)))
        .collect();
    v.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(v)
}

//! `point add|list|update|rm|enable|disable`: persisted crawl points, and
//! the scope flags → point record mapping that `crawl` shares. The rules
//! (what a valid point is) live in `crate::points`.

use serde::Serialize;

use super::args::{PointAction, ScopeArgs};
use super::{print_json, CliResult};
use crate::points::{self, PointError};
use crate::store::{PointId, PointRecord, Store};
use crate::url::Url;

/// Changes only what the flags name.
pub fn apply_scope(rec: &mut PointRecord, s: &ScopeArgs) {
    if let Some(root) = &s.root {
        rec.root = root.clone();
    }
    if s.depth.is_some() {
        rec.depth = s.depth;
    }
    if s.max_pages.is_some() {
        rec.max_pages = s.max_pages;
    }
    if !s.excludes.is_empty() {
        rec.excludes = s.excludes.clone();
    }
    if s.user.is_some() {
        rec.user = s.user.clone();
        rec.password = s.password.clone();
    }
    if !s.headers.is_empty() {
        rec.headers = s.headers.clone();
    }
    if let Some(follow) = s.follow_nofollow {
        rec.follow_nofollow = follow;
    }
    if let Some(check) = s.check_external {
        rec.check_external = check;
    }
    if s.no_sitemaps || s.sitemaps {
        rec.no_sitemaps = s.no_sitemaps;
    }
    if let Some(distinct) = s.distinct_www {
        rec.distinct_www = distinct;
    }
    if !s.resolve.is_empty() {
        rec.resolve = s.resolve.clone();
    }
    if !s.append_query.is_empty() {
        rec.append_query = s.append_query.clone();
    }
    if let Some(list) = &s.stopwords {
        rec.stopwords = Some(list.0.clone());
    }
    if let Some(accept) = &s.accept {
        rec.accept = accept.0.clone();
    }
    if !s.exclude_regex.is_empty() {
        rec.exclude_regex = s.exclude_regex.clone();
    }
    if let Some(check) = s.check_fragments {
        rec.check_fragments = check;
    }
    if s.no_resources || s.resources {
        rec.no_resources = s.no_resources;
    }
    if let Some(mode) = s.render {
        rec.render = mode;
    }
    if s.render_wait_ms.is_some() {
        rec.render_wait_ms = s.render_wait_ms;
    }
    if s.render_concurrency.is_some() {
        rec.render_concurrency = s.render_concurrency;
    }
    if !s.extract.is_empty() {
        rec.extract = s.extract.clone();
    }
    if !s.search.is_empty() {
        rec.search = s.search.clone();
    }
    if !s.include.is_empty() {
        rec.include = s.include.clone();
    }
    if !s.remap.is_empty() {
        rec.remap = s.remap.clone();
    }
    if s.max_retries.is_some() {
        rec.max_retries = s.max_retries;
    }
    if s.max_redirects.is_some() {
        rec.max_redirects = s.max_redirects;
    }
    if s.cookie_jar.is_some() {
        rec.cookie_jar = s.cookie_jar.clone();
    }
    if let Some(cache) = s.cache {
        rec.cache = cache;
    }
    if s.max_cache_age.is_some() {
        rec.max_cache_age_s = s.max_cache_age;
    }
}

/// The point for `url`, created or updated with the flags; made active.
pub fn upsert(store: &Store, url: &Url, scope: &ScopeArgs) -> Result<PointId, PointError> {
    points::upsert(store, url, |rec| apply_scope(rec, scope))
}

#[derive(Serialize)]
struct PointJson {
    id: PointId,
    url: String,
    root: String,
    depth: Option<u32>,
    max_pages: Option<u64>,
    excludes: Vec<String>,
    sitemaps: bool,
    active: bool,
    user: Option<String>,
    deleted: bool,
    created_at: String,
    updated_at: String,
    updated_by: String,
    follow_nofollow: bool,
    check_external: bool,
    distinct_www: bool,
    /// `HOST:PORT:ADDR`, as typed.
    resolve: Vec<String>,
    /// `K=V`, as typed.
    append_query: Vec<String>,
    /// The scope changed since the last crawl, which re-scopes.
    rescope_pending: bool,
    /// `--stopwords FILE`'s words; null: the built-in list.
    stopwords: Option<Vec<String>>,
    /// The first of `docs`: the contract's field from when a point was in
    /// one document at most, which a field is never removed from.
    doc: Option<String>,
    /// The documents it belongs to (`--doc`), by name.
    docs: Vec<String>,
    /// `--accept`, as typed back (`200..=299,403`); empty: the default.
    accept: String,
    exclude_regex: Vec<String>,
    check_fragments: bool,
    /// Resource links are checked (not `--no-resources`).
    resources: bool,
    /// `--render`: `off`, `js` or `auto`.
    render: &'static str,
    render_wait_ms: Option<u32>,
    render_concurrency: Option<u32>,
    /// `--extract` and `--search` rules, as typed.
    extract: Vec<String>,
    search: Vec<String>,
    include: Vec<String>,
    /// `RE REPLACEMENT`, as typed.
    remap: Vec<String>,
    max_retries: u32,
    max_redirects: u8,
    cookie_jar: Option<String>,
    cache: bool,
    /// Seconds.
    max_cache_age: u64,
}

impl PointJson {
    fn of(id: PointId, p: PointRecord) -> PointJson {
        PointJson {
            id,
            url: p.url,
            root: p.root,
            depth: p.depth,
            max_pages: p.max_pages,
            excludes: p.excludes,
            sitemaps: !p.no_sitemaps,
            active: p.active,
            user: p.user,
            deleted: p.deleted,
            created_at: crate::time::rfc3339(p.created_at),
            updated_at: crate::time::rfc3339(p.updated_at),
            updated_by: p.updated_by,
            follow_nofollow: p.follow_nofollow,
            check_external: p.check_external,
            distinct_www: p.distinct_www,
            resolve: p.resolve.iter().map(ToString::to_string).collect(),
            append_query: p
                .append_query
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
            rescope_pending: p.dirty,
            stopwords: p.stopwords,
            doc: p.docs.first().cloned(),
            docs: p.docs,
            accept: crate::accept::Shown(&p.accept).to_string(),
            exclude_regex: p.exclude_regex,
            check_fragments: p.check_fragments,
            resources: !p.no_resources,
            render: crate::render::mode_name(p.render),
            render_wait_ms: p.render_wait_ms,
            render_concurrency: p.render_concurrency,
            extract: p.extract,
            search: p.search,
            include: p.include,
            remap: p.remap,
            max_retries: p.max_retries.unwrap_or(crate::crawl::DEFAULT_RETRIES),
            max_redirects: p.max_redirects.unwrap_or(crate::crawl::MAX_REDIRECTS),
            cookie_jar: p.cookie_jar,
            cache: p.cache,
            max_cache_age: p
                .max_cache_age_s
                .unwrap_or(crate::crawl::DEFAULT_MAX_CACHE_AGE_S),
        }
    }
}

/// One point on one line: what `list` shows and what a change confirms.
fn describe(id: PointId, p: &PointRecord) -> String {
    let depth = p.depth.map_or("any".into(), |d| d.to_string());
    let max = p.max_pages.map_or("any".into(), |d| d.to_string());
    format!(
        "{id:>3} {} {}  root {}  depth {depth}  max pages {max}{}",
        if p.active { "on " } else { "off" },
        p.url,
        p.root,
        crate::points::extras(p)
            .into_iter()
            .map(|(label, value)| format!("  {label} {value}"))
            .collect::<String>()
    )
}

/// Says what a change did, in a sentence, or (`--json`) the point itself.
fn confirm(done: &str, id: PointId, p: PointRecord, json: bool) -> CliResult {
    if json {
        return print_json(&PointJson::of(id, p));
    }
    outln!("crawl point {id} {done}:");
    outln!("{}", describe(id, &p));
    Ok(())
}

/// `frontier`: where `add` also hands the point to the cluster.
pub fn run(
    db: Option<std::path::PathBuf>,
    action: PointAction,
    frontier: Option<&str>,
) -> CliResult {
    // Only `add` may create the store; the others act on points that exist.
    let store = &match &action {
        PointAction::Add { .. } => super::open_store(db)?,
        _ => std::sync::Arc::new(super::open_existing(db)?),
    };
    match action {
        PointAction::Add {
            url,
            scope,
            json,
            docs,
        } => {
            let mut rec = points::new_record(&url);
            apply_scope(&mut rec, &scope);
            rec.docs = docs;
            let (id, saved) = points::add(store, rec)?;
            if let Some(frontier) = frontier {
                crate::crawl::shared::publish_point(frontier, &saved)?;
            }
            confirm("added", id, saved, json)?;
        }
        PointAction::List { deleted, json } => {
            let points = if deleted {
                points::list_deleted(store)?
            } else {
                points::list(store)?
            };
            if json {
                let list: Vec<PointJson> = points
                    .into_iter()
                    .map(|(id, p)| PointJson::of(id, p))
                    .collect();
                print_json(&list)?;
            } else if points.is_empty() && deleted {
                outln!("no deleted crawl points");
            } else if points.is_empty() {
                outln!("no crawl points (add one: crawlscope point add URL)");
            } else {
                for (id, p) in points {
                    outln!("{}", describe(id, &p));
                }
            }
        }
        PointAction::Update {
            id,
            scope,
            json,
            docs,
            no_doc,
        } => {
            let p = points::update(store, id, |r| {
                apply_scope(r, &scope);
                if no_doc || !docs.is_empty() {
                    r.docs.clone_from(&docs);
                }
            })?;
            confirm("updated", id, p, json)?;
        }
        PointAction::Rm { id, purge: false } => {
            points::remove(store, id)?;
            outln!(
                "crawl point {id} deleted, and its queued URLs with it (crawlscope point restore {id} brings it back)"
            );
        }
        PointAction::Rm { id, purge: true } => {
            points::purge(store, id)?;
            outln!("crawl point {id} removed for good");
        }
        PointAction::Restore { id } => {
            let p = points::restore(store, id)?;
            confirm("restored", id, p, false)?;
        }
        PointAction::Enable { id } => {
            let p = points::set_active(store, id, true)?;
            confirm(
                "enabled (the next `crawl` without a URL crawls it)",
                id,
                p,
                false,
            )?;
        }
        PointAction::Disable { id } => {
            let p = points::set_active(store, id, false)?;
            confirm("disabled (kept, not crawled until enabled)", id, p, false)?;
        }
    }
    Ok(())
}

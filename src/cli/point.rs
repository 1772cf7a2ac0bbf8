//! `point add|list|update|rm|enable|disable`: persisted crawl points, and
//! the scope flags → point record mapping that `crawl` shares.

use serde::Serialize;

use super::args::{PointAction, ScopeArgs};
use super::{print_json, CliError, CliResult};
use crate::store::prelude::*;
use crate::store::{PointId, PointRecord, Store, StoreError};
use crate::url::Url;

/// A new point for `url` with the given scope (root defaults to its origin).
pub fn new_point(url: &Url, scope: &ScopeArgs) -> PointRecord {
    let mut rec = PointRecord {
        url: url.to_string(),
        root: crate::url::default_root(url),
        active: true,
        ..Default::default()
    };
    apply_scope(&mut rec, scope);
    rec
}

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
}

/// The point for `url`, created or updated with the flags; made active.
pub fn upsert(store: &Store, url: &Url, scope: &ScopeArgs) -> Result<PointId, StoreError> {
    store.update(|w| match w.point_by_url(url.as_str())? {
        Some((id, mut rec)) => {
            apply_scope(&mut rec, scope);
            rec.active = true;
            w.put_point(id, &rec)?;
            Ok(id)
        }
        None => w.add_point(&new_point(url, scope)),
    })
}

#[derive(Serialize)]
struct PointJson {
    id: PointId,
    url: String,
    root: String,
    depth: Option<u32>,
    max_pages: Option<u64>,
    excludes: Vec<String>,
    active: bool,
    user: Option<String>,
}

fn edit(store: &Store, id: PointId, f: impl Fn(&mut PointRecord)) -> CliResult {
    store.update(|w| {
        let mut rec = w
            .point(id)?
            .ok_or_else(|| StoreError::NotFound(format!("crawl point {id}")))?;
        f(&mut rec);
        w.put_point(id, &rec)
    })?;
    Ok(())
}

pub fn run(store: &Store, action: PointAction) -> CliResult {
    match action {
        PointAction::Add { url, scope } => {
            let id = store.update(|w| {
                if let Some((id, _)) = w.point_by_url(url.as_str())? {
                    return Err(StoreError::NotFound(format!(
                        "new point: {url} is already crawl point {id} (use point update)"
                    )));
                }
                w.add_point(&new_point(&url, &scope))
            });
            match id {
                Ok(id) => println!("{id}"),
                Err(StoreError::NotFound(msg)) => {
                    return Err(CliError::Msg(msg.trim_start_matches("new point: ").into()))
                }
                Err(e) => return Err(e.into()),
            }
        }
        PointAction::List { json } => {
            let points = store.read()?.points()?;
            if json {
                let list: Vec<PointJson> = points
                    .into_iter()
                    .map(|(id, p)| PointJson {
                        id,
                        url: p.url,
                        root: p.root,
                        depth: p.depth,
                        max_pages: p.max_pages,
                        excludes: p.excludes,
                        active: p.active,
                        user: p.user,
                    })
                    .collect();
                print_json(&list)?;
            } else if points.is_empty() {
                println!("no crawl points (add one: crawlscope point add URL)");
            } else {
                for (id, p) in points {
                    let depth = p.depth.map_or("any".into(), |d| d.to_string());
                    let max = p.max_pages.map_or("any".into(), |d| d.to_string());
                    println!(
                        "{id:>3} {} {}  root {}  depth {depth}  max pages {max}{}",
                        if p.active { "on " } else { "off" },
                        p.url,
                        p.root,
                        if p.excludes.is_empty() {
                            String::new()
                        } else {
                            format!("  excludes {}", p.excludes.join(", "))
                        }
                    );
                }
            }
        }
        PointAction::Update { id, scope } => edit(store, id, |r| apply_scope(r, &scope))?,
        PointAction::Rm { id } => store.update(|w| w.remove_point(id))?,
        PointAction::Enable { id } => edit(store, id, |r| r.active = true)?,
        PointAction::Disable { id } => edit(store, id, |r| r.active = false)?,
    }
    Ok(())
}

//! Documents: the one home of the rules about them (what a name is, what a
//! document holds) and the operations both faces offer: add (which also
//! changes a document's excludes), list, rename, delete (soft, or for good)
//! and restore; the crawl points a document groups, for `crawl --doc`,
//! `runs --doc` and `report --doc`; and the documents a URL belongs to. A
//! point names its documents (`point add|update --doc`, checked by
//! `crate::points`); the excludes of all of them join the point's own when
//! a crawl scopes it ([`excludes_for`]), so whatever changes the excludes
//! that apply to a point marks it for re-scoping.

use crate::store::prelude::*;
use crate::store::{DocumentRecord, PointId, PointRecord, Store, StoreError, Writer};

pub use crate::doc_name::MAX_NAME;

#[derive(Debug, thiserror::Error)]
pub enum DocError {
    #[error(transparent)]
    BadName(#[from] crate::doc_name::BadName),
    #[error("no document {0:?} (crawlscope doc list)")]
    Unknown(String),
    #[error("document {0:?} is deleted: restore it first (crawlscope doc restore {0})")]
    Deleted(String),
    #[error("document {0:?} is not deleted: nothing to restore")]
    NotDeleted(String),
    #[error("nothing to crawl: document {0:?} has no active crawl point")]
    NothingActive(String),
    #[error("a document {0:?} exists already")]
    Exists(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T> = std::result::Result<T, DocError>;

/// A document name as typed, trimmed (see [`crate::doc_name`]).
pub fn parse_name(input: &str) -> Result<String> {
    Ok(crate::doc_name::parse(input)?)
}

/// A document with the (not deleted) crawl points it groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub record: DocumentRecord,
    pub points: Vec<PointId>,
}

/// What `add` did.
#[derive(Debug)]
pub struct Added {
    pub record: DocumentRecord,
    /// A new document (else its excludes were set).
    pub created: bool,
    /// Its points marked for re-scoping, their excludes having changed.
    pub rescoped: Vec<PointId>,
}

/// Makes document `name` with `excludes` (normalised prefixes, as
/// `--exclude` gives them), or sets an existing one's excludes to them.
pub fn add(store: &Store, name: &str, excludes: Vec<String>) -> Result<Added> {
    put(store, name, excludes, false)
}

/// Makes document `name`, with no excludes; one of that name (deleted or
/// not) is refused.
pub fn create(store: &Store, name: &str) -> Result<Added> {
    put(store, name, Vec::new(), true)
}

fn put(store: &Store, name: &str, excludes: Vec<String>, new_only: bool) -> Result<Added> {
    let name = parse_name(name)?;
    crate::points::write(store, |w| {
        let old = w.document(&name)?;
        match &old {
            Some(_) if new_only => return Err(DocError::Exists(name.clone())),
            Some(d) if d.deleted => return Err(DocError::Deleted(name.clone())),
            _ => {}
        }
        let now = crate::time::unix_now();
        let record = DocumentRecord {
            excludes: excludes.clone(),
            created_at: old.as_ref().map_or(now, |d| d.created_at),
            updated_at: now,
            deleted: false,
        };
        let changed = old.as_ref().is_some_and(|d| d.excludes != excludes);
        w.put_document(&name, &record)?;
        let rescoped = if changed {
            rescope_members(w, &name)?
        } else {
            Vec::new()
        };
        Ok(Added {
            record,
            created: old.is_none(),
            rescoped,
        })
    })
}

/// Every document, deleted ones too, with the (not deleted) points that
/// name it, by name.
pub fn list(r: &(impl PointRead + DocumentRead)) -> Result<Vec<Listed>> {
    let points = r.points()?;
    Ok(r.documents()?
        .into_iter()
        .map(|(name, record)| Listed {
            points: members(&points, &name),
            name,
            record,
        })
        .collect())
}

/// Renames document `old` to `new` (a name no document has), on every
/// point that names it too; its excludes stay, so nothing is re-scoped.
pub fn rename(store: &Store, old: &str, new: &str) -> Result<DocumentRecord> {
    let new = parse_name(new)?;
    crate::points::write(store, |w| {
        let Some(mut record) = w.document(old)? else {
            return Err(DocError::Unknown(old.to_string()));
        };
        if w.document(&new)?.is_some() {
            return Err(DocError::Exists(new.clone()));
        }
        record.updated_at = crate::time::unix_now();
        w.remove_document(old)?;
        w.put_document(&new, &record)?;
        for (id, mut p) in w.points()? {
            if p.docs.iter().any(|d| d == old) {
                for d in &mut p.docs {
                    if d == old {
                        d.clone_from(&new);
                    }
                }
                w.put_point(id, &p)?;
            }
        }
        Ok(record)
    })
}

/// Deletes document `name`: soft (kept, listed as deleted, its points keep
/// its name, its excludes no longer apply) or, with `purge`, for good (its
/// name leaves every point). Returns the points marked for re-scoping.
pub fn remove(store: &Store, name: &str, purge: bool) -> Result<Vec<PointId>> {
    crate::points::write(store, |w| {
        let Some(mut record) = w.document(name)? else {
            return Err(DocError::Unknown(name.to_string()));
        };
        if !purge && record.deleted {
            return Ok(Vec::new());
        }
        // Its excludes stop applying unless they already had.
        let rescoped = if record.deleted || record.excludes.is_empty() {
            Vec::new()
        } else {
            rescope_members(w, name)?
        };
        if purge {
            w.remove_document(name)?;
            for (id, mut p) in w.points()? {
                if p.docs.iter().any(|d| d == name) {
                    p.docs.retain(|d| d != name);
                    w.put_point(id, &p)?;
                }
            }
        } else {
            record.deleted = true;
            record.updated_at = crate::time::unix_now();
            w.put_document(name, &record)?;
        }
        Ok(rescoped)
    })
}

/// Brings back a deleted document; its excludes apply to its points again.
/// Returns the points marked for re-scoping.
pub fn restore(store: &Store, name: &str) -> Result<Vec<PointId>> {
    crate::points::write(store, |w| {
        let Some(mut record) = w.document(name)? else {
            return Err(DocError::Unknown(name.to_string()));
        };
        if !record.deleted {
            return Err(DocError::NotDeleted(name.to_string()));
        }
        record.deleted = false;
        record.updated_at = crate::time::unix_now();
        w.put_document(name, &record)?;
        if record.excludes.is_empty() {
            Ok(Vec::new())
        } else {
            Ok(rescope_members(w, name)?)
        }
    })
}

/// The (not deleted) points document `name` groups; an unknown name is
/// refused, naming `doc list`, and a deleted one naming `doc restore`.
pub fn points_of(r: &(impl PointRead + DocumentRead), name: &str) -> Result<Vec<PointId>> {
    match r.document(name)? {
        None => Err(DocError::Unknown(name.to_string())),
        Some(d) if d.deleted => Err(DocError::Deleted(name.to_string())),
        Some(_) => Ok(members(&r.points()?, name)),
    }
}

/// The points of document `name` a crawl takes: its active ones, at
/// least one (an empty list would mean every active point to a crawl).
pub fn active_points(r: &(impl PointRead + DocumentRead), name: &str) -> Result<Vec<PointId>> {
    let points = r.points()?;
    let active: Vec<PointId> = points_of(r, name)?
        .into_iter()
        .filter(|id| points.iter().any(|(p, rec)| p == id && rec.active))
        .collect();
    if active.is_empty() {
        return Err(DocError::NothingActive(name.to_string()));
    }
    Ok(active)
}

fn members(points: &[(PointId, PointRecord)], name: &str) -> Vec<PointId> {
    points
        .iter()
        .filter(|(_, p)| !p.deleted && p.docs.iter().any(|d| d == name))
        .map(|(id, _)| *id)
        .collect()
}

/// Marks the points that name document `name` for re-scoping, the
/// excludes that apply to them having changed; returns the ones marked.
fn rescope_members(
    w: &mut Writer<'_>,
    name: &str,
) -> std::result::Result<Vec<PointId>, StoreError> {
    let mut out = Vec::new();
    for (id, mut p) in w.points()? {
        if p.docs.iter().any(|d| d == name) && !p.dirty {
            p.dirty = true;
            w.put_point(id, &p)?;
            out.push(id);
        }
    }
    Ok(out)
}

/// The excludes a point's documents add to its own: every one of its
/// documents' that is not deleted, each prefix once.
pub fn excludes_for(
    r: &impl DocumentRead,
    point: &PointRecord,
) -> std::result::Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::new();
    for name in &point.docs {
        if let Some(d) = r.document(name)?.filter(|d| !d.deleted) {
            for e in d.excludes {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
    }
    Ok(out)
}

/// Which documents a URL belongs to: those (not deleted) of every point
/// (not deleted) whose scope takes it, as its crawl judges it. Built once
/// for a read (the points' scopes compiled), then asked per URL.
pub struct Membership {
    scopes: Vec<(crate::crawl::PointRun, Vec<String>)>,
}

impl Membership {
    pub fn new(r: &(impl PointRead + DocumentRead)) -> std::result::Result<Membership, StoreError> {
        let mut scopes = Vec::new();
        for (_, p) in r.points()? {
            let mut live = Vec::new();
            for name in &p.docs {
                if r.document(name)?.is_some_and(|d| !d.deleted) {
                    live.push(name.clone());
                }
            }
            if p.deleted || live.is_empty() {
                continue;
            }
            let run = crate::crawl::PointRun::of(&p).and_doc_excludes(&p, excludes_for(r, &p)?);
            scopes.push((run, live));
        }
        Ok(Membership { scopes })
    }

    /// The documents `url` belongs to, by name.
    pub fn of(&self, url: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (run, docs) in &self.scopes {
            if crate::crawl::scope_refusal(run, url).is_some() {
                continue;
            }
            for d in docs {
                if !out.contains(d) {
                    out.push(d.clone());
                }
            }
        }
        out.sort();
        out
    }
}

impl crate::points::Refusal for DocError {
    fn into_store(self) -> std::result::Result<StoreError, Self> {
        match self {
            DocError::Store(e) => Ok(e),
            e => Err(e),
        }
    }
}

//! The operations on the stored points, each in one write transaction:
//! add, save, update, enable/disable, delete, purge and restore, the lists,
//! and the set a crawl starts from; each record checked against the live
//! points and documents and stamped with who changed it and when.

use super::{new_record, unique_in, validate, PointError, Result};
use crate::store::prelude::*;
use crate::store::{PointId, PointRecord, Store, StoreError, Writer};

/// Whether the next crawl must re-scope what the point already knows.
fn scope_changed(old: &PointRecord, new: &PointRecord) -> bool {
    old.root != new.root
        || old.excludes != new.excludes
        || old.depth != new.depth
        || old.distinct_www != new.distinct_www
        || old.docs != new.docs
        || old.exclude_regex != new.exclude_regex
        || old.include != new.include
}

/// The points that are not deleted.
fn live(w: &impl PointRead) -> Result<Vec<(PointId, PointRecord)>> {
    Ok(w.points()?
        .into_iter()
        .filter(|(_, p)| !p.deleted)
        .collect())
}

/// Checks `rec` on its own and against the live points, and stamps it as
/// changed now by the OS user.
fn checked(
    w: &(impl PointRead + DocumentRead),
    id: Option<PointId>,
    rec: PointRecord,
) -> Result<PointRecord> {
    let mut rec = validate(rec)?;
    unique_in(&live(w)?, id, &rec.url)?;
    let old = id.map(|id| w.point(id)).transpose()?.flatten();
    // A point joins documents that exist and are not deleted (their
    // excludes then apply); one it was in already it may keep.
    for doc in &rec.docs {
        if old.as_ref().is_some_and(|o| o.docs.contains(doc)) {
            continue;
        }
        match w.document(doc)? {
            None => return Err(PointError::NoDocument(doc.clone())),
            Some(d) if d.deleted => return Err(PointError::DeletedDocument(doc.clone())),
            Some(_) => {}
        }
    }
    if let Some(old) = old {
        rec.dirty |= scope_changed(&old, &rec);
    }
    stamp(&mut rec);
    Ok(rec)
}

/// Records who changed a point and when (the crawl design's metacolumns).
fn stamp(rec: &mut PointRecord) {
    let now = crate::time::unix_now();
    if rec.created_at == 0 {
        rec.created_at = now;
    }
    rec.updated_at = now;
    rec.updated_by = ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
        // SAFETY: getuid cannot fail and touches no memory of ours.
        .unwrap_or_else(|| format!("uid {}", unsafe { libc::getuid() }));
}

/// A layer's error: the store's own (which aborts the transaction) or a
/// refusal of the layer's rules (which the caller gets back as it is).
pub(crate) trait Refusal: From<StoreError> {
    /// The store's error, when that is what this is; else the refusal.
    fn into_store(self) -> std::result::Result<StoreError, Self>;
}

impl Refusal for PointError {
    fn into_store(self) -> std::result::Result<StoreError, Self> {
        match self {
            PointError::Store(e) => Ok(e),
            e => Err(e),
        }
    }
}

/// Runs `f` in one write transaction, keeping its own error type.
pub(crate) fn write<T, E: Refusal>(
    store: &Store,
    f: impl FnMut(&mut Writer<'_>) -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let mut f = f;
    let mut outcome = None;
    let stored = store.update(|w| match f(w).map_err(Refusal::into_store) {
        Ok(v) => Ok(Some(v)),
        Err(Ok(e)) => Err(e),
        Err(Err(e)) => {
            outcome = Some(e);
            Ok(None)
        }
    })?;
    match (stored, outcome) {
        (Some(v), _) => Ok(v),
        (None, Some(e)) => Err(e),
        (None, None) => Err(StoreError::corrupt("a write ended without an outcome").into()),
    }
}

/// Adds a new point; refuses a start URL that another point has. Returns
/// its id and the record as stored (normalised).
pub fn add(store: &Store, rec: PointRecord) -> Result<(PointId, PointRecord)> {
    write(store, |w| {
        let rec = checked(w, None, rec.clone())?;
        Ok((w.add_point(&rec)?, rec))
    })
}

/// Stores a whole record: a new point when `id` is `None`, else replaces
/// point `id` (which must exist).
pub fn save(store: &Store, id: Option<PointId>, rec: PointRecord) -> Result<PointId> {
    write(store, |w| {
        let rec = checked(w, id, rec.clone())?;
        match id {
            Some(id) => {
                if w.point(id)?.is_none() {
                    return Err(PointError::NotFound(id));
                }
                w.put_point(id, &rec)?;
                Ok(id)
            }
            None => Ok(w.add_point(&rec)?),
        }
    })
}

/// Changes point `id` with `edit`; the result must still be a valid point.
pub fn update(store: &Store, id: PointId, edit: impl Fn(&mut PointRecord)) -> Result<PointRecord> {
    write(store, |w| {
        let mut rec = w.point(id)?.ok_or(PointError::NotFound(id))?;
        edit(&mut rec);
        let rec = checked(w, Some(id), rec)?;
        w.put_point(id, &rec)?;
        Ok(rec)
    })
}

/// The point whose start URL is `url`, created with `edit` applied or
/// updated with it, and made active: what `crawl URL` does.
pub fn upsert(
    store: &Store,
    url: &crate::url::Url,
    edit: impl Fn(&mut PointRecord),
) -> Result<PointId> {
    write(store, |w| {
        let bare = crate::url::without_userinfo(url);
        let found = live(w)?.into_iter().find(|(_, p)| p.url == bare.as_str());
        let (id, mut rec) = match found {
            Some((id, rec)) => (Some(id), rec),
            None => (None, new_record(url)),
        };
        edit(&mut rec);
        rec.active = true;
        let rec = checked(w, id, rec)?;
        match id {
            Some(id) => {
                w.put_point(id, &rec)?;
                Ok(id)
            }
            None => Ok(w.add_point(&rec)?),
        }
    })
}

pub fn set_active(store: &Store, id: PointId, active: bool) -> Result<PointRecord> {
    update(store, id, |r| r.active = active)
}

/// Soft-deletes point `id` (restorable, never crawled) and drops its
/// queued URLs.
pub fn remove(store: &Store, id: PointId) -> Result<()> {
    write(store, |w| {
        let mut rec = w
            .point(id)?
            .filter(|p| !p.deleted)
            .ok_or(PointError::NotFound(id))?;
        rec.deleted = true;
        stamp(&mut rec);
        w.put_point(id, &rec)?;
        w.drop_queued(id)?;
        Ok(())
    })
}

/// Removes point `id` for good, deleted or not.
pub fn purge(store: &Store, id: PointId) -> Result<()> {
    write(store, |w| {
        if w.point(id)?.is_none() {
            return Err(PointError::NotFound(id));
        }
        Ok(w.remove_point(id)?)
    })
}

/// Brings a soft-deleted point back (its start URL must still be free).
pub fn restore(store: &Store, id: PointId) -> Result<PointRecord> {
    write(store, |w| {
        let mut rec = w.point(id)?.ok_or(PointError::NotFound(id))?;
        if !rec.deleted {
            return Err(PointError::NotDeleted(id));
        }
        rec.deleted = false;
        let rec = checked(w, Some(id), rec)?;
        w.put_point(id, &rec)?;
        Ok(rec)
    })
}

/// The points that are not deleted.
pub fn list(store: &Store) -> Result<Vec<(PointId, PointRecord)>> {
    live(&store.read()?)
}

/// The soft-deleted points.
pub fn list_deleted(store: &Store) -> Result<Vec<(PointId, PointRecord)>> {
    Ok(store
        .read()?
        .points()?
        .into_iter()
        .filter(|(_, p)| p.deleted)
        .collect())
}

/// The points a crawl starts from: `requested` when given (each must exist
/// and be enabled), else every active point; never an empty set.
pub fn crawl_set(store: &Store, requested: Vec<PointId>) -> Result<Vec<PointId>> {
    let stored = store.read()?.points()?;
    let ids: Vec<PointId> = if requested.is_empty() {
        stored
            .into_iter()
            .filter(|(_, p)| p.active && !p.deleted)
            .map(|(id, _)| id)
            .collect()
    } else {
        for &id in &requested {
            match stored.iter().find(|(i, _)| *i == id) {
                None => return Err(PointError::NotFound(id)),
                Some((_, p)) if p.deleted => return Err(PointError::Deleted(id)),
                Some((_, p)) if !p.active => return Err(PointError::Disabled(id)),
                Some(_) => {}
            }
        }
        requested
    };
    if ids.is_empty() {
        return Err(PointError::NothingToCrawl);
    }
    Ok(ids)
}

//! Documents: the one home of the rules about them (what a name is, what a
//! document holds) and the operations the faces offer: `doc add` (which
//! also changes a document's excludes), `doc list`, and the crawl points a
//! document groups, for `runs --doc` and `report --doc`. A point names its
//! document (`point add|update --doc`, checked by `crate::points`); the
//! document's excludes join the point's own when a crawl scopes it
//! ([`excludes_for`]), so changing them marks its points for re-scoping.

use crate::store::prelude::*;
use crate::store::{DocumentRecord, PointId, PointRecord, Store, StoreError};

/// The longest name, in characters.
pub const MAX_NAME: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum DocError {
    #[error("a document name is 1 to {MAX_NAME} characters, none of them a control character")]
    BadName,
    #[error("no document {0:?} (crawlscope doc list)")]
    Unknown(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T> = std::result::Result<T, DocError>;

/// A document name as typed, trimmed; refused when empty, too long or
/// holding control characters (it is shown on one line).
pub fn parse_name(input: &str) -> Result<String> {
    let name = input.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME || name.chars().any(char::is_control) {
        return Err(DocError::BadName);
    }
    Ok(name.to_string())
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
    let name = parse_name(name)?;
    Ok(store.update(|w| {
        let old = w.document(&name)?;
        let created = old.is_none();
        let record = DocumentRecord {
            excludes: excludes.clone(),
            created_at: old
                .as_ref()
                .map_or_else(crate::time::unix_now, |d| d.created_at),
        };
        let mut rescoped = Vec::new();
        if old.is_some_and(|d| d.excludes != excludes) {
            for (id, mut p) in w.points()? {
                if p.doc.as_deref() == Some(name.as_str()) && !p.dirty {
                    p.dirty = true;
                    w.put_point(id, &p)?;
                    rescoped.push(id);
                }
            }
        }
        w.put_document(&name, &record)?;
        Ok(Added {
            record,
            created,
            rescoped,
        })
    })?)
}

/// Every document with the (not deleted) points it groups, by name.
pub fn list(store: &Store) -> Result<Vec<(String, DocumentRecord, Vec<PointId>)>> {
    let r = store.read()?;
    let points = r.points()?;
    Ok(r.documents()?
        .into_iter()
        .map(|(name, rec)| {
            let members = members(&points, &name);
            (name, rec, members)
        })
        .collect())
}

/// The (not deleted) points document `name` groups; an unknown name is
/// refused, naming `doc list`.
pub fn points_of(r: &(impl PointRead + DocumentRead), name: &str) -> Result<Vec<PointId>> {
    if r.document(name)?.is_none() {
        return Err(DocError::Unknown(name.to_string()));
    }
    Ok(members(&r.points()?, name))
}

fn members(points: &[(PointId, PointRecord)], name: &str) -> Vec<PointId> {
    points
        .iter()
        .filter(|(_, p)| !p.deleted && p.doc.as_deref() == Some(name))
        .map(|(id, _)| *id)
        .collect()
}

/// The excludes a point's document adds to its own (none without one,
/// or when the document is gone).
pub fn excludes_for(
    r: &impl DocumentRead,
    point: &PointRecord,
) -> std::result::Result<Vec<String>, StoreError> {
    let Some(name) = &point.doc else {
        return Ok(Vec::new());
    };
    Ok(r.document(name)?.map(|d| d.excludes).unwrap_or_default())
}

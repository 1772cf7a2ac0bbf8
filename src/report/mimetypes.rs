//! `report mimetypes`: pages by mimetype (essence and parameters, as the
//! store keeps them), the most pages first.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::kept_lists::Keeper;
use super::{Ctx, ListKind, Result, Row};
use crate::store::MimeId;

pub struct Mimetypes;

#[derive(Debug, Serialize)]
pub struct MimeRow {
    pub mime: String,
    pub params: BTreeMap<String, String>,
    pub pages: u64,
}

impl ListKind for Mimetypes {
    type Item = (MimeId, u64);
    type Row = MimeRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<(MimeId, u64)>> {
        let mut counts: FxHashMap<MimeId, u64> = FxHashMap::default();
        for (_, rec) in ctx.pages()? {
            *counts.entry(rec.mime).or_default() += 1;
        }
        let mut items: Vec<(MimeId, u64)> = counts.into_iter().collect();
        items.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, (id, pages): (MimeId, u64)) -> Result<MimeRow> {
        let (mime, params) = match ctx.mime(id)? {
            Some(m) if !m.essence.is_empty() => (m.essence, m.params.into_iter().collect()),
            Some(m) => ("(none)".to_string(), m.params.into_iter().collect()),
            None => (format!("(mimetype {id} has no record)"), BTreeMap::new()),
        };
        Ok(MimeRow {
            mime,
            params,
            pages,
        })
    }

    fn keeper() -> Option<Keeper<Self::Item>> {
        Some(Keeper::as_is("found:mimetypes"))
    }
}

impl Row for MimeRow {
    const COLUMNS: &'static [&'static str] = &["mime", "params", "pages"];
    fn cells(&self) -> Vec<String> {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        vec![self.mime.clone(), params.join(" "), self.pages.to_string()]
    }
}

//! `report structured-data`: the JSON-LD scripts that do not parse
//! (`jsonld_parse_error`), a row per script, with the `@type`s the page's
//! other scripts declare and the parser's error. (The types, microdata and
//! RDFa found on every page are in `page --json`'s `structured_data`.)

use serde::Serialize;

use super::audit_pages::for_each_audited;
use super::{Ctx, ListKind, Result, Row};
use crate::store::PageId;

pub struct StructuredData;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Issue {
    JsonldParseError,
}

pub struct Item {
    page: PageId,
    types: Vec<String>,
    error: String,
}

#[derive(Debug, Serialize)]
pub struct StructuredDataRow {
    pub url: String,
    pub issue: Issue,
    pub types: Vec<String>,
    pub error: String,
}

impl ListKind for StructuredData {
    type Item = Item;
    type Row = StructuredDataRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Item>> {
        let mut items = Vec::new();
        for_each_audited(ctx, |page, facts| {
            for error in facts.jsonld_errors {
                items.push(Item {
                    page,
                    types: facts.jsonld.clone(),
                    error,
                });
            }
            Ok(())
        })?;
        Ok(items)
    }

    fn row(ctx: &Ctx<'_, '_>, item: Item) -> Result<StructuredDataRow> {
        Ok(StructuredDataRow {
            url: ctx.url(item.page)?,
            issue: Issue::JsonldParseError,
            types: item.types,
            error: item.error,
        })
    }
}

impl Row for StructuredDataRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "types", "error"];
    fn cells(&self) -> Vec<String> {
        vec![
            self.url.clone(),
            "jsonld_parse_error".to_string(),
            self.types.join(" "),
            self.error.clone(),
        ]
    }
}

//! `report javascript`: what rendering changed (Screaming Frog's
//! JavaScript tab): pages whose title, description, canonical or robots
//! directives differ between the served HTML and the rendered DOM, pages
//! the DOM gave links the served HTML lacks, and pages whose rendering
//! failed, with the reason. Reads only the `render_facts` table (and the
//! URLs of the rows shown).

use serde::Serialize;
use serde_json::Value;

use super::{Ctx, ListKind, Result, Row};
use crate::store::prelude::*;
use crate::store::PageId;

pub struct Javascript;

#[derive(Debug, Serialize)]
pub struct JavascriptRow {
    pub url: String,
    pub issue: &'static str,
    pub served: Value,
    pub rendered: Value,
}

impl ListKind for Javascript {
    type Item = (PageId, crate::render::facts::Finding);
    type Row = JavascriptRow;

    fn find(ctx: &Ctx<'_, '_>) -> Result<Vec<Self::Item>> {
        let mut facts = Vec::new();
        ctx.r
            .for_each_page_render(|page, f| facts.push((page, f)))?;
        let mut out = Vec::new();
        for (page, f) in facts {
            if ctx.includes(page)? {
                out.extend(f.findings().into_iter().map(|finding| (page, finding)));
            }
        }
        Ok(out)
    }

    fn row(ctx: &Ctx<'_, '_>, (page, (issue, served, rendered)): Self::Item) -> Result<Self::Row> {
        Ok(JavascriptRow {
            url: ctx.url(page)?,
            issue,
            served,
            rendered,
        })
    }
}

impl Row for JavascriptRow {
    const COLUMNS: &'static [&'static str] = &["url", "issue", "served", "rendered"];
    fn cells(&self) -> Vec<String> {
        let text = |v: &Value| match v {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        vec![
            self.url.clone(),
            self.issue.to_string(),
            text(&self.served),
            text(&self.rendered),
        ]
    }
}

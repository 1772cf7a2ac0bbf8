//! `doc add|list|rename|rm|restore`: documents, named groups of crawl
//! points whose excludes apply to each of them. The rules live in
//! `crate::documents`.

use serde::Serialize;

use super::args::DocAction;
use super::{print_json, CliResult};
use crate::documents::{self, Listed};
use crate::store::PointId;

#[derive(Serialize)]
struct DocJson {
    name: String,
    excludes: Vec<String>,
    /// Its crawl points (not deleted), by id.
    points: Vec<PointId>,
    created_at: String,
    updated_at: String,
    deleted: bool,
}

impl DocJson {
    fn of(d: Listed) -> DocJson {
        DocJson {
            name: d.name,
            excludes: d.record.excludes,
            points: d.points,
            created_at: crate::time::rfc3339(d.record.created_at),
            updated_at: crate::time::rfc3339(d.record.updated_at),
            deleted: d.record.deleted,
        }
    }

    /// One document on one line.
    fn line(&self) -> String {
        let list = |items: Vec<String>| {
            if items.is_empty() {
                "none".to_string()
            } else {
                items.join(", ")
            }
        };
        format!(
            "{}{}  excludes {}  points {}",
            self.name,
            if self.deleted { " (deleted)" } else { "" },
            list(self.excludes.clone()),
            list(self.points.iter().map(ToString::to_string).collect())
        )
    }
}

/// Says which points a change re-scopes, when it does.
fn rescoped(ids: &[PointId]) -> CliResult {
    if !ids.is_empty() {
        let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
        outln!(
            "crawl points {} are re-scoped on their next crawl",
            ids.join(", ")
        );
    }
    Ok(())
}

pub fn run(db: Option<std::path::PathBuf>, action: DocAction) -> CliResult {
    match action {
        DocAction::Add {
            name,
            excludes,
            json,
        } => {
            let store = super::open_store(db)?;
            let added = documents::add(&store, &name, excludes)?;
            let doc = DocJson::of(Listed {
                points: documents::points_of(&store.read()?, &name)?,
                name,
                record: added.record,
            });
            if json {
                return print_json(&doc);
            }
            let done = if added.created { "added" } else { "updated" };
            outln!("document {done}: {}", doc.line());
            rescoped(&added.rescoped)?;
        }
        DocAction::List { json } => {
            let store = super::open_existing(db)?;
            let docs: Vec<DocJson> = documents::list(&store.read()?)?
                .into_iter()
                .map(DocJson::of)
                .collect();
            if json {
                return print_json(&docs);
            }
            if docs.is_empty() {
                outln!("no documents (add one: crawlscope doc add NAME)");
            }
            for d in &docs {
                outln!("{}", d.line());
            }
        }
        DocAction::Rename { old, new } => {
            let store = super::open_existing(db)?;
            documents::rename(&store, &old, &new)?;
            outln!("document {old:?} renamed {new:?}");
        }
        DocAction::Rm { name, purge } => {
            let store = super::open_existing(db)?;
            let ids = documents::remove(&store, &name, purge)?;
            if purge {
                outln!("document {name:?} removed for good, and from its crawl points");
            } else {
                outln!("document {name:?} deleted (crawlscope doc restore {name} brings it back)");
            }
            rescoped(&ids)?;
        }
        DocAction::Restore { name } => {
            let store = super::open_existing(db)?;
            let ids = documents::restore(&store, &name)?;
            outln!("document {name:?} restored");
            rescoped(&ids)?;
        }
    }
    Ok(())
}

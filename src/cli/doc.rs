//! `doc add|list`: documents, named groups of crawl points whose excludes
//! apply to each of them. The rules live in `crate::documents`.

use serde::Serialize;

use super::args::DocAction;
use super::{print_json, CliResult};
use crate::documents;
use crate::store::{DocumentRecord, PointId};

#[derive(Serialize)]
struct DocJson {
    name: String,
    excludes: Vec<String>,
    created_at: String,
    /// Its crawl points (not deleted), by id.
    points: Vec<PointId>,
}

impl DocJson {
    fn of(name: String, rec: DocumentRecord, points: Vec<PointId>) -> DocJson {
        DocJson {
            name,
            excludes: rec.excludes,
            created_at: crate::time::rfc3339(rec.created_at),
            points,
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
            "{}  excludes {}  points {}",
            self.name,
            list(self.excludes.clone()),
            list(self.points.iter().map(ToString::to_string).collect())
        )
    }
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
            let points = documents::points_of(&store.read()?, &name)?;
            let doc = DocJson::of(name, added.record, points);
            if json {
                return print_json(&doc);
            }
            let done = if added.created { "added" } else { "updated" };
            outln!("document {done}: {}", doc.line());
            if !added.rescoped.is_empty() {
                let ids: Vec<String> = added.rescoped.iter().map(ToString::to_string).collect();
                outln!(
                    "crawl points {} are re-scoped on their next crawl",
                    ids.join(", ")
                );
            }
        }
        DocAction::List { json } => {
            let store = super::open_existing(db)?;
            let docs: Vec<DocJson> = documents::list(&store)?
                .into_iter()
                .map(|(name, rec, points)| DocJson::of(name, rec, points))
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
    }
    Ok(())
}

//! `tui [URL]` (and no command at all) and `demo`: open the console on a
//! store. A URL becomes an active crawl point crawled at once; `demo`
//! serves the built-in site on loopback and crawls it into a throwaway
//! store (or `--db`), so it works with no network.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::ScopeArgs;
use super::{point, store_path, CliError, CliResult};
use crate::crawl::CrawlConfig;
use crate::store::Store;
use crate::tui;
use crate::url::Url;

/// Logs go to a file (the console cannot show them).
fn start_logging(store: &Path) {
    // A console without a log file still works; there is nowhere to say so.
    let _ = tui::log_to_file(&log_path(store));
}

/// `crawlscope.log` in the store's own directory, beside its data files:
/// writable wherever the store is, never shared by two stores, and moved
/// or removed with the store it tells about.
fn log_path(store: &Path) -> PathBuf {
    store.join("crawlscope.log")
}

pub fn run(
    db: Option<PathBuf>,
    url: Option<Url>,
    scope: &ScopeArgs,
    cfg: CrawlConfig,
) -> CliResult {
    tui::ensure_terminal()?;
    let path = store_path(db)?;
    let store = Arc::new(Store::open(&path)?);
    start_logging(&path);
    let start = match url {
        Some(u) => vec![point::upsert(&store, &u, scope)?],
        None => Vec::new(),
    };
    let rt = super::runtime()?;
    Ok(rt.block_on(tui::console(store, cfg, start, &path))?)
}

/// A store directory removed when the demo ends.
struct Throwaway(PathBuf);

impl Throwaway {
    fn new() -> Result<Throwaway, CliError> {
        // The pid and the clock make the name unique to this run.
        let dir = std::env::temp_dir().join(format!(
            "crawlscope-demo-{}-{:x}",
            std::process::id(),
            crate::time::unix_now_ms()
        ));
        std::fs::create_dir_all(&dir).map_err(|source| crate::outfile::WriteError {
            path: dir.clone(),
            source,
        })?;
        Ok(Throwaway(dir))
    }
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn demo(db: Option<PathBuf>, pages: u32) -> CliResult {
    tui::ensure_terminal()?;
    let throwaway = match db {
        Some(_) => None,
        None => Some(Throwaway::new()?),
    };
    let path = match (&throwaway, db) {
        (Some(t), _) => t.0.join("store"),
        (None, db) => store_path(db)?,
    };
    let store = Arc::new(Store::open(&path)?);
    start_logging(&path);
    let rt = super::runtime()?;
    let result = rt.block_on(async {
        let (addr, server) = crate::demo::spawn(0, pages)
            .await
            .map_err(|source| CliError::Serve { port: 0, source })?;
        tracing::info!(%addr, pages, "demo site up");
        let url = crate::url::parse_start(&format!("http://{addr}/"))
            .map_err(|e| CliError::Point(crate::points::PointError::BadUrl(e)))?;
        let id = point::upsert(&store, &url, &ScopeArgs::default())?;
        let r = tui::console(store.clone(), CrawlConfig::default(), vec![id], &path).await;
        server.abort();
        Ok::<(), CliError>(r?)
    });
    // The store closes before its directory goes.
    drop(rt);
    drop(store);
    drop(throwaway);
    result
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn the_log_lives_beside_the_store_it_is_about() {
        let store = Path::new("/x");
        assert_eq!(super::log_path(store), store.join("crawlscope.log"));
    }
}

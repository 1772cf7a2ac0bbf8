//! One browser per crawler, started on the first page to render and
//! started again when it died, with a pool of tabs (`--render-concurrency`)
//! that pages wait their turn for; a tab is opened once and reused (a new
//! tab costs the browser a renderer's start), and one that failed a page
//! is closed instead.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::{Mutex, Semaphore};
use url::Url;

use super::cdp::Conn;
use super::process::{self, Process};
use super::tab::Tab;
use super::{Gate, Served};

/// The most a browser may take to start.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(90);

/// `--render-wait-ms` is held to this, whatever the point says.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

struct Browser {
    conn: Conn,
    /// Tabs between two pages.
    idle: std::sync::Mutex<Vec<Tab>>,
    /// Killed when the last page using it lets go.
    _process: Process,
}

/// A rendering: the DOM, or why the served HTML stands; with its time.
pub struct Rendering {
    pub dom: Result<String, String>,
    pub elapsed: Duration,
}

pub struct Renderer {
    binary: PathBuf,
    tabs: Semaphore,
    browser: Mutex<Option<Arc<Browser>>>,
}

impl Renderer {
    pub fn new(tabs: u32) -> Renderer {
        Renderer {
            binary: process::binary(),
            tabs: Semaphore::new(tabs.max(1) as usize),
            browser: Mutex::new(None),
        }
    }

    /// Renders `url` in a tab once one is free. A browser that died under
    /// the page (or while starting) is started again and the page tried
    /// once more.
    pub async fn render(
        &self,
        url: &Url,
        served: &Served<'_>,
        wait: Duration,
        gate: &dyn Gate,
    ) -> Rendering {
        let _tab = self.tabs.acquire().await;
        let started = Instant::now();
        let wait = wait.min(MAX_WAIT);
        let mut dom = Err(String::new());
        for _ in 0..2 {
            match self.browser().await {
                Ok(browser) => {
                    dom = browser.render(url, served, wait, gate).await;
                    if dom.is_ok() || browser.conn.alive() {
                        break;
                    }
                }
                // Killed while starting, maybe: started once more.
                Err(e) => dom = Err(e),
            }
        }
        Rendering {
            dom,
            elapsed: started.elapsed(),
        }
    }

    /// The running browser, started if there is none or it died.
    async fn browser(&self) -> Result<Arc<Browser>, String> {
        let mut slot = self.browser.lock().await;
        if let Some(b) = slot.as_ref().filter(|b| b.conn.alive()) {
            return Ok(b.clone());
        }
        // The dead one's process goes (killed, reaped) with its last user.
        *slot = None;
        let (p, to, from) = process::start(&self.binary)
            .map_err(|e| format!("cannot start {}: {e}", self.binary.display()))?;
        let conn = Conn::new(to, from);
        // Answered once the browser is up: on a loaded host that can take
        // many seconds, which no page's budget should pay for.
        conn.call_within(STARTUP_TIMEOUT, None, "Browser.getVersion", json!({}))
            .await
            .map_err(|e| format!("the browser did not start: {e}"))?;
        let b = Arc::new(Browser {
            conn,
            idle: Default::default(),
            _process: p,
        });
        *slot = Some(b.clone());
        Ok(b)
    }
}

impl Browser {
    /// Renders `url` in an idle tab, or a new one.
    async fn render(
        &self,
        url: &Url,
        served: &Served<'_>,
        wait: Duration,
        gate: &dyn Gate,
    ) -> Result<String, String> {
        let idle = self.idle.lock().map(|mut tabs| tabs.pop());
        let mut tab = match idle.ok().flatten() {
            Some(tab) => tab,
            None => Tab::open(&self.conn).await?,
        };
        let dom = tab.render(&self.conn, url, served, wait, gate).await;
        let reusable = dom.is_ok() && tab.rest(&self.conn).await.is_ok();
        let unused = match self.idle.lock() {
            Ok(mut tabs) if reusable => {
                tabs.push(tab);
                None
            }
            _ => Some(tab),
        };
        if let Some(tab) = unused {
            tab.close(&self.conn).await;
        }
        dom
    }
}

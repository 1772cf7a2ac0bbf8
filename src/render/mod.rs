//! Rendering pages in a headless Chromium (`--render js|auto`): the
//! browser process and its protocol ([`process`], [`cdp`]), one page in
//! one tab ([`tab`]), the pool of tabs over one lazily started browser
//! ([`pool`]), when `auto` renders ([`shell`]) and what rendering changed
//! ([`facts`]). The crawl's rules for the requests a page makes are the
//! crawl's own (`crawl::render_gate`), reached through [`Gate`].

pub mod cdp;
pub mod facts;
pub mod pool;
pub mod process;
pub mod shell;
pub mod tab;

pub use facts::{Mark, PageRender, Seen};
pub use pool::Renderer;

use futures_util::future::BoxFuture;
use url::Url;

use crate::store::RenderMode;

/// `--render-wait-ms` when a point names none.
pub const DEFAULT_WAIT_MS: u32 = 5000;
/// `--render-concurrency` when no point names one: four tabs a core
/// (2 to 16), since a tab spends most of a page waiting for its network
/// to go quiet, not on a core.
pub fn default_tabs() -> u32 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    (cores * 4).clamp(2, 16)
}

/// `--render`'s values.
pub fn parse_mode(s: &str) -> Result<RenderMode, String> {
    match s {
        "off" => Ok(RenderMode::Off),
        "js" => Ok(RenderMode::Js),
        "auto" => Ok(RenderMode::Auto),
        _ => Err(format!("expected off, js or auto, not {s:?}")),
    }
}

pub fn mode_name(m: RenderMode) -> &'static str {
    match m {
        RenderMode::Off => "off",
        RenderMode::Js => "js",
        RenderMode::Auto => "auto",
    }
}

/// The page as the crawler fetched it: what the browser gets for the
/// page's own URL, so it is not fetched twice.
pub struct Served<'a> {
    pub status: u16,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

/// How a request a page makes is answered.
pub enum Reply {
    Serve {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Not made: the crawl would not fetch it.
    Refuse,
}

/// The crawl's rules for every request a rendered page makes beside its
/// own URL (subresources, script fetches, navigations).
pub trait Gate: Send + Sync {
    fn request(&self, url: Url) -> BoxFuture<'_, Reply>;
}

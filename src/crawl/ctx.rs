//! What every fetch worker of a crawl shares: the store, the config, the
//! client, the per-origin and per-point state, the channels to the writer
//! and the faces; and a point's credentials as its requests carry them.

use std::collections::HashMap;
use std::sync::mpsc::Sender;
use std::sync::{Arc, RwLock};

use tokio::sync::mpsc::UnboundedSender;

use super::analyzers::PointParsing;
use super::config::CrawlConfig;
use super::cookie_jar::CookieJar;
use super::event::CrawlEvent;
use super::fetch::{Credentials, Fetcher};
use super::link_auth::LinkAuth;
use super::msg::WriterMsg;
use super::origins::Origins;
use super::pool::ParsePool;
use super::render_plans::RenderPlans;
use super::request_rules::RequestRules;
use super::robots::RobotsCache;
use super::shared::SharedRobots;
use super::sitemaps::Sitemaps;
use super::stop::Stop;
use super::writer::counters::Counters;
use super::CrawlError;
use crate::store::{PointId, PointRecord, Store};

/// What every fetch worker of a crawl shares.
pub(super) struct Ctx {
    pub store: Arc<Store>,
    pub cfg: CrawlConfig,
    pub fetcher: Fetcher,
    pub robots: RobotsCache,
    pub origins: Origins,
    pub sitemaps: Sitemaps,
    /// Our robots.txt product token in lower case, for robots directives.
    pub agent: Arc<str>,
    pub creds: RwLock<HashMap<PointId, Credentials>>,
    /// Each point's request rules, which every request of it passes.
    pub request_rules: RwLock<HashMap<PointId, Arc<RequestRules>>>,
    pub writer: Sender<WriterMsg>,
    pub events: UnboundedSender<CrawlEvent>,
    pub parsers: ParsePool,
    pub stop: Stop,
    /// The console's pause: requests wait it out at their origin's slot.
    pub pause: Arc<super::pause::Pause>,
    /// Credentials links of this run carried for their own origin.
    pub link_auth: LinkAuth,
    /// What the crawl counted, and the page requests on the wire now.
    pub counters: Arc<Counters>,
    /// The analyzers and rules of points with their own.
    pub parsing: PointParsing,
    /// The points that render pages in a browser, and the browser.
    pub render: RenderPlans,
    /// With a shared frontier: the robots.txt answers of the cluster.
    pub shared_robots: Option<Arc<SharedRobots>>,
}

impl Ctx {
    /// `point`'s request rules (none for a point this crawl does not know).
    pub fn request_rules(&self, point: PointId) -> Option<Arc<RequestRules>> {
        let rules = self.request_rules.read().unwrap_or_else(|p| p.into_inner());
        rules.get(&point).cloned()
    }

    /// Keeps `rec`'s request rules for `point`, with its documents'
    /// excludes as the store has them.
    pub fn set_request_rules(&self, point: PointId, rec: &PointRecord, doc: Vec<String>) {
        let rules = Arc::new(RequestRules::of(rec, doc));
        let mut all = self
            .request_rules
            .write()
            .unwrap_or_else(|p| p.into_inner());
        all.insert(point, rules);
    }
}

/// What a crawl point sends with its requests; its cookie jar read, or
/// why it cannot be.
pub(super) fn credentials(rec: &PointRecord) -> Result<Credentials, CrawlError> {
    let cookies = match &rec.cookie_jar {
        Some(path) => Some(Arc::new(
            CookieJar::load(std::path::Path::new(path)).map_err(CrawlError::CookieJar)?,
        )),
        None => None,
    };
    Ok(Credentials {
        origins: crate::points::site_origins(rec),
        user: rec.user.clone(),
        password: rec.password.clone(),
        headers: rec.headers.clone(),
        append_query: rec.append_query.clone(),
        cookies,
    })
}

impl Ctx {
    /// Writes back the cookie jars of the crawl's points.
    pub fn save_cookie_jars(&self) -> Result<(), CrawlError> {
        let creds = self.creds.read().unwrap_or_else(|p| p.into_inner());
        for jar in creds.values().filter_map(|c| c.cookies.as_ref()) {
            jar.save().map_err(CrawlError::CookieJar)?;
        }
        Ok(())
    }
}

//! The rendering points of a crawl: how each renders, and the one
//! browser they share (started on the first page to render).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use super::policy::PointRun;
use crate::render::{self, Renderer};
use crate::store::{PointId, PointRecord, RenderMode};

/// How one rendering point renders.
pub(super) struct Plan {
    pub(super) auto: bool,
    pub(super) wait: Duration,
    pub(super) run: PointRun,
    pub(super) check_external: bool,
}

/// The rendering points of a crawl and their one browser (started on the
/// first page to render).
#[derive(Default)]
pub(super) struct RenderPlans {
    pub(super) points: HashMap<PointId, Plan>,
    /// The largest tab pool a rendering point asks for.
    pub(super) tabs: u32,
    pub(super) renderer: OnceLock<Renderer>,
}

impl RenderPlans {
    /// Adds point `id` if it renders.
    pub fn add(&mut self, id: PointId, rec: &PointRecord) {
        if rec.render == RenderMode::Off {
            return;
        }
        let wait = rec.render_wait_ms.unwrap_or(render::DEFAULT_WAIT_MS);
        self.points.insert(
            id,
            Plan {
                auto: rec.render == RenderMode::Auto,
                wait: Duration::from_millis(u64::from(wait)),
                run: PointRun::of(rec),
                check_external: rec.check_external,
            },
        );
        let tabs = rec.render_concurrency.unwrap_or_else(render::default_tabs);
        self.tabs = self.tabs.max(tabs);
    }
}

//! Resource links and their checks. `page_resources`: page id → what the
//! page loads (target page id, element, an image's alt), written with the
//! page and removed with it; a stylesheet's `url()` targets are kept under
//! the stylesheet's own id. `resource_checks`: target page id → what one
//! HEAD (or GET) answered, in which run. A target has a URL id like a link
//! target, but no page record and no URL state unless it is also crawled
//! as a page: resources are never counted as pages.

use serde::{Deserialize, Serialize};

use super::codec::{self, read_u32, u32_key};
use super::schema::{PageId, PointId, SkipReason};
use super::sealed::{all_by_id, by_id, View};
use super::{Result, Writer};
use crate::types::Element;

/// One resource of a page, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLink {
    pub target: PageId,
    pub element: Element,
    /// An image's `alt`: None when absent, "" when empty.
    pub alt: Option<String>,
}

/// The answer to one resource check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceCheck {
    /// The run that checked it (a resource is checked once per run).
    pub point: PointId,
    pub gen: u32,
    /// The status answered (None: no answer).
    pub status: Option<u16>,
    /// Why it is broken: no answer, or a 4xx/5xx status line. None when
    /// it works.
    pub reason: Option<String>,
    /// Content-Length, else the bytes read when it was fetched with GET.
    pub size: Option<u64>,
    /// The Content-Type's essence (`image/png`).
    pub mime: Option<String>,
    pub checked_at: i64,
    /// Not asked, neither working nor broken: the point's rules exclude
    /// it (`Excluded`) or robots.txt disallows it (`Robots`).
    pub not_checked: Option<SkipReason>,
}

impl ResourceCheck {
    pub fn broken(&self) -> bool {
        self.reason.is_some()
    }
}

/// Resource look-ups.
pub trait ResourceRead: View {
    /// What a page loads (empty when nothing, or not known).
    fn resources(&self, page: PageId) -> Result<Vec<ResourceLink>> {
        Ok(by_id(self, self.dbs().page_resources, page, codec::decode)?.unwrap_or_default())
    }

    /// Calls `f` with every page's resources, by page id; `f` says
    /// whether to go on.
    fn for_each_resources(
        &self,
        mut f: impl FnMut(PageId, Vec<ResourceLink>) -> Result<bool>,
    ) -> Result<()> {
        for item in self.dbs().page_resources.iter(self.txn())? {
            let (k, v) = item?;
            if !f(read_u32(k)?, codec::decode(v)?)? {
                break;
            }
        }
        Ok(())
    }

    fn resource_check(&self, page: PageId) -> Result<Option<ResourceCheck>> {
        by_id(self, self.dbs().resource_checks, page, codec::decode)
    }

    /// Every checked resource, by page id.
    fn resource_checks(&self) -> Result<Vec<(PageId, ResourceCheck)>> {
        all_by_id(self, self.dbs().resource_checks)
    }
}

impl<T: View + ?Sized> ResourceRead for T {}

impl Writer<'_> {
    /// Replaces what `page` loads (nothing: its record is removed).
    pub fn put_resources(&mut self, page: PageId, resources: &[ResourceLink]) -> Result<()> {
        if resources.is_empty() {
            return self.drop_resources(page);
        }
        self.dbs
            .page_resources
            .put(&mut self.txn, &u32_key(page), &codec::encode(&resources)?)?;
        Ok(())
    }

    pub fn drop_resources(&mut self, page: PageId) -> Result<()> {
        self.dbs
            .page_resources
            .delete(&mut self.txn, &u32_key(page))?;
        Ok(())
    }

    pub fn put_resource_check(&mut self, page: PageId, check: &ResourceCheck) -> Result<()> {
        self.dbs
            .resource_checks
            .put(&mut self.txn, &u32_key(page), &codec::encode(check)?)?;
        Ok(())
    }
}

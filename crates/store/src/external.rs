//! Out-of-scope link targets checked with `--check-external`: page id →
//! what one HEAD (or GET) answered, in which run. Never crawled: the check
//! only says whether the link works. And, checked the same way with
//! `--require-https`, `https_twins`: an `http://` URL's page id → what its
//! `https://` twin answered (the twin itself gets no URL id).

use serde::{Deserialize, Serialize};

use super::codec::{self, u32_key};
use super::schema::{PageId, PointId, SkipReason};
use super::sealed::{all_by_id, by_id, View};
use super::{Result, Writer};

/// The answer to one external link check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalCheck {
    /// The run that checked it (a link is checked once per run).
    pub point: PointId,
    pub gen: u32,
    /// The status answered (None: no answer).
    pub status: Option<u16>,
    /// Why it is broken: no answer (`connection refused`, `dns: ...`) or a
    /// 4xx/5xx status line. None when it works.
    pub reason: Option<String>,
    pub checked_at: i64,
    /// Not asked, neither working nor broken: robots.txt disallows it.
    pub not_checked: Option<SkipReason>,
}

impl ExternalCheck {
    pub fn broken(&self) -> bool {
        self.reason.is_some()
    }
}

/// External check look-ups.
pub trait ExternalRead: View {
    fn external_check(&self, page: PageId) -> Result<Option<ExternalCheck>> {
        by_id(self, self.dbs().external_checks, page, codec::decode)
    }

    /// Every checked link target, by page id.
    fn external_checks(&self) -> Result<Vec<(PageId, ExternalCheck)>> {
        all_by_id(self, self.dbs().external_checks)
    }

    /// What the `https://` twin of the `http://` URL `page` answered.
    fn https_twin(&self, page: PageId) -> Result<Option<ExternalCheck>> {
        by_id(self, self.dbs().https_twins, page, codec::decode)
    }

    /// Every asked twin, by the page id of its http URL.
    fn https_twins(&self) -> Result<Vec<(PageId, ExternalCheck)>> {
        all_by_id(self, self.dbs().https_twins)
    }
}

impl<T: View + ?Sized> ExternalRead for T {}

impl Writer<'_> {
    pub fn put_external_check(&mut self, page: PageId, check: &ExternalCheck) -> Result<()> {
        self.dbs
            .external_checks
            .put(&mut self.txn, &u32_key(page), &codec::encode(check)?)?;
        Ok(())
    }

    /// Keeps what the twin of the `http://` URL `page` answered.
    pub fn put_https_twin(&mut self, page: PageId, check: &ExternalCheck) -> Result<()> {
        self.dbs
            .https_twins
            .put(&mut self.txn, &u32_key(page), &codec::encode(check)?)?;
        Ok(())
    }
}

//! The page id a found URL is stored under: on the site's first-seen
//! form when a point takes www twins as one site, with the point's user
//! when the URL's origin is one it logs in to.

use std::borrow::Cow;

use url::Url;

use crate::crawl::policy::PointRun;
use crate::store::{PageId, StoreError, Writer};

/// The page id of a URL `run`'s point found, and the URL as stored: on
/// the site's first-seen form when www twins are one site.
pub(super) fn link_id<'u>(
    run: &PointRun,
    w: &mut Writer<'_>,
    url: &'u Url,
) -> Result<(PageId, Cow<'u, Url>), StoreError> {
    let url = if run.one_site {
        w.on_first_seen_site_once(url)?
    } else {
        Cow::Borrowed(url)
    };
    // Only a point with a user needs the link's origin.
    let user = run
        .user
        .as_ref()
        .filter(|(_, origins)| origins.contains(&crate::url::origin(&url)))
        .map(|(u, _)| u.as_str());
    Ok((w.page_id_as(&url, user)?, url))
}

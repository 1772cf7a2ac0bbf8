//! Credentials a link carries: `http://user:pw@host/private` on a page of
//! `host`'s own origin is that URL's basic auth. They are kept here, in
//! memory, for the run that read the link, and nowhere else: the link's
//! URL is stored and shown without them (as every URL is), they are
//! never written to the store (a page's secret is not the user's to
//! keep, unlike a point's `--password`), and another origin's link
//! gives nothing. A crawl point's own user for the origin comes first.
//! A re-crawl learns them again from the linking page, parsed anew or,
//! when it answers 304, from its stored body (see `claim`); a URL left
//! queued by a stopped run goes without them.

use std::collections::HashMap;
use std::sync::Mutex;

use url::Url;

use super::fetch::Credentials;
use super::parse::{self, BodyKind};
use super::pool::ParsePool;
use crate::html::Link;
use crate::store::prelude::*;
use crate::store::{PageId, Reader, Store, StoreError};

/// A link's `user` and `password`, by the URL they are for.
#[derive(Default)]
pub struct LinkAuth(Mutex<HashMap<String, (String, Option<String>)>>);

impl LinkAuth {
    /// Keeps the userinfo of the links of `page` that lead to its own
    /// origin; the first one seen for a URL holds.
    pub fn learn(&self, page: &Url, links: &[Link]) {
        // Nearly every page has no such link: no lock, no origin string.
        if links.iter().all(|l| l.userinfo.is_none()) {
            return;
        }
        let origin = crate::url::origin(page);
        let mut known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        for link in links {
            if let Some(info) = &link.userinfo {
                if crate::url::origin(&link.url) == origin {
                    known
                        .entry(link.url.as_str().to_string())
                        .or_insert_with(|| info.clone());
                }
            }
        }
    }

    /// Learns from the stored body of `page` (on `site`), when that may
    /// hold such links: a page answered 304 is not parsed.
    pub async fn learn_stored(&self, store: &Store, parsers: &ParsePool, page: PageId, site: &Url) {
        let body = store
            .read()
            .ok()
            .and_then(|r| stored_html(&r, page).ok().flatten());
        let Some(body) = body.filter(|b| may_hold_userinfo(b)) else {
            return;
        };
        let url = site.clone();
        let parsed = parsers
            .run(move || crate::html::parse_html(&body, None, &url).links)
            .await;
        if let Some(links) = parsed {
            self.learn(site, &links);
        }
    }

    /// What a request for `url` sends: the point's credentials when they
    /// hold a user for `origin`, else a link's user and password with the
    /// point's headers and query for the origin, if any.
    pub fn for_request(
        &self,
        url: &Url,
        origin: &str,
        point: Option<Credentials>,
    ) -> Option<Credentials> {
        let own = point.filter(|c| c.origins.iter().any(|o| o == origin));
        if own.as_ref().is_some_and(|c| c.user.is_some()) {
            return own;
        }
        let known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some((user, password)) = known.get(url.as_str()) else {
            return own;
        };
        Some(Credentials {
            origins: vec![origin.to_string()],
            user: Some(user.clone()),
            password: password.clone(),
            ..own.unwrap_or_default()
        })
    }
}

/// The stored body of `page`, when it is an HTML page's.
fn stored_html(r: &Reader<'_>, page: PageId) -> Result<Option<Vec<u8>>, StoreError> {
    let Some(rec) = r.page(page)? else {
        return Ok(None);
    };
    let essence = r.mime(rec.mime)?.map(|m| m.essence);
    if parse::body_kind(essence.as_deref()) != BodyKind::Html {
        return Ok(None);
    }
    r.body(page)
}

/// Whether a body may hold a link with `user@`: a page that does is
/// parsed again rather than taken as unchanged, so its links' credentials
/// are known to the run.
pub fn may_hold_userinfo(body: &[u8]) -> bool {
    memchr::memmem::find_iter(body, b"://").any(|at| {
        body[at + 3..]
            .iter()
            .take_while(|b| {
                !matches!(b, b'/' | b'"' | b'\'' | b'<' | b'>' | b'?' | b'#')
                    && !b.is_ascii_whitespace()
            })
            .any(|&b| b == b'@')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(href: &str) -> Link {
        let page = Url::parse("http://site.test/dir/").unwrap();
        let with = page.join(href).unwrap();
        Link {
            url: crate::url::without_userinfo(&with).into_owned(),
            anchor: String::new(),
            rel: crate::html::Rel::default(),
            userinfo: crate::url::userinfo(&with),
        }
    }

    fn user_for(auth: &LinkAuth, url: &str, point: Option<Credentials>) -> Option<String> {
        let url = Url::parse(url).unwrap();
        auth.for_request(&url, &crate::url::origin(&url), point)
            .and_then(|c| c.user)
    }

    #[test]
    fn a_link_s_userinfo_is_for_its_url_on_the_page_s_origin_only() {
        let auth = LinkAuth::default();
        let page = Url::parse("http://site.test/dir/").unwrap();
        auth.learn(
            &page,
            &[
                link("http://ann:pw@site.test/private"),
                link("http://bob:pw2@site.test/private"),
                link("http://eve:pw3@other.test/x"),
            ],
        );
        assert_eq!(
            user_for(&auth, "http://site.test/private", None).as_deref(),
            Some("ann")
        );
        assert_eq!(user_for(&auth, "http://site.test/other", None), None);
        assert_eq!(user_for(&auth, "http://other.test/x", None), None);
        let point = Credentials {
            origins: vec!["http://site.test:80".into()],
            user: Some("own".into()),
            ..Credentials::default()
        };
        assert_eq!(
            user_for(&auth, "http://site.test/private", Some(point)).as_deref(),
            Some("own"),
            "the point's user comes first"
        );
    }

    #[test]
    fn only_a_body_with_a_user_in_a_url_is_suspected() {
        assert!(may_hold_userinfo(b"<a href=\"http://u:p@h/x\">"));
        assert!(!may_hold_userinfo(
            b"<a href=\"http://h/a@b\">mail a@b.c</a>"
        ));
        assert!(!may_hold_userinfo(b"see http://h/ and me@h.test"));
    }
}

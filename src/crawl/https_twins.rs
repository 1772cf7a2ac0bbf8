//! `--require-https`, lychee's flag: once a run has nothing left to fetch
//! or check, the `https://` twin of every `http://` URL its pages link to
//! or load (own origin or not) is asked once in the run, through the
//! point's request rules, robots.txt and the origin's gate, as an
//! external link is ([`super::external::check`]); never crawled. An http link
//! whose twin answers is a finding (`report http-links`).

use rustc_hash::FxHashSet;
use url::Url;

use super::external::Target;
use super::result_cache::ResultCache;
use crate::store::prelude::*;
use crate::store::{PageId, PointId, Reader, StoreError, UrlState};
use crate::time::unix_now;

/// The `https://` twin of an `http://` URL: the same URL over https, on
/// the port the link named, else https' own (443). None for any other
/// scheme.
pub fn twin(url: &Url) -> Option<Url> {
    if url.scheme() != "http" {
        return None;
    }
    let mut twin = url.clone();
    twin.set_scheme("https").ok()?;
    Some(twin)
}

/// The `http://` URLs a page links to (one per target, the first link's
/// element), in page order, then those it loads (what it only names, a
/// canonical, is no link): (URL id, URL, element).
pub fn http_links(
    r: &Reader<'_>,
    page: PageId,
) -> Result<Vec<(PageId, Url, &'static str)>, StoreError> {
    let links = r
        .links(page)?
        .into_iter()
        .map(|l| (l.child, l.element.as_str()));
    let loads = r.resources(page)?.into_iter();
    let loads = loads
        .filter(|l| !l.element.is_target())
        .map(|l| (l.target, l.element.as_str()));
    let mut out = Vec::new();
    for (target, element) in links.chain(loads) {
        let Some(url) = r.url_of(target)?.filter(|u| u.starts_with("http://")) else {
            continue;
        };
        if let Ok(url) = Url::parse(&url) {
            out.push((target, url, element));
        }
    }
    Ok(out)
}

/// The twins to ask for the runs of `points`: of the http links of the
/// pages each fetched, those this run has not asked yet, nor has a fresh
/// answer for (`--cache`). A target's `page` is the http URL's id, its
/// `url` the twin's.
pub fn todo(r: &Reader<'_>, points: &[PointId]) -> Result<Vec<Target>, StoreError> {
    let mut runs = Vec::new();
    for &id in points {
        if let Some(p) = r.point(id)? {
            runs.push((id, p.gen, ResultCache::of(&p)));
        }
    }
    let mut sources = Vec::new();
    r.for_each_state(|page, state| {
        if let UrlState::Done { point, gen } = state {
            sources.extend(
                runs.iter()
                    .position(|x| (x.0, x.1) == (point, gen))
                    .map(|i| (page, i)),
            );
        }
        Ok(true)
    })?;
    let now = unix_now();
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    for (source, i) in sources {
        let (point, gen, cache) = runs[i];
        for (page, url, _) in http_links(r, source)? {
            if !seen.insert(page) {
                continue;
            }
            let done = r.https_twin(page)?.is_some_and(|c| {
                (c.point, c.gen) == (point, gen) || cache.fresh(point, c.point, c.checked_at, now)
            });
            if let (false, Some(twin)) = (done, twin(&url)) {
                out.push(Target {
                    page,
                    url: twin.into(),
                    point,
                    gen,
                    // Any answer below 400 is the twin answering: the
                    // point's --accept list says what is broken, not this.
                    accept: Vec::new(),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::twin;
    use url::Url;

    #[test]
    fn the_twin_is_the_same_url_over_https_on_the_port_named() {
        let cases = [
            ("http://a.test/x?q=1#f", Some("https://a.test/x?q=1#f")),
            ("http://a.test:8080/x", Some("https://a.test:8080/x")),
            ("http://a.test:443/", Some("https://a.test/")),
            ("https://a.test/", None),
            ("ftp://a.test/", None),
        ];
        for (url, want) in cases {
            let got = twin(&Url::parse(url).unwrap()).map(String::from);
            assert_eq!(got.as_deref(), want, "{url}");
        }
    }
}

//! The frontier's rules, as plain functions over what the store says of a
//! URL: whether a point's run has dealt with it already (`visited`), whether
//! its scope and depth take it (`refusal`), how a nofollow link is held
//! back, and when a redirect chain ends. The writer reads the store and
//! applies what these decide; nothing here touches LMDB.

use std::collections::HashMap;
use std::sync::Arc;

use url::Url;

use super::request_rules::RequestRules;
pub use super::request_rules::MAX_REDIRECTS;
use crate::store::{
    Decision, FrontierEntry, PageId, PointId, PointMark, PointRecord, RunId, SkipReason, UrlState,
};
use crate::url::Verdict;

/// The depth a page found only in a sitemap gets: one step from the site,
/// like a link from its home page.
pub const SITEMAP_DEPTH: u32 = 1;

/// What the writer knows of each point crawled in this run.
#[derive(Debug, Clone)]
pub struct PointRun {
    /// What the point requests at all (`crawl/request_rules`); its scope.
    pub rules: Arc<RequestRules>,
    pub depth: Option<u32>,
    pub gen: u32,
    /// The run's record (`runs`): 0 until the writer begins or joins it.
    pub run: RunId,
    pub follow_nofollow: bool,
    /// `www.host` and `host` are one site (the first seen is canonical).
    pub one_site: bool,
    /// The basic-auth user and the origins it is sent to.
    pub user: Option<(String, Vec<String>)>,
    /// `--check-fragments`: keep each page's ids and fragment links.
    pub check_fragments: bool,
}

impl PointRun {
    pub fn of(rec: &PointRecord) -> PointRun {
        PointRun {
            rules: Arc::new(RequestRules::of(rec, Vec::new())),
            depth: rec.depth,
            gen: rec.gen,
            run: 0,
            follow_nofollow: rec.follow_nofollow,
            one_site: !rec.distinct_www,
            user: rec
                .user
                .clone()
                .map(|u| (u, crate::points::site_origins(rec))),
            check_fragments: rec.check_fragments,
        }
    }

    /// The run with its document's excludes (`doc`) beside the point's own.
    pub fn and_doc_excludes(mut self, rec: &PointRecord, doc: Vec<String>) -> PointRun {
        if !doc.is_empty() {
            self.rules = Arc::new(RequestRules::of(rec, doc));
        }
        self
    }
}

/// The runs of the points this crawler crawls, by point.
pub type Runs = HashMap<PointId, PointRun>;

/// Whether a URL is dealt with for this run of its point: the point's
/// own mark (`mark`) says its run `gen` queued, fetched or skipped it.
/// What other points did never counts: each point has a frontier of its
/// own, and what another point queued, skipped or left behind is this
/// point's to judge by its own rules (one crawl still fetches a URL once:
/// the claim reuses a fetch made for another point).
pub fn visited(mark: Option<PointMark>, gen: u32) -> bool {
    // A nofollow link does not settle a URL: a followed link to it
    // later in the run still queues it.
    mark.is_some_and(|m| m.gen == gen && m.decision != Decision::Skipped(SkipReason::Nofollow))
}

/// Whether a URL's state is a fetch result (done, failed, redirected):
/// a fact about the URL, which a later run's decision not to fetch it
/// leaves as it is.
pub fn fetch_result(state: Option<&UrlState>) -> bool {
    matches!(
        state,
        Some(UrlState::Done { .. } | UrlState::Failed { .. } | UrlState::Redirected { .. })
    )
}

/// Why the scope refuses `url`, if it does: excluded by the point's
/// request rules (a prefix within the root, a pattern anywhere, no
/// `--include` matched), or out of its root.
pub fn scope_refusal(run: &PointRun, url: &str) -> Option<SkipReason> {
    if run.rules.excluded(url) {
        return Some(SkipReason::Excluded);
    }
    (run.rules.scope().verdict(url) == Verdict::OutOfScope).then_some(SkipReason::OutOfScope)
}

/// Why the point does not crawl `url` found at `depth`, if it does not:
/// its scope refuses it, or it lies deeper than the point goes.
pub fn refusal(run: &PointRun, url: &str, depth: u32) -> Option<SkipReason> {
    scope_refusal(run, url).or_else(|| {
        run.depth
            .is_some_and(|max| depth > max)
            .then_some(SkipReason::TooDeep)
    })
}

/// Whether a link is held back as nofollow: the link or its page says so,
/// and the point does not follow such links.
pub fn held_as_nofollow(run: &PointRun, link_nofollow: bool, page_nofollow: bool) -> bool {
    (link_nofollow || page_nofollow) && !run.follow_nofollow
}

/// Whether a link held back as nofollow is to be recorded as skipped: its
/// point's run has not dealt with its URL yet, as nofollow or otherwise.
pub fn record_nofollow(mark: Option<PointMark>, gen: u32) -> bool {
    mark.is_none_or(|m| m.gen != gen)
}

/// Whether a sitemap's `<lastmod>` says a page changed since it was
/// fetched: such pages are among the first claimed.
pub fn listed_changed(lastmod: Option<i64>, fetched_at: Option<i64>) -> bool {
    match (lastmod, fetched_at) {
        (Some(lastmod), Some(fetched_at)) => lastmod > fetched_at,
        _ => false,
    }
}

/// Why a redirect from page `from` (reached after `hops` redirects) to
/// page `to` at `target` ends the chain as a failure, if it does: more
/// hops than `max`, or a loop. `next` says where a page redirects, if it does; it is
/// only asked when the chain is not already too long.
pub fn redirect_failure<E>(
    max: u8,
    hops: u8,
    status: u16,
    target: &Url,
    from: PageId,
    to: PageId,
    next: impl FnMut(PageId) -> Result<Option<PageId>, E>,
) -> Result<Option<String>, E> {
    Ok(if hops >= max {
        Some(format!("too many redirects (more than {max})"))
    } else if to == from || leads_back(max, to, from, next)? {
        Some(format!("redirect loop ({status} to {target})"))
    } else {
        None
    })
}

/// Whether following redirects (`next`) from `from` leads back to `to`.
fn leads_back<E>(
    max: u8,
    from: PageId,
    to: PageId,
    mut next: impl FnMut(PageId) -> Result<Option<PageId>, E>,
) -> Result<bool, E> {
    let mut at = from;
    for _ in 0..=max {
        match next(at)? {
            Some(n) if n == to => return Ok(true),
            Some(n) => at = n,
            None => return Ok(false),
        }
    }
    Ok(false)
}

/// The frontier entry of a redirect's target: at its source's depth, one
/// hop further along the chain, in the point's current run.
pub fn redirected(from: FrontierEntry, to: PageId, gen: u32) -> FrontierEntry {
    FrontierEntry {
        page: to,
        depth: from.depth,
        point: from.point,
        gen,
        hops: from.hops + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: PointId = 1;

    fn point(exclude_regex: &[&str]) -> PointRecord {
        PointRecord {
            root: "https://a.test/".into(),
            excludes: vec!["https://a.test/private/".into()],
            distinct_www: true,
            exclude_regex: exclude_regex.iter().map(|s| s.to_string()).collect(),
            ..PointRecord::default()
        }
    }

    fn run(depth: Option<u32>, gen: u32, follow_nofollow: bool) -> PointRun {
        PointRun {
            rules: Arc::new(RequestRules::of(&point(&[]), Vec::new())),
            depth,
            gen,
            run: 0,
            follow_nofollow,
            one_site: false,
            user: None,
            check_fragments: false,
        }
    }

    fn mark(gen: u32, decision: Decision) -> Option<PointMark> {
        Some(PointMark {
            gen,
            decision,
            depth: 0,
        })
    }

    #[test]
    fn scope_is_asked_before_depth() {
        use SkipReason::{Excluded, OutOfScope, TooDeep};
        let two_deep = run(Some(2), 1, false);
        let unbounded = run(None, 1, false);
        let patterned = PointRun {
            rules: Arc::new(RequestRules::of(
                &point(&[r"\.pdf$", "^https://c\\."]),
                Vec::new(),
            )),
            ..run(None, 1, false)
        };
        let cases: &[(&PointRun, &str, u32, Option<SkipReason>)] = &[
            (&two_deep, "https://a.test/x", 0, None),
            (&two_deep, "https://a.test/x", 2, None),
            (&two_deep, "https://a.test/x", 3, Some(TooDeep)),
            (&two_deep, "https://b.test/x", 0, Some(OutOfScope)),
            (&two_deep, "https://b.test/x", 9, Some(OutOfScope)),
            (&two_deep, "https://a.test/private/p", 0, Some(Excluded)),
            (&two_deep, "https://a.test/private/p", 9, Some(Excluded)),
            (&unbounded, "https://a.test/x", 1000, None),
            (&unbounded, "http://a.test/x", 0, Some(OutOfScope)),
            (&patterned, "https://a.test/doc.pdf", 0, Some(Excluded)),
            (&patterned, "https://a.test/doc.pdf.html", 0, None),
            (&patterned, "https://c.test/x", 0, Some(Excluded)),
            (&patterned, "https://b.test/x", 0, Some(OutOfScope)),
        ];
        for &(run, url, depth, want) in cases {
            assert_eq!(refusal(run, url, depth), want, "{url} at depth {depth}");
        }
        // A redirect's target is judged by scope alone.
        assert_eq!(scope_refusal(&two_deep, "https://a.test/x"), None);
        assert_eq!(
            scope_refusal(&two_deep, "https://a.test/private/"),
            Some(Excluded)
        );
    }

    #[test]
    fn a_url_is_visited_only_by_its_own_points_run() {
        use Decision::{Queued, Settled, Skipped};
        use SkipReason::{Nofollow, OutOfScope};
        let cases: &[(Option<PointMark>, bool, &str)] = &[
            (None, false, "never met by this point"),
            (mark(5, Queued), true, "queued in this run"),
            (mark(5, Settled), true, "fetched in this run"),
            (
                mark(4, Settled),
                false,
                "fetched in the point's earlier run",
            ),
            (mark(5, Skipped(OutOfScope)), true, "skipped in this run"),
            (
                mark(5, Skipped(Nofollow)),
                false,
                "nofollow settles nothing",
            ),
            (mark(4, Queued), false, "left queued by an earlier run"),
        ];
        for (m, want, why) in cases {
            assert_eq!(visited(*m, 5), *want, "{why}");
        }
    }

    #[test]
    fn nofollow_holds_links_back_and_is_said_once_per_run() {
        // (link says, page says, point follows them, held)
        let holds = [
            (false, false, false, false),
            (true, false, false, true),
            (false, true, false, true),
            (true, true, true, false),
            (true, false, true, false),
        ];
        for (link, page, follows, want) in holds {
            let r = run(None, 5, follows);
            let held = held_as_nofollow(&r, link, page);
            assert_eq!(held, want, "link {link}, page {page}, follows {follows}");
        }
        use Decision::{Queued, Settled, Skipped};
        use SkipReason::Nofollow;
        let records: &[(Option<PointMark>, bool, &str)] = &[
            (None, true, "first seen"),
            (
                mark(5, Skipped(Nofollow)),
                false,
                "already said in this run",
            ),
            (mark(4, Skipped(Nofollow)), true, "said in an earlier run"),
            (mark(5, Settled), false, "fetched"),
            (mark(5, Queued), false, "queued by a followed link"),
        ];
        for (m, want, why) in records {
            assert_eq!(record_nofollow(*m, 5), *want, "{why}");
        }
    }

    #[test]
    fn a_redirect_chain_ends_when_too_long_or_looping() {
        let target = Url::parse("https://a.test/t").expect("a valid URL");
        // Page 2 redirects to 3, 3 to 1; 5 to 6, 6 to 5 (a loop not through 1).
        let chain = HashMap::from([(2, 3), (3, 1), (5, 6), (6, 5)]);
        let cases: &[(u8, PageId, Option<&str>)] = &[
            (0, 4, None),
            (MAX_REDIRECTS - 1, 4, None),
            (MAX_REDIRECTS, 4, Some("too many redirects (more than 10)")),
            (0, 1, Some("redirect loop (301 to https://a.test/t)")),
            (0, 2, Some("redirect loop (301 to https://a.test/t)")),
            (0, 5, None),
        ];
        for &(hops, to, want) in cases {
            let mut asked = 0;
            let failure = redirect_failure(MAX_REDIRECTS, hops, 301, &target, 1, to, |at| {
                asked += 1;
                Ok::<_, ()>(chain.get(&at).copied())
            });
            assert_eq!(failure, Ok(want.map(String::from)), "{hops} hops to {to}");
            if hops >= MAX_REDIRECTS {
                assert_eq!(asked, 0, "a chain too long is not walked");
            }
        }
    }

    #[test]
    fn a_redirect_target_keeps_depth_and_counts_a_hop() {
        let from = FrontierEntry {
            page: 1,
            depth: 3,
            point: A,
            gen: 4,
            hops: 2,
        };
        let to = FrontierEntry {
            page: 9,
            depth: 3,
            point: A,
            gen: 5,
            hops: 3,
        };
        assert_eq!(redirected(from, 9, 5), to);
    }

    #[test]
    fn a_listed_page_is_changed_only_when_lastmod_is_newer() {
        let cases = [
            (Some(10), Some(5), true),
            (Some(5), Some(5), false),
            (Some(4), Some(5), false),
            (None, Some(5), false),
            (Some(10), None, false),
        ];
        for (lastmod, fetched_at, want) in cases {
            assert_eq!(listed_changed(lastmod, fetched_at), want);
        }
    }
}

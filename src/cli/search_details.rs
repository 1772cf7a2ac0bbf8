//! What `search` lists under each hit (top keywords, the first parents and
//! children with their counts), read for all hits on several threads.
//!
//! Why threads, and why few links by default: a whole `search` process
//! spends more of its time here than in the ranking. A page's parents
//! are read from every live segment of the reverse links, and each listed
//! parent and child is a URL look-up, most of its cost the first touches
//! of the store's mapped pages in a fresh process (bench/README.md has
//! the figures). The hits are independent, so they are split between the
//! cores; `--links` says how many URLs each lists.
//!
//! The calling thread reads its share from the ranking's snapshot; each
//! other thread opens its own (a read transaction belongs to one thread),
//! so while a crawl commits, a hit's links may be a commit newer than its
//! rank. A page missing from the newer snapshot lists nothing.

use std::num::NonZeroUsize;

use crate::export::page::{keywords_json, urls, KeywordJson};
use crate::store::prelude::*;
use crate::store::{PageId, Reader, Store, StoreError};

/// Keywords listed per result.
const RESULT_KEYWORDS: usize = 5;

/// Below this many hits a thread is not worth starting: one costs tens of
/// microseconds, a hit's details a few hundred.
const HITS_PER_THREAD: usize = 4;

/// One hit's details.
pub(super) struct Details {
    pub keywords: Vec<KeywordJson>,
    /// The first `links` parents (by page id) and children (in link
    /// order), with how many there are in all.
    pub parents: Vec<String>,
    pub children: Vec<String>,
    pub parent_count: usize,
    pub child_count: usize,
}

/// The details of `pages`, in their order, each listing `links` parents
/// and children (a hub page can have tens of thousands). `r` is the
/// calling thread's snapshot (the one the pages were ranked in).
pub(super) fn details(
    store: &Store,
    r: &Reader<'_>,
    pages: &[PageId],
    links: usize,
) -> Result<Vec<Details>, StoreError> {
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    details_on(store, r, pages, links, cores)
}

/// [`details`] on at most `cores` threads.
fn details_on(
    store: &Store,
    r: &Reader<'_>,
    pages: &[PageId],
    links: usize,
    cores: usize,
) -> Result<Vec<Details>, StoreError> {
    let threads = cores.min(pages.len() / HITS_PER_THREAD).max(1);
    let share = pages.len().div_ceil(threads).max(1);
    let mut shares = pages.chunks(share);
    let own = shares.next().unwrap_or_default();
    std::thread::scope(|s| {
        let others: Vec<_> = shares
            .map(|part| {
                s.spawn(move || {
                    let r = store.read()?;
                    part.iter()
                        .map(|&p| one(&r, p, links))
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        let mut out = own
            .iter()
            .map(|&p| one(r, p, links))
            .collect::<Result<Vec<_>, _>>()?;
        for h in others {
            let part = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
            out.extend(part);
        }
        Ok(out)
    })
}

fn one(r: &Reader<'_>, page: PageId, links: usize) -> Result<Details, StoreError> {
    let parents = r.inlinks(page)?;
    let children = r.children(page)?;
    Ok(Details {
        keywords: keywords_json(r, page, RESULT_KEYWORDS)?,
        parents: urls(r, &parents[..parents.len().min(links)])?,
        children: urls(r, &children[..children.len().min(links)])?,
        parent_count: parents.len(),
        child_count: children.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::test_store::{html, put_linked};
    use crate::store::OutLink;

    /// A hit's details as compared: keyword words, parents, children and
    /// the two counts.
    type Seen = (Vec<String>, Vec<String>, Vec<String>, usize, usize);

    /// However the hits are split between threads, each hit's details are
    /// its own, in the hits' order.
    #[test]
    fn details_are_the_same_on_any_number_of_threads() {
        const N: u32 = 30;
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("open store");
        let url = |i: u32| format!("http://t.test/{i}");
        let ids = store
            .update(|w| {
                let ids: Vec<PageId> = (0..N)
                    .map(|i| w.page_id_for(&crate::url::Url::parse(&url(i)).expect("a URL")))
                    .collect::<Result<_, _>>()?;
                for i in 0..N {
                    // Every page links home and to the 24 after it, so
                    // lists are cut at their first 20; each page has a
                    // word of its own, repeated, to lead its keywords.
                    let links: Vec<OutLink> = (1..25)
                        .map(|d| (i + d) % N)
                        .chain([0])
                        .filter(|&j| j != i)
                        .map(|j| OutLink {
                            child: ids[j as usize],
                            ..OutLink::default()
                        })
                        .collect();
                    let own = format!("zorb{}", char::from(b'a' + i as u8));
                    let body = format!("kiwi {own} {own} {own}");
                    put_linked(w, &url(i), &html("T", &body), &links)?;
                }
                Ok(ids)
            })
            .expect("index pages");
        let r = store.read().expect("read");
        let seen = |threads| -> Vec<Seen> {
            details_on(&store, &r, &ids, 20, threads)
                .expect("details")
                .into_iter()
                .map(|d| {
                    let words = d.keywords.into_iter().map(|k| k.word).collect();
                    (words, d.parents, d.children, d.parent_count, d.child_count)
                })
                .collect()
        };
        let one = seen(1);
        assert_eq!(one.len(), N as usize);
        assert_eq!((one[0].3, one[0].1.len()), (29, 20), "home: cut at 20");
        assert_eq!((one[5].4, one[5].2.len()), (25, 20), "children: cut at 20");
        assert_eq!(one[5].0[0], "zorbf", "a page's own word leads");
        for threads in [2, 3, 7] {
            assert_eq!(seen(threads), one, "{threads} threads");
        }
    }
}

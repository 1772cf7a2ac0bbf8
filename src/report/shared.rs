//! Pages grouped by a text they share (a title, a description, a first
//! `<h1>`): the duplicate groups the text kinds list. The texts are
//! grouped by sorting, not in a map keyed by them: at a million pages a
//! map of every distinct text is several times the size of the texts'
//! references sorted once.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use super::kept_lists::Group;
use crate::store::PageId;

/// A page's text as [`groups`] sorts it.
pub type Keyed<'t> = (u64, PageId, &'t str);

pub fn keyed(page: PageId, text: &str) -> Keyed<'_> {
    (hash(text), page, text)
}

/// The texts of `keyed` pages (each page once) shared by more than one
/// page, each with its pages in id order: the largest groups first, then
/// by their first page.
pub fn groups(mut keyed: Vec<Keyed<'_>>) -> Vec<(&str, Group)> {
    // By hash first (cheap to compare), then by text: texts with one hash
    // sit together, each text's pages in id order.
    keyed.sort_unstable_by(|a, b| (a.0, a.2, a.1).cmp(&(b.0, b.2, b.1)));
    let mut out: Vec<(&str, Group)> = (keyed.chunk_by(|a, b| a.0 == b.0 && a.2 == b.2))
        .filter(|same| same.len() > 1)
        .map(|same| (same[0].2, Group::new(same.iter().map(|s| s.1).collect())))
        .collect();
    out.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.1[0].cmp(&b.1[0])));
    out
}

fn hash(text: &str) -> u64 {
    let mut h = FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_hold_the_shared_texts_largest_first_pages_in_order() {
        let pages = [
            (9, "b"),
            (1, "a"),
            (4, "c"),
            (3, "b"),
            (2, "a"),
            (7, "b"),
            (5, "d"),
            (8, "d"),
        ];
        let got: Vec<(&str, Vec<PageId>)> = groups(pages.map(|(p, t)| keyed(p, t)).to_vec())
            .into_iter()
            .map(|(t, g)| (t, g.to_vec()))
            .collect();
        assert_eq!(
            got,
            [("b", vec![3, 7, 9]), ("a", vec![1, 2]), ("d", vec![5, 8])]
        );
    }
}

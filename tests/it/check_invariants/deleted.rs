//! Every entry of every table deleted alone: `check` notices each but the
//! few whose loss breaks nothing, and those leave a store that answers.

use super::*;

/// Deletions `check` passes, and why. Harmless ones: `format_version` is
/// written again by every open of the store (what `check` does first); no
/// crawler id is in use once every crawler has exited, so
/// `next_instance_id` may start again; a robots record is a cache (fetched
/// again when missing, absent under `--ignore-robots`); origin figures and
/// which sitemap listed a page and what an external link answered are
/// statistics and notes, no invariant's parts, and so is what a resource
/// check answered. And ones no record
/// reveals: a page's resources are optional (a page may load nothing),
/// and nothing else records them; a page's body is optional (no body is kept for an image or
/// an error page) and the page record does not say whether it had one; a
/// flag for that would take a schema change. (A page's meta tags and HTTP
/// head are parts of its `forward` record, which a page must have.) Run history is what the
/// next run is compared with, and nothing else records whether a run
/// fetched a URL (its state may since belong to another point's run): a
/// lost entry shows as a "new" URL in `report changes`, nothing more. A
/// near-duplicate signature is optional too (a page too short for one
/// shingle has none), and nothing else records whether a page had one.
fn passes(table: &str, key: &[u8]) -> bool {
    match table {
        "meta" => key == b"format_version" || key == b"next_instance_id" || key == b"write_seq",
        // Kept figures are read only while their stamp equals the write
        // count: one lost, or the count lost, reads as stale and the
        // reports count afresh.
        "kept" => true,
        "robots" | "bodies" | "origin_figures" | "sitemap_pages" | "external_checks"
        | "run_history" | "near_signatures" | "page_resources" | "resource_checks" => true,
        // A page without its fragment record is "not known": never a finding.
        "fragments" => true,
        // A page without an audit record reads as "not known"; a listing
        // gone reads as a sitemap that did not list the page.
        "page_audit" | "sitemap_listings" => true,
        _ => false,
    }
}

#[test]
fn deleting_any_entry_of_any_table_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let c = crawled(db);
    assert_whole(db);
    // The crawl fills every table but the crawler registry, emptied when
    // the crawler exits, pair postings, kept by merged segments of 512
    // pages or more (the store's unit tests delete each of theirs), text errors (the site has no unreadable document),
    // render facts (no point renders: tests/it/render.rs fills them) and
    // the blocks of posting parts, stems and counts (a repack puts a
    // table in shared frames only when they come out smaller, which five
    // pages' records do not: the store's unit tests break theirs), and
    // what `--extract`/`--search` rules found (no point has any; a page
    // without a record is one fetched without rules, nothing to miss), and
    // https twins (asked only with --require-https, a run flag:
    // tests/it/crawl_tls.rs fills them), and the large segments' three
    // tables (staged merges begin at eight segments of 2,048 pages: the
    // store's unit tests write and check theirs).
    let empty: Vec<&str> = c
        .tables
        .iter()
        .zip(&c.baseline)
        .filter(|(_, e)| e.is_empty())
        .map(|((n, _), _)| n.as_str())
        .collect();
    assert_eq!(
        empty,
        [
            "doc_freq_blocks",
            "https_twins",
            "instances",
            "large_links_in",
            "large_postings",
            "large_title_postings",
            "page_custom",
            "pair_postings",
            "posting_blocks",
            "render_facts",
            "text_errors",
            "word_blocks"
        ]
    );
    assert!(c.tables.len() >= 24, "tables: {}", c.tables.len());

    let mut unnoticed = BTreeSet::new();
    for ((name, table), entries) in c.tables.iter().zip(&c.baseline) {
        for (k, _) in entries {
            if passes(name, k) {
                continue;
            }
            c.install(|w| del(*table, w, k));
            let (code, out, err) = check(db, false);
            match code {
                Some(1) => {}
                Some(0) => {
                    unnoticed.insert(format!("{name} {k:02x?}"));
                }
                other => panic!("{name} {k:02x?}: check exited {other:?}: {out}{err}"),
            }
        }
    }
    assert!(
        unnoticed.is_empty(),
        "deleted alone, these entries went unnoticed: {unnoticed:#?}"
    );
    // The harmless ones are what they say: the store still answers.
    c.install(|w| {
        del(c.db("meta"), w, b"format_version");
        del(c.db("meta"), w, b"next_instance_id");
    });
    assert_whole(db);
    let rtxn = c.env.read_txn().unwrap();
    let format = c.db("meta").get(&rtxn, b"format_version").unwrap();
    assert_eq!(
        format,
        Some(&FORMAT_VERSION.to_be_bytes()[..]),
        "open did not write the format again"
    );
}

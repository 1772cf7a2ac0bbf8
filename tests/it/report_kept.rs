//! The figures a crawl keeps for the default view (`report summary`'s
//! counts, link scores, `stats`' counts and `depth`'s order; each list
//! kind's findings from 10,000 pages, here coded in-process as they would
//! be kept) equal a full recount after every kind of change: a first
//! crawl, a re-crawl of a changed site, a partial run, a second point, a
//! point purged (the kept figures are stale then, and read as such), and
//! a crawl after it. The CLI's `report summary`
//! reads the same counts; `check` finds the store whole and tells each of
//! its steps.

use std::path::Path;

use crate::support::crawl::{crawl_ok, store};
use crate::support::{json_of, on_store, page, Reply, Resp, TestServer};
use crawlscope::report::{self as rep, depth, kept, kept_lists, links, summary, Ctx, ListKind};
use crawlscope::store::prelude::*;
use crawlscope::store::CHECK_STEPS;

fn site(s: &TestServer) {
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &["a", "b", "c", "gone", "r", "x"])),
    );
    // A page with a finding of most other kinds: a directive, a canonical
    // to a broken URL, an image without alt that is broken, a fragment
    // its target lacks, a link to a duplicate.
    s.route(
        "/x",
        Reply::Respond(Resp::html(
            "<!DOCTYPE html><html><head><title>Extras</title>\
             <meta name=\"robots\" content=\"noindex\">\
             <link rel=\"canonical\" href=\"/gone\"></head>\
             <body><h1>Same</h1><img src=\"/pic.png\"><a href=\"/a#nowhere\">a</a>\
             <a href=\"/dup\">d</a></body></html>",
        )),
    );
    // An exact duplicate of /a.
    s.route("/dup", Reply::Respond(page("Same", "alpha", &["b"])));
    s.route("/a", Reply::Respond(page("Same", "alpha", &["b"])));
    s.route("/b", Reply::Respond(page("Same", "bravo", &["a", "c"])));
    s.route("/c", Reply::Respond(page("C", "charlie", &["deep"])));
    s.route("/deep", Reply::Respond(page("Deep", "deep", &[])));
    s.route("/gone", Reply::Respond(Resp::status(404)));
    s.route("/r", Reply::Respond(Resp::redirect(301, "/a")));
}

/// Whether the kept figures are current (`fresh`) and, whatever they
/// are, whether what the reports say equals a recount.
fn check(db: &Path, step: &str, fresh: bool) {
    let store = store(db);
    let r = store.read().unwrap();
    let ctx = Ctx::new(&r, None).unwrap();
    let recount = serde_json::to_value(summary::counted(&ctx).unwrap()).unwrap();
    let kept_summary = summary::kept(&ctx).unwrap();
    assert_eq!(kept_summary.is_some(), fresh, "{step}: summary kept");
    if let Some(k) = kept_summary {
        assert_eq!(serde_json::to_value(k).unwrap(), recount, "{step}: summary");
    }
    let scores = links::kept_link_scores(&r).unwrap();
    assert_eq!(scores.is_some(), fresh, "{step}: scores kept");
    if let Some(k) = scores {
        assert_eq!(k, links::link_scores(&ctx).unwrap(), "{step}: scores");
    }
    assert_eq!(
        kept::store_counts(&r).unwrap(),
        kept::StoreCounts::count(&r).unwrap(),
        "{step}: stats"
    );
    // Their coding, as a store of 10,000 pages or more keeps them.
    let mut coded = Ctx::new(&r, None).unwrap();
    let mut records = Vec::new();
    let mut keep = |record| {
        records.push(record);
        Ok(())
    };
    kept_lists::records_kept_from(&mut coded, 0, &mut keep).unwrap();
    lists_equal_a_recount(&ctx, &records, step);
    let kept_depth = depth::kept_order(&ctx).unwrap();
    assert_eq!(kept_depth.is_some(), fresh, "{step}: depth kept");
    if let Some(k) = kept_depth {
        assert_eq!(k, depth::order(&ctx).unwrap(), "{step}: depth");
    }
    // The command reads the same counts, named with the view's runs and
    // whether external links were checked.
    let mut cli = json_of(db, &["report", "summary", "--json"]);
    for named in ["run", "runs", "rows_from_runs", "external_checked"] {
        cli.as_object_mut().unwrap().remove(named);
    }
    assert_eq!(cli, recount, "{step}: report summary");
}

/// Every kept list kind's rows, as `report` lists them and as its record
/// in `records` codes them, equal the rows of its items found afresh; a
/// store this small keeps none of them.
fn lists_equal_a_recount(ctx: &Ctx<'_, '_>, records: &[(&str, Vec<u8>)], step: &str) {
    use rep::*;
    same_rows::<broken::Broken>(ctx, records, step);
    same_rows::<redirects::Redirects>(ctx, records, step);
    same_rows::<titles::Titles>(ctx, records, step);
    same_rows::<descriptions::Descriptions>(ctx, records, step);
    same_rows::<headings::Headings>(ctx, records, step);
    same_rows::<duplicates::Duplicates>(ctx, records, step);
    same_rows::<directives::Directives>(ctx, records, step);
    same_rows::<canonicals::Canonicals>(ctx, records, step);
    same_rows::<slow::Slow>(ctx, records, step);
    same_rows::<large::Large>(ctx, records, step);
    same_rows::<mimetypes::Mimetypes>(ctx, records, step);
    same_rows::<external::External>(ctx, records, step);
    same_rows::<near_duplicates::NearDuplicates>(ctx, records, step);
    same_rows::<fragments::Fragments>(ctx, records, step);
    same_rows::<indexability::NonIndexable>(ctx, records, step);
    same_rows::<links::Links>(ctx, records, step);
    same_rows::<sitemaps::Sitemaps>(ctx, records, step);
    same_rows::<resources::Resources>(ctx, records, step);
    same_rows::<resources::BrokenResources>(ctx, records, step);
    same_rows::<images::Images>(ctx, records, step);
}

fn same_rows<K: ListKind>(ctx: &Ctx<'_, '_>, records: &[(&str, Vec<u8>)], step: &str) {
    let name = K::keeper().expect("a kept kind").name;
    assert!(
        kept_lists::read::<K>(ctx).unwrap().is_none(),
        "{step}: {name} kept in a small store"
    );
    let rows = |items| {
        let listing = rep::listing::<K>(ctx, items, usize::MAX).unwrap();
        serde_json::to_value(listing.rows).unwrap()
    };
    let found = rows(K::find(ctx).unwrap());
    let record = (records.iter())
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{step}: no {name} record"));
    let coded = kept_lists::items_of::<K>(&record.1).unwrap().unwrap();
    assert_eq!(rows(coded), found, "{step}: {name}");
    // What `report` lists is what a recount finds.
    let listed = rep::list::<K>(ctx, usize::MAX).unwrap();
    assert_eq!(
        serde_json::to_value(listed.rows).unwrap(),
        found,
        "{step}: {name} listed"
    );
}

/// A change to the store, by name, and whether the figures are current
/// after it.
type Step<'a> = (&'static str, Box<dyn Fn() + 'a>, bool);

#[test]
fn kept_figures_equal_a_recount_after_every_change() {
    let s = TestServer::start();
    let other = TestServer::start();
    site(&s);
    site(&other);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let base = s.base();
    let steps: Vec<Step<'_>> = vec![
        (
            "first crawl",
            Box::new(|| drop(crawl_ok(db, &[&base, "--check-fragments"]))),
            true,
        ),
        (
            "re-crawl of a changed site",
            Box::new(|| {
                s.route("/b", Reply::Respond(Resp::status(500)));
                s.route("/c", Reply::Respond(page("C again", "charlie", &[])));
                crawl_ok(db, &[&base]);
            }),
            true,
        ),
        (
            "partial run",
            Box::new(|| {
                s.route("/b", Reply::Respond(page("B", "bravo", &[])));
                crawl_ok(db, &[&base, "--depth", "1"]);
            }),
            true,
        ),
        (
            "second point",
            Box::new(|| drop(crawl_ok(db, &[&other.base()]))),
            true,
        ),
        (
            "second point purged",
            Box::new(|| {
                let out = on_store(db, &["point", "rm", "2", "--purge"]);
                assert!(out.status.success(), "{out:?}");
            }),
            false,
        ),
        (
            "crawl after the purge",
            Box::new(|| drop(crawl_ok(db, &[&base]))),
            true,
        ),
    ];
    for (step, change, fresh) in steps {
        change();
        check(db, step, fresh);
    }
    // `check` tells each of its steps as it begins, and the store the
    // figures were kept in is whole.
    let store = store(db);
    let r = store.read().unwrap();
    let mut told = Vec::new();
    let problems = r
        .check_telling(&|_| true, &mut |n, _| told.push(n))
        .unwrap();
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(told, (1..=CHECK_STEPS).collect::<Vec<_>>());
}

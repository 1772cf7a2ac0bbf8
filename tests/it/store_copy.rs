//! `copy DEST [--compact]`: a consistent copy taken while another process
//! crawls (the crawl goes on) and holds claims (the copy's go back to its
//! queue, and a crawl of the copy fetches them), refused onto an existing
//! path or from a missing store, leaving nothing behind when refused.

use std::path::Path;
use std::time::Duration;

use crate::support::crawl::*;
use crate::support::{on_store, page, stderr_of, Reply, TestServer};
use crawlscope::store::prelude::*;
use crawlscope::store::UrlState;

const PAGES: usize = 60;
/// The page held claimed while the copies are taken.
const HELD: &str = "/p10";

/// A site slow enough that a one-at-a-time crawl of it takes seconds, with
/// one page ([`HELD`]) slow enough to be claimed through both copies.
fn slow_site() -> TestServer {
    let s = TestServer::start();
    let links: Vec<String> = (0..PAGES).map(|i| format!("/p{i}")).collect();
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    s.route("/", Reply::Respond(page("Home", "home", &refs)));
    for l in &links {
        let wait = if l == HELD { 4000 } else { 60 };
        s.route(
            l,
            Reply::Delay(Duration::from_millis(wait), page(l, "slow page", &[])),
        );
    }
    s
}

/// URLs in state `done` in the store at `db`, sorted.
fn done_urls(db: &Path) -> Vec<String> {
    let st = store(db);
    let r = st.read().unwrap();
    let mut out = Vec::new();
    r.for_each_page(|id, _| {
        if matches!(r.url_state(id)?, Some(UrlState::Done { .. })) {
            out.extend(r.url_of(id)?);
        }
        Ok(true)
    })
    .unwrap();
    out.sort();
    out
}

fn assert_copy_holds(dest: &Path, before: &[String]) {
    let check = on_store(dest, &["check"]);
    assert!(
        check.status.success(),
        "check of the copy: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let copied = done_urls(dest);
    for url in before {
        assert!(copied.contains(url), "the copy lacks {url}");
    }
}

#[test]
fn a_copy_taken_mid_crawl_is_whole_and_the_crawl_goes_on() {
    let site = slow_site();
    let db = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut child = crawl_child(
        db.path(),
        &[&site.base(), "--concurrency", "1", "--per-host", "1"],
    );
    let held = site.url(HELD);
    wait_for_claim(db.path(), &mut child, &held);
    let before = done_urls(db.path());

    for (name, extra) in [("plain", None), ("compact", Some("--compact"))] {
        let dest = out.path().join(name);
        let mut args = vec!["copy", dest.to_str().unwrap()];
        args.extend(extra);
        let copy = on_store(db.path(), &args);
        assert!(
            copy.status.success(),
            "copy: {}",
            String::from_utf8_lossy(&copy.stderr)
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the crawl ended before the {name} copy was done"
        );
        // Still claimed after the copy, so claimed in its snapshot too.
        assert_eq!(state(db.path(), &held).as_deref(), Some("claimed"));
        assert_eq!(state(&dest, &held).as_deref(), Some("queued"), "{name}");
        assert_copy_holds(&dest, &before);
        assert!(
            data_len(&dest) <= data_len(db.path()) || extra.is_none(),
            "a compacted copy with claims released grew past its source"
        );
    }

    // The crawl was never paused: it finishes the whole site.
    let done = child.wait_with_output().unwrap();
    let sum = summary(&done);
    assert_eq!(done_count(db.path()), PAGES as u64 + 1);
    assert!(sum["fetched"].as_u64().unwrap() > before.len() as u64);
    assert!(
        done_urls(&out.path().join("plain")).len() < PAGES + 1,
        "the copy should be of the moment it was taken"
    );
    // With the source's crawler gone, the copies still check whole.
    for name in ["plain", "compact"] {
        assert_copy_holds(&out.path().join(name), &before);
    }

    // A crawl of the copy fetches what the copy had queued, the held page
    // among them.
    let copy = out.path().join("plain");
    let resumed = crawl_ok(&copy, &[]);
    assert!(resumed["fetched"].as_u64().unwrap() > 0, "{resumed}");
    assert_eq!(state(&copy, &held).as_deref(), Some("done"));
    assert_eq!(done_count(&copy), PAGES as u64 + 1);
    assert_whole(&copy);
}

/// The size of a store's data file.
fn data_len(store: &Path) -> u64 {
    std::fs::metadata(store.join("data.mdb")).unwrap().len()
}

/// The permission bits of `path`.
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_copy_keeps_the_stores_modes_and_compacting_never_grows_it() {
    let site = TestServer::start();
    let links: Vec<String> = (0..30).map(|i| format!("/p{i}")).collect();
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    crate::support::home(&site, &refs);
    for l in &links {
        site.route(l, Reply::Respond(page(l, "a page of words to index", &[])));
    }
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&site.base()]);
    assert_eq!(mode(&db.path().join("data.mdb")), 0o600, "the store itself");
    let out = tempfile::tempdir().unwrap();
    for (name, extra) in [("plain", None), ("compact", Some("--compact"))] {
        let dest = out.path().join(name);
        let mut args = vec!["copy", dest.to_str().unwrap()];
        args.extend(extra);
        let copy = on_store(db.path(), &args);
        assert!(copy.status.success(), "copy: {}", stderr_of(&copy));
        assert_eq!(mode(&dest.join("data.mdb")), 0o600, "{name}");
        assert_eq!(mode(&dest), mode(db.path()), "{name}: the directory");
        let said = String::from_utf8_lossy(&copy.stdout);
        assert!(
            said.contains(&format!("({} bytes", data_len(&dest))),
            "{said}"
        );
        assert_copy_holds(&dest, &done_urls(db.path()));
    }
    let compact = data_len(&out.path().join("compact"));
    assert!(
        compact <= data_len(db.path()),
        "compacted {compact} > source {}",
        data_len(db.path())
    );
}

#[test]
fn copy_refuses_an_existing_path_and_a_missing_store() {
    let site = TestServer::start();
    crate::support::home(&site, &[]);
    let db = tempfile::tempdir().unwrap();
    crawl_ok(db.path(), &[&site.base()]);
    let out = tempfile::tempdir().unwrap();

    let taken = out.path().join("taken");
    std::fs::create_dir(&taken).unwrap();
    let copy = on_store(db.path(), &["copy", taken.to_str().unwrap()]);
    assert_eq!(copy.status.code(), Some(1));
    let err = String::from_utf8_lossy(&copy.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("already exists"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&taken).unwrap().count(), 0);

    let missing = out.path().join("no-store");
    let dest = out.path().join("dest");
    let copy = on_store(&missing, &["copy", dest.to_str().unwrap()]);
    assert_eq!(copy.status.code(), Some(1));
    let err = String::from_utf8_lossy(&copy.stderr);
    assert!(err.starts_with("error: no store at"), "{err}");
    assert!(!missing.exists() && !dest.exists());

    let nowhere = out.path().join("no-dir").join("dest");
    let copy = on_store(db.path(), &["copy", nowhere.to_str().unwrap()]);
    assert_eq!(copy.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&copy.stderr).starts_with("error: cannot copy the store to"));

    // Nothing but the path made by the test is left in the directory.
    let left: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("taken")]);
}

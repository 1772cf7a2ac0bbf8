//! Store faults through the real binary: a full disk gives a clear error
//! and a store that `check` still finds whole; a store written by another
//! schema version is refused with both versions named.

use std::process::Command;

use crate::support::crawl::*;
use crawlscope::store::prelude::*;

use crate::support::on_store;

struct Tmpfs(std::path::PathBuf);

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: this process may still map the store (heed keeps environments open).
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_gives_a_clear_error_and_a_whole_store() {
    let dir = tempfile::tempdir().unwrap();
    let mount = dir.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=10m", "tmpfs"])
        .arg(&mount)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        ok,
        "this test mounts a small tmpfs and must run as root (CI does)"
    );
    let _guard = Tmpfs(mount.clone());

    // The demo site outgrows 10 MiB long before its end.
    let demo = serve_demo(3000);
    let db = mount.join("store");
    let out = crawl(&db, &[&demo.1]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("error:") && err.to_lowercase().contains("disk full"),
        "stderr: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        store(&db).read().unwrap().page_count().unwrap() > 100,
        "pages committed before the disk filled are kept"
    );
    let c = on_store(&db, &["check"]);
    assert!(
        c.status.success(),
        "check after a full disk: {}{}",
        String::from_utf8_lossy(&c.stdout),
        String::from_utf8_lossy(&c.stderr)
    );
}

#[test]
fn a_store_of_another_format_is_refused_with_both_versions() {
    // Format 1 is the only released one: any other number is a future
    // format, refused, never misread.
    for version in [2, 99] {
        let err = refused(b"format_version", version);
        assert!(
            err.contains(&format!("has format {version}"))
                && err.contains(&format!(
                    "reads format {}",
                    crawlscope::store::FORMAT_VERSION
                )),
            "{err}"
        );
    }
}

#[test]
fn a_store_of_a_development_build_is_refused_whatever_its_number() {
    // Development builds numbered their layouts from 1 under another key:
    // schema 1 is not format 1.
    for schema in [1, 29] {
        let err = refused(b"schema_version", schema);
        assert!(
            err.contains("development build") && err.contains(&format!("(schema {schema})")),
            "{err}"
        );
    }
}

/// A store made by this build (`point add`), then marked with `version`
/// under the meta key `key`.
fn mark_format(db: &std::path::Path, key: &[u8], version: u32) {
    // Read commands never create a store: `point add` makes this one.
    let out = on_store(db, &["point", "add", "http://127.0.0.1:9/"]);
    assert!(out.status.success());
    {
        // Write what another crawlscope would: its format, or a
        // development build's schema.
        let env = unsafe { heed::EnvOpenOptions::new().max_dbs(64).open(db) }.unwrap();
        let mut txn = env.write_txn().unwrap();
        let meta: heed::Database<heed::types::Bytes, heed::types::Bytes> =
            env.open_database(&txn, Some("meta")).unwrap().unwrap();
        meta.put(&mut txn, key, &version.to_be_bytes()).unwrap();
        txn.commit().unwrap();
        env.prepare_for_closing().wait();
    }
}

/// What `stats` says of a store marked `version` under `key`: refused.
fn refused(key: &[u8], version: u32) -> String {
    let db = tempfile::tempdir().unwrap();
    mark_format(db.path(), key, version);
    let out = on_store(db.path(), &["stats"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("error:") && err.lines().count() == 1,
        "{err}"
    );
    err
}

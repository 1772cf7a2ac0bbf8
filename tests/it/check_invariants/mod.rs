//! `crawlscope check` catches what it claims to: a real crawl's store is
//! whole, then each invariant is broken alone with raw LMDB writes (heed
//! opened directly on the store, as the `store_records` fuzz target does)
//! and the real binary's `check` and `check --json` must exit 1 naming it.
//! A sweep deletes every entry of every table, one at a time, and `check`
//! must notice each deletion but the few that break nothing.
//!
//! The store is written and checked by other processes (the binary); this
//! process opens its environment once per path (heed keeps one per path
//! per process) and holds no transaction while `check` runs. This file
//! holds the crawled fixture and the raw writes; [`broken`] breaks each
//! invariant alone, [`deleted`] sweeps every entry of every table.

mod broken;
mod deleted;

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::crawl::crawl_ok;
use crate::support::{on_store, page, stderr_of, Reply, Resp, TestServer};
use crawlscope::store::{Kept, PointRecord, RunEntry, UrlState, FORMAT_VERSION};
use heed::types::Bytes;
use heed::{Database, Env, EnvOpenOptions, RwTxn};

type Db = Database<Bytes, Bytes>;
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// A site whose crawl fills every kind of record: pages with bodies, meta
/// tags, titles and links; a failed page, a redirect, a robots skip, an
/// out-of-scope link, a plain-text page; and, as `--max-pages` stops the
/// crawl early, URLs still queued in the frontier; a sitemap listing a page.
fn site() -> TestServer {
    let s = TestServer::start();
    crate::support::robots(&s, "User-agent: *\nDisallow: /private\n");
    crate::support::home(
        &s,
        &[
            "/a",
            "/b",
            "/missing",
            "/old",
            "/private/x",
            // Out of scope, on loopback (port 1 refuses): checked, not crawled.
            "http://127.0.0.1:1/elsewhere",
            "/notes.txt",
        ],
    );
    s.route(
        "/a",
        Reply::Respond(Resp::html(
            "<title>Alpha harbor</title><meta name=description content=\"the alpha page\">\
             <p>boats in the harbor at night</p><a href=/>home</a> <a href=/b>b</a> <a href=/c>c</a>\
             <img src=/harbor.png alt=harbor>",
        )),
    );
    s.route(
        "/b",
        Reply::Respond(page("Beta", "winter nets and light", &["/a", "/d"])),
    );
    s.route("/c", Reply::Respond(page("Gamma", "gamma text", &["/e"])));
    s.route("/d", Reply::Respond(page("Delta", "delta text", &[])));
    s.route("/old", Reply::Respond(Resp::redirect(301, "/a")));
    s.route(
        "/sitemap.xml",
        Reply::Respond(Resp::text(&format!(
            "<urlset><url><loc>{}</loc></url></urlset>",
            s.url("a")
        ))),
    );
    s.route(
        "/notes.txt",
        Reply::Respond(Resp::text("plain winter notes")),
    );
    s
}

/// A crawled store in `dir`, its environment and every table by name.
struct Crawled {
    _server: TestServer,
    base: String,
    env: Env,
    tables: Vec<(String, Db)>,
    baseline: Vec<Entries>,
}

fn crawled(dir: &Path) -> Crawled {
    let server = site();
    let base = server.base();
    crawl_ok(
        dir,
        &[
            &base,
            "--max-pages",
            "5",
            "--check-external",
            "--check-fragments",
        ],
    );
    // The point in a document, so that the documents table has a record.
    for args in [
        &["doc", "add", "suite"][..],
        &["point", "update", "1", "--doc", "suite"],
    ] {
        let out = on_store(dir, args);
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    }
    // The store's own options, so LMDB sees the same map and table count.
    // SAFETY: opened once for this path in this process; the crawler that
    // wrote the store has exited.
    let env = unsafe {
        EnvOpenOptions::new()
            .map_size(1 << 32)
            // Room for every table, and for tables a later format adds.
            .max_dbs(64)
            .open(dir)
    }
    .expect("open the crawled store with heed");
    let rtxn = env.read_txn().unwrap();
    // The unnamed database lists the named ones.
    let main: Db = env.open_database(&rtxn, None).unwrap().unwrap();
    let names: Vec<String> = main
        .iter(&rtxn)
        .unwrap()
        .map(|kv| String::from_utf8(kv.unwrap().0.to_vec()).unwrap())
        .collect();
    let tables: Vec<(String, Db)> = names
        .into_iter()
        .map(|name| {
            let db = env.open_database(&rtxn, Some(&name)).unwrap().unwrap();
            (name, db)
        })
        .collect();
    let baseline = tables.iter().map(|(_, db)| entries(&rtxn, *db)).collect();
    // Committed, not dropped: handles opened in an aborted transaction close.
    rtxn.commit().unwrap();
    Crawled {
        _server: server,
        base,
        env,
        tables,
        baseline,
    }
}

fn entries(rtxn: &heed::RoTxn<'_>, db: Db) -> Entries {
    db.iter(rtxn)
        .unwrap()
        .map(|kv| {
            let (k, v) = kv.unwrap();
            (k.to_vec(), v.to_vec())
        })
        .collect()
}

impl Crawled {
    fn db(&self, name: &str) -> Db {
        self.tables
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no table {name}"))
            .1
    }

    fn baseline(&self, name: &str) -> &Entries {
        let i = self.tables.iter().position(|(n, _)| n == name).unwrap();
        &self.baseline[i]
    }

    /// The page id of a URL of the site (`path` relative to its base).
    fn id(&self, path: &str) -> [u8; 4] {
        let url = format!("{}{path}", self.base);
        let parsed = url::Url::parse(&url).unwrap();
        let origin = crawlscope::url::origin(&parsed);
        let (_, origin_id) = (self.baseline("origin_ids").iter())
            .find(|(k, _)| k[..] == *origin.as_bytes())
            .expect("the site's origin has an id");
        let origin_id = u32::from_be_bytes(origin_id[..4].try_into().unwrap());
        self.baseline("urls")
            .iter()
            .find(|(_, v)| {
                let r: StoredUrl = postcard::from_bytes(v).unwrap();
                match r.url {
                    Some(whole) => whole == url,
                    None => {
                        (r.origin, r.path.as_str(), r.query.as_deref())
                            == (origin_id, parsed.path(), parsed.query())
                    }
                }
            })
            .map(|(k, _)| [k[0], k[1], k[2], k[3]])
            .unwrap_or_else(|| panic!("{url} was not seen"))
    }

    fn state(&self, path: &str) -> UrlState {
        let id = self.id(path);
        let (_, v) = self
            .baseline("url_state")
            .iter()
            .find(|(k, _)| k[..] == id)
            .unwrap_or_else(|| panic!("{path} has no state"));
        postcard::from_bytes(v).unwrap()
    }

    /// A URL still queued when the crawl stopped.
    fn queued(&self) -> [u8; 4] {
        let (k, _) = self
            .baseline("url_state")
            .iter()
            .find(|(_, v)| matches!(postcard::from_bytes(v), Ok(UrlState::Queued { .. })))
            .expect("a queued URL");
        [k[0], k[1], k[2], k[3]]
    }

    /// Puts every table back as the crawl left it, then applies `corrupt`.
    fn install(&self, corrupt: impl FnOnce(&mut RwTxn<'_>)) {
        let mut w = self.env.write_txn().unwrap();
        for ((_, db), entries) in self.tables.iter().zip(&self.baseline) {
            db.clear(&mut w).unwrap();
            for (k, v) in entries {
                db.put(&mut w, k, v).unwrap();
            }
        }
        corrupt(&mut w);
        w.commit().unwrap();
    }
}

/// `crawlscope --db DB check`: (exit code, stdout and stderr).
fn check(db: &Path, json: bool) -> (Option<i32>, String, String) {
    let mut c = crate::support::crawlscope();
    c.arg("--db").arg(db).arg("check");
    if json {
        c.arg("--json");
    }
    let out = c.output().expect("run crawlscope check");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_whole(db: &Path) {
    let (code, out, err) = check(db, false);
    assert_eq!(code, Some(0), "check: {out}{err}");
    assert_eq!(out, "store is whole\n");
}

/// A `urls` record as the store keeps it: the whole URL only where its
/// origin, path and query do not spell it.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredUrl {
    origin: u32,
    path: String,
    query: Option<String>,
    username: Option<String>,
    url: Option<String>,
}

fn put(db: Db, w: &mut RwTxn<'_>, k: &[u8], v: &[u8]) {
    db.put(w, k, v).unwrap();
}

fn del(db: Db, w: &mut RwTxn<'_>, k: &[u8]) {
    assert!(db.delete(w, k).unwrap(), "no entry {k:02x?} to delete");
}

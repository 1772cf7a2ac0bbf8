//! A link's own `user:password@` is credentials for that one URL when it
//! points to the page's own origin: the request carries them as basic
//! auth, and they are shown nowhere (not in the stored URL, the crawl's
//! output, `page`, `report` or `export`) and kept nowhere (no table of the
//! store, the WARC, the links export), and a later run that finds the
//! linking page unchanged or not modified (304) still sends them. Another
//! origin's link does not carry its userinfo anywhere.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use heed::types::Bytes;
use heed::{Database, EnvFlags, EnvOpenOptions};

use crate::support::crawl::*;
use crate::support::{base64, on_store, page, Reply, Resp, TestServer};

const USER: &str = "linkuser";
const SECRET: &str = "pw-s3cr3t";
/// The private page's text: the store keeps it only in compressed frames.
const CANARY: &str = "members-only-canary";

/// Routes `/private` behind basic auth; returns the link that gives it.
fn private_link(s: &TestServer) -> String {
    s.route(
        "/private",
        Reply::RequireBasicAuth {
            user: USER.into(),
            password: SECRET.into(),
            ok: Box::new(Reply::Respond(page("Private", CANARY, &[]))),
        },
    );
    let port = s.addr().port();
    format!("http://{USER}:{SECRET}@127.0.0.1:{port}/private")
}

#[test]
fn a_same_origin_link_s_userinfo_is_its_basic_auth_and_is_never_shown() {
    let s = TestServer::start();
    let other = TestServer::start();
    let private = private_link(&s);
    let elsewhere = format!("http://eve:{SECRET}@127.0.0.1:{}/x", other.addr().port());
    s.route(
        "/",
        Reply::Respond(page("Home", "home", &[&private, &elsewhere])),
    );
    other.route("/x", Reply::Respond(page("X", "x", &[])));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    // Both servers in scope, so the other origin's link is fetched too.
    let out = crawl(&db, &[&s.base(), "--root", "http://127.0.0.1:"]);
    let mut shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let sum = summary(&out);
    assert_eq!(sum["fetched"], 3, "{sum}");
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);
    let asked = s.requests();
    let with_auth: Vec<&str> = asked
        .iter()
        .filter(|r| r.header("authorization").is_some())
        .map(|r| r.path.as_str())
        .collect();
    assert_eq!(with_auth, ["/private"], "only that link's request");
    for r in other.requests() {
        assert_eq!(r.header("authorization"), None, "sent to {}", r.path);
    }

    // A second run finds the home unchanged; the link still gives them.
    let again = crawl(&db, &[&s.base(), "--root", "http://127.0.0.1:"]);
    shown.push_str(&String::from_utf8_lossy(&again.stdout));
    shown.push_str(&String::from_utf8_lossy(&again.stderr));
    let sum = summary(&again);
    assert_eq!(sum["failed"], 0, "{sum}");
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);
    assert_eq!(s.hits("/private"), 2);

    let private_url = s.url("private");
    for args in [
        vec!["page", private_url.as_str()],
        vec!["page", private_url.as_str(), "--json"],
        vec!["page", &s.base(), "--json"],
        vec!["report"],
        vec!["report", "summary", "--json"],
        vec!["report", "broken"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "jsonl"],
    ] {
        let out = on_store(&db, &args);
        assert!(out.status.success(), "{args:?}");
        shown.push_str(&String::from_utf8_lossy(&out.stdout));
        shown.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    for secret in [SECRET, USER] {
        assert!(!shown.contains(secret), "{secret} shown in: {shown}");
    }
}

#[test]
fn a_re_crawl_whose_linking_page_answers_304_still_sends_them() {
    let s = TestServer::start();
    let private = private_link(&s);
    s.route(
        "/",
        Reply::Conditional {
            resp: page("Home", "home", &[&private]),
            last_modified: "Mon, 23 Nov 2026 20:00:00 GMT".into(),
            etag: "\"home-1\"".into(),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    let sum = crawl_ok(&db, &[&s.base()]);
    assert_eq!(sum["not_modified"], 1, "{sum}");
    assert_eq!(sum["failed"], 0, "{sum}");
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);
    assert_eq!(s.hits("/private"), 2);
}

/// `link` as a page writes it with its user and password as character
/// references: the page's own bytes, kept as served (the store's bodies,
/// the WARC's response), never hold them; whatever does made it of the
/// parsed link.
fn written(link: &str) -> String {
    let mut out = link.to_string();
    for secret in [USER, SECRET] {
        let refs: String = secret.chars().map(|c| format!("&#{};", c as u32)).collect();
        out = out.replace(secret, &refs);
    }
    out
}

#[test]
fn no_table_of_the_store_nor_the_warc_nor_the_links_export_keeps_them() {
    let s = TestServer::start();
    let private = private_link(&s);
    s.route(
        "/",
        Reply::Respond(Resp::html(&format!(
            "<!DOCTYPE html><html><head><title>Home</title></head>\
             <body><a href=\"{}\">members</a></body></html>",
            written(&private)
        ))),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    // The link was read with its credentials: they opened the page.
    assert_eq!(stored_page(&db, &s.url("private")).unwrap().status, 200);

    let basic = base64(format!("{USER}:{SECRET}").as_bytes());
    let needles = [USER, SECRET, basic.as_str(), CANARY];
    let scan = scan_store(&db, &needles.map(str::as_bytes));
    for (needle, places) in needles.iter().zip(&scan.found).take(3) {
        assert!(places.is_empty(), "{needle} kept in {places:?}");
    }
    let canary = &scan.found[3];
    assert!(
        canary.iter().any(|p| p.ends_with(" frame")),
        "the scan read no stored body: {canary:?} ({} frames)",
        scan.frames
    );

    let warc = dir.path().join("crawl.warc");
    let out = on_store(
        &db,
        &[
            "export",
            "--format",
            "warc",
            "--out",
            warc.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warc = std::fs::read(&warc).unwrap();
    let links = on_store(&db, &["export", "--format", "links"]);
    assert!(links.status.success());
    for (what, bytes, shows) in [
        ("the WARC", &warc, CANARY.to_string()),
        ("the links export", &links.stdout, s.url("private")),
    ] {
        let text = String::from_utf8_lossy(bytes);
        assert!(text.contains(&shows), "{what} lacks {shows}: {text}");
        for secret in &needles[..3] {
            assert!(!text.contains(secret), "{what} holds {secret}: {text}");
        }
    }
}

/// What [`scan_store`] found: for each needle, where (`TABLE key`,
/// `TABLE value`, `TABLE frame`); how many zstd frames it read.
struct Scan {
    found: Vec<Vec<String>>,
    frames: usize,
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Reads every named table of the store at `db` (the root table lists
/// them) as LMDB holds it: every key and value as raw bytes, and every
/// zstd frame in its values decompressed, with the trained dictionary it
/// names (`meta`'s `zdict:` entries). A table's values are read as one
/// run in key order, so a frame that a repack cut across entries
/// (`body_blocks`) is read whole.
fn scan_store(db: &Path, needles: &[&[u8]]) -> Scan {
    let mut options = EnvOpenOptions::new();
    options.max_dbs(128);
    // SAFETY: the store's file is read only through LMDB.
    let env = match unsafe { options.flags(EnvFlags::READ_ONLY).open(db) } {
        Ok(env) => env,
        // This process read the store already (`stored_page`): heed keeps
        // that environment, and hands it back.
        Err(heed::Error::BadOpenOptions { env, .. }) => env,
        Err(e) => panic!("{e}"),
    };
    let rtxn = env.read_txn().unwrap();
    let root: Database<Bytes, Bytes> = env.open_database(&rtxn, None).unwrap().unwrap();
    let names: Vec<String> = root
        .iter(&rtxn)
        .unwrap()
        .map(|e| String::from_utf8(e.unwrap().0.to_vec()).unwrap())
        .collect();
    assert!(names.len() > 10, "tables: {names:?}");
    let table = |name: &str| -> Database<Bytes, Bytes> {
        env.open_database(&rtxn, Some(name)).unwrap().unwrap()
    };
    let mut dictionaries: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    for entry in table("meta").prefix_iter(&rtxn, b"zdict:").unwrap() {
        let bytes = entry.unwrap().1;
        let id = zstd::zstd_safe::get_dict_id_from_dict(bytes).unwrap().get();
        dictionaries.entry(id).or_default().push(bytes.to_vec());
    }
    let mut scan = Scan {
        found: vec![Vec::new(); needles.len()],
        frames: 0,
    };
    let mut note = |place: String, bytes: &[u8]| {
        for (i, needle) in needles.iter().enumerate() {
            if bytes.windows(needle.len()).any(|w| w == *needle) {
                scan.found[i].push(place.clone());
            }
        }
    };
    for name in &names {
        let mut run = Vec::new();
        for entry in table(name).iter(&rtxn).unwrap() {
            let (key, value) = entry.unwrap();
            note(format!("{name} key"), key);
            note(format!("{name} value"), value);
            run.extend_from_slice(value);
        }
        for at in (0..run.len()).filter(|&i| run[i..].starts_with(&ZSTD_MAGIC)) {
            if let Some(text) = decompress(&run[at..], &dictionaries) {
                scan.frames += 1;
                note(format!("{name} frame"), &text);
            }
        }
    }
    scan
}

/// The frame at the start of `bytes`, decompressed (with the dictionary
/// it names), or None when it is no frame (four bytes inside another
/// that look like a frame's start).
fn decompress(bytes: &[u8], dictionaries: &HashMap<u32, Vec<Vec<u8>>>) -> Option<Vec<u8>> {
    let plain: [Vec<u8>; 1] = [Vec::new()];
    let candidates = match zstd::zstd_safe::get_dict_id_from_frame(bytes) {
        Some(id) => dictionaries
            .get(&id.get())
            .map(Vec::as_slice)
            .unwrap_or_default(),
        None => &plain[..],
    };
    candidates.iter().find_map(|dictionary| {
        let mut out = Vec::new();
        let read = zstd::stream::read::Decoder::with_dictionary(bytes, dictionary)
            .ok()?
            .single_frame()
            .read_to_end(&mut out);
        // What a damaged frame gave before the damage is searched too.
        (read.is_ok() || !out.is_empty()).then_some(out)
    })
}

//! `export --format csv|warc`: csv has one row per URL seen with the page's
//! findings; warc is WARC/1.1 that we parse back (lengths, digests, links
//! between records, the exact bodies, the request as the server saw it,
//! no credentials) and that warcio accepts, plain and gzipped per record.
//! Bad input: one error line, the right exit code, no partial file.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use sha1::{Digest, Sha1};

use crate::support::crawl::*;
use crate::support::{on_store, page, Reply, Resp, TestServer};
use crawlscope::export::warc::base32;
use crawlscope::store::prelude::*;

const PASSWORD: &str = "hunter2-secret";

fn home_html() -> String {
    r#"<!DOCTYPE html><html><head><title>Home, "sweet" home</title>
<meta name="description" content="The front page">
<link rel="canonical" href="/">
</head><body><h1>Welcome</h1><h1>Again</h1>
<a href="/a">a</a> <a href="/zip">zip</a> <a href="/bin">bin</a>
<a href="/missing">missing</a> <a href="http://elsewhere.invalid/x">out</a>
</body></html>"#
        .to_string()
}

fn binary() -> Vec<u8> {
    (0..=255u8).cycle().take(3000).collect()
}

fn site() -> TestServer {
    let s = TestServer::start();
    s.route("/", Reply::Respond(Resp::html(&home_html())));
    s.route(
        "/a",
        Reply::Respond(page("A", "alpha", &[]).header("X-Robots-Tag", "noindex")),
    );
    s.route(
        "/zip",
        Reply::Respond(Resp::text(&"zipped words ".repeat(200)).gzip()),
    );
    s.route(
        "/bin",
        Reply::Respond(Resp::bytes("application/octet-stream", binary())),
    );
    s
}

fn crawled() -> (TestServer, tempfile::TempDir) {
    let s = site();
    let db = tempfile::tempdir().unwrap();
    crawl_ok(
        db.path(),
        &[
            &s.base(),
            "--user",
            "u",
            "--password",
            PASSWORD,
            "--header",
            "X-Trace: t1",
        ],
    );
    (s, db)
}

/// `export ARGS...`, which must succeed.
pub(crate) fn export(db: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["export"];
    all.extend_from_slice(args);
    let out = on_store(db, &all);
    assert!(
        out.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn csv_has_a_row_per_url_seen_with_the_page_findings() {
    let (s, db) = crawled();
    let out = export(db.path(), &["--format", "csv"]);
    let mut rd = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header.join(","),
        "url,state,status,reason,mime,size,depth,title,description,h1,canonical,noindex,nofollow,last_modified,fetched_at,response_ms,inlinks,outlinks,redirect_status,redirect_to,truncated,indexability,link_score,self_links"
    );
    let rows: HashMap<String, HashMap<String, String>> = rd
        .records()
        .map(|r| {
            let r = r.unwrap();
            let row: HashMap<String, String> = header
                .iter()
                .cloned()
                .zip(r.iter().map(String::from))
                .collect();
            (row["url"].clone(), row)
        })
        .collect();
    let urls_seen = store(db.path()).read().unwrap().url_count().unwrap();
    assert_eq!(rows.len() as u64, urls_seen);

    let home = &rows[&s.base()];
    assert_eq!(home["state"], "done");
    assert_eq!(home["status"], "200");
    assert_eq!(home["title"], r#"Home, "sweet" home"#);
    assert_eq!(home["description"], "The front page");
    assert_eq!(home["h1"], "Welcome Again");
    assert_eq!(home["canonical"], s.base());
    assert_eq!(home["depth"], "0");
    assert_eq!(home["outlinks"], "5");
    assert!(home["mime"].starts_with("text/html"));
    assert!(home["fetched_at"].ends_with('Z') && home["fetched_at"].contains('T'));
    assert!(home["response_ms"].parse::<u32>().is_ok());

    let a = &rows[&s.url("/a")];
    assert_eq!(a["noindex"], "header");
    assert_eq!(a["nofollow"], "");
    assert_eq!(a["inlinks"], "1");

    let missing = &rows[&s.url("/missing")];
    assert_eq!(missing["state"], "failed");
    assert_eq!(missing["reason"], "Not Found");

    let out_of_scope = &rows["http://elsewhere.invalid/x"];
    assert_eq!(out_of_scope["state"], "skipped:out_of_scope");
    assert_eq!(out_of_scope["status"], "");
    assert_eq!(out_of_scope["fetched_at"], "");
}

/// One WARC record as read back.
struct Record {
    headers: HashMap<String, String>,
    block: Vec<u8>,
}

impl Record {
    fn get(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .unwrap_or_else(|| panic!("record without {name}: {:?}", self.headers))
    }

    /// The HTTP head and body of an application/http block.
    fn http(&self) -> (String, &[u8]) {
        let end = find(&self.block, b"\r\n\r\n").expect("an HTTP head") + 4;
        (
            String::from_utf8(self.block[..end].to_vec()).unwrap(),
            &self.block[end..],
        )
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn sha1_label(data: &[u8]) -> String {
    format!("sha1:{}", base32(&Sha1::digest(data)))
}

/// Parses a whole uncompressed WARC file, checking each record's framing,
/// length and digests.
fn parse_warc(mut data: &[u8]) -> Vec<Record> {
    let mut out = Vec::new();
    while !data.is_empty() {
        assert!(data.starts_with(b"WARC/1.1\r\n"), "record without WARC/1.1");
        let end = find(data, b"\r\n\r\n").unwrap() + 4;
        let head = std::str::from_utf8(&data[..end]).unwrap();
        let headers: HashMap<String, String> = head
            .lines()
            .skip(1)
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (k, v) = l.split_once(": ").unwrap();
                (k.to_ascii_lowercase(), v.to_string())
            })
            .collect();
        let len: usize = headers["content-length"].parse().unwrap();
        let block = data[end..end + len].to_vec();
        assert_eq!(&data[end + len..end + len + 4], b"\r\n\r\n");
        data = &data[end + len + 4..];
        let r = Record { headers, block };
        assert_eq!(r.get("WARC-Block-Digest"), sha1_label(&r.block));
        if r.headers.contains_key("warc-payload-digest") {
            assert_eq!(r.get("WARC-Payload-Digest"), sha1_label(r.http().1));
        }
        for h in ["WARC-Type", "WARC-Record-ID", "WARC-Date", "Content-Type"] {
            r.get(h);
        }
        assert!(r.get("WARC-Record-ID").starts_with("<urn:uuid:"));
        out.push(r);
    }
    out
}

/// The members of a multi-member gzip file, each decompressed.
fn gzip_members(mut data: &[u8]) -> Vec<Vec<u8>> {
    let mut members = Vec::new();
    while !data.is_empty() {
        let mut dec = flate2::bufread::GzDecoder::new(data);
        let mut member = Vec::new();
        dec.read_to_end(&mut member).unwrap();
        data = dec.into_inner();
        members.push(member);
    }
    members
}

/// warcio's verdict on a file, or None when warcio is missing and left
/// out (`support::tool_missing`).
fn warcio(args: &[&str], file: &Path) -> Option<String> {
    match std::process::Command::new("warcio")
        .args(args)
        .arg(file)
        .output()
    {
        Ok(out) => {
            assert!(
                out.status.success(),
                "warcio {args:?} rejected {}: {}{}",
                file.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        }
        Err(_) => {
            crate::support::tool_missing(
                "warcio",
                "pip install warcio (.ci/run does)",
                "warcio's check of the WARC (our own parser still reads it)",
            );
            None
        }
    }
}

#[test]
fn warc_holds_each_exchange_exactly_and_warcio_accepts_it() {
    let (s, db) = crawled();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("crawl.warc");
    let gz = dir.path().join("crawl.warc.gz");
    export(
        db.path(),
        &["--format", "warc", "--out", plain.to_str().unwrap()],
    );
    export(
        db.path(),
        &["--format", "warc", "--out", gz.to_str().unwrap()],
    );
    let stdout = export(db.path(), &["--format", "warc"]).stdout;

    let plain_bytes = std::fs::read(&plain).unwrap();
    let gz_bytes = std::fs::read(&gz).unwrap();
    for bytes in [&plain_bytes, &stdout] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(PASSWORD), "the password is in the WARC");
        assert!(!text.contains(&crate::support::base64(format!("u:{PASSWORD}").as_bytes())));
    }
    let members = gzip_members(&gz_bytes);
    let from_gz = parse_warc(&members.concat());
    assert_eq!(members.len(), from_gz.len(), "not one gzip member a record");
    assert_eq!(parse_warc(&stdout).len(), from_gz.len());
    let records = parse_warc(&plain_bytes);
    assert_eq!(records.len(), from_gz.len());

    assert_eq!(records[0].get("WARC-Type"), "warcinfo");
    let info_id = records[0].get("WARC-Record-ID").to_string();
    let ids: std::collections::HashSet<&str> =
        records.iter().map(|r| r.get("WARC-Record-ID")).collect();
    assert_eq!(ids.len(), records.len(), "record ids repeat");
    let mut responses: HashMap<String, &Record> = HashMap::new();
    let mut requests: HashMap<String, &Record> = HashMap::new();
    for r in &records[1..] {
        assert_eq!(r.get("WARC-Warcinfo-ID"), info_id);
        let url = r.get("WARC-Target-URI").to_string();
        match r.get("WARC-Type") {
            "response" => {
                assert_eq!(r.get("Content-Type"), "application/http;msgtype=response");
                responses.insert(url, r);
            }
            "request" => {
                assert_eq!(r.get("Content-Type"), "application/http;msgtype=request");
                requests.insert(url, r);
            }
            other => panic!("unexpected record type {other}"),
        }
    }
    let fetched = ["/", "/a", "/zip", "/bin", "/missing"].map(|p| s.url(p));
    let mut expected: Vec<&String> = fetched.iter().collect();
    expected.sort();
    let mut got: Vec<&String> = responses.keys().collect();
    got.sort();
    assert_eq!(got, expected);
    for url in &fetched {
        assert_eq!(
            requests[url].get("WARC-Concurrent-To"),
            responses[url].get("WARC-Record-ID")
        );
    }

    // The bodies are the exact bytes served (decoded), and the head says so.
    let body_of = |path: &str| {
        let (head, body) = responses[&s.url(path)].http();
        let len = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .expect("a content-length")
            .parse::<usize>()
            .unwrap();
        assert_eq!(len, body.len(), "{path}: content-length is not the body's");
        assert!(!head.contains("\r\ncontent-encoding:"), "{head}");
        assert!(!head.contains("\r\ntransfer-encoding:"), "{head}");
        (head, body.to_vec())
    };
    assert_eq!(body_of("/bin").1, binary());
    let (zip_head, zip_body) = body_of("/zip");
    assert_eq!(zip_body, "zipped words ".repeat(200).into_bytes());
    // The client decodes the body and drops the wire's encoding headers:
    // nothing may claim the stored body is still gzipped.
    assert!(!zip_head.contains("gzip"), "{zip_head}");
    assert!(body_of("/a").0.contains("x-robots-tag: noindex\r\n"));
    assert!(body_of("/").0.starts_with("HTTP/1.1 200 OK\r\n"));
    let (missing_head, missing_body) = body_of("/missing");
    assert!(missing_head.starts_with("HTTP/1.1 404 Not Found\r\n"));
    assert!(missing_body.is_empty());

    // The request record is the GET the server received, credentials aside.
    let served = s.requests();
    for path in ["/", "/zip"] {
        let seen = served
            .iter()
            .rfind(|r| r.method == "GET" && r.path == path)
            .unwrap();
        let mut want: Vec<(String, String)> = seen
            .headers
            .iter()
            .map(|(k, v)| match k.as_str() {
                "authorization" => (k.clone(), "[redacted]".to_string()),
                _ => (k.clone(), v.clone()),
            })
            .collect();
        want.sort();
        let (head, body) = requests[&s.url(path)].http();
        assert!(body.is_empty());
        let mut lines = head.lines();
        assert_eq!(lines.next(), Some(format!("GET {path} HTTP/1.1").as_str()));
        let mut have: Vec<(String, String)> = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (k, v) = l.split_once(": ").unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        have.sort();
        assert_eq!(
            have, want,
            "{path}: the request record differs from what was sent"
        );
    }

    for file in [&plain, &gz] {
        warcio(&["check", "-v"], file);
        if let Some(index) = warcio(&["index", "-f", "warc-type,warc-target-uri"], file) {
            for url in &fetched {
                for kind in ["response", "request"] {
                    let line = format!(r#"{{"warc-type": "{kind}", "warc-target-uri": "{url}"}}"#);
                    assert!(index.contains(&line), "warcio index lacks {line}:\n{index}");
                }
            }
        }
    }
}

#[test]
fn bad_export_input_fails_cleanly_and_writes_nothing() {
    let (_s, db) = crawled();
    let dir = tempfile::tempdir().unwrap();

    let out = on_store(db.path(), &["export", "--format", "pdf"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: "), "{err}");
    for f in ["spider-result", "jsonl", "csv", "warc"] {
        assert!(err.contains(f), "the formats are not listed: {err}");
    }

    // A directory in the way: the export fails at the rename, leaving no part.
    let blocked = dir.path().join("blocked.warc");
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("keep"), b"x").unwrap();
    let nowhere = dir.path().join("no-such-dir").join("x.csv");
    for (target, format) in [(&blocked, "warc"), (&nowhere, "csv")] {
        let out = on_store(
            db.path(),
            &[
                "export",
                "--format",
                format,
                "--out",
                target.to_str().unwrap(),
            ],
        );
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("error: cannot write {}", target.display())),
            "{err}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("blocked.warc")]);

    let missing = dir.path().join("no-store");
    let out = on_store(&missing, &["export", "--format", "csv"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: no store at"));
    assert!(!missing.exists());
}

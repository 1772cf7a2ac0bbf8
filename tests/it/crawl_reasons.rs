//! A failed answer keeps its reason: the phrase the server sent (`599
//! Custom Broken Thing`), else the standard one. `page`, the broken
//! report's JSON and CSV and the URL CSV say it, and headless `crawl` prints
//! one `failed STATUS REASON URL` line per failed URL on stderr, none with
//! `--quiet`.

use std::collections::BTreeSet;

use crate::support::crawl::*;
use crate::support::{home, json_of, on_store, Reply, Resp, TestServer};

/// Each failing path, what it answers and the reason it must keep.
const FAILING: &[(&str, u16, Option<&str>, &str)] = &[
    (
        "/custom",
        599,
        Some("Custom Broken Thing"),
        "Custom Broken Thing",
    ),
    ("/missing", 404, None, "Not Found"),
    ("/gone", 410, None, "Gone"),
    ("/teapot", 418, None, "I'm a teapot"),
    ("/broken", 500, None, "Internal Server Error"),
];

fn failing_site() -> TestServer {
    let s = TestServer::start();
    let mut links: Vec<&str> = FAILING.iter().map(|f| f.0).collect();
    links.push("/ok");
    home(&s, &links);
    for &(path, code, phrase, _) in FAILING {
        let resp = match phrase {
            Some(phrase) => Resp::status_phrase(code, phrase),
            None => Resp::status(code),
        };
        s.route(path, Reply::Respond(resp));
    }
    s.route(
        "/ok",
        Reply::Respond(crate::support::page("Ok", "fine", &[])),
    );
    s
}

/// The `failed ...` lines of a crawl's stderr, in a set.
fn failed_lines(stderr: &[u8]) -> BTreeSet<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with("failed "))
        .map(String::from)
        .collect()
}

#[test]
fn the_servers_own_reason_is_kept_and_shown_everywhere() {
    let s = failing_site();
    let db = tempfile::tempdir().unwrap();
    let out = crawl(db.path(), &[&s.base()]);
    let sum = summary(&out);
    assert_eq!(sum["failed"], FAILING.len(), "{sum}");

    let expected: BTreeSet<String> = FAILING
        .iter()
        .map(|&(path, code, _, reason)| format!("failed {code} {reason} {}", s.url(path)))
        .collect();
    let all = String::from_utf8_lossy(&out.stderr);
    assert_eq!(failed_lines(&out.stderr), expected, "{all}");
    assert_eq!(
        all.lines().filter(|l| l.starts_with("failed ")).count(),
        FAILING.len(),
        "one line per failed URL: {all}"
    );

    for &(path, code, _, reason) in FAILING {
        let p = json_of(db.path(), &["page", &s.url(path), "--json"]);
        assert_eq!(p["status"], code, "{p}");
        assert_eq!(p["reason"], reason, "{path}: {p}");
        assert_eq!(p["state"], "failed", "{p}");
    }

    let broken = json_of(db.path(), &["report", "broken", "--json"]);
    for &(path, code, _, reason) in FAILING {
        let row = broken
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["url"] == s.url(path))
            .unwrap_or_else(|| panic!("{path} is not in {broken}"));
        assert_eq!(row["status"], code, "{row}");
        assert_eq!(row["reason"], reason, "{row}");
    }

    let csv_of = |args: &[&str]| {
        let out = on_store(db.path(), args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let mut rd = csv::Reader::from_reader(out.stdout.as_slice());
        let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
        let (url, reason) = (
            header.iter().position(|h| h == "url").unwrap(),
            header.iter().position(|h| h == "reason").unwrap(),
        );
        rd.records()
            .map(|r| {
                let r = r.unwrap();
                (r[url].to_string(), r[reason].to_string())
            })
            .collect::<std::collections::HashMap<_, _>>()
    };
    let report_csv = csv_of(&["report", "broken", "--csv"]);
    let export_csv = csv_of(&["export", "--format", "csv"]);
    for &(path, _, _, reason) in FAILING {
        assert_eq!(report_csv[&s.url(path)], reason, "report broken --csv");
        assert_eq!(export_csv[&s.url(path)], reason, "export --format csv");
    }
}

#[test]
fn quiet_prints_no_failed_line() {
    let s = failing_site();
    let db = tempfile::tempdir().unwrap();
    let out = crawl(db.path(), &[&s.base(), "--quiet"]);
    assert_eq!(summary(&out)["failed"], FAILING.len());
    assert!(
        failed_lines(&out.stderr).is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_url_nothing_answered_gets_a_dash_for_its_status() {
    let s = TestServer::start();
    home(&s, &["/loop"]);
    s.route("/loop", Reply::Respond(Resp::redirect(302, "/loop")));
    let db = tempfile::tempdir().unwrap();
    let out = crawl(db.path(), &[&s.base()]);
    summary(&out);
    let lines = failed_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = lines.first().unwrap();
    assert!(line.starts_with("failed - "), "{line}");
    assert!(line.ends_with(&format!(" {}", s.url("/loop"))), "{line}");
}

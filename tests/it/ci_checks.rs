//! Link checking for CI, on the real binary against loopback sites:
//! `--fail-on` exits 3 on findings and 0 when clean, `--accept` decides
//! which statuses are broken, `--exclude-regex` skips, `--quiet` prints
//! only the summary, `report --junit` is XML a CI system parses, and bad
//! values are usage errors (exit 2).

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::support::crawl::state;
use crate::support::{crawlscope, on_store, page, stderr_of, Reply, Resp, TestServer};

/// A site whose home links to a page, a 404, a 403 and a page cut off
/// mid-body; or, clean, only to the page.
fn site(broken: bool) -> TestServer {
    let s = TestServer::start();
    // An anchor of markup characters: the JUnit failure quotes it.
    let broken_links = if broken {
        "<a href=\"gone\">Tom &amp; Jerry's <b>\"&lt;x&gt;\"</b></a> <a href=\"forbidden\">f</a> <a href=\"cut\">c</a>"
    } else {
        ""
    };
    s.route(
        "/",
        Reply::Respond(Resp::html(&format!(
            "<title>Home</title><a href=\"a\">a</a> {broken_links}"
        ))),
    );
    s.route("/a", Reply::Respond(page("A", "a", &[])));
    s.route("/gone", Reply::Respond(Resp::status(404)));
    s.route("/forbidden", Reply::Respond(Resp::status(403)));
    // No status at all: broken whatever --accept says.
    s.route(
        "/cut",
        Reply::ResetMidBody {
            resp: page("Cut", "cut short", &[]),
            after: 10,
        },
    );
    s
}

#[test]
fn crawl_fails_on_findings_as_accepted_and_excluded() {
    // broken site?, crawl flags, exit code, stderr holds.
    let cases: &[(bool, &[&str], i32, &str)] = &[
        (false, &["--fail-on", "broken"], 0, ""),
        (
            true,
            &["--fail-on", "broken"],
            3,
            "--fail-on: found 3 broken",
        ),
        (true, &["--fail-on", "titles,broken"], 3, "3 broken"),
        (true, &["--fail-on", "any"], 3, "3 broken"),
        (true, &["--fail-on", "external"], 0, ""),
        (true, &[], 0, ""),
        (
            true,
            &["--fail-on", "broken", "--accept", "200..=299,403"],
            3,
            "found 2 broken",
        ),
        // A URL that answered nothing stays broken whatever is accepted.
        (
            true,
            &["--fail-on", "broken", "--accept", "403..=404"],
            3,
            "found 1 broken",
        ),
        (
            true,
            &["--fail-on", "broken", "--accept", "400.."],
            3,
            "found 1 broken",
        ),
        (
            true,
            &[
                "--fail-on",
                "broken",
                "--accept",
                "400..",
                "--exclude-regex",
                "/cut$",
            ],
            0,
            "",
        ),
        (
            true,
            &[
                "--fail-on",
                "broken",
                "--exclude-regex",
                "gone$",
                "--exclude-regex",
                "/(forb|cut)",
            ],
            0,
            "",
        ),
    ];
    for (broken, flags, code, said) in cases {
        let s = site(*broken);
        let db = tempfile::tempdir().unwrap();
        let out = crawlscope()
            .arg("--db")
            .arg(db.path())
            .args(["crawl", &s.base()])
            .args(*flags)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(*code), "{flags:?}: {err}");
        assert!(err.contains(said), "{flags:?}: {err}");
        let excluded = flags.contains(&"gone$");
        if *broken {
            let want = if excluded {
                "skipped:excluded"
            } else {
                "failed"
            };
            assert_eq!(state(db.path(), &s.url("/gone")).as_deref(), Some(want));
            assert_eq!(s.hits("/gone"), usize::from(!excluded), "{flags:?}");
        }
    }
}

#[test]
fn report_judges_and_writes_junit() {
    let s = site(true);
    let db = tempfile::tempdir().unwrap();
    let out = on_store(db.path(), &["crawl", &s.base(), "--quiet"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    // --quiet: the summary line alone on stdout, nothing on stderr.
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("fetched 2 "), "{stdout}");
    assert_eq!(stderr_of(&out), "", "quiet");
    let loud = tempfile::tempdir().unwrap();
    let out = on_store(loud.path(), &["crawl", &s.base()]);
    assert!(
        stderr_of(&out).contains("/cut"),
        "not quiet: says what failed"
    );

    // report flags, exit code.
    let cases: &[(&[&str], i32)] = &[
        (&["report", "--fail-on", "broken"], 3),
        (&["report", "broken", "--fail-on", "broken"], 3),
        (&["report", "titles", "--fail-on", "external"], 0),
        (&["report", "broken", "--junit", "--fail-on", "any"], 3),
        (&["report", "depth", "--junit"], 2),
    ];
    for (args, code) in cases {
        let out = on_store(db.path(), args);
        assert_eq!(
            out.status.code(),
            Some(*code),
            "{args:?}: {}",
            stderr_of(&out)
        );
    }

    let out = on_store(db.path(), &["report", "broken", "--junit"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let cases = junit_cases(&out.stdout);
    let failing: Vec<&str> = cases
        .iter()
        .filter(|(_, failed)| *failed)
        .map(|(name, _)| name.as_str())
        .collect();
    let mut want = vec![s.url("/cut"), s.url("/forbidden"), s.url("/gone")];
    want.sort();
    let mut got: Vec<String> = failing.iter().map(|n| n.to_string()).collect();
    got.sort();
    assert_eq!(got, want, "{cases:?}");
    let passing = cases.iter().filter(|(_, failed)| !failed).count();
    assert_eq!(passing, 2, "home and /a passed: {cases:?}");

    let out = on_store(db.path(), &["report", "--junit"]);
    let cases = junit_cases(&out.stdout);
    assert!(cases.contains(&("broken".to_string(), true)), "{cases:?}");
    assert!(
        cases.contains(&("redirects".to_string(), false)),
        "{cases:?}"
    );
}

/// The test cases of a JUnit document, parsed by Python's own XML parser
/// (a second opinion on our escaping): (name, failed).
fn junit_cases(xml: &[u8]) -> Vec<(String, bool)> {
    const SCRIPT: &str = "import sys, xml.etree.ElementTree as E\n\
        root = E.parse(sys.stdin).getroot()\n\
        suite = root.find('testsuite')\n\
        cases = suite.findall('testcase')\n\
        assert int(suite.get('tests')) == len(cases)\n\
        assert int(suite.get('failures')) == sum(c.find('failure') is not None for c in cases)\n\
        for c in cases: print(('F ' if c.find('failure') is not None else 'P ') + c.get('name'))\n";
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(xml).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not JUnit XML ({}):\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(xml)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| (l[2..].to_string(), l.starts_with('F')))
        .collect()
}

#[test]
fn bad_values_are_usage_errors() {
    let db = tempfile::tempdir().unwrap();
    // args, what stderr names.
    let cases: &[(&[&str], &str)] = &[
        (
            &["crawl", "http://127.0.0.1:9/", "--accept", "200-299"],
            "--accept",
        ),
        (
            &["crawl", "http://127.0.0.1:9/", "--accept", "1000"],
            "--accept",
        ),
        (
            &["point", "add", "http://127.0.0.1:9/", "--accept", ""],
            "--accept",
        ),
        (
            &["crawl", "http://127.0.0.1:9/", "--exclude-regex", "(x"],
            "unclosed",
        ),
        (
            &["crawl", "http://127.0.0.1:9/", "--fail-on", "nope"],
            "kinds: any, broken",
        ),
        (&["report", "--fail-on", "depth"], "--fail-on"),
    ];
    for (args, said) in cases {
        let out = on_store(db.path(), args);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
}

#[test]
fn fragments_without_their_element_are_findings() {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(
            "<title>Home</title><h2 id=\"self\">Self</h2>\
             <a href=\"b#there\">there</a> <a href=\"b#nowhere\">nowhere</a>\
             <a href=\"b#named\">named</a> <a href=\"#self\">self</a> <a href=\"#top\">top</a>\
             <a href=\"b#\">empty</a> <a href=\"notes.txt#x\">notes</a>",
        )),
    );
    s.route(
        "/b",
        Reply::Respond(Resp::html(
            "<title>B</title><p id=\"there\">x</p><a name=\"named\"></a><a href=\"/#gone\">home</a>",
        )),
    );
    s.route("/notes.txt", Reply::Respond(Resp::text("plain")));
    // flags, the findings as (target path, fragment, source paths).
    type Finding = (&'static str, &'static str, &'static [&'static str]);
    let cases: &[(&[&str], &[Finding])] = &[
        (&[], &[]),
        (
            &["--check-fragments"],
            &[("/", "gone", &["/b"]), ("/b", "nowhere", &["/"])],
        ),
    ];
    for (flags, want) in cases {
        let db = tempfile::tempdir().unwrap();
        let out = on_store(
            db.path(),
            &[&["crawl", &s.base(), "--quiet"], *flags].concat(),
        );
        assert!(out.status.success(), "{}", stderr_of(&out));
        let out = on_store(db.path(), &["report", "fragments", "--json"]);
        assert!(out.status.success(), "{}", stderr_of(&out));
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut got: Vec<(String, String, Vec<String>)> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let sources = r["sources"].as_array().unwrap();
                (
                    r["url"].as_str().unwrap().to_string(),
                    r["fragment"].as_str().unwrap().to_string(),
                    sources
                        .iter()
                        .map(|x| x["url"].as_str().unwrap().to_string())
                        .collect(),
                )
            })
            .collect();
        got.sort();
        let want: Vec<(String, String, Vec<String>)> = want
            .iter()
            .map(|(t, f, srcs)| {
                (
                    s.url(t),
                    f.to_string(),
                    srcs.iter().map(|p| s.url(p)).collect(),
                )
            })
            .collect();
        assert_eq!(got, want, "{flags:?}");
        let out = on_store(db.path(), &["report", "--fail-on", "fragments"]);
        let code = if want.is_empty() { 0 } else { 3 };
        assert_eq!(out.status.code(), Some(code), "{}", stderr_of(&out));
        if code == 3 {
            assert!(
                stderr_of(&out).contains("found 2 fragments"),
                "{}",
                stderr_of(&out)
            );
        }
    }
}

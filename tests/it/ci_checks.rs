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

/// The test cases of a JUnit document: (name, failed).
fn junit_cases(xml: &[u8]) -> Vec<(String, bool)> {
    (junit_suites(xml).into_iter())
        .map(|(_, name, failed)| (name, failed))
        .collect()
}

/// The test cases of a JUnit document, parsed by Python's own XML parser
/// (a second opinion on our escaping), each suite's counts checked:
/// (suite's class, name, failed).
fn junit_suites(xml: &[u8]) -> Vec<(String, String, bool)> {
    const SCRIPT: &str = r#"import sys, xml.etree.ElementTree as E
root = E.parse(sys.stdin).getroot()
total = 0
for suite in root.findall('testsuite'):
    cases = suite.findall('testcase')
    total += len(cases)
    assert int(suite.get('tests')) == len(cases)
    assert int(suite.get('failures')) == sum(c.find('failure') is not None for c in cases)
    for c in cases:
        print(('F ' if c.find('failure') is not None else 'P ') + c.get('classname') + ' ' + c.get('name'))
assert int(root.get('tests')) == total
"#;
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
        .filter_map(|l| {
            let (kind, name) = l[2..].split_once(' ')?;
            Some((kind.to_string(), name.to_string(), l.starts_with('F')))
        })
        .collect()
}

/// A site with one broken link, one broken image beside a working one,
/// and a page without a title.
fn findings_site() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(
            "<title>Home</title><a href=\"a\">a</a> <a href=\"gone\">g</a> <a href=\"untitled\">u</a>\
             <img src=\"ok.png\" alt=\"ok\"><img src=\"missing.png\" alt=\"m\">",
        )),
    );
    s.route("/a", Reply::Respond(page("A", "a", &[])));
    s.route("/untitled", Reply::Respond(Resp::html("<p>no title</p>")));
    s.route("/gone", Reply::Respond(Resp::status(404)));
    s.route(
        "/ok.png",
        Reply::Respond(Resp::bytes("image/png", vec![0; 8])),
    );
    s.route("/missing.png", Reply::Respond(Resp::status(404)));
    s
}

#[test]
fn crawl_prints_its_findings_in_the_format_asked() {
    let s = findings_site();
    let (gone, missing, ok) = (s.url("/gone"), s.url("/missing.png"), s.url("/ok.png"));
    let crawl = |flags: &[&str]| {
        let db = tempfile::tempdir().unwrap();
        let out = crawlscope()
            .arg("--db")
            .arg(db.path())
            .args(["crawl", &s.base(), "--quiet"])
            .args(flags)
            .output()
            .unwrap();
        let code = out.status.code();
        (code, String::from_utf8_lossy(&out.stdout).into_owned(), out)
    };

    // The whole CI step: only the kinds named, exit 3 on a finding.
    let (code, _, out) = crawl(&["--format", "junit", "--fail-on", "broken"]);
    assert_eq!(code, Some(3), "{}", stderr_of(&out));
    let cases = junit_suites(&out.stdout);
    assert!(cases.iter().all(|(k, _, _)| k == "broken"), "{cases:?}");
    let failing: Vec<&str> = (cases.iter().filter(|c| c.2))
        .map(|c| c.1.as_str())
        .collect();
    // `broken` counts every URL that failed, resources too.
    assert_eq!(failing, [gone.as_str(), missing.as_str()], "{cases:?}");
    assert!(stderr_of(&out).contains("fetched "), "summary on stderr");

    // Every finding kind when none is named; a resource that answered
    // passes, the missing one fails.
    let (code, _, out) = crawl(&["--format", "junit"]);
    assert_eq!(code, Some(0), "{}", stderr_of(&out));
    let cases = junit_suites(&out.stdout);
    let res = |url: &str| cases.iter().find(|(k, n, _)| k == "resources" && n == url);
    assert_eq!(res(&ok).map(|c| c.2), Some(false), "{cases:?}");
    assert_eq!(res(&missing).map(|c| c.2), Some(true), "{cases:?}");
    assert!(
        cases.iter().any(|(k, _, f)| k == "titles" && *f),
        "{cases:?}"
    );
    assert!(
        !cases.iter().any(|(k, _, _)| k == "slow" || k == "links"),
        "{cases:?}"
    );

    let (code, stdout, out) = crawl(&["--format", "json", "--fail-on", "broken,resources"]);
    assert_eq!(code, Some(3), "{}", stderr_of(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON alone on stdout");
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["broken", "resources"]);
    let urls = |kind: &str| -> Vec<String> {
        (v[kind].as_array().unwrap().iter())
            .map(|r| r["url"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(urls("broken"), [gone.clone(), missing.clone()]);
    assert_eq!(urls("resources"), [missing.as_str()], "findings only");

    let (code, stdout, _) = crawl(&["--format", "markdown"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("## broken\n\n| url |"), "{stdout}");
    assert!(stdout.contains(&format!("| {missing} |")), "{stdout}");
    assert!(!stdout.contains(&format!("| {ok} |")), "{stdout}");

    let (code, stdout, _) = crawl(&["--format", "table", "--fail-on", "titles"]);
    assert_eq!(code, Some(3));
    assert!(stdout.starts_with("titles:\n"), "{stdout}");
    assert!(
        stdout.contains(&s.url("/untitled")) && !stdout.contains(&gone),
        "{stdout}"
    );

    // `report resources --junit` judges the same way.
    let db = tempfile::tempdir().unwrap();
    on_store(db.path(), &["crawl", &s.base(), "--quiet"]);
    let out = on_store(db.path(), &["report", "resources", "--junit"]);
    let cases = junit_cases(&out.stdout);
    assert!(cases.contains(&(ok.clone(), false)), "{cases:?}");
    assert!(cases.contains(&(missing.clone(), true)), "{cases:?}");
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
        // Tables are figures, not findings: naming one is a usage error
        // that lists the finding kinds.
        (&["report", "--fail-on", "links"], "\"links\" is a table"),
        (
            &["crawl", "http://127.0.0.1:9/", "--fail-on", "slow"],
            "kinds: any, broken",
        ),
        (&["report", "slow", "--junit"], "kinds: summary, broken"),
        (&["report", "links", "--junit"], "is a table"),
        (
            &["crawl", "http://127.0.0.1:9/", "--format", "json", "--json"],
            "--json",
        ),
        (
            &["crawl", "http://127.0.0.1:9/", "--format", "xml"],
            "markdown",
        ),
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

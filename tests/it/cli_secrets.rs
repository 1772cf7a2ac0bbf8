//! A crawl point's secrets stay secret. One store holds three points, each
//! with credentials given one way: `--password`, `--header` and URL
//! userinfo. No secret may appear in what the crawls and the point commands
//! print, in anything a read command prints (every read of the contract
//! table, `cli_contract::reads`), in any file they write (reports, CSV,
//! JSONL, WARC, a stored body), nor in the console's screen and log file.
//! The console's point form is checked in src/tui/tests/secrets.rs.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::cli_contract::reads;
use crate::support::crawl::{crawl, summary};
use crate::support::{on_store, page, stderr_of, Reply, TestServer};

const PASSWORD: &str = "pw-Zq81-secret";
const TOKEN: &str = "tok-Hh27-secret";
const USERINFO: &str = "ui-Kp55-secret";
const TYPED: &str = "ty-Mw63-secret";
const SECRETS: [&str; 4] = [PASSWORD, TOKEN, USERINFO, TYPED];

/// Panics naming `what` when `text` holds a secret.
fn assert_no_secret(what: &str, text: &[u8]) {
    let text = String::from_utf8_lossy(text);
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} shows {secret}:\n{text}");
    }
}

fn assert_quiet(what: &str, out: &Output) {
    assert_no_secret(&format!("{what}: stdout"), &out.stdout);
    assert_no_secret(&format!("{what}: stderr"), &out.stderr);
}

/// A site behind basic auth (`password`) with a page, a broken link and
/// a redirect, so that the reports have rows.
fn site(password: Option<&str>) -> TestServer {
    let s = TestServer::start();
    let wrap = |r: Reply| match password {
        Some(p) => Reply::RequireBasicAuth {
            user: "ann".into(),
            password: p.into(),
            ok: Box::new(r),
        },
        None => r,
    };
    s.route(
        "/",
        wrap(Reply::Respond(page(
            "Harbor",
            "harbor lantern",
            &["a", "missing", "moved"],
        ))),
    );
    s.route(
        "/a",
        wrap(Reply::Respond(page("A", "harbor lantern again", &[]))),
    );
    s.route(
        "/moved",
        wrap(Reply::Respond(crate::support::Resp::redirect(301, "/a"))),
    );
    s
}

#[test]
fn no_secret_is_shown_printed_logged_or_exported() {
    let by_password = site(Some(PASSWORD));
    let by_header = site(None);
    let by_userinfo = site(Some(USERINFO));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let with_userinfo = by_userinfo
        .base()
        .replace("://", &format!("://ann:{USERINFO}@"));
    let bearer = format!("Authorization: Bearer {TOKEN}");
    let (password_url, header_url) = (by_password.base(), by_header.base());
    let crawls: [Vec<&str>; 3] = [
        vec![&password_url, "--user", "ann", "--password", PASSWORD],
        vec![&header_url, "--header", &bearer],
        vec![&with_userinfo],
    ];
    for args in &crawls {
        let out = crawl(&db, args);
        assert_quiet(&format!("crawl {}", args[0]), &out);
        // Both pages fetched (the credentials were sent and let in), the
        // missing one failed.
        let s = summary(&out);
        assert_eq!(
            (&s["fetched"], &s["failed"]),
            (&2.into(), &1.into()),
            "{}: {s}",
            args[0]
        );
    }
    let header = by_header.requests().into_iter().find(|r| r.path == "/");
    assert_eq!(
        header.and_then(|r| r.header("authorization").map(str::to_string)),
        Some(format!("Bearer {TOKEN}"))
    );

    // The point commands echo what they saved, a typed password included.
    let said = on_store(
        &db,
        &[
            "point",
            "add",
            "http://127.0.0.1:9/",
            "--user",
            "bo",
            "--password",
            TYPED,
        ],
    );
    assert!(said.status.success(), "{}", stderr_of(&said));
    assert_quiet("point add", &said);
    for args in [
        &["point", "update", "4", "--password", TYPED][..],
        &["point", "add", "http://127.0.0.1:9/", "--json"],
        &["page", &with_userinfo],
        &["body", &with_userinfo],
    ] {
        assert_quiet(&args.join(" "), &on_store(&db, args));
    }

    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    for point in ["1", "2", "3"] {
        for args in reads(&password_url, "harbor", &scratch) {
            let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
            if args[0] == "report" {
                args.extend(["--point", point]);
            } else if point != "1" {
                continue;
            }
            if args[0] == "copy" {
                // The copy is a store: it keeps the credentials it crawls with.
                continue;
            }
            let out = on_store(&db, &args);
            assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
            assert_quiet(&args.join(" "), &out);
        }
    }
    let mut files = 0;
    for entry in std::fs::read_dir(&scratch).unwrap() {
        let path = entry.unwrap().path();
        assert_no_secret(&path.display().to_string(), &std::fs::read(&path).unwrap());
        files += 1;
    }
    assert!(files >= 5, "a body and an export of each format: {files}");

    console(&db, dir.path(), &password_url);
}

/// The console on the store, driven through a terminal (`script`): a crawl
/// of the point with a password, a new point with a typed password saved
/// through the form, then quit. Neither the screen it drew nor its log
/// holds a secret.
fn console(db: &Path, data: &Path, url: &str) {
    let cmd = format!(
        "stty rows 40 cols 120; exec '{}' --db '{}' tui '{url}' --user ann --password {PASSWORD}",
        env!("CARGO_BIN_EXE_crawlscope"),
        db.display()
    );
    // The screen goes to a file: a pipe nobody reads while the console
    // runs could fill and stall it.
    let screen_file = data.join("screen");
    let mut child = std::process::Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .env("XDG_DATA_HOME", data)
        .env("TERM", "xterm-256color")
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(&screen_file).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run script");
    let mut keys = child.stdin.take().unwrap();
    // Keys typed before the console drew were read by a terminal still in
    // line mode, which echoes them (a typed password included).
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read(&screen_file).is_ok_and(|s| String::from_utf8_lossy(&s).contains("Status"))
    {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the console ended at once"
        );
        assert!(Instant::now() < deadline, "the console never drew");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A new point: URL, five tabs to user, a tab to password, Enter; then
    // quit, confirming if a crawl still runs. A write fails only if the
    // console has already gone: its output below says why.
    for bytes in [
        "a",
        "http://127.0.0.1:9/typed\t\t\t\t\tbo\t",
        TYPED,
        "\r",
        "\x03",
        "y",
    ] {
        std::thread::sleep(Duration::from_millis(300));
        if keys.write_all(bytes.as_bytes()).is_err() {
            break;
        }
    }
    drop(keys);
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the console did not quit");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut out = child.wait_with_output().unwrap();
    out.stdout = std::fs::read(&screen_file).unwrap();
    assert_quiet("the console", &out);
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("typed"),
        "the form was typed into:\n{screen}"
    );
    // With --db the log lives in the store's directory.
    let log = std::fs::read(db.join("crawlscope.log")).expect("the console's log");
    assert!(
        String::from_utf8_lossy(&log).contains("crawl point"),
        "the saved point is logged"
    );
    assert_no_secret("the console's log", &log);
}

//! The command line never falls back silently: read commands refuse a store
//! that is not there, usage errors say everything clap knows, run flags on a
//! bare `crawl` shape the run, and a closed stdout ends a command quietly.

use std::process::{Output, Stdio};

use crate::support::crawl::{crawl, crawl_ok, serve_demo};
use crate::support::crawlscope;

use crate::support::on_store as run;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn read_commands_never_create_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mistyped");
    let reads: &[&[&str]] = &[
        &["search", "harbor"],
        &["page", "http://127.0.0.1:9/"],
        &["word", "harbor"],
        &["stats"],
        &["stats", "--json"],
        &["export"],
        &["check"],
        &["point", "list"],
        &["point", "rm", "1"],
        &["point", "disable", "1"],
        &["runs"],
        &["runs", "--json"],
    ];
    for args in reads {
        let out = run(&db, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).trim(),
            format!("error: no store at {}", db.display()),
            "{args:?}"
        );
        assert!(!db.exists(), "{args:?} created {}", db.display());
    }
}

#[test]
fn an_empty_store_variable_neither_names_a_store_nor_hides_db() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(run(&db, &["point", "add", "http://127.0.0.1:9/"])
        .status
        .success());
    let out = crawlscope()
        .env("CRAWLSCOPE_DB", "")
        .arg("--db")
        .arg(&db)
        .args(["point", "list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list[0]["url"], "http://127.0.0.1:9/");
    // Unset means the default store under the data dir, here a fresh HOME.
    let out = crawlscope()
        .env("CRAWLSCOPE_DB", "")
        .env("HOME", dir.path())
        .env_remove("XDG_DATA_HOME")
        .args(["stats"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let expected = dir.path().join(".local/share/crawlscope/store");
    assert_eq!(
        stderr(&out).trim(),
        format!("error: no store at {}", expected.display())
    );
}

#[test]
fn usage_errors_print_clap_whole_message() {
    let out = crawlscope().args(["serch", "harbor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: unrecognized subcommand 'serch'"),
        "{err}"
    );
    assert!(err.contains("similar subcommand exists: 'search'"), "{err}");
    let out = crawlscope().args(["point", "add"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("required arguments were not provided"),
        "{err}"
    );
    assert!(err.contains("<URL>"), "{err}");
    assert!(err.contains("Usage: crawlscope point add"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let demo = serve_demo(60);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&demo.1]);
    let cases: &[&[&str]] = &[
        &["word", "harbor", "--json"],
        &["search", "harbor lantern"],
        &["search", "harbor", "--json"],
        &["stats", "--json"],
        &["page", &demo.1],
        &["export", "--format", "jsonl"],
        &["point", "list"],
    ];
    for args in cases {
        let mut child = crawlscope()
            .arg("--db")
            .arg(&db)
            .args(*args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before the command writes a byte: every
        // write it makes meets a closed pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn run_flags_on_a_bare_crawl_limit_that_run() {
    let demo = serve_demo(300);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(run(&db, &["point", "add", &demo.1]).status.success());
    let s = crawl_ok(&db, &["--max-pages", "10"]);
    assert_eq!(s["fetched"], 10, "{s}");
    // The limit was for that run: the point keeps no limit.
    let list: serde_json::Value =
        serde_json::from_slice(&run(&db, &["point", "list", "--json"]).stdout).unwrap();
    assert_eq!(list[0]["max_pages"], serde_json::Value::Null);

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(run(&db, &["point", "add", &demo.1]).status.success());
    let s = crawl_ok(&db, &["--depth", "0"]);
    assert_eq!(s["fetched"], 1, "only the start page is at depth 0: {s}");
}

#[test]
fn scope_flags_without_a_url_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    assert!(run(&db, &["point", "add", "http://127.0.0.1:9/"])
        .status
        .success());
    for flag in [
        &["--root", "http://127.0.0.1:9/a/"][..],
        &["--exclude", "http://127.0.0.1:9/b/"],
        &["--user", "ann", "--password", "pw"],
        &["--header", "X-A: 1"],
    ] {
        let out = crawl(&db, flag);
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with(&format!("error: {} needs a URL", flag[0])),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn search_tells_the_true_count_whatever_the_limit() {
    let demo = serve_demo(120);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&demo.1]);
    let all: serde_json::Value = serde_json::from_slice(
        &run(&db, &["search", "harbor", "--json", "--limit", "100000"]).stdout,
    )
    .unwrap();
    let n = all.as_array().map_or(0, Vec::len);
    assert!(n > 3, "the demo site has harbors: {n}");
    let out = run(&db, &["search", "harbor", "--limit", "0"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{n} pages match \"harbor\" (none listed: --limit 0)")
    );
    let out = run(&db, &["search", "harbor", "--limit", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().last(),
        Some(format!("2 of {n} matching pages shown (--limit 2)").as_str()),
        "{text}"
    );
}

#[test]
fn keywords_are_shown_as_words_with_their_stems_beside() {
    use crate::support::{page, Reply, TestServer};
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(page(
            "Admissions",
            "Admissions open soon. Movies, movies and a movie about sorcerers; sorcerers again.",
            &["/other"],
        )),
    );
    s.route(
        "/other",
        Reply::Respond(page("Other", "movies tonight, admissions closed", &[])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&s.base()]);
    let out = run(&db, &["page", &s.base(), "--json"]);
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kw = |stem: &str| {
        p["keywords"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["stem"] == stem)
            .cloned()
            .unwrap_or_else(|| panic!("no keyword {stem}: {p}"))
    };
    assert_eq!(kw("movi")["word"], "movies");
    assert_eq!(kw("movi")["freq"], 3);
    assert_eq!(kw("admiss")["word"], "admissions");
    assert_eq!(kw("sorcer")["word"], "sorcerers");
    let text = String::from_utf8_lossy(&run(&db, &["page", &s.base()]).stdout).into_owned();
    assert!(text.contains("movies 3"), "{text}");
    assert!(!text.contains("movi 3"), "{text}");
}

#[test]
fn point_changes_are_confirmed_in_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let said = |args: &[&str]| {
        let out = run(&db, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(
        said(&["point", "add", "http://a.test/x", "--max-pages", "5"]),
        "crawl point 1 added:\n  1 on  http://a.test/x  root http://a.test/  depth any  max pages 5\n"
    );
    assert_eq!(
        said(&["point", "update", "1", "--depth", "2"]),
        "crawl point 1 updated:\n  1 on  http://a.test/x  root http://a.test/  depth 2  max pages 5  scope changed (re-scoped on the next crawl)\n"
    );
    assert!(said(&["point", "disable", "1"])
        .starts_with("crawl point 1 disabled (kept, not crawled until enabled):\n  1 off "));
    assert!(said(&["point", "enable", "1"]).starts_with("crawl point 1 enabled"));
    let json: serde_json::Value =
        serde_json::from_str(&said(&["point", "add", "http://b.test/", "--json"])).unwrap();
    assert_eq!(json["id"], 2);
    assert_eq!(
        said(&["point", "rm", "2"]),
        "crawl point 2 deleted, and its queued URLs with it (crawlscope point restore 2 brings it back)\n"
    );
}

#[test]
fn check_says_what_it_is_doing_on_a_terminal_only() {
    let demo = serve_demo(40);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&demo.1]);
    let bin = env!("CARGO_BIN_EXE_crawlscope");
    let cmd = format!("{bin} --db {} check", db.display());
    // `script` (util-linux, in every Debian) gives the command a terminal.
    let tty = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("run script");
    assert!(tty.status.success());
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert!(shown.contains("checking every table of"), "{shown}");
    let piped = run(&db, &["check"]);
    assert_eq!(String::from_utf8_lossy(&piped.stdout), "store is whole\n");
    assert_eq!(stderr(&piped), "", "no progress into a pipe");
}

#[test]
fn a_deleted_point_is_kept_restorable_and_never_crawled() {
    let s = crate::support::TestServer::start();
    crate::support::home(&s, &[]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    let said = |args: &[&str]| run(&db, args);
    assert!(said(&["point", "add", &s.base()]).status.success());
    assert!(said(&["point", "rm", "1"]).status.success());
    let live: serde_json::Value =
        serde_json::from_slice(&said(&["point", "list", "--json"]).stdout).unwrap();
    assert_eq!(live, serde_json::json!([]));
    let gone: serde_json::Value =
        serde_json::from_slice(&said(&["point", "list", "--deleted", "--json"]).stdout).unwrap();
    assert_eq!(gone[0]["deleted"], true);
    assert!(gone[0]["created_at"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    assert!(gone[0]["updated_by"]
        .as_str()
        .is_some_and(|u| !u.is_empty()));
    // Never crawled: not by a bare crawl, not by asking for it.
    let out = crawl(&db, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(s.hits("/"), 0);
    assert!(said(&["point", "restore", "1"]).status.success());
    let out = said(&["point", "restore", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is not deleted"), "{}", stderr(&out));
    crawl_ok(&db, &[]);
    assert_eq!(s.hits("/"), 1, "restored, it crawls again");
    assert!(said(&["point", "rm", "1", "--purge"]).status.success());
    let all: serde_json::Value =
        serde_json::from_slice(&said(&["point", "list", "--deleted", "--json"]).stdout).unwrap();
    assert_eq!(all, serde_json::json!([]), "purged for good");
}

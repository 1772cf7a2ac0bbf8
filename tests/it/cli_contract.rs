//! The command line's contract, held over every command at once. A table
//! gives each command its role with the store named by `--db`; from it, a
//! command that reads a store (or changes what one holds) refuses a missing
//! store with `no store at PATH` and creates nothing, and every read ends
//! quietly with exit 0 when its stdout is closed. `cli_secrets` runs the
//! same reads on a store holding credentials. A command missing from the
//! table, or a read the table names but no test runs, fails the first test.

use std::path::Path;

use clap::{CommandFactory, ValueEnum};
use crawlscope::cli::args::ExportFormat;
use crawlscope::cli::Cli;
use crawlscope::report::Kind;

use crate::support::crawl::{crawl_ok, serve_demo};
use crate::support::{crawlscope, on_store as run, stderr_of, with_stdout_closed};

/// What a command does with the store `--db` names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Only reads it.
    Reads,
    /// Changes what it holds, never creating it.
    Changes,
    /// Creates it when missing.
    Creates,
    /// Needs none.
    Without,
}

/// Every command, as typed before its arguments.
const ROLES: &[(&str, Role)] = &[
    ("tui", Role::Creates),
    ("demo", Role::Creates),
    ("serve-demo", Role::Without),
    ("crawl", Role::Creates),
    ("point add", Role::Creates),
    ("point list", Role::Reads),
    ("point update", Role::Changes),
    ("point rm", Role::Changes),
    ("point restore", Role::Changes),
    ("point enable", Role::Changes),
    ("point disable", Role::Changes),
    ("search", Role::Reads),
    ("page", Role::Reads),
    ("body", Role::Reads),
    ("word", Role::Reads),
    ("words", Role::Reads),
    ("stats", Role::Reads),
    ("export", Role::Reads),
    ("copy", Role::Reads),
    // Its stores are named by its arguments (tests/it/merge_shards.rs).
    ("merge", Role::Without),
    ("report", Role::Reads),
    ("check", Role::Reads),
    ("runs", Role::Reads),
    ("completions", Role::Without),
    ("man", Role::Without),
    ("doc add", Role::Creates),
    ("doc list", Role::Reads),
    ("doc rename", Role::Changes),
    ("doc rm", Role::Changes),
    ("doc restore", Role::Changes),
];

fn line(words: &[&str]) -> Vec<String> {
    words.iter().map(ToString::to_string).collect()
}

/// The name of a clap value (`spider-result`, `broken`...).
fn value_name<T: ValueEnum>(v: &T) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_string())
        .unwrap_or_default()
}

/// Every read the contract tests run: each command of the `Reads` role
/// with its output forms, every report kind and every export format.
/// `url` is a fetched page, `word` a word of it; files go to `scratch`.
pub(crate) fn reads(url: &str, word: &str, scratch: &Path) -> Vec<Vec<String>> {
    let file = |name: &str| scratch.join(name).display().to_string();
    let two = format!("{word} lantern");
    let mut lines = vec![
        line(&["search", word]),
        line(&["search", &two]),
        line(&["search", word, "--json"]),
        line(&["page", url]),
        line(&["page", url, "--json"]),
        line(&["page", url, "--all-keywords"]),
        line(&["body", url]),
        line(&["body", url, "--out", &file("body")]),
        line(&["word", word]),
        line(&["word", word, "--json"]),
        line(&["word", "--id", "1"]),
        line(&["words"]),
        line(&["words", "--json"]),
        line(&["stats"]),
        line(&["stats", "--json"]),
        line(&["copy", &file("copy")]),
        line(&["check"]),
        line(&["check", "--json"]),
        line(&["point", "list"]),
        line(&["point", "list", "--json"]),
        line(&["point", "list", "--deleted"]),
        line(&["runs"]),
        line(&["runs", "--json"]),
        line(&["runs", "--point", "1"]),
        line(&["doc", "list"]),
        line(&["doc", "list", "--json"]),
    ];
    for f in ExportFormat::value_variants() {
        let f = value_name(f);
        let out = file(&f);
        match f.as_str() {
            // Only to a file, with and without the WARC its rows point into.
            "parquet" => {
                lines.push(line(&["export", "--format", &f, "--out", &out]));
                let warc = file("parquet.warc.gz");
                lines.push(line(&[
                    "export", "--format", &f, "--out", &out, "--warc", &warc,
                ]));
            }
            // The index of the WARC the `warc` format wrote before it.
            "cdxj" => {
                let warc = file("warc");
                lines.push(line(&["export", "--format", &f, "--warc", &warc]));
                lines.push(line(&[
                    "export", "--format", &f, "--warc", &warc, "--out", &out,
                ]));
            }
            _ => {
                lines.push(line(&["export", "--format", &f]));
                lines.push(line(&["export", "--format", &f, "--out", &out]));
            }
        }
    }
    for k in Kind::value_variants() {
        let k = value_name(k);
        lines.push(line(&["report", &k]));
        lines.push(line(&["report", &k, "--json"]));
        lines.push(line(&["report", &k, "--csv"]));
    }
    lines.push(line(&["report", "broken", "--all-runs"]));
    lines
}

/// A run of each command of the `Changes` role, on crawl point 1.
fn changes() -> Vec<Vec<String>> {
    [
        &["point", "update", "1", "--depth", "2"][..],
        &["point", "rm", "1"],
        &["point", "restore", "1"],
        &["point", "enable", "1"],
        &["point", "disable", "1"],
        &["doc", "rename", "guide", "manual"],
        &["doc", "rm", "guide"],
        &["doc", "restore", "guide"],
    ]
    .into_iter()
    .map(line)
    .collect()
}

/// The commands clap knows, subcommands' actions as `point add`.
fn commands(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    for sub in cmd.get_subcommands() {
        let name = format!("{prefix}{}", sub.get_name());
        if sub.has_subcommands() {
            commands(sub, &format!("{name} "), out);
        } else {
            out.push(name);
        }
    }
}

fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn every_command_has_a_role_and_every_read_is_run() {
    let mut known = Vec::new();
    commands(&Cli::command(), "", &mut known);
    let mut tabled: Vec<String> = ROLES.iter().map(|(c, _)| c.to_string()).collect();
    known.sort();
    tabled.sort();
    assert_eq!(known, tabled, "ROLES must name every command, once");
    let scratch = Path::new("/nowhere");
    let run_lines: Vec<String> = reads("http://127.0.0.1:9/", "w", scratch)
        .into_iter()
        .chain(changes())
        .map(|l| l.join(" "))
        .collect();
    for (command, role) in ROLES {
        let contracted = matches!(role, Role::Reads | Role::Changes);
        let words = format!("{command} ");
        let ran = run_lines.iter().any(|l| l.starts_with(&words));
        assert_eq!(
            ran, contracted,
            "{command} ({role:?}) run by the contract tests"
        );
    }
}

#[test]
fn reads_and_changes_refuse_a_missing_store_and_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mistyped");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    for args in reads("http://127.0.0.1:9/", "harbor", &scratch)
        .into_iter()
        // A CDXJ index reads a WARC, not the store.
        .filter(|args| !args.iter().any(|a| a == "cdxj"))
        .chain(changes())
    {
        let out = run(&db, &as_strs(&args));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        assert_eq!(
            stderr_of(&out).trim(),
            format!("error: no store at {}", db.display()),
            "{args:?}"
        );
        assert!(!db.exists(), "{args:?} created {}", db.display());
    }
    let written: Vec<_> = std::fs::read_dir(&scratch).unwrap().collect();
    assert!(written.is_empty(), "files written: {written:?}");
}

#[test]
fn a_closed_stdout_ends_every_read_quietly() {
    let demo = serve_demo(60);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store");
    crawl_ok(&db, &[&demo.1]);
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    for args in reads(&demo.1, "harbor", &scratch) {
        let mut cmd = crawlscope();
        cmd.arg("--db").arg(&db).args(&args);
        let out = with_stdout_closed(cmd);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        // A note the command gives anyway is fine; an error is not.
        assert!(
            err.lines().all(|l| l.starts_with("note: ")),
            "{args:?}: {err}"
        );
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
    assert!(out.status.success(), "{}", stderr_of(&out));
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
        stderr_of(&out).trim(),
        format!("error: no store at {}", expected.display())
    );
}

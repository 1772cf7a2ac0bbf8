//! `completions` and `man` print what clap_complete and clap_mangen write
//! from the parser's own definitions: every subcommand is in them, an
//! unknown shell is a usage error, and a closed stdout ends them quietly.

use clap::{CommandFactory, ValueEnum};
use clap_complete::Shell;
use crawlscope::cli::Cli;

use crate::support::{crawlscope, with_stdout_closed};

fn stdout_of(args: &[&str]) -> String {
    let out = crawlscope().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The names a user types after `crawlscope`.
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect()
}

#[test]
fn the_bash_script_completes_every_subcommand() {
    let script = stdout_of(&["completions", "bash"]);
    assert!(script.contains("complete -F"), "{script}");
    for name in subcommands() {
        assert!(script.contains(&name), "no {name} in the bash script");
    }
    assert!(script.contains("--max-pages"), "flags are completed too");
    for shell in Shell::value_variants() {
        let name = shell.to_possible_value().unwrap().get_name().to_string();
        assert!(
            stdout_of(&["completions", &name]).contains("crawlscope"),
            "{name}"
        );
    }
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let page = stdout_of(&["man"]);
    // roff's preamble defines the apostrophe string (`.ie`/`.el`) before
    // the title macro that opens the page.
    let title = page
        .lines()
        .find(|l| !l.starts_with(".ie ") && !l.starts_with(".el "))
        .unwrap_or_default();
    assert!(title.starts_with(".TH crawlscope 1"), "{page}");
    assert!(page.contains(".SH SUBCOMMANDS"), "{page}");
    for name in subcommands() {
        // roff writes a hyphen as `\-`.
        let name = name.replace('-', "\\-");
        assert!(page.contains(&name), "no {name} in the man page");
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error_with_a_suggestion() {
    let out = crawlscope().args(["completions", "bsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: invalid value 'bsh' for '<SHELL>'"),
        "{err}"
    );
    assert!(err.contains("[possible values: bash,"), "{err}");
    assert!(err.contains("similar value exists: 'bash'"), "{err}");
    assert!(err.contains("For more information, try '--help'."), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_closed_stdout_ends_them_quietly() {
    for args in [&["completions", "zsh"][..], &["man"]] {
        let mut cmd = crawlscope();
        cmd.args(args);
        let out = with_stdout_closed(cmd);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn each_subcommand_has_the_page_the_main_page_refers_to() {
    let main = stdout_of(&["man"]);
    for name in subcommands() {
        let page = stdout_of(&["man", &name]);
        let title = format!(
            ".TH crawlscope-{name} 1  \"crawlscope {}\"",
            env!("CARGO_PKG_VERSION")
        );
        assert!(page.contains(&title), "{name}: {page}");
        let refers = format!("crawlscope\\-{}(1)", name.replace('-', "\\-"));
        assert!(main.contains(&refers), "the main page names {refers}");
    }
    // Every page any page refers to exists, nested commands' too
    // (`point`'s page names `crawlscope-point-add(1)`); clap's own `help`
    // commands have none.
    let mut queue = vec![String::new()];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = queue.pop() {
        let page = match name.as_str() {
            "" => stdout_of(&["man"]),
            _ => stdout_of(&["man", &name]),
        };
        let title = format!(".TH crawlscope-{name} 1 ");
        assert!(name.is_empty() || page.contains(&title), "{name}: {page}");
        for line in page.lines() {
            let Some(r) = line.strip_prefix("crawlscope\\-") else {
                continue;
            };
            let Some(r) = r.strip_suffix("(1)") else {
                continue;
            };
            let r = r.replace("\\-", "-");
            if r != "help" && !r.ends_with("-help") && seen.insert(r.clone()) {
                queue.push(r);
            }
        }
    }
    assert!(
        seen.contains("point-add") && seen.contains("doc-rm"),
        "{seen:?}"
    );
    let out = crawlscope().args(["man", "serch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'serch'"), "{err}");
    assert!(err.contains("search"), "the commands are listed: {err}");
}

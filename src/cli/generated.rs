//! `completions` and `man`: shell completion scripts and the man page,
//! written from the clap definitions in [`super::args`] so they always
//! name the flags the parser takes.

use std::io::Write;

use clap::CommandFactory;

use super::{Cli, CliError, CliResult};

/// The completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> CliResult {
    // clap_complete panics when its writer fails: it writes to memory, and
    // stdout's errors (a closed pipe) come back as ours.
    let mut script = Vec::new();
    let mut cmd = Cli::command();
    let name = cmd.get_name().to_string();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    print(&script)
}

/// The roff man page on stdout: crawlscope's, or with `command` that
/// subcommand's, titled `crawlscope-COMMAND` as the SUBCOMMANDS section of
/// the page above it names it (`point-add` for `point add`).
pub fn man(command: Option<&str>) -> CliResult {
    let mut main = Cli::command();
    // Building names each subcommand `crawlscope-NAME` (its display name,
    // the page's title) and `crawlscope NAME` (its synopsis).
    main.build();
    let cmd = match command {
        None => main,
        Some(name) => super::args::page_command(&main, name)
            .cloned()
            .ok_or_else(|| CliError::NoSuchCommand(name.to_string()))?,
    };
    let mut page = Vec::new();
    // Every page's footer names the package, not the subcommand.
    let source = format!("crawlscope {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(cmd)
        .source(source)
        .render(&mut page)?;
    print(&page)
}

fn print(bytes: &[u8]) -> CliResult {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

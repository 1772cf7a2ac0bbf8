//! `completions` and `man`: shell completion scripts and the man page,
//! written from the clap definitions in [`super::args`] so they always
//! name the flags the parser takes.

use std::io::Write;

use clap::CommandFactory;

use super::{Cli, CliResult};

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

/// The roff man page on stdout.
pub fn man() -> CliResult {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    print(&page)
}

fn print(bytes: &[u8]) -> CliResult {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

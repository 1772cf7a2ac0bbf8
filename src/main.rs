//! The `crawlscope` binary: parse the command line, run the chosen face,
//! map errors to an exit code: 2 with clap's whole message for usage, 1
//! with one `error:` line at run time, 0 when stdout was closed early.

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

// Parsing a page allocates and frees a whole DOM; glibc's malloc spent
// ~15% of a crawl's CPU on that in profiles, mimalloc a fraction of it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // An empty CRAWLSCOPE_DB is a variable someone cleared, not a path: it
    // must neither name a store nor shadow `--db`.
    if std::env::var_os("CRAWLSCOPE_DB").is_some_and(|v| v.is_empty()) {
        std::env::remove_var("CRAWLSCOPE_DB");
    }
    let cli = match crawlscope::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's whole message: what is wrong, the "did you mean", the
            // usage line. Help and version are answers, not errors.
            let _ = e.print();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
                _ => ExitCode::from(2),
            };
        }
    };
    match crawlscope::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_closed_stdout() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

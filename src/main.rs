//! The `crawlscope` binary: parse the command line, run the chosen face,
//! map errors to one `error:` line and an exit code (1 runtime, 2 usage).

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

// Parsing a page allocates and frees a whole DOM; glibc's malloc spent
// ~15% of a crawl's CPU on that in profiles, mimalloc a fraction of it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match crawlscope::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // clap's first line says what is wrong; the rest is advice that
            // would break the one-line contract for scripts.
            let text = e.render().to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("error: invalid usage");
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    match crawlscope::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

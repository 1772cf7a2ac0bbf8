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
    without_huge_pages();
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

/// Transparent huge pages off for this process, as mimalloc's own
/// `MIMALLOC_ALLOW_THP=0` does. Under THP the first touch of each 2 MiB
/// range of mimalloc's arenas faults in and zeroes a whole huge page: only
/// 80 in a 10k-page crawl of the nginx bench site, yet that zeroing was 5%
/// of the crawl's samples on the virtual machine it was measured on. With
/// 4 KiB pages the crawl faults 71,000 times instead of 28,000 and still
/// spends 0.2 s less in the kernel: 0.94-0.95 x the CPU and 0.85-0.9 x
/// the peak RSS over 13 paired crawls. A kernel that refuses leaves the
/// crawl as it was, only slower: nothing to report.
#[cfg(target_os = "linux")]
fn without_huge_pages() {
    // SAFETY: integer arguments only; it changes this process's huge-page
    // policy and nothing else.
    let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
fn without_huge_pages() {}

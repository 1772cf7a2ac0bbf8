//! What the binary asks of the kernel for its own process: transparent
//! huge pages off (why, with the figures, in `src/main.rs`).

use crate::support::crawl::serve_demo;

#[test]
#[cfg(target_os = "linux")]
fn the_binary_runs_without_transparent_huge_pages() {
    let demo = serve_demo(1);
    let status = std::fs::read_to_string(format!("/proc/{}/status", demo.0.id()))
        .expect("read the running binary's /proc status");
    let thp = status.lines().find(|l| l.starts_with("THP_enabled:"));
    assert_eq!(
        thp.map(|l| l.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["THP_enabled:", "0"]),
        "the binary's status: {status}"
    );
}

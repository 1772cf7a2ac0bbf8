//! The integration tests, one binary: each module is one capability,
//! driving the real binary or the library against a loopback server and a
//! real store. (One binary links tokio, reqwest and ratatui once instead of
//! once per file.)

mod support;

mod bench_parts;
mod check_invariants;
mod ci_checks;
mod cli_contract;
mod cli_documents;
mod cli_errors;
mod cli_generated;
mod cli_lookups;
mod cli_points;
mod cli_secrets;
mod crawl_auth;
mod crawl_counts;
mod crawl_external;
mod crawl_failures;
mod crawl_link_credentials;
mod crawl_lychee_flags;
mod crawl_page_record;
mod crawl_pause;
mod crawl_politeness;
mod crawl_reasons;
mod crawl_recrawl;
mod crawl_redirects;
mod crawl_resources;
mod crawl_resume;
mod crawl_robots;
mod crawl_rules;
mod crawl_scope;
mod crawl_sitemaps;
mod crawl_stale_claims;
mod crawl_stop;
mod crawl_throttle;
mod crawl_unreachable;
mod demo_site;
mod documents;
mod export_engines;
mod export_formats;
mod fuzz_regressions;
mod hostile_input;
mod nothing_lost;
mod overlap;
mod process_tuning;
mod render;
mod report_audit;
mod report_changes;
mod report_cli;
mod report_findings;
mod report_kept;
mod report_near;
mod run_decisions;
mod runs;
mod search_ranking;
mod seed_rules;
mod sites;
mod soak;
mod store_copy;
mod store_faults;
mod store_fixture;
mod store_free_pages;
mod tui_e2e;

//! The markup audits in the console, on a real crawl of a loopback site
//! whose home has one fault of each (an invalid hreflang code without an
//! x-default, a JSON-LD script that does not parse, a `rel=next` to a
//! 404, a new tab to another origin without `noopener`): the Findings pane
//! shows each kind's count, the same as `report summary`'s, and each
//! kind's rows open the home page.

use std::sync::Arc;

use tokio::net::TcpListener;

use super::external::{crawl, serve};
use super::*;
use crate::tui::findings_jobs;

#[tokio::test]
async fn the_findings_pane_counts_and_lists_each_markup_audit() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let home = "<title>home</title>\
        <link rel=\"alternate\" hreflang=\"en_GB\" href=\"/\">\
        <link rel=\"next\" href=\"/gone\">\
        <script type=\"application/ld+json\">{\"@type\":</script>\
        <a href=\"http://example.com/\" target=\"_blank\">out</a>";
    tokio::spawn(serve(listener, Arc::new(home.into())));
    let (_dir, store, _events) = crawl(addr, false).await;

    let counts = findings_jobs::counts(&store).expect("counts");
    let wanted = [
        ("hreflang", 2),
        ("structured-data", 1),
        ("pagination", 1),
        ("security", 1),
    ];
    // Tall enough for every finding kind.
    let mut h = Harness::sized(80, 42);
    h.key(KeyCode::Char('7'));
    h.send(Msg::FindingCounts(Ok(counts.clone())));
    let screen = h.screen(80, 42);
    for (kind, n) in wanted {
        let count = counts.kinds.iter().find(|(k, _)| *k == kind).map(|k| k.1);
        assert_eq!(count, Some(n), "{kind}: {counts:?}");
        let line = (screen.lines())
            .find(|l| l.contains(&format!("│{kind} ")))
            .unwrap_or_else(|| panic!("{kind} is not shown: {screen}"));
        assert!(
            line.split_whitespace().any(|w| w == n.to_string()),
            "{kind} {n}: {screen}"
        );
    }

    let home_url = format!("http://{addr}/");
    let home_id = page_id(&store, &home_url);
    for (kind, n) in wanted {
        let listed = findings_jobs::list(&store, kind).expect("rows");
        assert_eq!(listed.total, n, "{kind}: {listed:?}");
        for row in &listed.rows {
            assert_eq!(
                (row.page, row.url.as_str()),
                (home_id, home_url.as_str()),
                "{kind}"
            );
        }
    }
}

//! A point's `--extract` and `--search` rules in the console, on a real
//! crawl of a loopback site: the graph shows what the rules kept of the
//! page (the values `page --json` gives), and the Findings pane counts
//! and lists the pages a search rule found, as `report search` does.

use std::sync::Arc;

use tokio::net::TcpListener;

use super::external::{crawl_point, graph_shown, open_first_page, serve};
use super::*;
use crate::tui::findings_jobs;

#[tokio::test]
async fn the_graph_shows_extracted_values_and_findings_list_search_hits() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let home = "<title>home</title><p class=price>9.99 EUR</p><p class=price>12 EUR</p>\
        <a href=\"/other\">other</a> out of stock";
    tokio::spawn(serve(listener, Arc::new(home.into())));
    let (_dir, store, events) = crawl_point(addr, |rec| {
        rec.extract = vec!["price=css:.price".into()];
        rec.search = vec!["stock=out of stock".into()];
    })
    .await;

    let mut h = Harness::new();
    open_first_page(&mut h, &store, events);
    let shown = graph_shown(&h);
    assert!(shown.contains("price: 9.99 EUR | 12 EUR"), "{shown}");

    let counts = findings_jobs::counts(&store).expect("counts");
    let found = counts.kinds.iter().find(|(k, _)| *k == "search");
    assert_eq!(found.map(|k| k.1), Some(1), "{counts:?}");
    let listed = findings_jobs::list(&store, "search").expect("rows");
    let home_url = format!("http://{addr}/");
    let urls: Vec<&str> = listed.rows.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, [home_url.as_str()]);
}

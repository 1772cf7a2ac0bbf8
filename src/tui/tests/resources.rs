//! Resources in the console, on a real crawl of a loopback site whose home
//! loads a missing image: the Findings pane counts the broken resource and
//! the image without alt text, and each row opens the page that uses it
//! (not the image, which is no page) in the graph.

use std::sync::Arc;

use tokio::net::TcpListener;

use super::external::{crawl, serve};
use crate::store::prelude::*;
use crate::tui::findings_jobs;

#[tokio::test]
async fn a_resource_finding_opens_the_page_using_it() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let home = "<title>home</title><img src=\"/gone\"><img src=\"/fine.png\" alt=\"fine\">";
    tokio::spawn(serve(listener, Arc::new(home.into())));
    let (_dir, store, _) = crawl(addr, false).await;

    let counts = findings_jobs::counts(&store).expect("counts");
    let count = |kind: &str| counts.kinds.iter().find(|(k, _)| *k == kind).map(|k| k.1);
    assert_eq!(count("resources"), Some(1), "{counts:?}");
    assert_eq!(count("images"), Some(1), "{counts:?}");

    let home_url = format!("http://{addr}/");
    let home_id = store
        .read()
        .expect("read")
        .page_id(&crate::url::Url::parse(&home_url).expect("URL"))
        .expect("look-up")
        .expect("the home page");
    for kind in ["resources", "images"] {
        let listed = findings_jobs::list(&store, kind).expect("rows");
        assert_eq!(listed.total, 1, "{kind}: {listed:?}");
        let row = &listed.rows[0];
        assert_eq!(
            (row.page, row.url.as_str()),
            (home_id, home_url.as_str()),
            "{kind}"
        );
        assert!(
            row.issue.contains(&format!("http://{addr}/gone")),
            "{kind}: {row:?}"
        );
    }
}

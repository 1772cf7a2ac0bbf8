//! Resources in the console, on a real crawl of a loopback site whose home
//! loads a missing image: the Findings pane counts the broken resource and
//! the image without alt text, and each row opens the page that uses it
//! (not the image, which is no page) in the graph. The graph lists the
//! home's images after its links, with their element and check, and Enter
//! on one shows its check with the home as its parent.

use std::sync::Arc;

use tokio::net::TcpListener;

use super::external::{crawl, graph_shown, serve};
use super::*;
use crate::tui::{findings_jobs, jobs};

#[tokio::test]
async fn resources_show_in_findings_and_the_graph() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let home = "<title>home</title><a href=\"/own\">own</a><img src=\"/gone\"><img src=\"/fine.png\" alt=\"fine\">";
    tokio::spawn(serve(listener, Arc::new(home.into())));
    let (_dir, store, events) = crawl(addr, false).await;

    let counts = findings_jobs::counts(&store).expect("counts");
    let count = |kind: &str| counts.kinds.iter().find(|(k, _)| *k == kind).map(|k| k.1);
    assert_eq!(count("resources"), Some(1), "{counts:?}");
    assert_eq!(count("images"), Some(1), "{counts:?}");

    let home_url = format!("http://{addr}/");
    let home_id = page_id(&store, &home_url);
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

    graph_rows_and_a_resource_view(&store, events, &home_url).await;
}

/// The home in the graph: its link, then its two images; Enter on the
/// missing one opens its view.
async fn graph_rows_and_a_resource_view(
    store: &crate::store::Store,
    events: Vec<crate::crawl::CrawlEvent>,
    home_url: &str,
) {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    let Some(Command::LoadPage { seq, page }) = h.send(Msg::Engine(events)) else {
        panic!("the first page fetched opens in the graph");
    };
    let home = jobs::page_view(store, page).expect("the home page");
    assert_eq!(home.url, home_url);
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(home.clone()),
    });
    h.key(KeyCode::Char('5'));
    assert_eq!(h.app.focus(), PaneId::Graph);
    let shown = graph_shown(&h);
    let rows: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("a page") || l.contains("[img]"))
        .collect();
    assert_eq!(rows.len(), 3, "{shown}");
    // The link (shown by its title), then the images by URL.
    for (row, (label, name)) in rows.iter().zip([
        ("200", "a page".to_string()),
        ("[img] 404", format!("{home_url}gone")),
        ("[img] 200", format!("{home_url}fine.png")),
    ]) {
        assert!(
            row.contains(&format!("{label} ")) && row.contains(&name),
            "{label} {name}: {shown}"
        );
    }
    assert!(shown.contains("Children (3)"), "{shown}");

    let at = home
        .children
        .iter()
        .position(|c| c.url.ends_with("/gone"))
        .expect("the /gone row");
    for _ in 0..at {
        h.key(KeyCode::Down);
    }
    let Some(Command::LoadPage { seq, page }) = h.key(KeyCode::Enter) else {
        panic!("Enter on a resource opens it");
    };
    assert_eq!(page, home.children[at].page);
    let gone = jobs::page_view(store, page).expect("the image's view");
    assert_eq!(
        gone.parents.iter().map(|p| p.page).collect::<Vec<_>>(),
        vec![home.page]
    );
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(gone),
    });
    let shown = graph_shown(&h);
    assert!(shown.contains("resource 404 · Not Found"), "{shown}");
    assert!(shown.contains("Parents (1)"), "{shown}");
    assert!(
        shown
            .lines()
            .any(|l| l.contains("200 ") && l.contains("home")),
        "{shown}"
    );
}

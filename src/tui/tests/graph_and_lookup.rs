//! The graph and lookup panes: the trail back and its breadcrumb, a
//! redirect's reason and target, directives, canonicals, nofollow and
//! rendered-only links, rows of one title told apart by URL, selected
//! rows that stay readable, stale search results dropped, and the
//! lookup's true count loaded as the list scrolls.

use super::*;

#[test]
fn graph_back_walks_the_trail() {
    let mut h = graph();
    assert_eq!(h.app.graph().trail_len(), 0);
    // Children are selected first; the second is a queued URL.
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { seq, page: 21 }) = h.key(KeyCode::Enter) else {
        panic!("Enter on a child loads it");
    };
    let mut child = view(21, "Queued", "/c/21/");
    child.record = None;
    child.state = Some("queued".into());
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(child),
    });
    assert_eq!(h.app.graph().current().map(|v| v.page), Some(21));
    assert_eq!(h.app.graph().trail_len(), 1);
    let Some(Command::LoadPage { seq, page: 17 }) = h.key(KeyCode::Backspace) else {
        panic!("Backspace loads the previous page");
    };
    assert_eq!(h.app.graph().trail_len(), 0);
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(17, "Quiet Harbor Stone — page 17", "/q/17/")),
    });
    assert_eq!(h.app.graph().current().map(|v| v.page), Some(17));
    assert_eq!(h.key(KeyCode::Backspace), None);
}

#[test]
fn the_breadcrumb_starts_at_the_first_page_the_user_opens() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    // The crawl's first page shows itself in the empty graph.
    let Some(Command::LoadPage { seq, page }) =
        h.send(Msg::Engine(vec![fetched(1, "/", 200, "Home", 0)]))
    else {
        panic!("the start page opens in the graph");
    };
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(page, "Home", "/")),
    });
    // The user opens a page: nothing behind it yet.
    h.key(KeyCode::Char('5'));
    h.key(KeyCode::Right);
    let Some(Command::LoadPage { seq, page }) = h.key(KeyCode::Enter) else {
        panic!("Enter opens the selected child");
    };
    h.send(Msg::PageLoaded {
        seq,
        result: Ok(view(page, "Copper Meadow — page 20", "/c/20/")),
    });
    assert_eq!(h.app.graph().trail_len(), 0);
    // The next page the user opens has that one behind it.
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { .. }) = h.key(KeyCode::Enter) else {
        panic!("Enter opens the selected child");
    };
    assert_eq!(h.app.graph().trail_len(), 1);
}

#[test]
fn the_graph_says_why_and_leads_on_from_a_redirect() {
    use crate::store::UrlState;
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::open(&dir.path().join("store")).unwrap();
    let u = |p: &str| crate::url::Url::parse(&url(p)).unwrap();
    let (old, new, dead) = store
        .update(|w| {
            let old = w.page_id_for(&u("/old"))?;
            let new = w.page_id_for(&u("/new"))?;
            let dead = w.page_id_for(&u("/dead"))?;
            w.set_state(
                old,
                &UrlState::Redirected {
                    point: 1,
                    gen: 1,
                    to: new,
                    status: 308,
                },
            )?;
            w.set_state(
                dead,
                &UrlState::Failed {
                    point: 1,
                    gen: 1,
                    reason: "connection refused".into(),
                    status: None,
                },
            )?;
            Ok((old, new, dead))
        })
        .unwrap();
    let v = crate::tui::jobs::page_view(&store, old).unwrap();
    assert_eq!(v.state.as_deref(), Some("redirected (308)"));
    assert_eq!(
        v.children.first().map(|c| c.page),
        Some(new),
        "the target is a row"
    );
    let v = crate::tui::jobs::page_view(&store, dead).unwrap();
    assert_eq!(v.state.as_deref(), Some("failed: connection refused"));
}

#[test]
fn the_graph_shows_directives_canonicals_nofollow_and_rendered_only_links() {
    let mut h = searched();
    h.key(KeyCode::Down);
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::LoadPage { seq, .. }) = cmd else {
        panic!("expected a page load, got {cmd:?}");
    };
    let mut v = view(17, "Quiet Harbor Stone — page 17", "/q/17/");
    if let Some(r) = v.record.as_mut() {
        r.noindex = Some(crate::store::DirectiveSource::Header);
        r.canonical = Some(url("/canon/"));
    }
    v.children[0].nofollow = true;
    v.children[1].rendered_only = true;
    h.send(Msg::PageLoaded { seq, result: Ok(v) });
    let screen = h.screen(160, 40);
    assert!(screen.contains("noindex (header)"), "{screen}");
    assert!(
        screen.contains("canonical 127.0.0.1:8080/canon/"),
        "{screen}"
    );
    assert!(
        screen.contains("Copper Meadow — page 20 · nofollow"),
        "{screen}"
    );
    assert_eq!(screen.matches("· nofollow").count(), 1, "{screen}");
    assert_eq!(screen.matches("· rendered only").count(), 1, "{screen}");
}

#[test]
fn graph_rows_with_the_same_title_show_their_url() {
    let mut h = searched();
    h.key(KeyCode::Down);
    let Some(Command::LoadPage { seq, .. }) = h.key(KeyCode::Enter) else {
        panic!("expected a page load");
    };
    let mut v = view(17, "Docs", "/docs/");
    v.children = vec![
        link(30, "/docs/a/", Some("Index"), Some(200), "done"),
        link(31, "/docs/b/", Some("Index"), Some(200), "done"),
        link(32, "/docs/c/", Some("Setup"), Some(200), "done"),
    ];
    h.send(Msg::PageLoaded { seq, result: Ok(v) });
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("Index · 127.0.0.1:8080/docs/a/"),
        "{screen}"
    );
    assert!(
        screen.contains("Index · 127.0.0.1:8080/docs/b/"),
        "{screen}"
    );
    assert!(!screen.contains("Setup ·"), "{screen}");
}

#[test]
fn selected_rows_stay_readable() {
    let mut h = crawling();
    h.key(KeyCode::Char('2'));
    h.key(KeyCode::Down);
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| h.app.render(f)).unwrap();
    let buf = t.backend().buffer();
    let mut selected = 0;
    for cell in buf.content() {
        if cell.bg == ratatui::style::Color::DarkGray && !cell.symbol().trim().is_empty() {
            selected += 1;
            assert_ne!(
                cell.fg,
                cell.bg,
                "{:?} drawn in its own background",
                cell.symbol()
            );
        }
    }
    assert!(selected > 10, "a row is drawn selected");
}

#[test]
fn stale_search_results_are_dropped() {
    let mut h = Harness::new();
    h.key(KeyCode::Char('/'));
    h.typing("har");
    let Some((old, _)) = h.tick_search(200) else {
        panic!("first search");
    };
    h.typing("bor");
    assert_eq!(
        h.tick_search(250),
        None,
        "debounced: typing resets the wait"
    );
    let Some((new, query)) = h.tick_search(400) else {
        panic!("second search");
    };
    assert_eq!(query, "harbor");
    let stale = Ok(Results {
        hits: vec![hit(5, 0.3, "Stale", "/stale/")],
        note: None,
        total: 1,
    });
    assert_eq!(
        h.send(Msg::SearchDone {
            seq: old,
            query: "har".into(),
            result: stale
        }),
        None
    );
    assert!(h.app.lookup().hits().is_empty());
    h.send(Msg::SearchDone {
        seq: new,
        query,
        result: Ok(Results {
            hits: vec![hit(1, 0.9, "Fresh", "/")],
            note: None,
            total: 1,
        }),
    });
    assert_eq!(h.app.lookup().hits().len(), 1);
}

#[test]
fn lookup_shows_the_true_count_and_loads_more_as_the_list_scrolls() {
    let mut h = Harness::new();
    h.key(KeyCode::Char('/'));
    for c in "harbor".chars() {
        h.key(KeyCode::Char(c));
    }
    let (seq, query) = h.tick_search(1000).expect("a search after the pause");
    let first: Vec<Hit> = (0..50)
        .map(|i| hit(i + 1, 1.0 - i as f32 / 100.0, "Harbor", &format!("/h/{i}")))
        .collect();
    h.send(Msg::SearchDone {
        seq,
        query: query.clone(),
        result: Ok(Results {
            hits: first,
            note: None,
            total: 1000,
        }),
    });
    let screen = h.screen(120, 40);
    assert!(screen.contains("1000 results (50 loaded"), "{screen}");
    // Down to the last loaded hit: the next tick asks for more.
    for _ in 0..49 {
        h.key(KeyCode::Down);
    }
    let more = h.tick(1200);
    let found = matches!(
        &more,
        Some(Command::Search { limit: 100, query: q, .. }) if *q == query
    ) || matches!(&more, Some(Command::Batch(v)) if v.iter().any(|c| matches!(c, Command::Search { limit: 100, .. })));
    assert!(found, "{more:?}");
}

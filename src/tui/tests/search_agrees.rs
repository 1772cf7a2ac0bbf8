//! The console's search as the user types and `crawlscope search` rank a
//! finished query the same, with the same scores, on one store: the
//! console's own path (a typed query, the search command it asks for, the
//! job that runs it, the lookup pane drawing the answer) against the
//! library call the CLI makes.

use super::*;
use crate::search::test_store::store;
use crate::tui::jobs;

#[test]
fn the_console_ranks_and_scores_a_query_as_search_does() {
    // "homeless" is rarer than "home": as a completion of the word being
    // typed it must add its page, never outrank the word typed.
    let (_dir, s, _ids) = store(&[
        ("At Home Among Strangers", "home sweet home"),
        ("Woman of the Year", "a homeless shelter"),
        ("Garden", "home garden"),
        ("Kitchen", "home kitchen"),
    ]);
    let mut h = Harness::sized(160, 45);
    h.key(KeyCode::Char('/'));
    h.typing("home");
    let (seq, query, limit) = h.tick_searches(1000).expect("a search after the pause");
    let result = jobs::search(&s, &query, limit).map_err(|e| e.to_string());
    h.send(Msg::SearchDone {
        seq,
        query: query.clone(),
        result,
    });
    let cli = crate::search::search(&s.read().expect("read"), &query, limit).expect("search");
    assert_eq!(cli.hits.len(), 3);
    let screen = h.screen(160, 45);
    // The result rows: "  1. 1.8944  title  url".
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| {
            l.trim_start_matches('│')
                .trim_start()
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
        })
        .collect();
    assert_eq!(
        rows.len(),
        4,
        "three pages hold the word, one a completion: {screen}"
    );
    for (i, hit) in cli.hits.iter().enumerate() {
        let shown = format!(
            "{:>3}. {}  {}",
            i + 1,
            crate::search::score_text(hit.score),
            hit.title.as_deref().unwrap_or_default()
        );
        assert!(rows[i].contains(&shown), "row {i}: {shown:?}\n{screen}");
    }
    assert!(rows[3].contains("Woman of the Year"), "{screen}");
}

//! No number of the Queue, Findings, Lookup or Graph pane is cut, at the
//! smallest screen the console takes and at a large one, with large
//! counts; a number that fits is shown in full (`22,800`, not `22k`), and
//! the Findings pane's counts line up whatever the kind's name. An idle
//! store says what it holds.

use super::*;
use crate::tui::findings_jobs::{Counts, ExternalChecked, FindingRow, Listed};
use crate::tui::format;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];
const WIDE: u16 = 160;

fn big_counts() -> Counts {
    Counts {
        kinds: vec![
            ("broken", 22_800),
            ("canonicals", 1_234_567),
            ("duplicates", 0),
            ("headings", 98_765),
            ("near-duplicates", 45_678),
            ("titles", 7),
        ],
        external: ExternalChecked::Yes,
        as_of: None,
    }
}

/// The text that follows each `label` on the screen, up to a space or a
/// frame line.
fn after<'a>(screen: &'a str, label: &str) -> Vec<&'a str> {
    screen
        .lines()
        .flat_map(|line| line.match_indices(label).map(move |(i, _)| &line[i..]))
        .filter_map(|rest| {
            rest[label.len()..]
                .trim_start()
                .split(|c: char| c.is_whitespace() || c == '│')
                .next()
        })
        .collect()
}

/// `token` is `n` in full, or shortened where `wide` is false.
fn whole(token: &str, n: u64, wide: bool) -> bool {
    token == format::count(n) || (!wide && token == format::compact(n))
}

#[test]
fn the_queue_pane_and_the_status_bar_show_the_same_whole_numbers() {
    let work = WorkAtHand {
        queued: 22_800,
        claimed: 1_234_567,
        in_flight: 0,
    };
    for (w, ht) in SIZES {
        let mut h = Harness::sized(w, ht);
        h.send(Msg::Snapshot(Snapshot { work, ..snapshot() }));
        let screen = h.screen(w, ht);
        let wide = w == WIDE;
        for (label, n) in [("queue ", work.queued), ("claimed ", work.claimed)] {
            let shown = after(&screen, label);
            assert_eq!(shown.len(), 2, "{w}x{ht}: {label} twice\n{screen}");
            for token in shown {
                assert!(
                    whole(token, n, wide),
                    "{w}x{ht}: {label}{token:?} is not {n} whole\n{screen}"
                );
            }
        }
        assert!(
            screen.contains("Next in frontier (22,800)"),
            "{w}x{ht}\n{screen}"
        );
    }
}

#[test]
fn findings_counts_line_up_and_are_never_cut() {
    for (w, ht) in SIZES {
        let mut h = Harness::sized(w, ht);
        h.key(KeyCode::Char('7'));
        h.tick(0);
        let counts = big_counts();
        h.send(Msg::FindingCounts(Ok(counts.clone())));
        let screen = h.screen(w, ht);
        let mut columns = Vec::new();
        for (kind, n) in counts.kinds {
            let line = screen
                .lines()
                .find(|l| l.contains(&format!("│{kind} ")))
                .unwrap_or_else(|| panic!("{w}x{ht}: no {kind}\n{screen}"));
            let token = after(line, kind)[0];
            assert!(
                whole(token, n as u64, w == WIDE),
                "{w}x{ht}: {kind} {token:?} is not {n} whole\n{screen}"
            );
            let at = line.find(&format!("{kind} ")).unwrap() + kind.len();
            columns.push(at + line[at..].len() - line[at..].trim_start().len());
        }
        assert!(
            columns.windows(2).all(|c| c[0] == c[1]),
            "{w}x{ht}: the counts are out of line {columns:?}\n{screen}"
        );

        let Some(Command::ListFindings { seq, .. }) = h.key(KeyCode::Enter) else {
            panic!("Enter lists a kind");
        };
        let rows: Vec<FindingRow> = (0..3)
            .map(|i| FindingRow {
                page: i,
                url: url(&format!("/gone/{i}")),
                issue: "status: 404".into(),
            })
            .collect();
        h.send(Msg::FindingRows {
            seq,
            result: Ok(Listed {
                kind: "broken",
                rows,
                total: 22_800,
            }),
        });
        let screen = h.screen(w, ht);
        let total = after(&screen, " of ");
        assert!(
            total.len() == 1 && whole(total[0], 22_800, w == WIDE),
            "{w}x{ht}: the rows' total {total:?}\n{screen}"
        );
    }
}

#[test]
fn an_idle_store_says_what_it_holds() {
    let mut h = Harness::new();
    h.send(Msg::Snapshot(Snapshot {
        totals: StateCounts {
            done: 318,
            failed: 4,
            ..Default::default()
        },
        ..snapshot()
    }));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("the store holds 318 done · 4 errors"),
        "{screen}"
    );
    assert!(!screen.contains("no pages yet"), "{screen}");
}

#[test]
fn the_lookup_and_graph_panes_show_their_counts_whole() {
    for (w, ht) in SIZES {
        let mut h = searched();
        let screen = h.screen(w, ht);
        assert!(screen.contains("3 results"), "{w}x{ht}\n{screen}");
        assert!(screen.contains("1. 0.9120"), "{w}x{ht}\n{screen}");
        h.key(KeyCode::Down);
        let Some(Command::LoadPage { seq, .. }) = h.key(KeyCode::Enter) else {
            panic!("expected a page load");
        };
        let mut v = view(17, "Quiet Harbor Stone — page 17", "/q/17/");
        v.parents_total = 1_234_567;
        v.children_total = 22_800;
        h.send(Msg::PageLoaded { seq, result: Ok(v) });
        let screen = h.screen(w, ht);
        for whole in [
            "Parents (first 1 of 1,234,567)",
            "Children (first 5 of 22,800)",
        ] {
            assert!(screen.contains(whole), "{w}x{ht}: {whole}\n{screen}");
        }
    }
}

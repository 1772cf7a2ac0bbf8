//! The status bar never cuts a number: at the smallest screen the console
//! takes and at a large one, with small, large and huge counts, both faces
//! of its second row, every number drawn is whole (abbreviated or left
//! out, never cut, never under the sparkline). And the store's totals,
//! which differ from the run's counts mid-crawl, say they count all runs.

use super::*;
use crate::store::{Exchange, OriginFigures, StateCounts};
use crate::tui::format;
use crate::tui::labels::Label;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];
const SCALES: [u64; 4] = [1, 37, 1_000, 1_000_003];
const ORIGIN: &str = "http://127.0.0.1:8080";

/// Distinct counts, none a prefix of another's text.
fn stats(scale: u64) -> CrawlStats {
    CrawlStats {
        fetched: 4_321 * scale,
        failed: 537 * scale,
        not_modified: 2_468 * scale,
        unchanged: 135 * scale,
        skipped: 2_815 * scale,
        skipped_by: SkipCounts {
            robots: 111 * scale,
            out_of_scope: 2_222 * scale,
            excluded: 33 * scale,
            too_deep: 444 * scale,
            nofollow: 5 * scale,
        },
        queued: 9_876 * scale,
        claimed: 6_543 * scale,
        in_flight: 8,
        throttled: 7 * scale,
        elapsed: Duration::from_secs(83),
        store_bytes: 777 << 20,
        rendered: 0,
        render_failed: 0,
        crawlers: None,
    }
}

fn store(scale: u64) -> Snapshot {
    let mut busy = OriginFigures::default();
    for _ in 0..3 {
        busy.record(Exchange::Ok, Some(20));
    }
    busy.record(Exchange::Failed, Some(900));
    Snapshot {
        frontier: Vec::new(),
        work: WorkAtHand {
            queued: 9_876 * scale,
            claimed: 6_543 * scale,
            in_flight: 0,
        },
        store_bytes: 777 << 20,
        totals: StateCounts {
            done: 65_432 * scale,
            failed: 678 * scale,
            skipped: 3_579 * scale,
            ..Default::default()
        },
        points: Vec::new(),
        docs: Vec::new(),
        origins: vec![(ORIGIN.into(), busy)],
        runs: Vec::new(),
    }
}

/// Every text a number of the status bar may be drawn as.
fn whole_numbers(s: &CrawlStats, t: &StateCounts) -> Vec<String> {
    let by = &s.skipped_by;
    let counts = [
        s.fetched,
        s.failed,
        s.not_modified,
        s.unchanged,
        s.skipped,
        by.robots,
        by.out_of_scope,
        by.excluded,
        by.too_deep,
        by.nofollow,
        s.queued,
        s.claimed,
        // No request listed in flight: the engine's are claimed too.
        s.claimed + s.in_flight,
        s.in_flight,
        s.throttled,
        t.done,
        t.failed,
        t.skipped,
        0,
        3,
        4,
        1,
    ];
    let mut out: Vec<String> = counts
        .iter()
        .flat_map(|&n| [format::count(n), format::compact(n)])
        .collect();
    out.push(format::clock(s.elapsed));
    out.push(format::bytes(s.store_bytes));
    out.push(format::bare_url(ORIGIN).to_string());
    out.extend(["p50", "p90"].map(String::from));
    out.extend(Label::all().map(|l| l.text().to_string()));
    out
}

/// Whether `token` (a word of the bar holding a digit) is drawn whole.
fn whole(token: &str, next: Option<&str>, numbers: &[String]) -> bool {
    let t = token.trim_start_matches('≤');
    let timed = ["/s", "ms"].iter().any(|unit| {
        t.strip_suffix(unit)
            .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok())
    });
    let sized = next.is_some_and(|unit| numbers.contains(&format!("{t} {unit}")));
    timed || sized || numbers.iter().any(|n| n == t)
}

/// The status bar's two rows of a screen, without the box.
fn bar(screen: &str) -> Vec<String> {
    screen
        .lines()
        .skip(1)
        .take(2)
        .map(|l| l.trim_matches('│').to_string())
        .collect()
}

#[test]
fn no_number_is_cut_at_any_size_or_count() {
    for (w, ht) in SIZES {
        for scale in SCALES {
            for breakdown in [false, true] {
                let mut h = Harness::sized(w, ht);
                h.send(Msg::CrawlStarted);
                h.send(Msg::Snapshot(store(scale)));
                h.send(Msg::Engine(vec![CrawlEvent::Stats(stats(scale))]));
                if breakdown {
                    h.key(KeyCode::Char('b'));
                }
                let snapshot = store(scale);
                let numbers = whole_numbers(&stats(scale), &snapshot.totals);
                let case = format!("{w}x{ht} ×{scale} breakdown {breakdown}");
                let rows = bar(&h.screen(w, ht));
                for row in &rows {
                    let words: Vec<&str> = row
                        .split(|c: char| c.is_whitespace() || "()·".contains(c))
                        .filter(|t| !t.is_empty())
                        .collect();
                    for (i, token) in words.iter().enumerate() {
                        if token.chars().any(|c| c.is_ascii_digit()) {
                            let next = words.get(i + 1).copied();
                            assert!(
                                whole(token, next, &numbers),
                                "{case}: {token:?} is cut in\n{}",
                                rows.join("\n")
                            );
                        }
                    }
                }
                assert!(
                    rows[0].contains("fetched ") && rows[0].contains("errors "),
                    "{case}: the first figures stay\n{}",
                    rows.join("\n")
                );
                if !breakdown {
                    assert!(
                        rows[1].contains("all runs: done "),
                        "{case}: the store's totals say whose they are\n{}",
                        rows.join("\n")
                    );
                }
            }
        }
    }
}

#[test]
fn a_number_that_fits_is_shown_in_full() {
    let mut h = Harness::sized(160, 45);
    h.send(Msg::CrawlStarted);
    h.send(Msg::Snapshot(store(1)));
    h.send(Msg::Engine(vec![CrawlEvent::Stats(CrawlStats {
        fetched: 22_800,
        ..stats(1)
    })]));
    let rows = bar(&h.screen(160, 45));
    assert!(rows[0].contains("fetched 22,800 "), "{}", rows.join("\n"));
    assert!(rows[1].contains("queue 9,876 "), "{}", rows.join("\n"));
}

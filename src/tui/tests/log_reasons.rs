//! The Log pane gives a failed row its reason after the URL: the server's
//! own phrase for an HTTP failure, the failure's name when nothing
//! answered; when the pane is narrow the reason is cut by whole words,
//! never in the middle of one.

use super::*;

const CUSTOM: &str = "Custom Broken Thing";
const LOOP: &str = "redirect loop (301 to http://127.0.0.1:8080/loop-start)";

fn failed_rows() -> Harness {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    let mut custom = fetched(20, "/custom/broken/thing", 599, "Broken", 1);
    if let CrawlEvent::Fetched(f) = &mut custom {
        f.reason = Some(CUSTOM.into());
    }
    h.send(Msg::Engine(vec![
        custom,
        CrawlEvent::Failed {
            page: 21,
            url: url("/loop-start"),
            reason: LOOP.into(),
        },
    ]));
    h
}

/// The reason shown on the row of `path`: from its first word on.
fn shown_reason<'s>(screen: &'s str, path: &str, reason: &str) -> &'s str {
    let row = screen
        .lines()
        .find(|l| l.contains(path))
        .unwrap_or_else(|| panic!("no row for {path} in\n{screen}"));
    let first = reason.split(' ').next().unwrap_or_default();
    let at = row
        .find(&format!("  {first}"))
        .unwrap_or_else(|| panic!("{path}'s row has no {first:?}: {row:?}"));
    row[at + 2..].trim_end_matches(['│', ' '])
}

/// `shown` is `reason` whole, or its first words (one at least) then `…`.
fn whole_words(shown: &str, reason: &str) -> bool {
    match shown.strip_suffix('…') {
        None => shown == reason,
        Some(kept) => reason.starts_with(kept) && reason[kept.len()..].starts_with(' '),
    }
}

#[test]
fn the_reason_follows_the_url_whole_when_wide_and_by_whole_words_when_narrow() {
    let mut h = failed_rows();
    let wide = h.screen(160, 40);
    assert_eq!(shown_reason(&wide, "/custom/broken/thing", CUSTOM), CUSTOM);
    let wide_loop = shown_reason(&wide, "oop-start", LOOP);
    assert!(whole_words(wide_loop, LOOP), "{wide_loop:?} cuts {LOOP:?}");
    assert!(wide_loop.starts_with("redirect loop (301 to"), "{wide}");

    h.send(Msg::Resize(80, 24));
    let narrow = h.screen(80, 24);
    for (path, reason) in [("thing", CUSTOM), ("oop-start", LOOP)] {
        let shown = shown_reason(&narrow, path, reason);
        assert!(whole_words(shown, reason), "{shown:?} cuts {reason:?}");
    }
}

//! Every label the status bar can show is a log filter that finds exactly
//! the rows its figure counts: the run's figures against the live log,
//! the store's totals against the log's search of the whole store. The
//! labels come from the status bar's own list, so a new figure cannot be
//! left without its filter.

use super::real_crawl::crawl_demo_with;
use super::*;
use crate::tui::jobs;
use crate::tui::labels::{Label, STORE};

/// A run with some of every outcome, each kind a different number of
/// times, so a filter finding the wrong kind finds the wrong count.
fn every_outcome() -> Vec<CrawlEvent> {
    let mut events = Vec::new();
    let mut page = 0;
    let mut next = || {
        page += 1;
        page
    };
    for (status, times) in [(200, 5), (404, 3), (410, 1), (500, 2), (503, 1)] {
        for _ in 0..times {
            let p = next();
            events.push(fetched(p, &format!("/f/{p}"), status, "A page", 1));
        }
    }
    for _ in 0..4 {
        let p = next();
        events.push(CrawlEvent::Failed {
            page: p,
            url: url(&format!("/x/{p}")),
            reason: "connection refused".into(),
        });
    }
    for (n, reason) in crate::tui::labels::SKIP_REASONS.into_iter().enumerate() {
        for _ in 0..=n {
            let p = next();
            events.push(CrawlEvent::Skipped {
                page: p,
                url: url(&format!("/s/{p}")),
                reason,
            });
        }
    }
    for _ in 0..2 {
        let p = next();
        events.push(CrawlEvent::NotModified {
            page: p,
            url: url(&format!("/n/{p}")),
        });
    }
    let p = next();
    events.push(CrawlEvent::Unchanged {
        page: p,
        url: url(&format!("/u/{p}")),
    });
    for status in [301, 302, 308] {
        let p = next();
        events.push(CrawlEvent::Redirected {
            page: p,
            url: url(&format!("/r/{p}")),
            to: url("/f/1"),
            status,
        });
    }
    for origin in ["http://slow.test", "http://busy.test"] {
        events.push(CrawlEvent::OriginThrottled {
            origin: origin.into(),
            status: 429,
            wait: Duration::from_secs(1),
        });
    }
    events
}

fn filter(h: &mut Harness, text: &str) {
    h.key(KeyCode::Char('f'));
    while !h.app.log().filter().is_empty() {
        h.key(KeyCode::Backspace);
    }
    h.typing(text);
    h.key(KeyCode::Esc);
}

#[test]
fn every_run_label_filters_the_log_to_the_rows_it_counts() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    h.send(Msg::Engine(every_outcome()));
    h.key(KeyCode::Char('3'));
    for label in Label::all() {
        let figure = h.app.status().run_figure(label);
        assert!(figure > 0, "{label:?}: the run has some");
        for typed in [label.text().to_string(), label.text().to_uppercase()] {
            filter(&mut h, &typed);
            assert_eq!(h.app.log().shown() as u64, figure, "{typed:?}");
        }
    }
    // Reason phrases are words of the log too.
    filter(&mut h, "Not Found");
    assert_eq!(h.app.log().shown(), 3);
    filter(&mut h, "service unavailable");
    assert_eq!(h.app.log().shown(), 1);
}

#[tokio::test]
async fn every_store_label_filters_the_store_to_the_urls_it_counts() {
    // Robots ignored: its private pages answer 404, so there are errors.
    let c = crawl_demo_with(12, true).await;
    let mut h = Harness::new();
    h.send(Msg::Snapshot(
        jobs::snapshot(&c.store).expect("store snapshot"),
    ));
    for label in STORE {
        let figure = h.app.status().store_figure(label).expect("a store figure");
        assert!(figure > 0, "{label:?}: the store has some");
        let terms: Vec<String> = label.text().split(' ').map(str::to_string).collect();
        let found = jobs::log_matches(&c.store, &terms).expect("store");
        assert_eq!(found.len() as u64, figure, "{label:?}");
    }
}

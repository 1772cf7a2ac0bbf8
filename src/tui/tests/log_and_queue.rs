//! The log and queue panes: the filter box takes the keys, status
//! filters match statuses (never digits in a URL), the log scrolls and
//! follows again, origin and sitemap notices keep their reasons, `b`
//! counts this run's answers by status class, and in flight is what the
//! queue lists.

use super::*;

#[test]
fn filter_box_takes_the_keys() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    h.key(KeyCode::Char('f'));
    assert!(h.app.log().editing());
    // Letters that are global keys elsewhere go into the box.
    h.typing("qs1p");
    assert_eq!(h.app.focus(), PaneId::Log);
    assert_eq!(h.app.modal(), None);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Backspace);
    h.typing("failed");
    h.key(KeyCode::Enter);
    assert!(!h.app.log().editing());
    assert_eq!(h.app.log().filter(), "failed");
    assert_eq!(h.app.log().shown(), 1);
    h.key(KeyCode::Char('f'));
    h.ctrl('u');
    h.key(KeyCode::Esc);
    assert_eq!(h.app.log().shown(), 7);
}

#[test]
fn log_scrolls_and_follows_again() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    assert!(h.app.log().following());
    h.key(KeyCode::Up);
    h.key(KeyCode::Up);
    assert!(!h.app.log().following());
    h.send(Msg::Engine(vec![fetched(9, "/late/", 200, "Late", 2)]));
    assert!(
        !h.app.log().following(),
        "new lines must not yank a scrolled log"
    );
    h.key(KeyCode::End);
    assert!(h.app.log().following());
    let cmd = h.key(KeyCode::Enter);
    assert!(
        matches!(cmd, Some(Command::LoadPage { page: 9, .. })),
        "{cmd:?}"
    );
}

#[test]
fn origin_and_sitemap_notices_show_in_the_log_with_their_reasons() {
    let mut h = crawling();
    h.key(KeyCode::Char('3'));
    h.send(Msg::Engine(vec![
        CrawlEvent::Sitemap {
            url: url("/sitemap.xml"),
            result: Ok(12),
        },
        CrawlEvent::Sitemap {
            url: url("/gone.xml"),
            result: Err("404 Not Found".into()),
        },
        CrawlEvent::OriginThrottled {
            origin: SITE.into(),
            status: 429,
            wait: Duration::from_secs(30),
        },
        CrawlEvent::OriginUnreachable {
            origin: "http://dead.test:80".into(),
            reason: "connection refused".into(),
        },
    ]));
    let screen = h.screen(160, 40);
    for shown in [
        "sitemap   ",
        "sitemap.xml  12 URLs",
        "gone.xml  404 Not Found",
        "429 Too Many Requests; nothing sent to it for 30s",
        "dead.test:80  connection refused; its queued URLs are",
    ] {
        assert!(screen.contains(shown), "{shown:?} not in\n{screen}");
    }
    // A notice names no page: Enter on it opens nothing.
    let cmd = h.key(KeyCode::Enter);
    assert!(cmd.is_none(), "{cmd:?}");
    h.key(KeyCode::Char('f'));
    h.typing("origin refused");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.log().shown(), 1);
}

#[test]
fn status_filters_match_the_status_never_a_url() {
    let mut h = crawling();
    h.send(Msg::Engine(vec![fetched(
        40,
        "/docs/404.html",
        200,
        "How to write a 404 page",
        1,
    )]));
    let shown = |h: &mut Harness, filter: &str| {
        h.key(KeyCode::Char('3'));
        h.key(KeyCode::Char('f'));
        // Clear what an earlier filter left.
        for _ in 0..10 {
            h.key(KeyCode::Backspace);
        }
        h.typing(filter);
        h.key(KeyCode::Esc);
        h.app.log().shown()
    };
    assert_eq!(shown(&mut h, "404"), 1, "only the page that answered 404");
    assert_eq!(shown(&mut h, "3xx"), 2, "the 301 redirect and the 304");
    assert_eq!(shown(&mut h, "301"), 1);
    assert_eq!(shown(&mut h, "docs/404"), 1, "words still search URLs");
}

#[test]
fn b_shows_this_runs_answers_by_status_class() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    h.send(Msg::Engine(vec![
        fetched(1, "/a", 200, "A", 1),
        fetched(2, "/b", 404, "B", 1),
        fetched(3, "/c", 503, "C", 1),
        CrawlEvent::Redirected {
            page: 4,
            url: url("/d"),
            to: url("/a"),
            status: 301,
        },
        CrawlEvent::NotModified {
            page: 5,
            url: url("/e"),
        },
        CrawlEvent::Failed {
            page: 6,
            url: url("/f"),
            reason: "connection refused".into(),
        },
    ]));
    assert!(!h.screen(160, 40).contains("by class"));
    h.key(KeyCode::Char('b'));
    let screen = h.screen(160, 40);
    assert!(
        screen.contains("this run by class: 2xx 1  3xx 2  4xx 1  5xx 1  no answer 1"),
        "{screen}"
    );
    h.key(KeyCode::Char('b'));
    assert!(h.screen(160, 40).contains("all runs: done"));
}

#[test]
fn in_flight_is_what_the_queue_pane_lists_and_the_rest_of_the_work_is_claimed() {
    let mut h = Harness::new();
    h.send(Msg::CrawlStarted);
    let started: Vec<CrawlEvent> = (0..40)
        .map(|i| CrawlEvent::Started {
            page: i,
            url: url(&format!("/p/{i}")),
        })
        .collect();
    h.send(Msg::Engine(started));
    h.send(Msg::Engine(vec![CrawlEvent::Stats(CrawlStats {
        queued: 100,
        claimed: 10,
        in_flight: 40,
        ..Default::default()
    })]));
    let screen = h.screen(120, 40);
    assert!(screen.contains("claimed 10  in flight 40 "), "{screen}");
    // Answered, not yet committed: claimed until a stats tick says
    // otherwise, and the three still add up to the tick's 150.
    h.send(Msg::Engine(
        (0..37).map(|page| CrawlEvent::Answered { page }).collect(),
    ));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("queue 100  claimed 47  in flight 3 "),
        "{screen}"
    );
    assert!(screen.contains("In flight (3)"), "{screen}");
}

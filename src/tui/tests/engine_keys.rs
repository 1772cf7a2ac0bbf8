//! Keys that move the focus and drive the engine: focus by tab, digit
//! and click, quitting (asked only while a crawl runs), pause, resume,
//! stop and start, points added and toggled mid-crawl, the ticks that ask
//! for store snapshots, the runtime on a test backend, and a crawl that
//! ends on its own.

use super::*;

#[test]
fn tab_and_digits_move_the_focus() {
    let mut h = Harness::cluster();
    let start = h.app.focus();
    let mut seen = vec![start];
    for _ in 1..PaneId::ALL.len() {
        h.key(KeyCode::Tab);
        seen.push(h.app.focus());
    }
    for p in PaneId::ALL {
        assert!(seen.contains(&p), "{p:?} never focused");
    }
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus(), start);
    h.key(KeyCode::BackTab);
    assert_eq!(h.app.focus(), start.prev());
    for (i, p) in PaneId::ALL.into_iter().enumerate() {
        h.key(KeyCode::Char(char::from(b'1' + i as u8)));
        assert_eq!(h.app.focus(), p);
    }
}

#[test]
fn quit_asks_only_while_crawling() {
    let mut idle = Harness::new();
    assert_eq!(idle.key(KeyCode::Char('q')), Some(Command::Quit));

    let mut h = crawling();
    assert_eq!(h.key(KeyCode::Char('q')), None);
    assert_eq!(h.key(KeyCode::Char('n')), None);
    assert_eq!(h.app.modal(), None);
    assert_eq!(h.ctrl('c'), None);
    assert_eq!(h.app.modal(), Some(Modal::ConfirmQuit));
    assert_eq!(h.key(KeyCode::Char('y')), Some(Command::Quit));
}

#[test]
fn pause_resume_and_stop_go_to_the_engine() {
    let mut h = crawling();
    assert_eq!(
        h.key(KeyCode::Char('p')),
        Some(Command::Engine(CrawlCommand::Pause))
    );
    h.send(Msg::Engine(vec![CrawlEvent::Paused]));
    assert_eq!(h.app.run_state(), RunState::Paused);
    assert_eq!(
        h.key(KeyCode::Char('p')),
        Some(Command::Engine(CrawlCommand::Resume))
    );
    h.send(Msg::Engine(vec![CrawlEvent::Resumed]));
    assert_eq!(
        h.key(KeyCode::Char('s')),
        Some(Command::Engine(CrawlCommand::Stop))
    );
    assert_eq!(h.app.run_state(), RunState::Stopping);
    h.send(Msg::Engine(vec![CrawlEvent::Finished(Summary::default())]));
    h.send(Msg::CrawlEnded(Ok(())));
    // Stopped by the user, not finished: the queue is still there.
    assert_eq!(h.app.run_state(), RunState::Stopped);
    assert_eq!(h.key(KeyCode::Char('p')), None);
    assert_eq!(h.key(KeyCode::Char('q')), Some(Command::Quit));
}

#[test]
fn crawl_key_starts_the_active_points() {
    let mut h = Harness::new();
    assert_eq!(h.key(KeyCode::Char('c')), Some(Command::StartCrawl(vec![])));
    h.send(Msg::Snapshot(snapshot()));
    h.key(KeyCode::Char('6'));
    assert_eq!(
        h.key(KeyCode::Char('c')),
        Some(Command::StartCrawl(vec![1]))
    );
    let mut busy = crawling();
    assert_eq!(busy.key(KeyCode::Char('c')), None);
}

#[test]
fn adding_a_point_while_crawling_goes_to_the_engine() {
    let mut h = crawling();
    h.key(KeyCode::Char('a'));
    h.typing("http://127.0.0.1:9090/");
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::Engine(CrawlCommand::AddPoint(rec))) = cmd else {
        panic!("expected AddPoint, got {cmd:?}");
    };
    assert_eq!(rec.url, "http://127.0.0.1:9090/");
    assert_eq!(rec.root, "http://127.0.0.1:9090/");
    assert!(rec.active);

    let mut idle = Harness::new();
    idle.send(Msg::Snapshot(snapshot()));
    idle.key(KeyCode::Char('a'));
    idle.typing(&url("/"));
    idle.key(KeyCode::Enter);
    let error = idle.form_error();
    assert_eq!(
        error.as_deref(),
        Some("URL: already crawl point 1 (edit that one)")
    );
    idle.key(KeyCode::Esc);
    idle.key(KeyCode::Char('a'));
    idle.typing("https://example.com/docs/");
    idle.key(KeyCode::Tab);
    idle.typing("ftp://example.com/");
    idle.key(KeyCode::Enter);
    let error = idle.form_error();
    assert_eq!(
        error.as_deref(),
        Some("Root prefix: must start with http:// or https://")
    );
    idle.ctrl('u');
    idle.key(KeyCode::Tab);
    idle.typing("2");
    let cmd = idle.key(KeyCode::Enter);
    let Some(Command::SavePoint { id: None, rec }) = cmd else {
        panic!("expected SavePoint, got {cmd:?}");
    };
    assert_eq!(rec.root, "https://example.com/");
    assert_eq!(rec.depth, Some(2));
}

#[test]
fn point_keys_toggle_and_delete() {
    let mut h = Harness::new();
    h.send(Msg::Snapshot(snapshot()));
    h.key(KeyCode::Char('6'));
    assert_eq!(
        h.key(KeyCode::Char(' ')),
        Some(Command::SetActive(1, false))
    );
    assert_eq!(h.key(KeyCode::Char('d')), None);
    assert_eq!(h.key(KeyCode::Char('n')), None);
    assert_eq!(h.key(KeyCode::Char('d')), None);
    assert_eq!(h.key(KeyCode::Char('y')), Some(Command::DeletePoint(1)));
}

#[test]
fn click_focuses_a_pane_and_selects_a_row() {
    let mut h = crawling();
    assert_eq!(h.app.focus(), PaneId::Log);
    // The queue pane sits top left, under the 4-row status bar.
    h.click(5, 6);
    assert_eq!(h.app.focus(), PaneId::Queue);
    // The explorer's tabs are on its top border: click "5 Graph".
    let screen = h.screen(120, 40);
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("5 Graph"))
        .expect("explorer tabs on screen");
    let byte = line.find("5 Graph").unwrap_or(0);
    let x = line[..byte].chars().count();
    h.click(x as u16 + 1, y as u16);
    assert_eq!(h.app.focus(), PaneId::Graph);
}

#[test]
fn ticks_ask_for_store_snapshots_and_idle_ticks_do_not_redraw() {
    let mut h = Harness::new();
    assert_eq!(h.tick(0), Some(Command::Refresh));
    assert!(h.app.take_dirty());
    // No answer yet: no second refresh.
    assert_eq!(h.tick(2000), None);
    h.send(Msg::Snapshot(Snapshot::default()));
    assert!(h.app.take_dirty());
    assert_eq!(h.tick(2000), None);
    assert!(!h.app.take_dirty(), "nothing changed: no redraw");
    assert_eq!(h.tick(3100), Some(Command::Refresh));
}

#[tokio::test]
async fn runtime_draws_and_quits_on_a_test_backend() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(crate::store::Store::open(&dir.path().join("store")).unwrap());
    let mut h = Harness::new();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut runtime = Runtime::new(store, crate::crawl::CrawlConfig::default());
    let keys = [KeyCode::Char('?'), KeyCode::Esc, KeyCode::Char('q')]
        .map(|c| Ok(Event::Key(KeyEvent::new(c, KeyModifiers::NONE))));
    runtime
        .run(
            &mut terminal,
            &mut h.app,
            futures_util::stream::iter(keys),
            vec![],
        )
        .await
        .unwrap();
    let screen = text(terminal.backend().buffer());
    assert!(screen.contains("1 Status"), "{screen}");
    assert!(runtime.take_engine().is_none());
}

/// The end of a crawl reaches the screen with no key pressed: the runtime
/// draws engine events by itself.
#[tokio::test]
async fn a_crawl_that_ends_in_failures_shows_it_ended_without_input() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(crate::store::Store::open(&dir.path().join("store")).unwrap());
    // A port nothing listens on: every fetch fails at once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = crate::url::parse_start(&format!("http://127.0.0.1:{port}/")).unwrap();
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).unwrap();
    let mut h = Harness::new();
    let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let mut runtime = Runtime::new(store, crate::crawl::CrawlConfig::default());
    // No key for three seconds, then quit (confirming, in case the console
    // still believes the crawl runs).
    let keys = futures_util::StreamExt::flat_map(
        futures_util::stream::once(tokio::time::sleep(Duration::from_secs(3))),
        |()| {
            futures_util::stream::iter(
                [KeyCode::Char('q'), KeyCode::Char('y')]
                    .map(|c| Ok(Event::Key(KeyEvent::new(c, KeyModifiers::NONE)))),
            )
        },
    );
    tokio::time::timeout(
        Duration::from_secs(30),
        runtime.run(&mut terminal, &mut h.app, Box::pin(keys), vec![point]),
    )
    .await
    .expect("the console quits")
    .unwrap();
    let screen = text(terminal.backend().buffer());
    let status = screen.lines().nth(1).unwrap_or_default();
    assert!(status.contains("finished"), "{screen}");
    assert!(status.contains("errors 1"), "{screen}");
}

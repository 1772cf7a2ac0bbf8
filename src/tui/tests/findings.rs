//! The findings pane: counts and rows fed in as the jobs' messages and
//! drawn, the commands its keys and the clock ask for, and a real crawl
//! of the demo site with a 404 link counted, listed, opened and exported
//! by the console's own jobs.

use super::real_crawl::crawl_demo_with;
use super::*;
use crate::tui::findings_jobs::{self, Counts, ExternalChecked, FindingRow, Listed};
use crate::tui::jobs;
use futures_util::StreamExt;

/// Every command in `cmd`, batches opened.
fn commands(cmd: Option<Command>) -> Vec<Command> {
    let mut out = Vec::new();
    let mut todo: Vec<Command> = cmd.into_iter().collect();
    while let Some(c) = todo.pop() {
        match c {
            Command::Batch(v) => todo.extend(v),
            c => out.push(c),
        }
    }
    out
}

fn asks_count(cmd: Option<Command>) -> bool {
    commands(cmd).contains(&Command::CountFindings)
}

fn counts() -> Counts {
    Counts {
        kinds: vec![
            ("broken", 2),
            ("canonicals", 0),
            ("descriptions", 14),
            ("directives", 1),
            ("duplicates", 3),
            ("external", 0),
            ("headings", 1_204),
            ("redirects", 5),
            ("titles", 9),
        ],
        external: ExternalChecked::No,
        as_of: Some("as of run 3".into()),
    }
}

fn broken_rows() -> Listed {
    Listed {
        kind: "broken",
        rows: vec![
            FindingRow {
                page: 41,
                url: url("/gone.html"),
                issue: "status: 404 · reason: 404 Not Found · linked from: 3".into(),
            },
            FindingRow {
                page: 57,
                url: url("/docs/offline"),
                issue: "reason: connection refused · linked from: 1".into(),
            },
        ],
        total: 2,
    }
}

/// The console at 80×24 with the findings pane shown and counted.
fn counted() -> Harness {
    let mut h = Harness::sized(80, 24);
    h.key(KeyCode::Char('7'));
    assert_eq!(h.app.focus(), PaneId::Findings);
    assert!(asks_count(h.tick(0)), "the pane shown asks for a count");
    h.send(Msg::FindingCounts(Ok(counts())));
    h
}

/// `counted`, then the broken links listed.
fn listed() -> Harness {
    let mut h = counted();
    let Some(Command::ListFindings { seq, kind }) = h.key(KeyCode::Enter) else {
        panic!("Enter on a kind asks for its rows");
    };
    assert_eq!(kind, "broken");
    h.send(Msg::FindingRows {
        seq,
        result: Ok(broken_rows()),
    });
    h
}

#[test]
fn findings_counts_per_kind() {
    let h = counted();
    insta::assert_snapshot!(h.screen(80, 24));
}

#[test]
fn findings_rows_of_a_kind() {
    let h = listed();
    insta::assert_snapshot!(h.screen(80, 24));
}

#[test]
fn enter_on_a_row_opens_its_page_in_the_graph() {
    let mut h = listed();
    h.key(KeyCode::Down);
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::LoadPage { page, .. }) = cmd else {
        panic!("Enter on a row loads its page, got {cmd:?}");
    };
    assert_eq!(page, 57);
    assert_eq!(h.app.focus(), PaneId::Graph);
}

#[test]
fn esc_goes_back_to_the_kinds_and_x_exports_the_selected_kind() {
    let mut h = listed();
    assert_eq!(
        h.key(KeyCode::Char('x')),
        Some(Command::ExportFindings("broken"))
    );
    h.key(KeyCode::Esc);
    assert!(h.screen(80, 24).contains("headings     1,204"));
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert_eq!(
        h.key(KeyCode::Char('x')),
        Some(Command::ExportFindings("descriptions"))
    );
    // Rows asked for before going back are dropped when they come.
    let Some(Command::ListFindings { seq, .. }) = h.key(KeyCode::Enter) else {
        panic!("Enter lists");
    };
    h.key(KeyCode::Backspace);
    h.send(Msg::FindingRows {
        seq,
        result: Ok(broken_rows()),
    });
    assert!(h.screen(80, 24).contains("headings     1,204"));
}

#[test]
fn counts_are_read_at_most_every_two_seconds_and_a_twentieth_of_the_time() {
    let mut h = Harness::sized(80, 24);
    h.send(Msg::CrawlStarted);
    // Not shown: nothing is counted.
    assert!(!asks_count(h.tick(0)));
    h.key(KeyCode::Char('7'));
    assert!(asks_count(h.tick(100)));
    h.send(Msg::Engine(vec![fetched(1, "/", 200, "Home", 0)]));
    // At most every two seconds.
    assert!(!asks_count(h.tick(200)));
    h.send(Msg::FindingCounts(Ok(counts())));
    assert!(!asks_count(h.tick(1_000)));
    assert!(asks_count(h.tick(2_100)));
    h.send(Msg::Engine(vec![fetched(2, "/a", 200, "A", 1)]));
    // One count at a time, however long it takes...
    assert!(!asks_count(h.tick(4_200)));
    h.send(Msg::FindingCounts(Ok(counts())));
    // ...and one that took 2.1 s waits 19 times that: a large store is
    // recounted at most a twentieth of the time while a crawl writes.
    assert!(!asks_count(h.tick(44_000)));
    assert!(asks_count(h.tick(44_200)));
    h.send(Msg::FindingCounts(Ok(counts())));
    // Nothing changed since: no count.
    assert!(!asks_count(h.tick(48_000)));
    h.send(Msg::Engine(vec![fetched(3, "/b", 200, "B", 1)]));
    assert!(asks_count(h.tick(48_100)));
    assert!(!asks_count(h.tick(52_000)));
    h.send(Msg::FindingCounts(Ok(counts())));
    // The crawl's end is counted once, however long the last count took.
    h.send(Msg::CrawlEnded(Ok(())));
    assert!(asks_count(h.tick(52_100)));
    h.send(Msg::FindingCounts(Ok(counts())));
    assert!(!asks_count(h.tick(55_000)));
}

/// The demo site's one page, robots.txt ignored: its link to
/// `/private/0.html` answers 404, the one broken link of the crawl.
#[tokio::test]
async fn a_real_crawl_with_a_404_link_counts_lists_opens_and_exports_it() {
    let c = crawl_demo_with(1, true).await;
    let mut h = counted();
    h.send(Msg::FindingCounts(findings_jobs::counts(&c.store)));
    let screen = h.screen(80, 24);
    // The pane's frame names the run it counts.
    let frame = (screen.lines())
        .find(|l| l.contains("7 Findings"))
        .unwrap_or_default();
    assert!(frame.ends_with(" as of run 1 ┐"), "{screen}");
    let broken = screen
        .lines()
        .find(|l| l.contains("broken"))
        .unwrap_or_default();
    assert!(
        broken.split_whitespace().any(|w| w == "1"),
        "broken 1: {screen}"
    );
    let Some(Command::ListFindings { seq, kind }) = h.key(KeyCode::Enter) else {
        panic!("Enter lists");
    };
    let listed = findings_jobs::list(&c.store, kind);
    h.send(Msg::FindingRows {
        seq,
        result: listed.clone(),
    });
    let listed = listed.expect("broken rows");
    assert_eq!(listed.rows.len(), 1, "{listed:?}");
    assert!(
        listed.rows[0].url.ends_with("/private/0.html"),
        "{listed:?}"
    );
    assert!(listed.rows[0].issue.contains("404"), "{listed:?}");
    let Some(Command::LoadPage { page, .. }) = h.key(KeyCode::Enter) else {
        panic!("Enter opens the row");
    };
    let view = jobs::page_view(&c.store, page).expect("the broken target's page");
    assert_eq!(view.url, listed.rows[0].url);
    assert_eq!(view.parents.len(), 1, "the page linking to it");

    let dir = tempfile::tempdir().expect("temp dir");
    let note = findings_jobs::export(&c.store, "broken", dir.path()).expect("export");
    let path = dir.path().join("crawlscope-findings-broken.csv");
    assert!(note.contains(&path.display().to_string()), "{note}");
    let csv = std::fs::read_to_string(&path).expect("the CSV");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "url,status,reason,sources,anchors,source_count,element,via"
    );
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(lines[1].contains("/private/0.html,404,"), "{csv}");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 1, "no part file left: {names:?}");

    // The audit kinds are counted and listed too: the 404 is a page that
    // may not be indexed, and its row opens the same page.
    let counts = findings_jobs::counts(&c.store).expect("counts");
    let kinds: Vec<&str> = counts.kinds.iter().map(|(k, _)| *k).collect();
    assert!(
        kinds.contains(&"indexability") && kinds.contains(&"sitemaps"),
        "{kinds:?}"
    );
    let rows = findings_jobs::list(&c.store, "indexability").expect("indexability rows");
    let row = (rows.rows.iter())
        .find(|r| r.url == listed.rows[0].url)
        .expect("the 404 is not indexable");
    assert_eq!(
        (row.page, row.issue.as_str()),
        (page, "indexability: non_200")
    );
}

/// A test terminal that publishes its screen as text on every flush, so a
/// test can wait for what the console shows rather than for a time.
struct Watched {
    inner: TestBackend,
    screen: tokio::sync::watch::Sender<String>,
}

impl ratatui::backend::Backend for Watched {
    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a ratatui::buffer::Cell)>,
    {
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> std::io::Result<()> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> std::io::Result<()> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> std::io::Result<ratatui::layout::Position> {
        self.inner.get_cursor_position()
    }
    fn set_cursor_position<P: Into<ratatui::layout::Position>>(
        &mut self,
        position: P,
    ) -> std::io::Result<()> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> std::io::Result<()> {
        self.inner.clear()
    }
    fn size(&self) -> std::io::Result<ratatui::layout::Size> {
        self.inner.size()
    }
    fn window_size(&mut self) -> std::io::Result<ratatui::backend::WindowSize> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()?;
        self.screen.send_replace(text(self.inner.buffer()));
        Ok(())
    }
}

/// The whole console on a real crawl: `7` shows the pane, the runtime
/// runs the count as a job and the answer reaches the screen.
#[tokio::test]
async fn the_console_counts_a_real_crawls_broken_link_through_its_jobs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store =
        std::sync::Arc::new(crate::store::Store::open(&dir.path().join("store")).expect("store"));
    let (addr, server) = crate::demo::spawn(0, 1).await.expect("serve demo");
    let url = crate::url::parse_start(&format!("http://{addr}/")).expect("start URL");
    let (point, _) = crate::points::add(&store, crate::points::new_record(&url)).expect("point");
    let cfg = crate::crawl::CrawlConfig {
        ignore_robots: true,
        ..crate::crawl::CrawlConfig::default()
    };
    let (screen, mut shown) = tokio::sync::watch::channel(String::new());
    let mut terminal = Terminal::new(Watched {
        inner: TestBackend::new(80, 24),
        screen,
    })
    .expect("terminal");
    let key = |c| {
        Ok(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )))
    };
    // `7`, then, once the pane shows one broken link, quit (confirming
    // in case the crawl is still being written).
    let keys = futures_util::stream::once(async move { key('7') }).chain(
        futures_util::stream::once(async move {
            shown
                .wait_for(|s| {
                    s.lines().any(|l| {
                        l.strip_prefix("│broken ")
                            .is_some_and(|count| count.trim_start().starts_with("1 "))
                    })
                })
                .await
                .expect("the console runs");
            futures_util::stream::iter([key('q'), key('y')])
        })
        .flatten(),
    );
    let mut h = Harness::sized(80, 24);
    let mut runtime = Runtime::new(store, cfg);
    tokio::time::timeout(
        Duration::from_secs(30),
        runtime.run(&mut terminal, &mut h.app, Box::pin(keys), vec![point]),
    )
    .await
    .expect("the count reaches the screen")
    .expect("the console");
    server.abort();
}

//! Documents in the console: the Points pane lists them over the points of
//! the picked one; a document is made, renamed and deleted, and a point put
//! in one from the point form, through the app's messages, each command
//! carried out on a real store by the job the runtime runs for it and the
//! store read back. And the pane's figures are never cut, at 80x24 or
//! 160x45.

use super::*;
use crate::documents;
use crate::runs::Run;
use crate::store::{RunCounts, RunEnd, RunRecord, Store};
use crate::tui::jobs;

/// A store with documents "blog" and "guide", point 1 in guide and point
/// 2 in both, and a console on its Points pane that has read it.
fn console_on_a_store() -> (tempfile::TempDir, Store, Harness) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("store")).expect("open store");
    for name in ["guide", "blog"] {
        documents::add(&store, name, Vec::new()).expect("document");
    }
    for (path, docs) in [
        ("/guide/", vec!["guide"]),
        ("/blog/", vec!["blog", "guide"]),
    ] {
        let url = crate::url::parse_start(&url(path)).expect("URL");
        let rec = PointRecord {
            docs: docs.into_iter().map(str::to_string).collect(),
            ..crate::points::new_record(&url)
        };
        crate::points::add(&store, rec).expect("point");
    }
    let mut h = Harness::sized(120, 40);
    h.send(Msg::Snapshot(jobs::snapshot(&store).expect("snapshot")));
    h.key(KeyCode::Char('6'));
    (dir, store, h)
}

/// The Points pane as text.
fn drawn(h: &Harness) -> String {
    super::real_crawl::pane(h, PaneId::Points, 118, 12)
}

/// Carries out a document or point command as the runtime does, then
/// reads the store back into the console.
fn carry_out(h: &mut Harness, store: &Store, cmd: Option<Command>) {
    match cmd {
        Some(Command::SaveDoc { old, name }) => {
            jobs::save_doc(store, old, &name).expect("save document");
        }
        Some(Command::DeleteDoc(name)) => {
            documents::remove(store, &name, false).expect("delete document");
        }
        Some(Command::SavePoint { id, rec }) => {
            crate::points::save(store, id, *rec).expect("save point");
        }
        other => panic!("a store command, got {other:?}"),
    }
    h.send(Msg::Snapshot(jobs::snapshot(store).expect("snapshot")));
}

#[test]
fn the_pane_lists_documents_and_the_picked_ones_points() {
    let (_dir, _store, mut h) = console_on_a_store();
    let all = drawn(&h);
    assert!(all.contains("every point (2)"), "{all}");
    assert!(all.contains("blog (1)"), "{all}");
    assert!(all.contains("guide (2)"), "{all}");
    assert!(all.contains("/guide/") && all.contains("/blog/"), "{all}");

    // Documents come by name: blog, then guide.
    h.key(KeyCode::Right);
    assert_eq!(h.app.points().document(), Some("blog"));
    let blog = drawn(&h);
    assert!(blog.contains("/blog/"), "{blog}");
    assert!(!blog.contains("/guide/  root"), "{blog}");
    h.key(KeyCode::Right);
    assert_eq!(h.app.points().document(), Some("guide"));
    let guide = drawn(&h);
    assert!(
        guide.contains("/guide/") && guide.contains("/blog/"),
        "{guide}"
    );
    // Round again to every point.
    h.key(KeyCode::Right);
    assert_eq!(h.app.points().document(), None);
    h.key(KeyCode::Left);
    assert_eq!(h.app.points().document(), Some("guide"));
}

#[test]
fn documents_are_made_renamed_and_deleted_from_the_console() {
    let (_dir, store, mut h) = console_on_a_store();
    h.key(KeyCode::Char('n'));
    assert!(drawn(&h).contains("New document"), "{}", drawn(&h));
    // A name a document has already is refused in the box.
    h.typing("blog");
    assert_eq!(h.key(KeyCode::Enter), None);
    assert!(drawn(&h).contains("exists already"), "{}", drawn(&h));
    for _ in 0..4 {
        h.key(KeyCode::Backspace);
    }
    h.typing("news");
    let cmd = h.key(KeyCode::Enter);
    assert_eq!(
        cmd,
        Some(Command::SaveDoc {
            old: None,
            name: "news".into()
        })
    );
    carry_out(&mut h, &store, cmd);
    assert_eq!(h.app.points().document(), Some("news"));
    assert!(drawn(&h).contains("news (0)"), "{}", drawn(&h));

    // Rename the picked one: the box holds its name.
    h.key(KeyCode::Char('R'));
    assert!(drawn(&h).contains("Rename document news"), "{}", drawn(&h));
    h.typing("room");
    let cmd = h.key(KeyCode::Enter);
    assert_eq!(
        cmd,
        Some(Command::SaveDoc {
            old: Some("news".into()),
            name: "newsroom".into()
        })
    );
    carry_out(&mut h, &store, cmd);
    let names: Vec<String> = documents::list(&store.read().expect("read"))
        .expect("list")
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["blog", "guide", "newsroom"]);
    assert_eq!(h.app.points().document(), Some("newsroom"));

    // Delete asks first; a document gone, every point is listed again.
    h.key(KeyCode::Char('X'));
    assert!(
        drawn(&h).contains("Delete document newsroom?"),
        "{}",
        drawn(&h)
    );
    let cmd = h.key(KeyCode::Char('y'));
    assert_eq!(cmd, Some(Command::DeleteDoc("newsroom".into())));
    carry_out(&mut h, &store, cmd);
    assert_eq!(h.app.points().document(), None);
    assert!(!drawn(&h).contains("newsroom"), "{}", drawn(&h));
    let listed = documents::list(&store.read().expect("read")).expect("list");
    assert!(listed
        .iter()
        .any(|d| d.name == "newsroom" && d.record.deleted));
}

#[test]
fn a_point_is_put_in_a_document_from_the_point_form() {
    let (_dir, store, mut h) = console_on_a_store();
    // Point 1, in guide: its form lists guide among its documents.
    h.key(KeyCode::Char('e'));
    let form = drawn(&h);
    assert!(form.contains("Documents     guide"), "{form}");
    // Up from the URL goes round to the last field, the documents.
    h.key(KeyCode::Up);
    h.typing(", nowhere");
    assert_eq!(h.key(KeyCode::Enter), None);
    assert!(
        drawn(&h).contains("Documents: no document \"nowhere\""),
        "{}",
        drawn(&h)
    );
    for _ in 0.."nowhere".len() {
        h.key(KeyCode::Backspace);
    }
    h.typing("blog");
    let cmd = h.key(KeyCode::Enter);
    let Some(Command::SavePoint { rec, .. }) = &cmd else {
        panic!("a save, got {cmd:?}");
    };
    assert_eq!(rec.docs, ["guide", "blog"]);
    carry_out(&mut h, &store, cmd);
    let r = store.read().expect("read");
    assert_eq!(documents::points_of(&r, "blog").expect("blog"), [1, 2]);
    h.key(KeyCode::Right);
    let blog = drawn(&h);
    assert!(
        blog.contains("/guide/") && blog.contains("/blog/"),
        "{blog}"
    );
}

/// A point with a large page limit and a run with large figures.
fn large_figures() -> Snapshot {
    let mut s = snapshot();
    s.points = vec![(
        1,
        PointRecord {
            depth: Some(12),
            max_pages: Some(40_000),
            ..point("/a/very/long/start/url/that/fills/the/row/by/itself/", true)
        },
    )];
    s.runs = vec![Run {
        id: 12345,
        record: RunRecord {
            point: 1,
            gen: 1,
            started_at: UNIX,
            ended_at: Some(UNIX + 600),
            ended: RunEnd::Finished,
            crawlers: Vec::new(),
            running_ms: 0,
            ran_to_ms: 0,
            flags: Default::default(),
            counts: RunCounts {
                fetched: 22_800,
                not_modified: 1_234,
                failed: 567,
                out_of_scope: 40_000,
                ..Default::default()
            },
        },
        ended: RunEnd::Finished,
    }];
    s
}

#[test]
fn the_points_figures_are_whole_at_80x24_and_160x45() {
    for (w, h_) in [(80, 24), (160, 45)] {
        let mut h = Harness::sized(w, h_);
        h.send(Msg::Snapshot(large_figures()));
        h.key(KeyCode::Char('6'));
        let screen = h.screen(w, h_);
        let row = screen
            .lines()
            .find(|l| l.contains("/a/very/"))
            .unwrap_or_else(|| panic!("{w}x{h_}: no point row\n{screen}"));
        let words: Vec<&str> = row.split(['│', ' ']).collect();
        for figure in ["12", "40,000"] {
            assert!(words.contains(&figure), "{w}x{h_}: {figure} cut\n{screen}");
        }
        assert!(screen.contains("max"), "{w}x{h_}: heading\n{screen}");

        h.key(KeyCode::Char('r'));
        let screen = h.screen(w, h_);
        let row = screen
            .lines()
            .find(|l| l.contains("12345"))
            .unwrap_or_else(|| panic!("{w}x{h_}: no run row\n{screen}"));
        let words: Vec<&str> = row.split(['│', ' ']).collect();
        for figure in ["12345", "22800", "1234", "567", "40000"] {
            assert!(words.contains(&figure), "{w}x{h_}: {figure} cut\n{screen}");
        }
        let heading = screen
            .lines()
            .find(|l| l.contains("fetched"))
            .unwrap_or_else(|| panic!("{w}x{h_}: no heading\n{screen}"));
        assert!(heading.contains("skipped"), "{w}x{h_}\n{screen}");
    }
}

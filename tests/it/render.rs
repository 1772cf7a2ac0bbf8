//! `--render js|auto`: a script-built site crawled through a real headless
//! Chromium, against loopback servers. Needs /usr/bin/chromium: without
//! it these tests fail, unless `CRAWLSCOPE_SKIP_TOOLS` names chromium to
//! leave them out (README, "Set up and run").

use std::path::Path;
use std::process::Child;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::support::crawl::{crawl_child, crawl_ok, state, summary};
use crate::support::{assert_spaced, json_of, page, Gate, Reply, Resp, TestServer};

/// One rendering test at a time: browsers starting side by side on a
/// small host would test the host.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The turn to use the browser; None only when the user opted out of
/// the rendering tests. A missing browser fails the test: a feature that
/// cannot be tested is not passed.
fn chromium() -> Option<MutexGuard<'static, ()>> {
    if Path::new("/usr/bin/chromium").exists() {
        return Some(ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner()));
    }
    crate::support::tool_missing(
        "chromium",
        "install Debian's chromium (/usr/bin/chromium)",
        "the rendering tests",
    );
    None
}

/// A single-page app: `/` is a shell whose script writes the title, the
/// text and a menu linking `/menu-route` (linked from nowhere else), and
/// tries to fetch `other` (another origin), `/private/secret`
/// (disallowed by robots.txt) and `/excluded/x` (outside the crawl's
/// scope: the tests exclude `/excluded/`). `/menu-route` is a plain page.
fn spa(s: &TestServer, other: &TestServer) {
    crate::support::robots(s, "User-agent: *\nDisallow: /private/\n");
    s.route(
        "/",
        Reply::Respond(Resp::html(
            "<!DOCTYPE html><html><head><title>Shell</title>\
             <script src=\"/app.js\"></script></head><body><div id=\"app\"></div></body></html>",
        )),
    );
    let script = format!(
        "document.addEventListener('DOMContentLoaded', function () {{\
           document.title = 'Rendered home';\
           var app = document.getElementById('app');\
           app.innerHTML = '<nav><a href=\"/menu-route\">Menu</a></nav><p>zanzibarine scripted words</p>';\
           fetch('{}steal').catch(function () {{}});\
           fetch('/private/secret').catch(function () {{}});\
           fetch('/excluded/x').catch(function () {{}});\
         }});",
        other.base()
    );
    s.route(
        "/app.js",
        Reply::Respond(Resp::bytes("application/javascript", script.into_bytes())),
    );
    s.route(
        "/menu-route",
        Reply::Respond(page("Menu route", "reached from the rendered menu", &[])),
    );
}

#[test]
fn rendering_finds_what_a_browser_user_sees() {
    let Some(_turn) = chromium() else { return };
    // (mode, menu route found, home rendered, menu route rendered, pages rendered)
    let cases = [
        ("off", false, false, false, 0),
        ("js", true, true, true, 2),
        ("auto", true, true, false, 1),
    ];
    for (mode, found, home_rendered, menu_rendered, rendered) in cases {
        let (s, other) = (TestServer::start(), TestServer::start());
        spa(&s, &other);
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let excluded = s.url("/excluded/");
        let began = Instant::now();
        let sum = crawl_ok(
            &db,
            &[
                &s.base(),
                "--render",
                mode,
                "--exclude",
                &excluded,
                "--delay-ms",
                "150",
            ],
        );
        assert_eq!(sum["rendered"], rendered, "{mode}: {sum}");
        assert_eq!(sum["render_failed"], 0, "{mode}: {sum}");
        let menu = state(&db, &s.url("/menu-route"));
        assert_eq!(menu.as_deref() == Some("done"), found, "{mode}: {menu:?}");
        let home = json_of(&db, &["page", &s.base(), "--json"]);
        assert_eq!(home["rendered"], home_rendered, "{mode}: {home}");
        let title = if home_rendered {
            "Rendered home"
        } else {
            "Shell"
        };
        assert_eq!(home["title"], title, "{mode}");
        if found {
            let menu = json_of(&db, &["page", &s.url("/menu-route"), "--json"]);
            assert_eq!(menu["rendered"], menu_rendered, "{mode}: {menu}");
        }
        if home_rendered {
            assert_eq!(
                home["links_rendered_only"],
                serde_json::json!([s.url("/menu-route")]),
                "{mode}"
            );
            let rows = json_of(&db, &["report", "javascript", "--json"]);
            let issues: Vec<&str> = rows
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["issue"].as_str().unwrap())
                .collect();
            assert!(issues.contains(&"title_changed"), "{mode}: {rows}");
            assert!(issues.contains(&"links_added"), "{mode}: {rows}");
        }
        // The page's script asked for these; the crawl would not fetch them.
        assert_eq!(s.hits("/private/secret"), 0, "{mode}");
        assert_eq!(s.hits("/excluded/x"), 0, "{mode}");
        // The browser's own requests (the app's script) kept the
        // politeness gap to the origin, as the crawler's do.
        let arrivals: Vec<Instant> = s
            .requests()
            .iter()
            .filter(|r| r.path != "/robots.txt")
            .map(|r| r.arrived)
            .collect();
        let browser_asked = s.hits("/app.js");
        assert_eq!(browser_asked > 0, home_rendered, "{mode}");
        assert_spaced(mode, arrivals, Duration::from_millis(150), began);
        assert!(
            other.requests().is_empty(),
            "{mode}: {:?}",
            other.requests()
        );
        // The page itself was fetched once: the browser got the crawler's copy.
        assert_eq!(s.hits("/"), 1, "{mode}");
    }
}

/// The crawler's browser processes: those with its profile directory.
fn browsers_of(crawler: u32) -> Vec<u32> {
    let mark = format!("crawlscope-chromium-{crawler}-");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&mark) {
            pids.push(pid);
        }
    }
    pids
}

/// Waits up to `within` for `f` to hold.
fn eventually(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// A chain `/c0` → `/c1` → ... whose links only a script writes, a little
/// later than load (within the quiet window a page must keep to settle,
/// `render::tab::QUIET`): only a rendering crawl walks it.
fn script_chain(s: &TestServer, n: usize) {
    for i in 0..n {
        s.route(&format!("/c{i}"), Reply::Respond(chain_link(i)));
    }
}

/// `/c{i}` of [`script_chain`].
fn chain_link(i: usize) -> Resp {
    Resp::html(&format!(
        "<!DOCTYPE html><html><head><title>c{i}</title></head><body><div id=\"m\"></div>\
         <script>setTimeout(function () {{\
           document.getElementById('m').innerHTML = '<a href=\"/c{}\">next</a>';\
         }}, 50);</script></body></html>",
        i + 1
    ))
}

fn wait_until_browser(child: &mut Child) -> Vec<u32> {
    let mut browsers = Vec::new();
    let up = eventually(Duration::from_secs(60), || {
        browsers = browsers_of(child.id());
        !browsers.is_empty()
    });
    assert!(up, "the crawler started no browser");
    browsers
}

#[test]
fn rendering_survives_hangs_browser_deaths_and_a_killed_crawler() {
    let Some(_turn) = chromium() else { return };
    // A page whose script never lets the network go idle fails with a
    // reason, is read as served, and the crawl goes on and exits 0. Its
    // request is never answered (a gate never opened), so the network is
    // busy however slow the machine: a script polling on a timer leaves
    // gaps that a starved renderer can stretch past the quiet window.
    let s = TestServer::start();
    s.route(
        "/",
        Reply::Respond(Resp::html(
            "<html><head><title>Busy</title></head><body><a href=\"/after\">after</a>\
             <script>fetch('/poll', {cache: 'no-store'});</script>\
             </body></html>",
        )),
    );
    s.route("/poll", Reply::Held(Gate::default(), Resp::text("never")));
    s.route(
        "/after",
        Reply::Respond(page("After", "after the busy page", &[])),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("busy");
    let sum = crawl_ok(
        &db,
        &[&s.base(), "--render", "js", "--render-wait-ms", "1500"],
    );
    let after = json_of(&db, &["page", &s.url("/after"), "--json"]);
    assert_eq!(sum["render_failed"], 1, "{sum} {after}");
    let busy = json_of(&db, &["page", &s.base(), "--json"]);
    assert_eq!(busy["rendered"], false, "{busy}");
    let why = busy["render_error"].as_str().unwrap_or_default();
    assert!(why.starts_with("timeout"), "{busy}");
    assert_eq!(busy["title"], "Busy");
    assert_eq!(state(&db, &s.url("/after")).as_deref(), Some("done"));

    // The browser killed mid-crawl is started again: the chain, whose
    // links only rendering finds, is walked to its end. `/c3` is held
    // until the browser is gone: the browser has rendered the pages that
    // linked to it, and the crawl cannot end before the kill.
    let s = TestServer::start();
    script_chain(&s, 6);
    let c3 = Gate::default();
    s.route("/c3", Reply::Held(c3.clone(), chain_link(3)));
    s.route("/c6", Reply::Respond(page("End", "the end", &[])));
    let db = dir.path().join("chain");
    let mut child = crawl_child(&db, &[&s.url("/c0"), "--render", "js"]);
    let first = wait_until_browser(&mut child);
    let asked = eventually(Duration::from_secs(60), || s.hits("/c3") > 0);
    assert!(asked, "rendering never found /c3");
    for pid in &first {
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    c3.open();
    let out = child.wait_with_output().unwrap();
    let sum = summary(&out);
    assert_eq!(state(&db, &s.url("/c6")).as_deref(), Some("done"), "{sum}");

    // SIGKILL of the crawler leaves no browser process behind.
    let s = TestServer::start();
    script_chain(&s, 40);
    let db = dir.path().join("killed");
    let mut child = crawl_child(&db, &[&s.url("/c0"), "--render", "js"]);
    wait_until_browser(&mut child);
    let crawler = child.id();
    child.kill().unwrap();
    child.wait().unwrap();
    // A guard only: how soon the kernel reaps them is the machine's pace.
    let gone = eventually(Duration::from_secs(30), || browsers_of(crawler).is_empty());
    assert!(gone, "left behind: {:?}", browsers_of(crawler));
}

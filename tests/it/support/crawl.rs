//! Running the real binary's `crawl` against a test server and reading the
//! store it leaves behind.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crawlscope::demo::DemoSite;
use crawlscope::store::prelude::*;
use crawlscope::store::{PageRecord, Store};
use crawlscope::url::Url;

use super::{Reply, Resp, TestServer};

/// `crawlscope --db DB crawl --json ARGS...`; panics with stderr unless it
/// exits 0, returns the summary JSON.
pub fn crawl_ok(db: &Path, args: &[&str]) -> serde_json::Value {
    summary(&crawl(db, args))
}

/// The summary JSON of a finished `crawl --json`; panics with its stderr
/// unless it exited 0.
pub fn summary(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "crawl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "summary is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

pub fn crawl(db: &Path, args: &[&str]) -> Output {
    crawl_command(db, args).output().expect("run crawlscope")
}

/// `crawlscope --db DB crawl --json ARGS...`, not started yet.
pub fn crawl_command(db: &Path, args: &[&str]) -> Command {
    let mut c = super::crawlscope();
    c.arg("--db").arg(db).args(["crawl", "--json"]).args(args);
    c
}

/// `crawl --json ARGS...` started in the background, output piped.
pub fn crawl_child(db: &Path, args: &[&str]) -> Child {
    crawl_command(db, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a crawler")
}

/// A crawl child's stderr line by line as it writes it, read to its end
/// on a thread of its own (the crawl must never write to a closed pipe).
pub fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let err = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            // Once the test stops listening the pipe is still drained.
            let _ = tx.send(line);
        }
    });
    rx
}

/// Waits, within a minute (a guard against a hang only), for the crawl
/// to say a line holding `part`: the event the line reports has happened.
pub fn wait_for_line(lines: &mpsc::Receiver<String>, part: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(part) => return,
            Ok(_) => {}
            Err(_) => panic!("the crawl never said {part:?}"),
        }
    }
}

/// Polls the store (the child writes it) until `n` pages are done, within a
/// minute.
pub fn wait_for_done(db: &Path, child: &mut Child, n: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while done_count(db) < n {
        if let Some(status) = child.try_wait().unwrap() {
            let mut said = String::new();
            if let Some(mut err) = child.stderr.take() {
                std::io::Read::read_to_string(&mut err, &mut said).unwrap();
            }
            panic!("the crawler ended ({status}) before {n} pages were done: {said}");
        }
        assert!(Instant::now() < deadline, "the crawl made no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls until the crawler at `db` claims `url`, within a minute.
pub fn wait_for_claim(db: &Path, child: &mut Child, url: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while state(db, url).as_deref() != Some("claimed") {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the crawler ended before claiming {url}"
        );
        assert!(Instant::now() < deadline, "{url} was never claimed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Pages done in the store, which a crawler in another process may be writing.
pub fn done_count(db: &Path) -> u64 {
    store(db).read().unwrap().state_counts().unwrap().done
}

/// The store the binary left, opened in this process.
pub fn store(db: &Path) -> Store {
    Store::open(db).expect("open the crawled store")
}

/// The state label of a URL (`done`, `skipped:robots`...), None if never seen.
pub fn state(db: &Path, url: &str) -> Option<String> {
    let s = store(db);
    let r = s.read().unwrap();
    let id = r.page_id(&Url::parse(url).unwrap()).unwrap()?;
    r.url_state(id).unwrap().map(|st| st.label())
}

pub fn stored_page(db: &Path, url: &str) -> Option<PageRecord> {
    let s = store(db);
    let r = s.read().unwrap();
    let id = r.page_id(&Url::parse(url).unwrap()).unwrap()?;
    r.page(id).unwrap()
}

/// URLs of the pages a stem occurs in.
pub fn pages_with(db: &Path, stem: &str) -> Vec<String> {
    let s = store(db);
    let r = s.read().unwrap();
    let Some(w) = r.word_id(stem).unwrap() else {
        return vec![];
    };
    let mut urls: Vec<String> = r
        .postings_tf(w)
        .unwrap()
        .into_iter()
        .map(|(p, _)| r.url_of(p).unwrap().unwrap())
        .collect();
    urls.sort();
    urls
}

/// Children URLs of a page, in link order.
pub fn children(db: &Path, url: &str) -> Vec<String> {
    let s = store(db);
    let r = s.read().unwrap();
    let id = r.page_id(&Url::parse(url).unwrap()).unwrap().unwrap();
    r.children(id)
        .unwrap()
        .into_iter()
        .map(|c| r.url_of(c).unwrap().unwrap())
        .collect()
}

/// Asserts the store's invariants hold.
pub fn assert_whole(db: &Path) {
    let s = store(db);
    let r = s.read().unwrap();
    let problems = r.check(&|_| false).unwrap();
    assert!(problems.is_empty(), "store not whole: {problems:#?}");
}

/// `crawlscope serve-demo` as a child process; killed on drop. `.1` is its base URL.
pub struct Demo(pub std::process::Child, pub String);

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn serve_demo(pages: u32) -> Demo {
    use std::io::BufRead;
    let mut child = super::crawlscope()
        .args(["serve-demo", "--pages", &pages.to_string()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start serve-demo");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("piped stdout");
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the base URL");
    assert!(
        line.starts_with("http://127.0.0.1:"),
        "serve-demo printed {line:?}"
    );
    Demo(child, line.trim().to_string())
}

/// The demo site served by the recording test server (not by `serve-demo`),
/// so that every request is counted per path.
pub fn serve_site(site: &DemoSite) -> TestServer {
    let s = TestServer::start();
    let mut paths: Vec<String> = (0..site.pages()).map(|n| site.path_of(n)).collect();
    paths.extend(site.file_paths());
    paths.push("/robots.txt".into());
    for p in paths {
        if let Some(r) = site.render(&p) {
            s.route(
                &p,
                Reply::Respond(Resp::bytes(r.content_type, r.body.to_vec())),
            );
        }
    }
    s
}

/// What a finished crawl of `site` holds: every page and every file it links.
pub fn documents(site: &DemoSite) -> u64 {
    u64::from(site.pages()) + site.file_paths().count() as u64
}

/// Every path the server got more than one GET for, with its count;
/// robots.txt and /sitemap.xml, which each crawler process reads, are left
/// out.
pub fn fetched_more_than_once(s: &TestServer) -> Vec<(String, usize)> {
    let mut gets: HashMap<String, usize> = HashMap::new();
    for r in s.requests() {
        if r.method == "GET" && r.path != "/robots.txt" && r.path != "/sitemap.xml" {
            *gets.entry(r.path).or_default() += 1;
        }
    }
    let mut repeated: Vec<(String, usize)> = gets.into_iter().filter(|&(_, n)| n > 1).collect();
    repeated.sort();
    repeated
}

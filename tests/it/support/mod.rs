//! The scriptable loopback HTTP/1.1 server shared by the integration tests,
//! plus helpers to build small sites and to run the real binary.
//!
//! It is written on a raw `TcpListener` with a hand-rolled request parser, not
//! on hyper, so that a test can make it misbehave exactly as scripted: stall,
//! trickle the body, lie about the length, drop the connection. It runs on its
//! own thread with its own tokio runtime, so sync `#[test]`s and
//! `#[tokio::test]`s can both use it, and it stops when the `TestServer` drops.
//! This file is what a test scripts and reads (routes, replies, the
//! request log, small sites, the binary); `wire` plays it on the socket.

pub mod crawl;
pub mod pdf;
pub mod redis;
pub mod tmux;
mod wire;

use std::collections::HashMap;
use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::net::TcpListener;

use wire::{no_body, reason};

/// Request heads larger than this get 431 and the connection is closed.
const MAX_HEAD: usize = 64 * 1024;

/// A real HTTP/1.1 server on 127.0.0.1 with a route table the test scripts.
pub struct TestServer {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// The request target as sent (path and query; absolute-form targets are
    /// reduced to their path and query).
    pub path: String,
    /// In arrival order, names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// When its head had been read.
    pub arrived: Instant,
    /// When the server was done with it (reply written or connection
    /// broken); None while it is still being served.
    pub answered: Option<Instant>,
}

impl Recorded {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What a route answers.
#[derive(Debug, Clone)]
pub enum Reply {
    Respond(Resp),
    /// Wait, then respond.
    Delay(Duration, Resp),
    /// Respond once the test opens the gate: a request kept on the wire
    /// for exactly as long as the test needs it there, however slow the
    /// machine.
    Held(Gate, Resp),
    /// The head at once, then the body one byte per interval (the wait comes
    /// before each byte, so the whole body takes at least len × per_byte).
    SlowBytes {
        resp: Resp,
        per_byte: Duration,
    },
    /// Declares the full Content-Length, sends `after` bytes of the body, then
    /// closes the socket.
    ResetMidBody {
        resp: Resp,
        after: usize,
    },
    /// The route's nth request (counted from when the route was set, every
    /// method, authorised or not) gets the nth reply; the last one repeats.
    /// An empty sequence answers 500.
    Sequence(Vec<Reply>),
    /// 401 with `WWW-Authenticate: Basic realm="test"` unless the request
    /// carries `Authorization: Basic base64(user:password)`.
    RequireBasicAuth {
        user: String,
        password: String,
        ok: Box<Reply>,
    },
    /// 304 when If-None-Match holds `etag` or If-Modified-Since equals
    /// `last_modified` exactly; otherwise `resp` with both validators added.
    Conditional {
        resp: Resp,
        last_modified: String,
        etag: String,
    },
}

/// What a [`Reply::Held`] waits for; opened once, for good.
#[derive(Debug, Clone)]
pub struct Gate(Arc<tokio::sync::watch::Sender<bool>>);

impl Default for Gate {
    fn default() -> Gate {
        Gate(Arc::new(tokio::sync::watch::Sender::new(false)))
    }
}

impl Gate {
    /// Lets every held request, and every one to come, be answered.
    pub fn open(&self) {
        self.0.send_replace(true);
    }

    async fn passed(&self) {
        // The sender lives in `self`: the wait ends only when opened.
        let _ = self.0.subscribe().wait_for(|open| *open).await;
    }
}

/// A response. `Content-Length` is added from the body unless the headers
/// already hold one (then it is sent verbatim: lying-server tests), and never
/// for 1xx, 204 and 304, which cannot have a body.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    /// The status line's reason phrase; None: the standard one (none at
    /// all for a code without one).
    pub reason: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn html(body: &str) -> Resp {
        Resp::bytes("text/html; charset=utf-8", body.as_bytes().to_vec())
    }

    pub fn text(body: &str) -> Resp {
        Resp::bytes("text/plain; charset=utf-8", body.as_bytes().to_vec())
    }

    pub fn bytes(content_type: &str, body: Vec<u8>) -> Resp {
        Resp {
            status: 200,
            reason: None,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
        }
    }

    /// A bare status; its body is the status line's text (empty for codes
    /// that cannot have a body).
    pub fn status(code: u16) -> Resp {
        if no_body(code) {
            return Resp {
                status: code,
                reason: None,
                headers: Vec::new(),
                body: Vec::new(),
            };
        }
        let mut r = Resp::text(&format!("{code} {}\n", reason(code)));
        r.status = code;
        r
    }

    /// A bare status with the server's own reason phrase on its status
    /// line (`599 Custom Broken Thing`).
    pub fn status_phrase(code: u16, phrase: &str) -> Resp {
        let mut r = Resp::status(code);
        r.reason = Some(phrase.to_string());
        r
    }

    pub fn redirect(code: u16, location: &str) -> Resp {
        Resp {
            status: code,
            reason: None,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }

    /// Sets a header, replacing any of the same name (case-insensitive).
    pub fn header(mut self, k: &str, v: &str) -> Resp {
        self.headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case(k));
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Gzip the body and say so with `Content-Encoding: gzip`.
    pub fn gzip(mut self) -> Resp {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        // Writing to a Vec cannot fail.
        let _ = enc.write_all(&self.body);
        self.body = enc.finish().unwrap_or_default();
        self.header("Content-Encoding", "gzip")
    }

    fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    }
}

/// A page with the given title and links, for building small sites quickly.
/// Title and text are HTML-escaped; links become `<a href>`s in a list.
pub fn page(title: &str, body_text: &str, links: &[&str]) -> Resp {
    let mut html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n<ul>\n",
        escape(title),
        escape(title),
        escape(body_text)
    );
    for (i, link) in links.iter().enumerate() {
        html.push_str(&format!(
            "<li><a href=\"{}\">link {}</a></li>\n",
            escape(link),
            i + 1
        ));
    }
    html.push_str("</ul>\n</body></html>\n");
    Resp::html(&html)
}

/// The most requests among `reqs` that the server was serving at one
/// moment (from arrival to answer); one never answered counts to the end.
pub fn peak_in_flight(reqs: &[Recorded]) -> usize {
    let mut edges: Vec<(Instant, bool)> = Vec::with_capacity(reqs.len() * 2);
    for r in reqs {
        edges.push((r.arrived, true));
        edges.extend(r.answered.map(|t| (t, false)));
    }
    // An answer sorts before an arrival at the same instant: a request that
    // starts as another ends does not overlap it.
    edges.sort();
    let (mut now, mut peak) = (0usize, 0usize);
    for (_, arrival) in edges {
        if arrival {
            now += 1;
            peak = peak.max(now);
        } else {
            now -= 1;
        }
    }
    peak
}

/// Asserts that `arrivals` (request arrivals at one origin, `what` names
/// them) kept `delay` between the crawler's request starts, for a crawl
/// started after `since`. A request reaches the server later than it
/// started, by as much as a loaded machine makes it, never earlier; so
/// the k-th arrival (from 0) comes at least k delays after `since`, and
/// that holds however late any request arrives. A gate that spaces
/// requests by less, or not at all, falls short by the end of the crawl.
/// A lower bound only: a slow machine spaces them more, never less.
pub fn assert_spaced(what: &str, mut arrivals: Vec<Instant>, delay: Duration, since: Instant) {
    arrivals.sort();
    for (k, at) in arrivals.iter().enumerate() {
        let least = delay * u32::try_from(k).expect("a few requests");
        let after = at.saturating_duration_since(since);
        assert!(
            after >= least,
            "{what}: request {k} arrived {after:?} after the crawl began, before {least:?}; \
             all: {:?}",
            arrivals
                .iter()
                .map(|a| a.saturating_duration_since(since))
                .collect::<Vec<_>>()
        );
    }
}

/// Routes `/robots.txt` to `body`, as text.
pub fn robots(s: &TestServer, body: &str) {
    s.route("/robots.txt", Reply::Respond(Resp::text(body)));
}

/// Routes `/` to a page titled "Home" that links to `links`: the entry of
/// most small test sites.
pub fn home(s: &TestServer, links: &[&str]) {
    s.route("/", Reply::Respond(page("Home", "home", links)));
}

/// The one variable that leaves out the tests needing a tool of the
/// machine: `CRAWLSCOPE_SKIP_TOOLS=chromium,redis-server,duckdb,warcio,pyarrow`
/// (any of them) or `all`.
pub const SKIP_TOOLS: &str = "CRAWLSCOPE_SKIP_TOOLS";

/// Called when `tool` is missing: fails the test (a feature that cannot
/// be tested is not passed, `install` says how to get it) unless
/// [`SKIP_TOOLS`] names the tool, and then says loudly what is left out.
pub fn tool_missing(tool: &str, install: &str, left_out: &str) {
    let skip = std::env::var(SKIP_TOOLS).unwrap_or_default();
    let named = skip
        .split(',')
        .any(|t| t.trim() == tool || t.trim() == "all");
    assert!(
        named,
        "{tool} is missing: {install}, or set {SKIP_TOOLS}={tool} to leave {left_out} out"
    );
    eprintln!("note: {SKIP_TOOLS} names {tool}: {left_out} left out");
}

/// The real binary, for CLI tests.
pub fn crawlscope() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_crawlscope"))
}

/// `crawlscope --db DB ARGS... --json` output, which must succeed.
pub fn json_of(db: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = on_store(db, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// Runs `cmd` with its stdout closed before it writes a byte, so every
/// write it makes meets a closed pipe (`crawlscope ... | head -c0`).
pub fn with_stdout_closed(mut cmd: std::process::Command) -> std::process::Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run crawlscope");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait for crawlscope")
}

/// A finished command's stderr as text.
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `crawlscope --db DB ARGS...`, run to the end.
pub fn on_store(db: &std::path::Path, args: &[&str]) -> std::process::Output {
    crawlscope()
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run crawlscope")
}

#[derive(Default)]
struct State {
    routes: Mutex<HashMap<String, Route>>,
    log: Mutex<Vec<Recorded>>,
}

struct Route {
    reply: Arc<Reply>,
    /// Requests this route has answered since it was set (drives Sequence).
    served: usize,
}

/// Poisoning only means another test thread panicked; the data is still fine
/// to read, and a second panic here would hide the first.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TestServer {
    /// An empty route table: every path is 404 until routed.
    pub fn start() -> TestServer {
        let std_listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback test port");
        let addr = std_listener.local_addr().expect("local addr");
        std_listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let state = Arc::new(State::default());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread_state = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name(format!("test-server-{}", addr.port()))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("test server runtime");
                rt.block_on(async move {
                    let listener = TcpListener::from_std(std_listener).expect("tokio listener");
                    tokio::select! {
                        _ = wire::accept_loop(listener, thread_state) => {}
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime cancels every connection task.
            })
            .expect("spawn test server thread");
        TestServer {
            addr,
            state,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/`
    pub fn base(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The base plus `path` (a leading '/' is not doubled).
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base(), path.strip_prefix('/').unwrap_or(path))
    }

    /// Add or replace a route; takes effect for the next request.
    pub fn route(&self, path_and_query: &str, reply: Reply) -> &Self {
        lock(&self.state.routes).insert(
            path_and_query.to_string(),
            Route {
                reply: Arc::new(reply),
                served: 0,
            },
        );
        self
    }

    /// How many GETs arrived for this exact path and query, routed or not.
    pub fn hits(&self, path_and_query: &str) -> usize {
        lock(&self.state.log)
            .iter()
            .filter(|r| r.method == "GET" && r.path == path_and_query)
            .count()
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state.log).clone()
    }

    /// Asserts `path` was asked for twice, the second time after the
    /// `Retry-After: 1` its first answer gave.
    pub fn assert_asked_again_a_second_later(&self, path: &str) {
        let asked: Vec<_> = self
            .requests()
            .into_iter()
            .filter(|r| r.path == path)
            .map(|r| r.arrived)
            .collect();
        assert_eq!(asked.len(), 2, "{path} asked {} times", asked.len());
        assert!(
            asked[1] - asked[0] >= std::time::Duration::from_millis(900),
            "Retry-After: 1 was not honoured: {:?}",
            asked[1] - asked[0]
        );
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// Standard base64 with padding (RFC 4648), for Basic credentials.
pub fn base64(data: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(TABLE[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

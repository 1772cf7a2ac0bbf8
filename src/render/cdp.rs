//! The DevTools protocol over the browser's pipes: JSON messages ended by
//! a NUL byte. Commands get an id and wait for the answer with that id;
//! events go to the session (a tab) they name. Only what rendering needs:
//! no generated bindings, methods are named where they are called.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, oneshot};

/// The most a command may wait for its answer: a browser that takes
/// longer is taken for hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// A message longer than this ends the connection (a page's DOM is sent
/// whole, so it must fit).
const MAX_MESSAGE: usize = 256 << 20;

/// An event: its method and parameters.
pub struct Event {
    pub method: String,
    pub params: Value,
}

type Answer = Result<Value, String>;

#[derive(Default)]
struct Routes {
    waiting: HashMap<u64, oneshot::Sender<Answer>>,
    sessions: HashMap<String, mpsc::UnboundedSender<Event>>,
}

/// One browser's protocol connection.
pub struct Conn {
    writer: tokio::sync::Mutex<pipe::Sender>,
    routes: Arc<Mutex<Routes>>,
    next_id: AtomicU64,
    alive: Arc<AtomicBool>,
}

impl Conn {
    /// Starts reading `from_browser` on the runtime; the connection is
    /// dead once that pipe ends.
    pub fn new(to_browser: pipe::Sender, from_browser: pipe::Receiver) -> Conn {
        let routes = Arc::new(Mutex::new(Routes::default()));
        let alive = Arc::new(AtomicBool::new(true));
        tokio::spawn(read_loop(from_browser, routes.clone(), alive.clone()));
        Conn {
            writer: tokio::sync::Mutex::new(to_browser),
            routes,
            next_id: AtomicU64::new(1),
            alive,
        }
    }

    pub fn alive(&self) -> bool {
        self.alive.load(Ordering::Relaxed)
    }

    /// Sends `method` (to the tab `session`, or the browser) and waits for
    /// its result; an error answer, a dead browser or a timeout is Err.
    pub async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Answer {
        self.call_within(COMMAND_TIMEOUT, session, method, params)
            .await
    }

    /// [`Conn::call`] with its own timeout (a browser starting up).
    pub async fn call_within(
        &self,
        timeout: Duration,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Answer {
        if !self.alive() {
            return Err("the browser is gone".into());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.routes).waiting.insert(id, tx);
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        let sent = {
            let mut w = self.writer.lock().await;
            tokio::time::timeout(timeout, w.write_all(&bytes)).await
        };
        if !matches!(sent, Ok(Ok(()))) {
            lock(&self.routes).waiting.remove(&id);
            self.alive.store(false, Ordering::Relaxed);
            return Err("the browser stopped reading".into());
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err("the browser is gone".into()),
            Err(_) => {
                lock(&self.routes).waiting.remove(&id);
                Err(format!("the browser did not answer {method}"))
            }
        }
    }

    /// The events of tab `session` from now on, until [`Conn::forget`].
    pub fn listen(&self, session: &str) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.routes).sessions.insert(session.to_string(), tx);
        rx
    }

    pub fn forget(&self, session: &str) {
        lock(&self.routes).sessions.remove(session);
    }
}

fn lock(m: &Mutex<Routes>) -> std::sync::MutexGuard<'_, Routes> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Splits the browser's output into messages and routes each; when the
/// pipe ends, every waiting command and listening tab learns it.
async fn read_loop(mut from: pipe::Receiver, routes: Arc<Mutex<Routes>>, alive: Arc<AtomicBool>) {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let start = buf.len();
        buf.extend_from_slice(&chunk[..n]);
        let mut from_pos = 0;
        let mut search = start;
        while let Some(end) = memchr::memchr(0, &buf[search..]).map(|i| search + i) {
            route(&buf[from_pos..end], &routes);
            from_pos = end + 1;
            search = from_pos;
        }
        buf.drain(..from_pos);
        if buf.len() > MAX_MESSAGE {
            break;
        }
    }
    alive.store(false, Ordering::Relaxed);
    let mut r = lock(&routes);
    r.waiting.clear();
    r.sessions.clear();
}

fn route(msg: &[u8], routes: &Mutex<Routes>) {
    let Ok(mut v) = serde_json::from_slice::<Value>(msg) else {
        return;
    };
    if let Some(id) = v.get("id").and_then(Value::as_u64) {
        let answer = match v.get_mut("error") {
            Some(e) => Err(e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("protocol error")
                .to_string()),
            None => Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
        };
        if let Some(tx) = lock(routes).waiting.remove(&id) {
            let _ = tx.send(answer);
        }
        return;
    }
    let (Some(method), Some(session)) = (
        v.get("method").and_then(Value::as_str).map(str::to_string),
        v.get("sessionId").and_then(Value::as_str),
    ) else {
        return;
    };
    let r = lock(routes);
    if let Some(tx) = r.sessions.get(session) {
        let params = v.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        let _ = tx.send(Event { method, params });
    }
}

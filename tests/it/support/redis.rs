//! A real `redis-server` for the shared-frontier tests: on a free loopback
//! port, with its own directory, no persistence unless asked (then an
//! append-only file, for a restart), killed on drop. A
//! missing server fails the test, unless `CRAWLSCOPE_SKIP_TOOLS` names redis-server
//! says to leave those tests out (README, "Set up and run").

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = "/usr/bin/redis-server";

pub struct RedisServer {
    child: Child,
    port: u16,
    persistent: bool,
    /// `redis://127.0.0.1:PORT`
    pub url: String,
    dir: tempfile::TempDir,
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl RedisServer {
    /// A running server answering PING, keeping nothing on disk; None only
    /// when the user opted out of these tests.
    pub fn start() -> Option<RedisServer> {
        RedisServer::start_with(false)
    }

    /// One that writes every change to its append-only file before it
    /// answers, so a restart ([`RedisServer::restart`]) loses nothing.
    pub fn persistent() -> Option<RedisServer> {
        RedisServer::start_with(true)
    }

    fn start_with(persistent: bool) -> Option<RedisServer> {
        if !Path::new(SERVER).exists() {
            super::tool_missing(
                "redis-server",
                "install Debian's redis-server",
                "the shared-frontier tests",
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("a directory for redis-server");
        // A port the kernel just handed out and took back: free unless
        // another process grabs it in between, which the PING would show.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let child = spawn(port, dir.path(), persistent);
        let server = RedisServer {
            child,
            port,
            persistent,
            url: format!("redis://127.0.0.1:{port}"),
            dir,
        };
        server.wait_for_pong();
        Some(server)
    }

    fn wait_for_pong(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pong(self.port) {
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer PING"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server as an operator would (SIGTERM), then starts it
    /// again on the same port and directory, after `down`.
    pub fn restart(&mut self, down: Duration) {
        // SAFETY: a signal to our own child process.
        assert_eq!(
            unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) },
            0
        );
        self.child.wait().expect("redis-server stopped");
        std::thread::sleep(down);
        self.child = spawn(self.port, self.dir.path(), self.persistent);
        self.wait_for_pong();
    }
}

impl RedisServer {
    /// The URLs leased to the crawler of process `pid` on the point of
    /// `start` now (see `crawl/shared/lua/common.lua` for the keys).
    pub fn leased_to(&self, start: &str, pid: u32) -> Vec<String> {
        let leases: Vec<(String, String)> = redis::cmd("HGETALL")
            .arg(format!("crawlscope:{{{start}}}:lease"))
            .query(&mut self.connection())
            .expect("the point's leases");
        let pid = format!(":{pid}:");
        leases
            .into_iter()
            .filter(|(_, owner)| owner.contains(&pid))
            .map(|(url, _)| url)
            .collect()
    }

    /// How long every crawler must still wait before it starts a request
    /// to `origin` (`http://HOST:PORT`): its next start in the slots hash,
    /// against the server's own clock, as `slot.lua` reads them.
    pub fn wait_at(&self, origin: &str) -> Duration {
        let mut conn = self.connection();
        let due: Option<u64> = redis::cmd("HGET")
            .arg("crawlscope:slots")
            .arg(origin)
            .query(&mut conn)
            .expect("the origin's next start");
        let (secs, micros): (u64, u64) = redis::cmd("TIME")
            .query(&mut conn)
            .expect("the server's clock");
        let now_ms = secs * 1000 + micros / 1000;
        Duration::from_millis(due.unwrap_or(0).saturating_sub(now_ms))
    }

    fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url.as_str())
            .and_then(|c| c.get_connection())
            .expect("a connection to the test's redis-server")
    }
}

fn spawn(port: u16, dir: &Path, persistent: bool) -> Child {
    let aof: &[&str] = if persistent {
        &["--appendonly", "yes", "--appendfsync", "always"]
    } else {
        &["--appendonly", "no"]
    };
    Command::new(SERVER)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", ""])
        .args(aof)
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server")
}

fn pong(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
    let mut answer = [0u8; 7];
    s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
}

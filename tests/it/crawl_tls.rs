//! `--insecure` against a real TLS server on loopback (Python's
//! `http.server` wrapped in `ssl`, with a certificate `openssl` makes for
//! the test): refused as invalid by default, fetched with the flag.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use crate::support::{crawlscope, stderr_of};

/// An https server of one page on a free loopback port, its certificate
/// self-signed; killed when dropped.
struct TlsServer {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tls_server() -> TlsServer {
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=staging.test",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ])
        .current_dir(dir.path())
        .output()
        .expect("openssl (.ci/run installs it)");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    std::fs::write(
        dir.path().join("index.html"),
        "<title>Staging home</title><a href=/a.html>a</a>",
    )
    .unwrap();
    std::fs::write(dir.path().join("a.html"), "<title>A</title>").unwrap();
    const SERVE: &str = r#"import http.server, ssl, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain("cert.pem", "key.pem")
s.socket = c.wrap_socket(s.socket, server_side=True)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;
    let mut child = Command::new("python3")
        .args(["-c", SERVE])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the server's port");
    TlsServer {
        child,
        port,
        _dir: dir,
    }
}

#[test]
fn insecure_accepts_a_certificate_that_is_otherwise_refused() {
    let server = tls_server();
    let url = format!("https://127.0.0.1:{}/", server.port);
    // flags, exit code, what the summary or error says.
    let cases: &[(&[&str], i32, &str)] =
        &[(&[], 1, "certificate"), (&["--insecure"], 0, "fetched 2 ")];
    for (flags, code, said) in cases {
        let db = tempfile::tempdir().unwrap();
        let out = crawlscope()
            .arg("--db")
            .arg(db.path())
            .args(["crawl", &url, "--quiet"])
            .args(*flags)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            stderr_of(&out)
        );
        assert_eq!(out.status.code(), Some(*code), "{flags:?}: {all}");
        assert!(all.to_lowercase().contains(said), "{flags:?}: {all}");
    }
}

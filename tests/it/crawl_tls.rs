//! TLS against a real server on loopback (Python's `http.server`, with a
//! certificate `openssl` makes for the test) that speaks https and plain
//! http on one port, as it finds the first byte of a connection (a TLS
//! ClientHello begins 0x16), so a page's `http://` links have `https://`
//! twins on the same host and port: `--insecure` (a self-signed
//! certificate refused by default, fetched with the flag) and
//! `--require-https` (an http link whose twin answers is a finding).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use crate::support::{crawlscope, json_of, stderr_of};

/// A server of files on a free loopback port, its certificate
/// self-signed: `plain/PATH` answers http, `tls/PATH` https. Every
/// ClientHello and request is a line of its log. Killed when dropped.
struct TlsServer {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TlsServer {
    /// `tls hello` per ClientHello, `SCHEME REQUEST-LINE` per request.
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log.txt")).unwrap_or_default()
    }
}

fn tls_server(files: &[(&str, &str)]) -> TlsServer {
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
    for scheme in ["plain", "tls"] {
        std::fs::create_dir(dir.path().join(scheme)).unwrap();
    }
    for (path, body) in files {
        std::fs::write(dir.path().join(path), body).unwrap();
    }
    // A handshake that fails (a certificate refused) raises in
    // get_request, which socketserver takes as no request.
    const SERVE: &str = r#"import http.server, os, socket, ssl
log = open("log.txt", "a", buffering=1)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain("cert.pem", "key.pem")
class Files(http.server.SimpleHTTPRequestHandler):
    def __init__(self, sock, *a, **k):
        self.scheme = "tls" if isinstance(sock, ssl.SSLSocket) else "plain"
        super().__init__(sock, *a, directory=self.scheme, **k)
    def log_message(self, *a):
        log.write("%s %s\n" % (self.scheme, self.requestline))
class Both(http.server.ThreadingHTTPServer):
    def get_request(self):
        sock, addr = self.socket.accept()
        if sock.recv(1, socket.MSG_PEEK) == b"\x16":
            log.write("tls hello\n")
            sock = c.wrap_socket(sock, server_side=True)
        return sock, addr
s = Both(("127.0.0.1", 0), Files)
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
    TlsServer { child, port, dir }
}

#[test]
fn insecure_accepts_a_certificate_that_is_otherwise_refused() {
    let server = tls_server(&[
        (
            "tls/index.html",
            "<title>Staging home</title><a href=/a.html>a</a>",
        ),
        ("tls/a.html", "<title>A</title>"),
    ]);
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

#[test]
fn require_https_finds_the_http_links_whose_https_twin_answers() {
    // Another origin, where nothing listens: its twin is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other = format!("http://{}/gone", closed.local_addr().unwrap());
    drop(closed);
    let home = format!(
        r#"<title>Home</title>
<a href="http://127.0.0.1:PORT/both.html">both</a>
<a href="/plain-only.html">plain only</a>
<img src="/pic.png" alt="pic">
<a href="https://127.0.0.1:PORT/both.html">already https</a>
<a href="{}">other origin</a>"#,
        other
    );
    let server = tls_server(&[
        ("plain/both.html", "<title>Both</title>"),
        ("tls/both.html", "<title>Both over TLS</title>"),
        ("plain/plain-only.html", "<title>Plain</title>"),
        ("plain/pic.png", "png"),
        ("tls/pic.png", "png"),
    ]);
    let at = |path: &str| format!("http://127.0.0.1:{}{path}", server.port);
    // The index names its own port: written once the port is known.
    std::fs::write(
        server.dir.path().join("plain/index.html"),
        home.replace("PORT", &server.port.to_string()),
    )
    .unwrap();
    let secure = |path: &str| format!("https://127.0.0.1:{}{path}", server.port);
    // Each seeded link: the http URL, its element, and whether it is a
    // finding when the twin can answer (`--require-https --insecure`).
    let links = [
        (at("/both.html"), "a", true),
        (at("/pic.png"), "img", true),
        // Its twin answers 404.
        (at("/plain-only.html"), "a", false),
        // Its twin's connection is refused.
        (other.clone(), "a", false),
        // Already https: nothing to require.
        (secure("/both.html"), "a", false),
    ];
    // flags; whether twins can answer (else none is a finding); whether
    // any TLS connection is made.
    let cases: &[(&[&str], bool, bool)] = &[
        (&[], false, false),
        // The self-signed certificate is refused: no twin answers.
        (&["--require-https"], false, true),
        (&["--require-https", "--insecure"], true, true),
    ];
    for (flags, answering, tls) in cases {
        let log_before = server.log().len();
        let db = tempfile::tempdir().unwrap();
        let out = crawlscope()
            .arg("--db")
            .arg(db.path())
            .args(["crawl", &at("/"), "--quiet", "--fail-on", "http-links"])
            .args(*flags)
            .output()
            .unwrap();
        let code = if *answering { 3 } else { 0 };
        assert_eq!(
            out.status.code(),
            Some(code),
            "{flags:?}: {}",
            stderr_of(&out)
        );
        let rows = json_of(db.path(), &["report", "http-links", "--json"]);
        let found: Vec<(&str, &str, &str, &str)> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap();
                (s("url"), s("link"), s("https"), s("element"))
            })
            .collect();
        for (link, element, finding) in &links {
            let twin = link.replacen("http://", "https://", 1);
            let row = (at("/"), link.clone(), twin, element.to_string());
            let row = (&row.0[..], &row.1[..], &row.2[..], &row.3[..]);
            assert_eq!(
                found.contains(&row),
                *finding && *answering,
                "{flags:?} {link}: {found:?}"
            );
        }
        let expected = if *answering { 2 } else { 0 };
        assert_eq!(found.len(), expected, "{flags:?}: {found:?}");
        let csv = crawlscope()
            .arg("--db")
            .arg(db.path())
            .args(["report", "http-links", "--csv"])
            .output()
            .unwrap();
        let csv = String::from_utf8(csv.stdout).unwrap();
        assert!(csv.starts_with("url,link,https,element\n"), "{csv}");
        assert_eq!(csv.lines().count(), 1 + expected, "{csv}");
        let summary = json_of(db.path(), &["report", "summary", "--json"]);
        assert_eq!(summary["findings"]["http-links"], expected, "{summary}");
        let log = server.log();
        let log = &log[log_before..];
        assert_eq!(log.contains("tls "), *tls, "{flags:?}: {log}");
    }
}

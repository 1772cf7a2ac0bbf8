//! The test server's side of the wire: accepting connections, reading
//! request heads (and discarding bodies), playing a route's [`Reply`]
//! as scripted, and writing the response, however it must misbehave.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

pub(super) async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve_connection(stream, Arc::clone(&state)));
            }
            // Out of descriptors and the like: back off instead of spinning.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

struct Request {
    method: String,
    target: String,
    version: String,
    headers: Vec<(String, String)>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn keep_alive(&self) -> bool {
        let connection = self.header("connection").unwrap_or("").to_ascii_lowercase();
        let has = |token: &str| connection.split(',').any(|t| t.trim() == token);
        if self.version == "HTTP/1.0" {
            has("keep-alive")
        } else {
            !has("close")
        }
    }
}

enum Head {
    Request(Request),
    /// The head could not be parsed: answer this status and close.
    Bad(u16),
}

async fn serve_connection(mut stream: TcpStream, state: Arc<State>) {
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        let head = match read_head(&mut stream, &mut buf).await {
            Some(head) => head,
            None => return,
        };
        let req = match head {
            Head::Request(req) => req,
            Head::Bad(code) => {
                let resp = Resp::status(code).header("Connection", "close");
                let _ = send(&mut stream, &resp, false, false).await;
                linger_close(stream).await;
                return;
            }
        };
        // Bodies are not looked at, but must be consumed to find the next request.
        let body_len = req
            .header("content-length")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        if !discard(&mut stream, &mut buf, body_len).await {
            return;
        }
        let chunked = req
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        // A chunked request body is not parsed: answer, then close.
        let keep_alive = req.keep_alive() && !chunked;

        let path = origin_form(&req.target);
        let logged = {
            let mut log = lock(&state.log);
            log.push(Recorded {
                method: req.method.clone(),
                path: path.clone(),
                headers: req.headers.clone(),
                arrived: Instant::now(),
                answered: None,
            });
            log.len() - 1
        };
        let picked = {
            let mut routes = lock(&state.routes);
            routes.get_mut(&path).map(|route| {
                let n = route.served;
                route.served += 1;
                (Arc::clone(&route.reply), n)
            })
        };
        let head_only = req.method == "HEAD";
        let open = match picked {
            None => {
                let resp = Resp::text("not found\n");
                let resp = Resp {
                    status: 404,
                    reason: None,
                    ..resp
                };
                send(&mut stream, &resp, head_only, keep_alive).await
            }
            Some((reply, n)) => play(&mut stream, &reply, n, &req, head_only, keep_alive).await,
        };
        if let Some(r) = lock(&state.log).get_mut(logged) {
            r.answered = Some(Instant::now());
        }
        if !open || !keep_alive {
            let _ = stream.shutdown().await;
            return;
        }
    }
}

/// Plays one reply; false when the connection must not be reused.
async fn play(
    stream: &mut TcpStream,
    reply: &Reply,
    n: usize,
    req: &Request,
    head_only: bool,
    keep_alive: bool,
) -> bool {
    let mut reply = reply;
    // Unwrap the combinators that only choose which reply to play.
    loop {
        match reply {
            Reply::Sequence(replies) => match replies.get(n).or(replies.last()) {
                Some(next) => reply = next,
                None => return send(stream, &Resp::status(500), head_only, keep_alive).await,
            },
            Reply::RequireBasicAuth { user, password, ok } => {
                let expected = base64(format!("{user}:{password}").as_bytes());
                let authorised = req.header("authorization").is_some_and(|v| {
                    let mut parts = v.split_whitespace();
                    parts
                        .next()
                        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("basic"))
                        && parts.next() == Some(expected.as_str())
                });
                if authorised {
                    reply = ok;
                } else {
                    let resp = Resp::status(401).header("WWW-Authenticate", "Basic realm=\"test\"");
                    return send(stream, &resp, head_only, keep_alive).await;
                }
            }
            _ => break,
        }
    }
    match reply {
        Reply::Respond(resp) => send(stream, resp, head_only, keep_alive).await,
        Reply::Delay(wait, resp) => {
            tokio::time::sleep(*wait).await;
            send(stream, resp, head_only, keep_alive).await
        }
        Reply::Held(gate, resp) => {
            gate.passed().await;
            send(stream, resp, head_only, keep_alive).await
        }
        Reply::SlowBytes { resp, per_byte } => {
            if stream
                .write_all(&encode_head(resp, keep_alive))
                .await
                .is_err()
            {
                return false;
            }
            if head_only || no_body(resp.status) {
                return true;
            }
            for byte in &resp.body {
                tokio::time::sleep(*per_byte).await;
                if stream.write_all(std::slice::from_ref(byte)).await.is_err() {
                    return false;
                }
            }
            true
        }
        Reply::ResetMidBody { resp, after } => {
            let _ = stream.write_all(&encode_head(resp, keep_alive)).await;
            if !head_only {
                let cut = (*after).min(resp.body.len());
                let _ = stream.write_all(&resp.body[..cut]).await;
            }
            let _ = stream.flush().await;
            false
        }
        Reply::Conditional {
            resp,
            last_modified,
            etag,
        } => {
            let etag_matches = req.header("if-none-match").is_some_and(|v| {
                v.split(',').map(str::trim).any(|tag| {
                    tag == "*" || tag.trim_start_matches("W/") == etag.trim_start_matches("W/")
                })
            });
            let date_matches = req.header("if-modified-since") == Some(last_modified.as_str());
            if etag_matches || date_matches {
                let not_modified = Resp::status(304)
                    .header("ETag", etag)
                    .header("Last-Modified", last_modified);
                send(stream, &not_modified, head_only, keep_alive).await
            } else {
                let full = resp
                    .clone()
                    .header("ETag", etag)
                    .header("Last-Modified", last_modified);
                send(stream, &full, head_only, keep_alive).await
            }
        }
        // Unwrapped above.
        Reply::Sequence(_) | Reply::RequireBasicAuth { .. } => {
            send(stream, &Resp::status(500), head_only, keep_alive).await
        }
    }
}

async fn send(stream: &mut TcpStream, resp: &Resp, head_only: bool, keep_alive: bool) -> bool {
    let mut out = encode_head(resp, keep_alive);
    if !head_only && !no_body(resp.status) {
        out.extend_from_slice(&resp.body);
    }
    stream.write_all(&out).await.is_ok()
}

/// HEAD answers get the same head as GET, Content-Length included.
fn encode_head(resp: &Resp, keep_alive: bool) -> Vec<u8> {
    let phrase = resp.reason.as_deref().unwrap_or(reason(resp.status));
    let mut out = format!("HTTP/1.1 {} {phrase}\r\n", resp.status);
    for (k, v) in &resp.headers {
        out.push_str(k);
        out.push_str(": ");
        out.push_str(v);
        out.push_str("\r\n");
    }
    if !no_body(resp.status) && !resp.has_header("content-length") {
        out.push_str(&format!("Content-Length: {}\r\n", resp.body.len()));
    }
    if !keep_alive && !resp.has_header("connection") {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// Reads one request head, leaving any bytes after it in `buf`. None when the
/// peer closed (or broke) the connection between requests.
async fn read_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Head> {
    let mut scanned: usize = 0;
    loop {
        // Resume the search a little before where the last one stopped: the
        // terminator may straddle two reads.
        let from = scanned.saturating_sub(3);
        if let Some(end) = find_head_end(&buf[from..]).map(|i| i + from) {
            // However the bytes arrived: a head over the limit that came in
            // one read is as large as one that came in many.
            if end > MAX_HEAD {
                return Some(Head::Bad(431));
            }
            let head: Vec<u8> = buf.drain(..end).collect();
            return Some(parse_head(&head));
        }
        scanned = buf.len();
        if buf.len() > MAX_HEAD {
            return Some(Head::Bad(431));
        }
        let mut chunk = [0u8; 8192];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(k) => buf.extend_from_slice(&chunk[..k]),
        }
    }
}

/// The index just past the blank line ending a head (CRLF or bare LF).
fn find_head_end(data: &[u8]) -> Option<usize> {
    for i in 0..data.len() {
        if data[i..].starts_with(b"\r\n\r\n") {
            return Some(i + 4);
        }
        if data[i..].starts_with(b"\n\n") {
            return Some(i + 2);
        }
        if data[i..].starts_with(b"\n\r\n") {
            return Some(i + 3);
        }
    }
    None
}

fn parse_head(head: &[u8]) -> Head {
    let text = String::from_utf8_lossy(head);
    // Leading blank lines before a request line are allowed (RFC 9112 §2.2).
    let mut lines = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .skip_while(|l| l.is_empty());
    let Some(request_line) = lines.next() else {
        return Head::Bad(400);
    };
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Head::Bad(400);
    };
    if !version.starts_with("HTTP/1.") {
        return Head::Bad(505);
    }
    let mut headers = Vec::new();
    for line in lines {
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Head::Bad(400);
        };
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Head::Bad(400);
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    Head::Request(Request {
        method: method.to_string(),
        target: target.to_string(),
        version: version.to_string(),
        headers,
    })
}

/// Closes our side, then reads what the client still sends before dropping
/// the socket: closing with unread data makes the kernel send a reset, which
/// can destroy the error response before the client reads it.
async fn linger_close(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let drain = async {
        let mut chunk = [0u8; 8192];
        let mut total = 0usize;
        while total < 4 * MAX_HEAD {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(k) => total += k,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
}

/// Drops `len` body bytes, first from what is buffered, then from the socket.
async fn discard(stream: &mut TcpStream, buf: &mut Vec<u8>, len: usize) -> bool {
    let buffered = len.min(buf.len());
    buf.drain(..buffered);
    let mut left = len - buffered;
    let mut chunk = [0u8; 8192];
    while left > 0 {
        let want = left.min(chunk.len());
        match stream.read(&mut chunk[..want]).await {
            Ok(0) | Err(_) => return false,
            Ok(k) => left -= k,
        }
    }
    true
}

/// `http://host:port/a?b` → `/a?b`; origin-form targets pass through.
fn origin_form(target: &str) -> String {
    for scheme in ["http://", "https://"] {
        if let Some(rest) = target.strip_prefix(scheme) {
            return match rest.find('/') {
                Some(i) => rest[i..].to_string(),
                None => "/".to_string(),
            };
        }
    }
    target.to_string()
}

pub(super) fn no_body(status: u16) -> bool {
    (100..200).contains(&status) || status == 204 || status == 304
}

pub(super) fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        410 => "Gone",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

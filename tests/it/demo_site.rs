//! End-to-end checks of the two fixtures every other test stands on: the demo
//! site served over real loopback HTTP, and the scriptable `support` server,
//! one test per kind of scripted reply.

use std::collections::{HashSet, VecDeque};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use crate::support::{Reply, Resp, TestServer};
use crawlscope::demo::{self, DemoSite};
use reqwest::header;
use reqwest::StatusCode;

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

fn header_str(resp: &reqwest::Response, name: header::HeaderName) -> Option<String> {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

// ---------------------------------------------------------------- demo site

#[tokio::test]
async fn demo_root_has_validators_and_answers_conditionals() {
    let (addr, server) = demo::spawn(0, 50).await.expect("spawn demo");
    let root = format!("http://{addr}/");
    let c = client();

    let resp = c.get(&root).send().await.expect("GET /");
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(header_str(&resp, header::CONTENT_TYPE)
        .expect("content type")
        .starts_with("text/html"));
    let etag = header_str(&resp, header::ETAG).expect("etag");
    let modified = header_str(&resp, header::LAST_MODIFIED).expect("last-modified");
    let when = httpdate::parse_http_date(&modified).expect("an HTTP date");
    let expected = DemoSite::new(50).render("/").expect("page 0").last_modified;
    assert_eq!(when, expected);
    let body = resp.text().await.expect("body");
    assert!(body.contains(&format!("<title>{}</title>", DemoSite::new(50).title_of(0))));

    let resp = c
        .get(&root)
        .header(header::IF_NONE_MATCH, &etag)
        .send()
        .await
        .expect("conditional GET");
    assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(
        header_str(&resp, header::ETAG).as_deref(),
        Some(etag.as_str())
    );
    assert!(resp.bytes().await.expect("body").is_empty());

    let resp = c
        .get(&root)
        .header(header::IF_NONE_MATCH, "\"something-else\"")
        .send()
        .await
        .expect("conditional GET");
    assert_eq!(resp.status(), StatusCode::OK);

    let resp = c
        .get(&root)
        .header(header::IF_MODIFIED_SINCE, &modified)
        .send()
        .await
        .expect("conditional GET");
    assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);

    let earlier = httpdate::fmt_http_date(when - Duration::from_secs(1));
    let resp = c
        .get(&root)
        .header(header::IF_MODIFIED_SINCE, earlier)
        .send()
        .await
        .expect("conditional GET");
    assert_eq!(resp.status(), StatusCode::OK);

    let resp = c.head(&root).send().await.expect("HEAD /");
    assert_eq!(resp.status(), StatusCode::OK);
    // reqwest's content_length() is the body's size, always 0 for HEAD.
    let declared = header_str(&resp, header::CONTENT_LENGTH);
    assert_eq!(declared, Some(body.len().to_string()));
    assert_eq!(
        header_str(&resp, header::ETAG).as_deref(),
        Some(etag.as_str())
    );
    server.abort();
}

#[tokio::test]
async fn demo_serves_robots_files_and_404s() {
    let (addr, server) = demo::spawn(0, 50).await.expect("spawn demo");
    let c = client();
    let url = |p: &str| format!("http://{addr}{p}");

    let resp = c.get(url("/robots.txt")).send().await.expect("robots");
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(header_str(&resp, header::CONTENT_TYPE)
        .expect("type")
        .starts_with("text/plain"));
    assert_eq!(
        resp.text().await.expect("body"),
        "User-agent: *\nDisallow: /private/\n"
    );

    for missing in [
        "/nope.html",
        "/private/0.html",
        "/p/50.html",
        "/p/1.html?q=1",
    ] {
        let resp = c.get(url(missing)).send().await.expect("GET");
        assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{missing}");
        assert!(header_str(&resp, header::CONTENT_TYPE)
            .expect("type")
            .starts_with("text/html"));
    }
    let resp = c.post(url("/")).body("x").send().await.expect("POST");
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);

    let files: Vec<String> = DemoSite::new(50).file_paths().collect();
    assert!(files.contains(&"/files/3.txt".to_string()), "{files:?}");
    let resp = c.get(url("/files/3.txt")).send().await.expect("txt");
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(header_str(&resp, header::CONTENT_TYPE)
        .expect("type")
        .starts_with("text/plain"));
    assert!(header_str(&resp, header::ETAG).is_some());
    let text = resp.text().await.expect("text");
    assert!(text.split_whitespace().count() >= 200);

    let resp = c.get(url("/files/7.bin")).send().await.expect("bin");
    assert_eq!(
        header_str(&resp, header::CONTENT_TYPE).as_deref(),
        Some("application/octet-stream")
    );
    assert!(resp.bytes().await.expect("bin body").len() >= 2048);
    server.abort();
}

/// A robots-obeying BFS over HTTP finds exactly the promised pages, and the
/// absolute links carry the port the request came in on.
#[tokio::test]
async fn demo_crawl_over_http_finds_every_page() {
    let pages = 120;
    let (addr, server) = demo::spawn(0, pages).await.expect("spawn demo");
    let c = client();
    let base = url::Url::parse(&format!("http://{addr}/")).expect("base");
    let mut seen = HashSet::from([base.clone()]);
    let mut queue = VecDeque::from([base.clone()]);
    let (mut html, mut other, mut absolute) = (0u32, 0u32, 0u32);
    while let Some(page) = queue.pop_front() {
        let resp = c.get(page.clone()).send().await.expect("GET");
        assert_eq!(resp.status(), StatusCode::OK, "{page}");
        let is_html =
            header_str(&resp, header::CONTENT_TYPE).is_some_and(|t| t.starts_with("text/html"));
        let body = resp.text().await.expect("body");
        if !is_html {
            other += 1;
            continue;
        }
        html += 1;
        absolute += body.matches(&format!("href=\"http://{addr}/")).count() as u32;
        // The crawler's own link extraction: resolved, fragments dropped.
        let doc = crawlscope::html::parse_html(body.as_bytes(), Some("text/html"), &page);
        for target in doc.links.into_iter().map(|l| l.url) {
            if target.origin() != base.origin() || target.path().starts_with("/private/") {
                continue;
            }
            if seen.insert(target.clone()) {
                queue.push_back(target);
            }
        }
    }
    assert_eq!(html, pages);
    assert_eq!(other as usize, DemoSite::new(pages).file_paths().count());
    assert!(absolute > 0, "no absolute link used the request's Host");
    server.abort();
}

#[test]
fn demo_keeps_connections_alive() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (addr, server) = rt.block_on(demo::spawn(0, 10)).expect("spawn demo");
    let mut sock = std::net::TcpStream::connect(addr).expect("connect");
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    for path in ["/", "/p/1.html", "/robots.txt"] {
        write!(sock, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").expect("write");
        let (status, _, body) = read_response(&mut sock);
        assert_eq!(status, 200, "{path}");
        assert!(!body.is_empty());
    }
    write!(
        sock,
        "GET /docs/2.html HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let (status, _, _) = read_response(&mut sock);
    assert_eq!(status, 200);
    let mut rest = Vec::new();
    assert_eq!(sock.read_to_end(&mut rest).expect("eof"), 0);
    server.abort();
}

#[tokio::test]
async fn demo_stops_when_its_task_is_aborted() {
    let (addr, server) = demo::spawn(0, 10).await.expect("spawn demo");
    let c = client();
    let url = format!("http://{addr}/");
    assert_eq!(
        c.get(&url).send().await.expect("GET").status(),
        StatusCode::OK
    );
    server.abort();
    assert!(server.await.expect_err("aborted").is_cancelled());
    // The pooled connection is closed too, and nothing listens any more.
    assert!(c.get(&url).send().await.is_err());
}

/// Reads one HTTP/1.1 response with a Content-Length body from a blocking socket.
fn read_response(sock: &mut std::net::TcpStream) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = sock.read(&mut byte).expect("read head");
        assert_eq!(n, 1, "connection closed inside a head");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).expect("ascii head");
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    sock.read_exact(&mut body).expect("body");
    (status, headers, body)
}

// ------------------------------------------------------ the support server

#[tokio::test]
async fn support_routes_can_be_replaced_and_requests_are_recorded() {
    let server = TestServer::start();
    assert_eq!(server.url("/a"), format!("{}a", server.base()));
    assert_eq!(server.url("a"), server.url("/a"));
    server.route("/a?x=1", Reply::Respond(Resp::html("<p>one</p>")));
    let c = client();
    let first = c
        .get(server.url("/a?x=1"))
        .header("X-Probe", "yes")
        .send()
        .await
        .expect("GET");
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(first.content_length(), Some(10));
    assert_eq!(first.text().await.expect("body"), "<p>one</p>");

    server.route(
        "/a?x=1",
        Reply::Respond(Resp::text("two").header("X-Extra", "1")),
    );
    let second = c.get(server.url("/a?x=1")).send().await.expect("GET");
    assert_eq!(
        header_str(&second, header::HeaderName::from_static("x-extra")).as_deref(),
        Some("1")
    );
    assert_eq!(second.text().await.expect("body"), "two");

    let missing = c.get(server.url("/missing")).send().await.expect("GET");
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let head = c.head(server.url("/a?x=1")).send().await.expect("HEAD");
    assert_eq!(
        header_str(&head, header::CONTENT_LENGTH).as_deref(),
        Some("3")
    );
    assert!(head.bytes().await.expect("no body").is_empty());

    let moved = Resp::redirect(301, "/a?x=1");
    server.route("/old", Reply::Respond(moved));
    let r = c.get(server.url("/old")).send().await.expect("GET");
    assert_eq!(r.status(), StatusCode::MOVED_PERMANENTLY);
    assert_eq!(header_str(&r, header::LOCATION).as_deref(), Some("/a?x=1"));

    assert_eq!(server.hits("/a?x=1"), 2);
    assert_eq!(server.hits("/missing"), 1);
    let log = server.requests();
    let methods: Vec<&str> = log.iter().map(|r| r.method.as_str()).collect();
    assert_eq!(methods, ["GET", "GET", "GET", "HEAD", "GET"]);
    assert_eq!(log[0].path, "/a?x=1");
    assert_eq!(log[0].header("X-PROBE"), Some("yes"));
    assert!(log[0]
        .headers
        .iter()
        .all(|(k, _)| *k == k.to_ascii_lowercase()));
}

#[tokio::test]
async fn support_sequence_plays_in_order_then_repeats_the_last() {
    let server = TestServer::start();
    server.route(
        "/flaky",
        Reply::Sequence(vec![
            Reply::Respond(Resp::status(503)),
            Reply::Respond(Resp::status(503)),
            Reply::Respond(Resp::html("ok")),
        ]),
    );
    let c = client();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(
            c.get(server.url("/flaky"))
                .send()
                .await
                .expect("GET")
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses, [503, 503, 200, 200]);
    assert_eq!(server.hits("/flaky"), 4);
}

#[tokio::test]
async fn support_basic_auth_is_enforced() {
    let server = TestServer::start();
    server.route(
        "/secret",
        Reply::RequireBasicAuth {
            user: "ann".into(),
            password: "s3cret".into(),
            ok: Box::new(Reply::Respond(Resp::html("inside"))),
        },
    );
    let c = client();
    let anonymous = c.get(server.url("/secret")).send().await.expect("GET");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(header_str(&anonymous, header::WWW_AUTHENTICATE)
        .expect("challenge")
        .starts_with("Basic"));
    let wrong = c
        .get(server.url("/secret"))
        .basic_auth("ann", Some("guess"))
        .send()
        .await
        .expect("GET");
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let right = c
        .get(server.url("/secret"))
        .basic_auth("ann", Some("s3cret"))
        .send()
        .await
        .expect("GET");
    assert_eq!(right.status(), StatusCode::OK);
    assert_eq!(right.text().await.expect("body"), "inside");
    let log = server.requests();
    assert_eq!(
        log[2].header("authorization"),
        Some("Basic YW5uOnMzY3JldA==")
    );
    assert_eq!(crate::support::base64(b"ann:s3cret"), "YW5uOnMzY3JldA==");
    assert_eq!(crate::support::base64(b"a"), "YQ==");
    assert_eq!(crate::support::base64(b"ab"), "YWI=");
}

#[tokio::test]
async fn support_conditional_answers_304() {
    let server = TestServer::start();
    let lm = "Wed, 01 May 2024 10:00:00 GMT";
    server.route(
        "/c",
        Reply::Conditional {
            resp: Resp::html("fresh"),
            last_modified: lm.into(),
            etag: "\"v1\"".into(),
        },
    );
    let c = client();
    let full = c.get(server.url("/c")).send().await.expect("GET");
    assert_eq!(full.status(), StatusCode::OK);
    assert_eq!(header_str(&full, header::ETAG).as_deref(), Some("\"v1\""));
    assert_eq!(
        header_str(&full, header::LAST_MODIFIED).as_deref(),
        Some(lm)
    );
    assert_eq!(full.text().await.expect("body"), "fresh");

    let by_tag = c
        .get(server.url("/c"))
        .header(header::IF_NONE_MATCH, "\"v0\", \"v1\"")
        .send()
        .await
        .expect("GET");
    assert_eq!(by_tag.status(), StatusCode::NOT_MODIFIED);
    assert!(by_tag.bytes().await.expect("body").is_empty());
    let by_date = c
        .get(server.url("/c"))
        .header(header::IF_MODIFIED_SINCE, lm)
        .send()
        .await
        .expect("GET");
    assert_eq!(by_date.status(), StatusCode::NOT_MODIFIED);
    let stale = c
        .get(server.url("/c"))
        .header(header::IF_NONE_MATCH, "\"v0\"")
        .send()
        .await
        .expect("GET");
    assert_eq!(stale.status(), StatusCode::OK);
}

#[tokio::test]
async fn support_slow_bytes_trickle_the_body() {
    let server = TestServer::start();
    let per_byte = Duration::from_millis(25);
    server.route(
        "/slow",
        Reply::SlowBytes {
            resp: Resp::text("0123456789"),
            per_byte,
        },
    );
    let c = client();
    let started = Instant::now();
    let mut resp = c.get(server.url("/slow")).send().await.expect("GET");
    assert_eq!(resp.content_length(), Some(10));
    let mut body = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = resp.chunk().await.expect("chunk") {
        chunks += 1;
        body.extend_from_slice(&chunk);
    }
    let elapsed = started.elapsed();
    assert_eq!(body, b"0123456789");
    assert!(elapsed >= per_byte * 10, "took only {elapsed:?}");
    assert!(chunks >= 2, "the body came in {chunks} piece(s)");
}

#[tokio::test]
async fn support_delay_holds_the_response() {
    let server = TestServer::start();
    let wait = Duration::from_millis(300);
    server.route("/late", Reply::Delay(wait, Resp::html("late")));
    let started = Instant::now();
    let resp = client().get(server.url("/late")).send().await.expect("GET");
    assert_eq!(resp.text().await.expect("body"), "late");
    assert!(started.elapsed() >= wait);
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(50))
        .build()
        .expect("client");
    let err = impatient
        .get(server.url("/late"))
        .send()
        .await
        .expect_err("times out");
    assert!(err.is_timeout(), "{err}");
}

#[tokio::test]
async fn support_reset_mid_body_is_a_client_error() {
    let server = TestServer::start();
    server.route(
        "/cut",
        Reply::ResetMidBody {
            resp: Resp::bytes("application/octet-stream", vec![7u8; 4096]),
            after: 100,
        },
    );
    let resp = client()
        .get(server.url("/cut"))
        .send()
        .await
        .expect("head arrives");
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.content_length(), Some(4096));
    assert!(resp.bytes().await.is_err());
}

#[tokio::test]
async fn support_gzip_round_trips() {
    let server = TestServer::start();
    let text = "the quick brown fox ".repeat(200);
    server.route("/z", Reply::Respond(Resp::html(&text).gzip()));
    // reqwest asks for gzip and inflates it transparently.
    let inflated = client()
        .get(server.url("/z"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert_eq!(inflated, text);
    // On the wire it really is compressed.
    let raw_client = reqwest::Client::builder()
        .no_gzip()
        .build()
        .expect("client");
    let raw = raw_client.get(server.url("/z")).send().await.expect("GET");
    assert_eq!(
        header_str(&raw, header::CONTENT_ENCODING).as_deref(),
        Some("gzip")
    );
    let raw = raw.bytes().await.expect("body");
    assert!(raw.len() < text.len() / 4);
    let mut decoded = String::new();
    flate2::read::GzDecoder::new(&raw[..])
        .read_to_string(&mut decoded)
        .expect("valid gzip");
    assert_eq!(decoded, text);
}

#[test]
fn support_page_helper_builds_a_linked_page() {
    let resp = crate::support::page("A & B", "hello <world>", &["/x", "y.html?a=1&b=2"]);
    let html = String::from_utf8(resp.body).expect("utf8");
    assert!(html.contains("<title>A &amp; B</title>"));
    assert!(html.contains("hello &lt;world&gt;"));
    assert!(html.contains("<a href=\"/x\">link 1</a>"), "{html}");
    assert!(
        html.contains("<a href=\"y.html?a=1&amp;b=2\">link 2</a>"),
        "{html}"
    );
    assert_eq!(resp.status, 200);
    assert!(std::path::Path::new(crate::support::crawlscope().get_program()).exists());
}

/// Keep-alive, pipelining, `Connection: close` and the head size cap, from a
/// plain blocking socket (a sync test needs no runtime of its own).
#[test]
fn support_speaks_http11_on_a_raw_socket() {
    let server = TestServer::start();
    server.route("/a", Reply::Respond(Resp::text("A")));
    server.route("/b", Reply::Respond(Resp::text("BB")));
    let mut sock = std::net::TcpStream::connect(server.addr()).expect("connect");
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    // Two pipelined requests in one write, one with a body to skip.
    sock.write_all(
        b"POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: t\r\n\r\n",
    )
    .expect("write");
    assert_eq!(read_response(&mut sock).2, b"A");
    assert_eq!(read_response(&mut sock).2, b"BB");
    sock.write_all(b"GET /a HTTP/1.1\r\nConnection: close\r\n\r\n")
        .expect("write");
    let (status, headers, _) = read_response(&mut sock);
    assert_eq!(status, 200);
    assert!(headers.contains(&("connection".into(), "close".into())));
    let mut rest = Vec::new();
    assert_eq!(sock.read_to_end(&mut rest).expect("eof"), 0);

    let mut big = std::net::TcpStream::connect(server.addr()).expect("connect");
    big.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let filler = "x".repeat(70 * 1024);
    // The server may answer and close before the whole head is written.
    let _ = write!(big, "GET /a HTTP/1.1\r\nX-Big: {filler}\r\n\r\n");
    assert_eq!(read_response(&mut big).0, 431);

    let mut garbage = std::net::TcpStream::connect(server.addr()).expect("connect");
    garbage
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    garbage.write_all(b"NONSENSE\r\n\r\n").expect("write");
    assert_eq!(read_response(&mut garbage).0, 400);
    assert_eq!(server.hits("/a"), 1, "POST is not a GET hit");
    assert_eq!(server.requests().len(), 3);
}

//! The hyper server that answers for the site: GET and HEAD, conditional
//! requests (304), 404 for every path the site does not have.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::*;

pub(super) type Body = Full<Bytes>;

pub(super) fn respond(site: &DemoSite, req: &Request<hyper::body::Incoming>) -> Response<Body> {
    let method = req.method();
    if method != Method::GET && method != Method::HEAD {
        let mut resp = simple(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        resp.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return resp;
    }
    let path_and_query = req.uri().path_and_query().map_or("/", |pq| pq.as_str());
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
        .and_then(usable_host);
    let Some(resource) = site.resolve(path_and_query) else {
        return not_found(method == Method::HEAD);
    };
    let etag = site.etag(resource, host);
    let modified = last_modified(resource);
    if not_modified(req.headers(), &etag, modified) {
        let mut resp = Response::new(Body::default());
        *resp.status_mut() = StatusCode::NOT_MODIFIED;
        set_validators(resp.headers_mut(), &etag, modified);
        return resp;
    }
    let Some(page) = site.render_inner(path_and_query, host) else {
        return not_found(method == Method::HEAD);
    };
    let len = page.body.len();
    let mut resp = if method == Method::HEAD {
        let mut r = Response::new(Body::default());
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
        r
    } else {
        Response::new(Full::new(page.body))
    };
    *resp.status_mut() = StatusCode::from_u16(page.status).unwrap_or(StatusCode::OK);
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(page.content_type),
    );
    set_validators(headers, &etag, modified);
    resp
}

pub(super) fn set_validators(headers: &mut HeaderMap, etag: &str, modified: SystemTime) {
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(modified)) {
        headers.insert(header::LAST_MODIFIED, v);
    }
}

/// RFC 9110 §13.1: If-None-Match wins over If-Modified-Since when both are sent.
pub(super) fn not_modified(headers: &HeaderMap, etag: &str, modified: SystemTime) -> bool {
    if let Some(inm) = headers.get(header::IF_NONE_MATCH) {
        let Ok(inm) = inm.to_str() else {
            return false;
        };
        return inm
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag);
    }
    headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
        .is_some_and(|since| modified <= since)
}

pub(super) fn not_found(head: bool) -> Response<Body> {
    const BODY: &str = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
        <title>Not found</title></head><body><h1>Not found</h1>\
        <p>There is no such page on the demo site.</p><p><a href=\"/\">Home</a></p></body></html>\n";
    let mut resp = if head {
        let mut r = Response::new(Body::default());
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(BODY.len()));
        r
    } else {
        Response::new(Full::new(Bytes::from_static(BODY.as_bytes())))
    };
    *resp.status_mut() = StatusCode::NOT_FOUND;
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::ETAG, HeaderValue::from_static("\"cs-not-found\""));
    if let Ok(v) = HeaderValue::from_str(&httpdate::fmt_http_date(
        UNIX_EPOCH + Duration::from_secs(SITE_EPOCH_SECS),
    )) {
        headers.insert(header::LAST_MODIFIED, v);
    }
    resp
}

pub(super) fn simple(status: StatusCode, body: &'static str) -> Response<Body> {
    let mut resp = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// Serve the site on an already-bound listener until the future is dropped.
/// Dropping it also ends every open connection. Accept errors (out of file
/// descriptors, aborted handshakes) are waited out, never returned: a demo
/// server that stops under load would make a benchmark lie.
pub async fn serve(listener: TcpListener, site: Arc<DemoSite>) -> std::io::Result<()> {
    // Connections watch this channel; its sender dies with this future.
    let (_alive, alive_rx) = tokio::sync::watch::channel(());
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::Interrupted
                ) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                continue;
            }
        };
        // Small responses on a keep-alive connection must not wait for Nagle.
        let _ = stream.set_nodelay(true);
        let site = Arc::clone(&site);
        let mut alive = alive_rx.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                std::future::ready(Ok::<_, Infallible>(respond(&site, &req)))
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            // Biased: once the server is gone, a request already waiting on
            // this connection must not be answered.
            tokio::select! {
                biased;
                _ = alive.changed() => {}
                _ = conn => {}
            }
        });
    }
}

/// Bind 127.0.0.1:port (0 = any free port) and serve a site of `pages` pages
/// on the current tokio runtime; abort the handle to stop it.
pub async fn spawn(
    port: u16,
    pages: u32,
) -> std::io::Result<(SocketAddr, JoinHandle<std::io::Result<()>>)> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    let addr = listener.local_addr()?;
    let handle = tokio::spawn(serve(listener, Arc::new(DemoSite::new(pages))));
    Ok((addr, handle))
}

//! A `file:` URL answered from disk as a static web server would answer
//! it, so a directory of built files is crawled, checked and reported
//! like the same files served over HTTP: a file is 200 with its type from
//! its extension and its modification time as `Last-Modified`; a
//! directory asked for with its `/` is its `index.html`, without it a 301
//! to the `/` form; anything missing is `404 file not found`, unreadable
//! `403 permission denied`.

use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use url::Url;

use super::exchange::{FailKind, FetchError, Probed, Response};

/// The reason of a missing file or directory index.
pub const NOT_FOUND: &str = "file not found";

/// A GET: the file's bytes up to `max_body`.
pub async fn get(url: &Url, max_body: usize) -> Result<Response, FetchError> {
    let url = url.clone();
    blocking(move || answer(&url, Some(max_body))).await
}

/// A check (a resource, an outside link): status, size and type, and the
/// body when `body` asks for it (a stylesheet to scan).
pub async fn check(url: &Url, max_body: usize, body: bool) -> Result<Probed, FetchError> {
    let url = url.clone();
    let resp = blocking(move || answer(&url, body.then_some(max_body))).await?;
    Ok(Probed {
        status: resp.status,
        reason: resp.reason.clone(),
        size: resp.content_length,
        mime: resp
            .content_type
            .as_deref()
            .and_then(|c| c.split(';').next())
            .map(str::to_string),
        body: (body && !resp.truncated && resp.status == 200).then_some(resp.body),
    })
}

/// Disk reads off the async workers.
async fn blocking(
    read: impl FnOnce() -> Result<Response, FetchError> + Send + 'static,
) -> Result<Response, FetchError> {
    tokio::task::spawn_blocking(read)
        .await
        .map_err(|e| FetchError {
            kind: FailKind::Other,
            reason: format!("file read failed: {e}"),
            retryable: false,
        })?
}

/// The answer for `url`, reading at most `max_body` bytes of the body
/// (none when `None`).
fn answer(url: &Url, max_body: Option<usize>) -> Result<Response, FetchError> {
    let started = Instant::now();
    let Ok(path) = url.to_file_path() else {
        return Err(FetchError {
            kind: FailKind::Other,
            reason: "not a local path".to_string(),
            retryable: false,
        });
    };
    let mut resp = match target(url, path) {
        Ok(Target::File(path)) => read(&path, max_body)?,
        Ok(Target::Slash) => {
            let mut to = url.clone();
            to.set_path(&format!("{}/", url.path()));
            let mut r = status(301, None);
            r.headers.push(("location".to_string(), to.to_string()));
            r.location = Some(to.to_string());
            r
        }
        Err(e) => failed(&e)?,
    };
    resp.elapsed = started.elapsed();
    Ok(resp)
}

/// What a path names, as a static server sees it.
enum Target {
    File(PathBuf),
    /// A directory asked for without its `/`.
    Slash,
}

fn target(url: &Url, path: PathBuf) -> std::io::Result<Target> {
    let meta = std::fs::metadata(&path)?;
    if !meta.is_dir() {
        return Ok(Target::File(path));
    }
    if !url.path().ends_with('/') {
        return Ok(Target::Slash);
    }
    let index = path.join("index.html");
    if std::fs::metadata(&index)?.is_dir() {
        return Err(ErrorKind::NotFound.into());
    }
    Ok(Target::File(index))
}

fn read(path: &Path, max_body: Option<usize>) -> Result<Response, FetchError> {
    let opened = std::fs::File::open(path).and_then(|f| Ok((f.metadata()?, f)));
    let (meta, file) = match opened {
        Ok(opened) => opened,
        Err(e) => return failed(&e),
    };
    let mut resp = status(200, None);
    let len = meta.len();
    let mime = mime_of(path);
    resp.content_type = Some(mime.to_string());
    resp.content_length = Some(len);
    resp.last_modified = meta.modified().ok().map(httpdate::fmt_http_date);
    resp.headers
        .push(("content-type".to_string(), mime.to_string()));
    resp.headers
        .push(("content-length".to_string(), len.to_string()));
    if let Some(lm) = &resp.last_modified {
        resp.headers.push(("last-modified".to_string(), lm.clone()));
    }
    if let Some(max) = max_body {
        let cap = u64::try_from(max).unwrap_or(u64::MAX);
        let mut body = Vec::new();
        if let Err(e) = file.take(cap).read_to_end(&mut body) {
            return failed(&e);
        }
        resp.truncated = len > cap;
        resp.body = body;
    }
    Ok(resp)
}

/// A missing or unreadable path as the status a server would give it;
/// any other error as a failure.
fn failed(e: &std::io::Error) -> Result<Response, FetchError> {
    match e.kind() {
        ErrorKind::NotFound | ErrorKind::NotADirectory => Ok(error_page(404, NOT_FOUND)),
        ErrorKind::PermissionDenied => Ok(error_page(403, "permission denied")),
        _ => Err(FetchError {
            kind: FailKind::Other,
            reason: format!("file read failed: {e}"),
            retryable: false,
        }),
    }
}

/// An error answer as a plain static server gives it: its reason as a
/// short text body.
fn error_page(code: u16, reason: &str) -> Response {
    let mut resp = status(code, Some(reason));
    let body = format!("{code} {reason}");
    let mime = "text/plain; charset=utf-8";
    resp.content_type = Some(mime.to_string());
    resp.content_length = Some(body.len() as u64);
    resp.headers
        .push(("content-type".to_string(), mime.to_string()));
    resp.body = body.into_bytes();
    resp
}

fn status(status: u16, reason: Option<&str>) -> Response {
    Response {
        status,
        reason: reason.map(str::to_string),
        version: "file".to_string(),
        ..Response::default()
    }
}

/// The type a static server names a file by, from its extension; HTML
/// and text in UTF-8 unless a `<meta charset>` says otherwise.
pub fn mime_of(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("html" | "htm") => "text/html",
        Some("xhtml") => "application/xhtml+xml",
        Some("md" | "markdown") => "text/markdown; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("css") => "text/css",
        Some("js" | "mjs") => "text/javascript",
        Some("json") => "application/json",
        Some("xml") => "application/xml",
        Some("pdf") => "application/pdf",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("webp") => "image/webp",
        Some("avif") => "image/avif",
        Some("ico") => "image/x-icon",
        Some("woff") => "font/woff",
        Some("woff2") => "font/woff2",
        Some("ttf") => "font/ttf",
        Some("mp4") => "video/mp4",
        Some("webm") => "video/webm",
        Some("mp3") => "audio/mpeg",
        Some("wasm") => "application/wasm",
        Some("zip") => "application/zip",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(path: &Path) -> Url {
        Url::from_file_path(path).unwrap()
    }

    #[test]
    fn answers_as_a_static_server() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        std::fs::write(dir.path().join("sub/index.html"), "<p>sub</p>").unwrap();
        std::fs::write(dir.path().join("a.css"), "body{}").unwrap();
        let sub = url(&dir.path().join("sub"));
        let moved = answer(&sub, Some(100)).unwrap();
        assert_eq!(moved.status, 301);
        assert_eq!(moved.location, Some(format!("{sub}/")));
        let index = answer(&Url::parse(&format!("{sub}/")).unwrap(), Some(100)).unwrap();
        assert_eq!(
            (index.status, index.body.as_slice()),
            (200, &b"<p>sub</p>"[..])
        );
        assert_eq!(index.content_type.as_deref(), Some("text/html"));
        let empty = Url::parse(&format!("{}/", url(&dir.path().join("empty")))).unwrap();
        for missing in [
            empty,
            url(&dir.path().join("nope.html")),
            url(&dir.path().join("a.css/x")),
        ] {
            let r = answer(&missing, Some(100)).unwrap();
            assert_eq!(
                (r.status, r.reason.as_deref()),
                (404, Some(NOT_FOUND)),
                "{missing}"
            );
        }
        let css = answer(&url(&dir.path().join("a.css")), Some(3)).unwrap();
        assert_eq!((css.body.as_slice(), css.truncated), (&b"bod"[..], true));
        assert_eq!(css.content_length, Some(6));
        assert!(css.last_modified.is_some());
    }
}

//! One page in one tab: a tab opened blank once (every request it makes
//! paused, Fetch domain) and reused page after page, navigated, every
//! request answered by us (images, fonts and media empty: the
//! DOM does not need their bytes, and the crawl checks them as resources
//! apart), watched until it settles or the wait budget is spent, its DOM
//! read, and frozen (its timers and scripts stopped) until the next page
//! navigates it in the same renderer; a tab that failed a page is
//! closed, not reused.
//!
//! It settles when it has loaded and no request of it has been waiting
//! for [`QUIET`]: every request passes through us, so the count is exact
//! (Chromium's own `networkIdle` waits 500 ms and counts sockets). A
//! script that writes the page later than that, with no request between,
//! is not waited for.

use std::time::{Duration, Instant};

use base64::Engine as _;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{json, Value};
use url::Url;

use super::cdp::{Conn, Event};
use super::{Gate, Reply, Served};

/// The most a page may take to load (before `--render-wait-ms` counts).
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a loaded page's network must stay quiet to be settled.
pub const QUIET: Duration = Duration::from_millis(200);

/// Requests whose bytes the DOM does not need, answered empty.
const UNREAD: [&str; 3] = ["Image", "Font", "Media"];

/// Resolves once the page's main thread has nothing left to run (or
/// after a second of work, at most).
const MAIN_THREAD_IDLE: &str =
    "new Promise(function (done) { requestIdleCallback(done, {timeout: 1000}); })";

/// Reads the DOM as scripts left it.
const OUTER_HTML: &str = "document.documentElement ? document.documentElement.outerHTML : ''";

/// A browser tab with its protocol session, its events, and Fetch and
/// lifecycle events enabled.
pub struct Tab {
    target_id: String,
    session: String,
    events: tokio::sync::mpsc::UnboundedReceiver<Event>,
}

impl Tab {
    pub async fn open(conn: &Conn) -> Result<Tab, String> {
        let target = conn
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await?;
        let target_id = str_field(&target, "targetId")?.to_string();
        let tab = match attach(conn, &target_id).await {
            Ok(session) => Tab {
                events: conn.listen(&session),
                target_id,
                session,
            },
            Err(e) => {
                close_target(conn, &target_id).await;
                return Err(e);
            }
        };
        match tab.enable(conn).await {
            Ok(()) => Ok(tab),
            Err(e) => {
                tab.close(conn).await;
                Err(e)
            }
        }
    }

    async fn enable(&self, conn: &Conn) -> Result<(), String> {
        let s = Some(self.session.as_str());
        conn.call(
            s,
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
        )
        .await?;
        conn.call(s, "Page.enable", json!({})).await?;
        conn.call(
            s,
            "Page.setLifecycleEventsEnabled",
            json!({"enabled": true}),
        )
        .await?;
        Ok(())
    }

    /// Renders `url` in this tab: its own request answered with `served`,
    /// every other one by `gate`. The DOM after the page settled, or why
    /// there is none.
    pub async fn render(
        &mut self,
        conn: &Conn,
        url: &Url,
        served: &Served<'_>,
        wait: Duration,
        gate: &dyn Gate,
    ) -> Result<String, String> {
        // What the last page left unanswered is cut by the navigation.
        while self.events.try_recv().is_ok() {}
        self.lifecycle(conn, "active").await?;
        let session = self.session.clone();
        drive(conn, &session, &mut self.events, url, served, wait, gate).await
    }

    /// Freezes the page between two renderings: its timers and scripts
    /// stop (a page that polls would spend the cores while the tab
    /// waits), and the next navigation stays in the same renderer.
    pub async fn rest(&self, conn: &Conn) -> Result<(), String> {
        self.lifecycle(conn, "frozen").await
    }

    async fn lifecycle(&self, conn: &Conn, state: &str) -> Result<(), String> {
        let s = Some(self.session.as_str());
        conn.call(s, "Page.setWebLifecycleState", json!({"state": state}))
            .await
            .map(drop)
    }

    /// Closes the tab: a tab left open would keep its scripts running.
    pub async fn close(self, conn: &Conn) {
        conn.forget(&self.session);
        close_target(conn, &self.target_id).await;
    }
}

async fn attach(conn: &Conn, target_id: &str) -> Result<String, String> {
    let attached = conn
        .call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
        )
        .await?;
    Ok(str_field(&attached, "sessionId")?.to_string())
}

async fn close_target(conn: &Conn, target_id: &str) {
    let _ = conn
        .call(None, "Target.closeTarget", json!({"targetId": target_id}))
        .await;
}

async fn drive(
    conn: &Conn,
    session: &str,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>,
    url: &Url,
    served: &Served<'_>,
    wait: Duration,
    gate: &dyn Gate,
) -> Result<String, String> {
    let s = Some(session);
    // The wait budget counts from the load event; before it, a browser
    // starting cold on a busy host gets a fixed allowance.
    let mut deadline = tokio::time::Instant::now() + LOAD_TIMEOUT;
    let mut loaded_at: Option<Instant> = None;
    // The navigation is answered through the events below, so it is
    // awaited beside them.
    let navigate = conn.call(s, "Page.navigate", json!({"url": url.as_str()}));
    tokio::pin!(navigate);
    let mut loader: Option<String> = None;
    let mut navigated = false;
    let mut answering = FuturesUnordered::new();
    // When the last request was paused or answered.
    let mut active = tokio::time::Instant::now();
    // A quiet network is confirmed by the page's main thread going idle
    // with no request made meanwhile: on a busy host a script can take
    // longer than the quiet window to ask for what it needs.
    let mut checking: Option<(tokio::time::Instant, _)> = None;
    loop {
        let settled = active + QUIET;
        let idle = loaded_at.is_some() && answering.is_empty() && checking.is_none();
        // Biased: the navigation's answer is read before the events that
        // followed it, which need its loader id.
        tokio::select! {
            biased;
            r = &mut navigate, if !navigated => {
                navigated = true;
                let r = r?;
                if let Some(e) = r.get("errorText").and_then(Value::as_str) {
                    return Err(format!("navigation failed: {e}"));
                }
                loader = r.get("loaderId").and_then(Value::as_str).map(str::to_string);
            }
            ev = events.recv() => {
                let Some(ev) = ev else { return Err("the browser is gone".into()) };
                match ev.method.as_str() {
                    "Fetch.requestPaused" => {
                        active = tokio::time::Instant::now();
                        answering.push(answer(conn, session, ev.params, url, served, gate));
                    }
                    "Page.lifecycleEvent" if navigated && ours(&ev.params, loader.as_deref()) => {
                        match ev.params.get("name").and_then(Value::as_str) {
                            Some("load") => {
                                loaded_at = Some(Instant::now());
                                deadline = tokio::time::Instant::now() + wait;
                            }
                            Some("networkIdle") => break,
                            _ => {}
                        }
                    }
                    "Inspector.targetCrashed" => return Err("the tab crashed".into()),
                    _ => {}
                }
            }
            Some(()) = answering.next(), if !answering.is_empty() => {
                active = tokio::time::Instant::now();
            }
            _ = tokio::time::sleep_until(settled), if idle => {
                checking = Some((active, Box::pin(conn.call(s, "Runtime.evaluate", json!({
                    "expression": MAIN_THREAD_IDLE,
                    "awaitPromise": true,
                })))));
            }
            r = async {
                match checking.as_mut() {
                    Some((since, check)) => (*since, check.await),
                    None => std::future::pending().await,
                }
            }, if checking.is_some() => {
                checking = None;
                let (since, idle) = r;
                idle?;
                if since == active && answering.is_empty() {
                    break;
                }
            }
            _ = tokio::time::sleep_until(deadline) => {
                return Err(match loaded_at {
                    Some(at) => format!(
                        "timeout: the network was not idle {} ms after load",
                        at.elapsed().as_millis()
                    ),
                    None => format!("timeout: not loaded within {} s", LOAD_TIMEOUT.as_secs()),
                });
            }
        }
    }
    let dom = conn
        .call(
            s,
            "Runtime.evaluate",
            json!({"expression": OUTER_HTML, "returnByValue": true}),
        )
        .await?;
    dom.pointer("/result/value")
        .and_then(Value::as_str)
        .map(|html| format!("<!DOCTYPE html>{html}"))
        .ok_or_else(|| "the DOM could not be read".to_string())
}

/// Who answers a paused request.
#[derive(Debug, PartialEq)]
enum Route {
    /// Empty: the DOM does not need its bytes ([`UNREAD`]).
    Empty,
    /// The page itself: its body as served.
    Page,
    /// The crawl's rules ([`Gate`]), for this URL (its fragment dropped).
    Gate(Url),
    /// Not sent.
    Refuse,
}

/// Routes a paused request (`Fetch.requestPaused`'s params) of `page`.
fn route(params: &Value, page: &Url) -> Route {
    let method = params.pointer("/request/method").and_then(Value::as_str);
    let url = params
        .pointer("/request/url")
        .and_then(Value::as_str)
        .and_then(|u| Url::parse(u).ok());
    let unread =
        (params.get("resourceType").and_then(Value::as_str)).is_some_and(|t| UNREAD.contains(&t));
    match (method, url) {
        (Some("GET"), Some(_)) if unread => Route::Empty,
        (Some("GET"), Some(mut u)) => {
            u.set_fragment(None);
            if u == *page {
                Route::Page
            } else {
                Route::Gate(u)
            }
        }
        // A crawler only reads: a script's POST is not sent for it.
        _ => Route::Refuse,
    }
}

/// Answers one paused request: the page itself from the served body, any
/// other through the crawl's rules.
async fn answer(
    conn: &Conn,
    session: &str,
    params: Value,
    page: &Url,
    served: &Served<'_>,
    gate: &dyn Gate,
) {
    let Some(id) = params.get("requestId").and_then(Value::as_str) else {
        return;
    };
    let reply = match route(&params, page) {
        Route::Empty => Reply::Serve {
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
        },
        Route::Page => Reply::Serve {
            status: served.status,
            headers: served.headers.to_vec(),
            body: served.body.to_vec(),
        },
        Route::Gate(url) => gate.request(url).await,
        Route::Refuse => Reply::Refuse,
    };
    let (method, args) = match reply {
        Reply::Serve {
            status,
            headers,
            body,
        } => (
            "Fetch.fulfillRequest",
            json!({
                "requestId": id,
                "responseCode": status,
                "responseHeaders": headers
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "content-length" | "content-encoding" | "transfer-encoding"))
                    .map(|(k, v)| json!({"name": k, "value": v}))
                    .collect::<Vec<_>>(),
                "body": base64::engine::general_purpose::STANDARD.encode(body),
            }),
        ),
        Reply::Refuse => (
            "Fetch.failRequest",
            json!({"requestId": id, "errorReason": "BlockedByClient"}),
        ),
    };
    let _ = conn.call(Some(session), method, args).await;
}

/// Whether a lifecycle event is of our navigation (not the blank page's).
fn ours(params: &Value, loader: Option<&str>) -> bool {
    loader.is_some() && params.get("loaderId").and_then(Value::as_str) == loader
}

fn str_field<'a>(v: &'a Value, name: &str) -> Result<&'a str, String> {
    v.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the browser's answer had no {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused(method: &str, url: &str, kind: &str) -> Value {
        json!({"requestId": "7", "request": {"method": method, "url": url}, "resourceType": kind})
    }

    #[test]
    fn only_a_get_leaves_the_tab_and_only_through_the_gate() {
        let page = Url::parse("http://h/p").unwrap();
        let app = Url::parse("http://h/app.js").unwrap();
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"] {
            for kind in ["XHR", "Fetch", "Document", "Image"] {
                let params = paused(method, "http://h/app.js", kind);
                assert_eq!(route(&params, &page), Route::Refuse, "{method} {kind}");
            }
        }
        let route_of = |url: &str, kind: &str| route(&paused("GET", url, kind), &page);
        assert_eq!(route_of("http://h/app.js#x", "Script"), Route::Gate(app));
        assert_eq!(route_of("http://h/p#top", "Document"), Route::Page);
        assert_eq!(route_of("http://h/logo.png", "Image"), Route::Empty);
        assert_eq!(route_of("not a url", "Script"), Route::Refuse);
        let no_method = json!({"requestId": "7", "request": {"url": "http://h/app.js"}});
        assert_eq!(route(&no_method, &page), Route::Refuse);
    }
}

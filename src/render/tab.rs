//! One page in one tab: opened blank, every request it makes paused
//! (Fetch domain) and answered by us, navigated, watched until its network
//! is idle or the wait budget is spent, its DOM read, and closed whatever
//! happened.

use std::time::{Duration, Instant};

use base64::Engine as _;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{json, Value};
use url::Url;

use super::cdp::{Conn, Event};
use super::{Gate, Reply, Served};

/// The most a page may take to load (before `--render-wait-ms` counts).
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Reads the DOM as scripts left it.
const OUTER_HTML: &str = "document.documentElement ? document.documentElement.outerHTML : ''";

/// Renders `url` in a new tab of `conn`: its own request answered with
/// `served`, every other one by `gate`. The DOM after the network went
/// idle, or why there is none.
pub async fn render(
    conn: &Conn,
    url: &Url,
    served: &Served<'_>,
    wait: Duration,
    gate: &dyn Gate,
) -> Result<String, String> {
    let target = conn
        .call(None, "Target.createTarget", json!({"url": "about:blank"}))
        .await?;
    let target_id = str_field(&target, "targetId")?.to_string();
    let result = match attach(conn, &target_id).await {
        Ok(session) => {
            let mut events = conn.listen(&session);
            let r = drive(conn, &session, &mut events, url, served, wait, gate).await;
            conn.forget(&session);
            r
        }
        Err(e) => Err(e),
    };
    // A tab left open would keep its scripts running.
    let _ = conn
        .call(None, "Target.closeTarget", json!({"targetId": target_id}))
        .await;
    result
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
    loop {
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
            Some(()) = answering.next(), if !answering.is_empty() => {}
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
    let method = params.pointer("/request/method").and_then(Value::as_str);
    let url = params
        .pointer("/request/url")
        .and_then(Value::as_str)
        .and_then(|u| Url::parse(u).ok());
    let reply = match (method, url) {
        (Some("GET"), Some(mut u)) => {
            u.set_fragment(None);
            if u == *page {
                Reply::Serve {
                    status: served.status,
                    headers: served.headers.to_vec(),
                    body: served.body.to_vec(),
                }
            } else {
                gate.request(u).await
            }
        }
        // A crawler only reads: a script's POST is not sent for it.
        _ => Reply::Refuse,
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

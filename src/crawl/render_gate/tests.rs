//! The gate a rendered page's requests pass ([`PageGate`]), against real
//! loopback servers and a real store: what it fetches (its page's origin,
//! through the crawl's own client, counted in the origin's figures; other
//! origins only with `--check-external`, and without the point's
//! credentials) and what it refuses unasked (robots.txt, excludes, the
//! scope, other origins), within the origin's politeness (its slot, the
//! robots Crawl-delay, a throttle's pause).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::time::Instant;
use url::Url;

use super::{PageGate, Plan};
use crate::crawl::analyzers::PointParsing;
use crate::crawl::ctx::{credentials, Ctx};
use crate::crawl::fetch::Fetcher;
use crate::crawl::link_auth::LinkAuth;
use crate::crawl::msg::{Outcome, WriterMsg};
use crate::crawl::origins::{OriginState, Origins};
use crate::crawl::pause::Pause;
use crate::crawl::policy::PointRun;
use crate::crawl::pool::ParsePool;
use crate::crawl::request_rules::RequestRules;
use crate::crawl::robots::RobotsCache;
use crate::crawl::sitemaps::Sitemaps;
use crate::crawl::stop::Stop;
use crate::crawl::writer::Counters;
use crate::crawl::CrawlConfig;
use crate::render::{Gate, Reply};
use crate::store::{Exchange, PointRecord, Store};

const POINT: u32 = 1;

/// A request as a [`Site`] received it.
struct Asked {
    path: String,
    /// The head's lines after the request line, names lowercased.
    headers: Vec<(String, String)>,
    at: Instant,
}

/// A loopback HTTP server with a fixed answer per path (404 for any
/// other), keeping every request it is asked. (The integration tests'
/// `TestServer` lives in another crate, out of a unit test's reach.)
struct Site {
    addr: SocketAddr,
    asked: Arc<Mutex<Vec<Asked>>>,
}

impl Site {
    /// Serves `routes`: path, status, extra header lines, body.
    async fn start(routes: &[(&str, u16, &str, &str)]) -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let routes: Arc<HashMap<String, (u16, String, String)>> = Arc::new(
            routes
                .iter()
                .map(|(p, s, h, b)| (p.to_string(), (*s, h.to_string(), b.to_string())))
                .collect(),
        );
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                let (routes, log) = (routes.clone(), log.clone());
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match conn.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&head).into_owned();
                    let mut lines = head.lines();
                    let path = (lines.next().unwrap_or_default().split(' ').nth(1))
                        .unwrap_or_default()
                        .to_string();
                    let headers = lines
                        .filter_map(|l| l.split_once(": "))
                        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
                        .collect();
                    let (status, extra, body) =
                        routes
                            .get(&path)
                            .cloned()
                            .unwrap_or((404, String::new(), String::new()));
                    log.lock().unwrap().push(Asked {
                        path,
                        headers,
                        at: Instant::now(),
                    });
                    let reply = format!(
                        "HTTP/1.1 {status} X\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = conn.write_all(reply.as_bytes()).await;
                });
            }
        });
        Site { addr, asked }
    }

    fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://{}{path}", self.addr)).unwrap()
    }

    fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The paths asked so far, in order.
    fn paths(&self) -> Vec<String> {
        let asked = self.asked.lock().unwrap();
        asked.iter().map(|a| a.path.clone()).collect()
    }

    fn header(&self, path: &str, name: &str) -> Option<String> {
        let asked = self.asked.lock().unwrap();
        let a = asked.iter().find(|a| a.path == path)?;
        a.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    fn at(&self, path: &str) -> Instant {
        let asked = self.asked.lock().unwrap();
        asked.iter().find(|a| a.path == path).unwrap().at
    }
}

/// A crawl's shared context for one point (`rec`), as `engine::start`
/// builds it, on a store in a temporary directory; and what the gate
/// sends the writer.
struct Crawl {
    ctx: Ctx,
    plan: Plan,
    writes: std::sync::mpsc::Receiver<WriterMsg>,
    _dir: tempfile::TempDir,
}

impl Crawl {
    fn new(rec: PointRecord, cfg: CrawlConfig) -> Crawl {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("store")).unwrap());
        let (writer, writes) = std::sync::mpsc::channel();
        let pause = Arc::new(Pause::default());
        let rules = Arc::new(RequestRules::of(&rec, Vec::new()));
        let ctx = Ctx {
            fetcher: Fetcher::new(&cfg, &[]).unwrap(),
            robots: RobotsCache::default(),
            origins: Origins::new(cfg.per_host, cfg.delay, pause.clone()),
            sitemaps: Sitemaps::default(),
            agent: cfg.robots_agent().to_ascii_lowercase().into(),
            creds: RwLock::new(HashMap::from([(POINT, credentials(&rec).unwrap())])),
            request_rules: RwLock::new(HashMap::from([(POINT, rules)])),
            writer,
            events: tokio::sync::mpsc::unbounded_channel().0,
            parsers: ParsePool::new(1).unwrap(),
            stop: Stop::default(),
            pause,
            link_auth: LinkAuth::default(),
            counters: Arc::new(Counters::default()),
            parsing: PointParsing::default(),
            render: Default::default(),
            shared_robots: None,
            store,
            cfg,
        };
        let plan = Plan {
            auto: false,
            wait: Duration::ZERO,
            run: PointRun::of(&rec),
            check_external: rec.check_external,
        };
        Crawl {
            ctx,
            plan,
            writes,
            _dir: dir,
        }
    }

    /// The gate of a page of `site`.
    fn gate(&self, site: &Site) -> PageGate<'_> {
        PageGate {
            ctx: &self.ctx,
            point: POINT,
            plan: &self.plan,
            origin: site.origin(),
        }
    }

    /// The requests the writer was told of: origin and how each went.
    fn exchanges(&self) -> Vec<(String, Exchange)> {
        self.writes
            .try_iter()
            .filter_map(|m| match m {
                WriterMsg::Outcome(Outcome::Exchanged { origin, how, .. }) => Some((origin, how)),
                _ => None,
            })
            .collect()
    }
}

/// A point crawling `site` from its home, robots.txt obeyed.
fn point(site: &Site) -> PointRecord {
    PointRecord {
        url: site.url("/").to_string(),
        root: site.url("/").to_string(),
        ..Default::default()
    }
}

/// The body served, or None when refused.
fn served(reply: Reply) -> Option<(u16, String)> {
    match reply {
        Reply::Serve { status, body, .. } => Some((status, String::from_utf8(body).unwrap())),
        Reply::Refuse => None,
    }
}

const ROBOTS: &str = "User-agent: *\nDisallow: /app/private/\n";

#[tokio::test]
async fn the_page_s_origin_is_fetched_by_the_crawl_s_client_and_counted() {
    let site = Site::start(&[
        ("/robots.txt", 200, "", ROBOTS),
        ("/app.js", 200, "content-type: text/javascript\r\n", "run()"),
    ])
    .await;
    let crawl = Crawl::new(point(&site), CrawlConfig::default());
    let gate = crawl.gate(&site);
    let reply = gate.request(site.url("/app.js")).await;
    let Reply::Serve { headers, .. } = &reply else {
        panic!("refused");
    };
    assert!(headers.contains(&("content-type".into(), "text/javascript".into())));
    assert_eq!(served(reply), Some((200, "run()".into())));
    // A missing file is the page's to handle: served as the site answers.
    assert_eq!(
        served(gate.request(site.url("/gone.js")).await),
        Some((404, String::new()))
    );
    assert_eq!(site.paths(), ["/robots.txt", "/app.js", "/gone.js"]);
    let agent = site.header("/app.js", "user-agent");
    assert_eq!(agent.as_deref(), Some(crate::crawl::DEFAULT_USER_AGENT));
    let origin = site.origin();
    assert_eq!(
        crawl.exchanges(),
        [(origin.clone(), Exchange::Ok), (origin, Exchange::Failed)]
    );
}

#[tokio::test]
async fn what_robots_txt_excludes_or_the_scope_leaves_out_is_refused_unasked() {
    let site = Site::start(&[("/robots.txt", 200, "", ROBOTS)]).await;
    let mut rec = point(&site);
    rec.root = site.url("/app/").to_string();
    rec.excludes = vec![site.url("/app/skip/").to_string()];
    rec.exclude_regex = vec![r"\.woff2$".into()];
    let crawl = Crawl::new(rec, CrawlConfig::default());
    let gate = crawl.gate(&site);
    for path in [
        "/app/private/x.js",
        "/app/skip/x.js",
        "/app/font.woff2",
        "/elsewhere.js",
    ] {
        assert_eq!(served(gate.request(site.url(path)).await), None, "{path}");
    }
    // Refused by the point's rules before robots.txt is even needed, but
    // for the one URL robots.txt is asked about.
    assert_eq!(site.paths(), ["/robots.txt"]);
    assert!(crawl.exchanges().is_empty());
}

#[tokio::test]
async fn another_origin_is_fetched_only_with_check_external_and_without_the_point_s_credentials() {
    let site = Site::start(&[("/app.js", 200, "", "own")]).await;
    let other = Site::start(&[("/lib.js", 200, "", "theirs")]).await;
    let mut rec = point(&site);
    rec.user = Some("ann".into());
    rec.password = Some("pw".into());
    // A cookie of the host, which both servers are: the jar alone would
    // send it to either port.
    let jar = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(jar.path(), "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n").unwrap();
    rec.cookie_jar = Some(jar.path().to_string_lossy().into_owned());
    let crawl = Crawl::new(rec.clone(), CrawlConfig::default());
    assert_eq!(
        served(crawl.gate(&site).request(other.url("/lib.js")).await),
        None
    );
    assert!(other.paths().is_empty());

    rec.check_external = true;
    let crawl = Crawl::new(rec, CrawlConfig::default());
    let gate = crawl.gate(&site);
    assert_eq!(
        served(gate.request(other.url("/lib.js")).await),
        Some((200, "theirs".into()))
    );
    assert_eq!(
        served(gate.request(site.url("/app.js")).await),
        Some((200, "own".into()))
    );
    // Basic "ann:pw": the point's own origin only.
    let basic = Some("Basic YW5uOnB3".to_string());
    assert_eq!(site.header("/app.js", "authorization"), basic);
    assert_eq!(site.header("/robots.txt", "authorization"), basic);
    assert_eq!(other.header("/lib.js", "authorization"), None);
    assert_eq!(other.header("/robots.txt", "authorization"), None);
    let cookie = Some("session=abc".to_string());
    assert_eq!(site.header("/app.js", "cookie"), cookie);
    assert_eq!(other.header("/lib.js", "cookie"), None);
}

#[tokio::test]
async fn a_request_waits_for_the_origin_s_slot_and_keeps_its_crawl_delay() {
    let site = Site::start(&[
        ("/robots.txt", 200, "", "User-agent: *\nCrawl-delay: 0.5\n"),
        ("/a.js", 200, "", "a"),
        ("/b.js", 200, "", "b"),
    ])
    .await;
    let cfg = CrawlConfig {
        per_host: 1,
        ..Default::default()
    };
    let crawl = Crawl::new(point(&site), cfg);
    let gate = crawl.gate(&site);
    // The page's own request holds the origin's one slot: its
    // subrequest waits for it, asked only once the slot is free.
    let held = crawl.ctx.origins.acquire(&site.origin(), None).await;
    let mut first = gate.request(site.url("/a.js"));
    let waited = tokio::time::timeout(Duration::from_millis(300), &mut first).await;
    assert!(waited.is_err(), "served while the slot was held");
    assert!(!site.paths().contains(&"/a.js".to_string()));
    drop(held);
    assert_eq!(served(first.await), Some((200, "a".into())));
    // robots.txt's Crawl-delay apart.
    assert_eq!(
        served(gate.request(site.url("/b.js")).await),
        Some((200, "b".into()))
    );
    let gap = site.at("/b.js") - site.at("/a.js");
    assert!(gap >= Duration::from_millis(475), "{gap:?}");
}

#[tokio::test]
async fn a_throttle_refuses_the_request_and_pauses_the_origin() {
    let site = Site::start(&[("/busy.js", 429, "retry-after: 30\r\n", "")]).await;
    let crawl = Crawl::new(point(&site), CrawlConfig::default());
    let gate = crawl.gate(&site);
    assert_eq!(served(gate.request(site.url("/busy.js")).await), None);
    let origin = site.origin();
    assert!(matches!(
        crawl.ctx.origins.state(&origin),
        OriginState::Throttled { .. }
    ));
    assert_eq!(crawl.exchanges(), [(origin, Exchange::Throttled)]);
    assert_eq!(site.paths(), ["/robots.txt", "/busy.js"], "not asked again");
}

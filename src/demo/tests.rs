//! The demo site's promises: its shape, determinism and word statistics.

use super::*;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, UNIX_EPOCH};

const HOST: &str = "127.0.0.1:8080";

fn hrefs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("href=\"") {
        rest = &rest[i + 6..];
        let Some(end) = rest.find('"') else { break };
        out.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    out
}

/// BFS over render_for_host from "/", as a crawler that obeys robots.txt
/// would; returns (HTML pages, other files, max depth).
fn crawl(site: &DemoSite) -> (HashSet<String>, HashSet<String>, usize) {
    let base = ::url::Url::parse(&format!("http://{HOST}/")).expect("base");
    let mut seen = HashSet::from(["/".to_string()]);
    let mut queue = VecDeque::from([("/".to_string(), 0usize)]);
    let (mut html, mut files, mut max_depth) = (HashSet::new(), HashSet::new(), 0);
    while let Some((path, depth)) = queue.pop_front() {
        let resp = site
            .render_for_host(HOST, &path)
            .unwrap_or_else(|| panic!("site links to missing {path}"));
        assert_eq!(resp.status, 200);
        if !resp.content_type.starts_with("text/html") {
            files.insert(path);
            continue;
        }
        max_depth = max_depth.max(depth);
        let page_url = base.join(&path).expect("join");
        let body = std::str::from_utf8(&resp.body).expect("utf8");
        let links = hrefs(body);
        assert!(
            (10..=30).contains(&links.len()),
            "{path} has {} links",
            links.len()
        );
        html.insert(path);
        for href in links {
            let url = page_url.join(&href).expect("href resolves");
            if url.scheme() != "http" || url.host_str() != Some("127.0.0.1") {
                continue;
            }
            let target = url.path().to_string();
            assert!(url.query().is_none());
            if target.starts_with("/private/") {
                assert!(site.render(&target).is_none());
                continue;
            }
            if seen.insert(target.clone()) {
                queue.push_back((target, depth + 1));
            }
        }
    }
    (html, files, max_depth)
}

#[test]
fn vocabulary_is_large_distinct_and_plain() {
    let v = vocab();
    assert!(v.words.len() >= 2000, "{}", v.words.len());
    let distinct: HashSet<_> = v.words.iter().collect();
    assert_eq!(distinct.len(), v.words.len());
    assert!(v
        .words
        .iter()
        .all(|w| w.bytes().all(|b| b.is_ascii_lowercase())));
    assert_eq!(v.words[0], "the");
    assert_eq!(v.words[FUNCTION_WORD_COUNT - 1], "much");
    assert!(!v.words.contains(&SCRIPT_MARKER) && !v.words.contains(&STYLE_MARKER));
}

#[test]
fn pages_are_deterministic() {
    let a = DemoSite::new(1000);
    let b = DemoSite::new(1000);
    for n in [0, 1, 2, 3, 7, 99, 999] {
        let path = a.path_of(n);
        let x = a.render_for_host(HOST, &path).expect("page");
        let y = b.render_for_host(HOST, &path).expect("page");
        assert_eq!(x.body, y.body);
        assert_eq!(x.last_modified, y.last_modified);
        assert_eq!(
            a.render(&path).expect("page").body,
            a.render(&path).expect("page").body
        );
    }
    assert_ne!(
        a.render("/p/1.html").expect("page").body,
        a.render("/docs/2.html").expect("page").body
    );
}

#[test]
fn every_page_is_reachable_and_nothing_else() {
    for pages in [1, 7, 250] {
        let site = DemoSite::new(pages);
        let (html, files, depth) = crawl(&site);
        assert_eq!(html.len(), pages as usize, "pages={pages}");
        let expected: HashSet<String> = (0..pages).map(|n| site.path_of(n)).collect();
        assert_eq!(html, expected);
        let expected_files: HashSet<String> = site.file_paths().collect();
        assert_eq!(files, expected_files, "pages={pages}");
        // Children of n are 10n+1..: depth of the last page is its digit count.
        let bound = pages.saturating_sub(1).to_string().len();
        assert!(depth <= bound, "pages={pages} depth={depth}");
    }
    assert_eq!(DemoSite::new(250).file_paths().count(), 25 + 10);
}

#[test]
fn only_canonical_paths_exist() {
    let site = DemoSite::new(50);
    for n in 0..50 {
        assert!(site.render(&site.path_of(n)).is_some(), "{n}");
    }
    for bad in [
        "/p/50.html",
        "/p/0.html",
        "/p/01.html",
        "/docs/1.html",
        "/p/1.html?x=1",
        "/?",
        "/p/1.htm",
        "/p/",
        "/p/-1.html",
        "/p/+1.html",
        "/p/99999999999999999999.html",
        "/private/1.html",
        "/files/4.txt",
        "/files/53.txt",
        "/files/3.bin",
        "/files/.txt",
        "",
        "index.html",
        "/robots.txt?x",
    ] {
        assert!(site.render(bad).is_none(), "{bad}");
    }
    let robots = site.render("/robots.txt").expect("robots");
    assert_eq!(&robots.body[..], ROBOTS_TXT.as_bytes());
    let txt = site.render("/files/3.txt").expect("txt");
    assert!(txt.content_type.starts_with("text/plain"));
    let words = std::str::from_utf8(&txt.body)
        .expect("utf8")
        .split_whitespace()
        .count();
    assert!((200..=400).contains(&words), "{words}");
    let bin = site.render("/files/7.bin").expect("bin");
    assert_eq!(bin.content_type, "application/octet-stream");
    assert!((2048..6144).contains(&bin.body.len()));
}

#[test]
fn words_of_are_the_visible_body_text() {
    let site = DemoSite::new(500);
    for n in [0, 1, 2, 3, 42, 499] {
        let resp = site.render_for_host(HOST, &site.path_of(n)).expect("page");
        let html = std::str::from_utf8(&resp.body).expect("utf8");
        let body = &html[html.find("<body>").expect("body")..];
        let body = &body[..body.find("<script>").expect("script")];
        let mut text = String::new();
        let mut in_tag = false;
        for c in body.chars() {
            match c {
                '<' => in_tag = true,
                '>' => {
                    in_tag = false;
                    text.push(' ');
                }
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        let seen: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect();
        let expected: Vec<&str> = site.words_of(n).collect();
        assert_eq!(seen, expected, "page {n}");
        let body_words = expected.len() - title_words(n).len();
        assert!((300..=1200).contains(&body_words));
        assert!(html.contains(&format!("<title>{}</title>", site.title_of(n))));
        assert!(site.title_of(n).ends_with(&format!(" page {n}")));
        assert!(html.contains(SCRIPT_MARKER) && html.contains(STYLE_MARKER));
        assert!(!text.contains(SCRIPT_MARKER) && !text.contains(STYLE_MARKER));
        for meta in [
            "name=\"description\"",
            "name=\"keywords\"",
            "name=\"author\"",
            "property=\"og:title\"",
        ] {
            assert!(html.contains(meta), "{meta}");
        }
    }
}

#[test]
fn links_come_in_every_form() {
    let site = DemoSite::new(10_000);
    let mut all = Vec::new();
    for n in 0..200 {
        let resp = site.render_for_host(HOST, &site.path_of(n)).expect("page");
        all.extend(hrefs(std::str::from_utf8(&resp.body).expect("utf8")));
    }
    let has = |pred: &dyn Fn(&str) -> bool| all.iter().any(|h| pred(h));
    assert!(has(&|h| h.starts_with("../")));
    assert!(has(&|h| h.starts_with("./")));
    assert!(has(&|h| h.as_bytes()[0].is_ascii_digit()));
    assert!(has(&|h| h.starts_with('/')));
    assert!(has(&|h| h.starts_with(&format!("http://{HOST}/"))));
    assert!(has(&|h| h.contains('#')));
    assert!(has(&|h| h.starts_with("mailto:")));
    assert!(has(&|h| h.starts_with(OFF_SITE)));
    // Without a Host, nothing points at a made-up origin.
    let plain = site.render("/p/1.html").expect("page");
    let plain = std::str::from_utf8(&plain.body).expect("utf8");
    assert!(hrefs(plain)
        .iter()
        .all(|h| !h.starts_with("http://") || h.starts_with(OFF_SITE)));
    // A hostile Host header is not echoed into the page.
    let evil = site
        .render_for_host("x\"><script>", "/p/1.html")
        .expect("page");
    assert_eq!(evil.body, site.render("/p/1.html").expect("page").body);
}

#[test]
fn word_frequencies_are_zipf_like() {
    let site = DemoSite::new(1000);
    let mut freq: HashMap<&str, usize> = HashMap::new();
    for n in 0..300 {
        for w in site.words_of(n) {
            *freq.entry(w).or_default() += 1;
        }
    }
    let mut counts: Vec<usize> = freq.values().copied().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let top = counts[0];
    let median = counts[counts.len() / 2];
    assert!(top > 50 * median, "top {top} median {median}");
    assert!(freq.len() > 1500, "only {} distinct words", freq.len());
    let total: usize = counts.iter().sum();
    assert!(top * 4 < total, "the top word is {top} of {total}");
}

#[test]
fn average_page_is_around_six_kilobytes() {
    let site = DemoSite::new(100_000);
    let sample = 2000u32;
    let bytes: usize = (0..sample)
        .map(|i| {
            let n = i * 50 + 1;
            site.render_for_host(HOST, &site.path_of(n))
                .expect("page")
                .body
                .len()
        })
        .sum();
    let avg = bytes / sample as usize;
    assert!((4096..=8192).contains(&avg), "average {avg} bytes");
}

#[test]
fn dates_and_validators_are_stable() {
    let site = DemoSite::new(100);
    let lm0 = site.render("/").expect("page").last_modified;
    let lm1 = site.render("/p/1.html").expect("page").last_modified;
    assert_eq!(lm0, UNIX_EPOCH + Duration::from_secs(SITE_EPOCH_SECS));
    assert_eq!(lm0.duration_since(lm1).ok(), Some(Duration::from_secs(60)));
    let e1 = site.etag(Resource::Page(1), Some(HOST));
    assert_eq!(e1, site.etag(Resource::Page(1), Some(HOST)));
    assert_ne!(e1, site.etag(Resource::Page(2), Some(HOST)));
    assert_ne!(e1, site.etag(Resource::Page(1), None));
    assert_ne!(e1, DemoSite::new(101).etag(Resource::Page(1), Some(HOST)));
    assert!(DemoSite::new(0).pages() == 1 && DemoSite::new(0).render("/").is_some());
}

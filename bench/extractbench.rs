//! Extraction alone, old against new: the bench site's pages (see
//! bench/site_pages.rs) read by the tree-walking extractor (scraper's
//! DOM, `html::dom`) and by the streaming one the crawl uses, in turns,
//! several rounds each; prints pages/s of both and their ratio.
//!
//!   cargo run --release --features tree-oracle --example extractbench -- [PAGES] [ROUNDS]

use std::hint::black_box;
use std::time::{Duration, Instant};

use crawlscope::html::{dom, parse_html, Document};
use crawlscope::url::Url;

#[path = "site_pages.rs"]
mod site_pages;

type Extract = fn(&[u8], Option<&str>, &Url) -> Document;

fn main() {
    let arg = |i: usize, default: usize| match std::env::args().nth(i) {
        None => default,
        Some(a) => a.parse().ok().filter(|&n| n > 0).unwrap_or_else(|| {
            eprintln!("usage: extractbench [PAGES] [ROUNDS] (positive numbers)");
            std::process::exit(2)
        }),
    };
    let (pages, rounds) = (arg(1, 2_000), arg(2, 5));
    let base = "http://127.0.0.1:1/";
    let site = site_pages::Site::new(pages, base, site_pages::WORDS_PER_PAGE);
    let mut bodies: Vec<(Url, String)> = Vec::with_capacity(pages + 1);
    for n in 0..pages {
        let (path, html) = site.page(n);
        let url = Url::parse(&format!("{base}{}", &path[1..])).expect("page URL");
        bodies.push((url, html));
    }
    let index = Url::parse(base).expect("base URL");
    bodies.push((index, site.index()));
    let bytes: usize = bodies.iter().map(|(_, b)| b.len()).sum();
    let run = |extract: Extract| {
        let started = Instant::now();
        for (url, body) in &bodies {
            black_box(extract(black_box(body.as_bytes()), Some("text/html"), url));
        }
        started.elapsed()
    };
    let (mut tree, mut stream) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        tree += run(dom::parse_html);
        stream += run(parse_html);
    }
    let rate = |d: Duration| (bodies.len() * rounds) as f64 / d.as_secs_f64();
    println!(
        "{} pages ({} KB) x {} rounds: tree {:.0} pages/s, stream {:.0} pages/s, stream/tree {:.2}",
        bodies.len(),
        bytes / 1024,
        rounds,
        rate(tree),
        rate(stream),
        rate(stream) / rate(tree)
    );
}

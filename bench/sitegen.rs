//! A static site for benchmarks that crawlscope's own demo does not
//! flatter: `N` pages of about 6 KB in a tree of directories, ~20 links a
//! page written in every relative form a real site uses (`./x`, `../d/x`,
//! `/s/d/x`, `http://HOST/...`, with `#fragments` and, on a few, a query
//! string that repeats a page), and text drawn from a Zipf vocabulary of
//! 64,000 invented words. Written as plain files for a real web server
//! (bench/nginx.sh serves it with nginx), so the crawler never shares a
//! process with the server.
//!
//!   cargo run --release --example sitegen -- OUT_DIR PAGES BASE_URL [WORDS_PER_PAGE]

use std::path::Path;

#[path = "site_pages.rs"]
mod site_pages;

use site_pages::{Site, WORDS_PER_PAGE};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(pages), Some(base)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("usage: sitegen OUT_DIR PAGES BASE_URL [WORDS_PER_PAGE] (BASE_URL ends in /)");
        std::process::exit(2);
    };
    let pages: usize = match pages.parse() {
        Ok(n) if n > 0 => n,
        _ => {
            eprintln!("error: PAGES must be a positive number, not {pages:?}");
            std::process::exit(2);
        }
    };
    let words_per_page: usize = match args.get(3).map(|w| w.parse()) {
        None => WORDS_PER_PAGE,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("error: WORDS_PER_PAGE must be a positive number");
            std::process::exit(2);
        }
    };
    let out = Path::new(out);
    let site = Site::new(pages, base, words_per_page);
    let mut bytes = 0;
    for page in 0..pages {
        let (path, html) = site.page(page);
        let file = out.join(&path[1..]);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        bytes += html.len();
        std::fs::write(file, html)?;
    }
    std::fs::write(out.join("index.html"), site.index())?;
    println!("{pages} pages, {bytes} bytes of HTML");
    Ok(())
}

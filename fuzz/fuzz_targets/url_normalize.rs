//! URL normalisation: any string given to `parse_start` (a URL the user
//! typed) or to `resolve` (an href found in a page) is either rejected or
//! comes back as an http(s) URL with a host, without a fragment, no longer
//! than `MAX_URL_LEN`, on which `normalize` is the identity, and which reads
//! back as itself (the store keeps URL strings and parses them again).

#![no_main]

use std::sync::OnceLock;

use crawlscope::url::{normalize, parse_start, resolve, Url, MAX_URL_LEN};
use libfuzzer_sys::fuzz_target;

fn base() -> &'static Url {
    static BASE: OnceLock<Url> = OnceLock::new();
    BASE.get_or_init(|| {
        parse_start("https://user:pw@Example.COM:8443/dir/sub/page.html?q=1&r=%7e")
            .expect("the fixed base is a valid start URL")
    })
}

fn check(input: &str, url: &Url) {
    assert!(
        matches!(url.scheme(), "http" | "https"),
        "{input:?} -> {url}: not http(s)"
    );
    assert!(url.host().is_some(), "{input:?} -> {url}: no host");
    assert!(
        url.fragment().is_none(),
        "{input:?} -> {url}: fragment kept"
    );
    assert!(
        url.as_str().len() <= MAX_URL_LEN,
        "{input:?} -> {} bytes",
        url.as_str().len()
    );
    assert_eq!(
        &normalize(url.clone()),
        url,
        "normalize is not idempotent on {input:?}"
    );
    // A stored URL string typed back in names the same URL.
    assert_eq!(
        parse_start(url.as_str()).as_ref(),
        Ok(url),
        "{input:?} -> {url} does not read back as itself"
    );
}

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    if let Ok(url) = parse_start(&input) {
        check(&input, &url);
    }
    if let Ok(url) = resolve(base(), &input) {
        check(&input, &url);
    }
});

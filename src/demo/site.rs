//! The site's model: which paths exist (pages, robots.txt, text and
//! binary files), each page's links and the forms they are written in, and
//! the validators (ETag, Last-Modified) of every response.

use bytes::Bytes;
use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::*;

/// 2024-06-01T00:00:00Z: every date on the site counts back from it, so
/// responses are the same on every run and every machine.
pub(super) const SITE_EPOCH_SECS: u64 = 1_717_200_000;

pub(super) const MINUTES_PER_YEAR: u32 = 525_600;

/// Section directories by n % 3, with their path segments for relative links.
pub(super) const SECTIONS: [(&str, &[&str]); 3] = [
    ("/blog/2024/", &["blog", "2024"]),
    ("/p/", &["p"]),
    ("/docs/", &["docs"]),
];

pub(super) const OFF_SITE: &str = "http://elsewhere.example/ref/";

pub(super) const MAILTO: &str = "mailto:editor@example.com";

pub(super) const ROBOTS_TXT: &str = "User-agent: *\nDisallow: /private/\n";

// Independent random streams per purpose, so that e.g. changing the link
// layout never changes which words a page has.
pub(super) const STREAM_LAYOUT: u64 = 1;

pub(super) const STREAM_WORDS: u64 = 2;

pub(super) const STREAM_LINKS: u64 = 3;

pub(super) const STREAM_TITLE: u64 = 4;

pub(super) const STREAM_DESC: u64 = 5;

pub(super) const STREAM_TXT: u64 = 6;

pub(super) const STREAM_BIN: u64 = 7;

/// What a path names on the site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resource {
    Page(u32),
    Robots,
    Txt(u32),
    Bin(u32),
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Target {
    Page(u32),
    Private,
    OffSite,
    Mailto,
    Txt,
    Bin,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Link {
    target: Target,
    /// Which spelling of the URL: see `push_page_href`.
    form: u8,
    /// 0 = none, else `#sK`.
    fragment: u8,
}

impl Link {
    /// A link in a random spelling, one in five with a fragment.
    pub(super) fn random(rng: &mut Rng, target: Target) -> Link {
        let form = rng.below(5) as u8;
        let fragment = if rng.below(5) == 0 {
            1 + rng.below(9) as u8
        } else {
            0
        };
        Link {
            target,
            form,
            fragment,
        }
    }
}

pub(super) struct PageLinks {
    pub(super) nav: Vec<Link>,
    pub(super) flow: Vec<Link>,
    pub(super) footer: Link,
}

pub(super) fn push_path(out: &mut String, n: u32) {
    if n == 0 {
        out.push('/');
    } else {
        out.push_str(SECTIONS[n as usize % 3].0);
        let _ = write!(out, "{n}.html");
    }
}

pub(super) fn dir_segments(n: u32) -> &'static [&'static str] {
    if n == 0 {
        &[]
    } else {
        SECTIONS[n as usize % 3].1
    }
}

pub(super) fn push_href(out: &mut String, from: u32, link: &Link, host: Option<&str>) {
    let absolute = link.form == 3 && host.is_some();
    let push_root = |out: &mut String| {
        if let (true, Some(h)) = (absolute, host) {
            out.push_str("http://");
            out.push_str(h);
        }
    };
    match link.target {
        Target::Page(m) => push_page_href(out, from, m, link.form, host),
        Target::Private => {
            push_root(out);
            let _ = write!(out, "/private/{from}.html");
        }
        Target::OffSite => {
            let _ = write!(out, "{OFF_SITE}{from}.html");
        }
        Target::Mailto => {
            out.push_str(MAILTO);
            return;
        }
        Target::Txt => {
            push_root(out);
            let _ = write!(out, "/files/{from}.txt");
        }
        Target::Bin => {
            push_root(out);
            let _ = write!(out, "/files/{from}.bin");
        }
    }
    if link.fragment > 0 {
        let _ = write!(out, "#s{}", link.fragment);
    }
}

/// Forms: 0 relative to the current directory, 1 the same with `./`,
/// 2 root-relative, 3 absolute on `host` (root-relative without one),
/// 4 up to the root with `../` then down (`../p/17.html`).
pub(super) fn push_page_href(out: &mut String, from: u32, to: u32, form: u8, host: Option<&str>) {
    let from_dir = dir_segments(from);
    match form {
        2 => push_path(out, to),
        3 => {
            if let Some(h) = host {
                out.push_str("http://");
                out.push_str(h);
            }
            push_path(out, to);
        }
        4 => {
            for _ in from_dir {
                out.push_str("../");
            }
            let before = out.len();
            push_path(out, to);
            // Drop the leading '/' of the path: it is relative to the root now.
            out.remove(before);
            if from_dir.is_empty() && to == 0 {
                out.push_str("./");
            }
        }
        _ => {
            let to_dir = dir_segments(to);
            let common = from_dir
                .iter()
                .zip(to_dir)
                .take_while(|(a, b)| a == b)
                .count();
            let ups = from_dir.len() - common;
            if form == 1 && ups == 0 {
                out.push_str("./");
            }
            for _ in 0..ups {
                out.push_str("../");
            }
            for seg in &to_dir[common..] {
                out.push_str(seg);
                out.push('/');
            }
            if to != 0 {
                let _ = write!(out, "{to}.html");
            } else if ups == 0 && form != 1 {
                // An empty href would mean "this document", not "/".
                out.push_str("./");
            }
        }
    }
}

/// Only hosts made of host characters go into links: the Host header is
/// outside data and must not be able to inject markup.
pub(super) fn usable_host(host: &str) -> Option<&str> {
    let ok = !host.is_empty()
        && host.len() <= 255
        && host.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']' | b'_')
        });
    ok.then_some(host)
}

/// Decimal without sign or leading zeros, so each number has one spelling.
pub(super) fn parse_canonical(s: &str) -> Option<u32> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if canonical {
        s.parse().ok()
    } else {
        None
    }
}

pub(super) fn last_modified(resource: Resource) -> SystemTime {
    let minutes = match resource {
        Resource::Page(n) | Resource::Txt(n) | Resource::Bin(n) => n % MINUTES_PER_YEAR,
        Resource::Robots => 0,
    };
    UNIX_EPOCH + Duration::from_secs(SITE_EPOCH_SECS - u64::from(minutes) * 60)
}

impl DemoSite {
    pub(super) fn has_txt(&self, n: u32) -> bool {
        n < self.pages && n % 10 == 3
    }

    pub(super) fn has_bin(&self, n: u32) -> bool {
        n < self.pages && n % 25 == 7
    }

    pub(super) fn resolve(&self, path_and_query: &str) -> Option<Resource> {
        // The site links to no query and no alias, so none is served: that is
        // what keeps the page count exact.
        match path_and_query {
            "/" => return Some(Resource::Page(0)),
            "/robots.txt" => return Some(Resource::Robots),
            _ => {}
        }
        if let Some(file) = path_and_query.strip_prefix("/files/") {
            if let Some(n) = file.strip_suffix(".txt").and_then(parse_canonical) {
                return self.has_txt(n).then_some(Resource::Txt(n));
            }
            let n = file.strip_suffix(".bin").and_then(parse_canonical)?;
            return self.has_bin(n).then_some(Resource::Bin(n));
        }
        for (i, (dir, _)) in SECTIONS.iter().enumerate() {
            if let Some(rest) = path_and_query.strip_prefix(dir) {
                let n = rest.strip_suffix(".html").and_then(parse_canonical)?;
                let ok = n != 0 && n < self.pages && n % 3 == i as u32;
                return ok.then_some(Resource::Page(n));
            }
        }
        None
    }

    pub(super) fn render_inner(
        &self,
        path_and_query: &str,
        host: Option<&str>,
    ) -> Option<DemoResponse> {
        let resource = self.resolve(path_and_query)?;
        let (content_type, body) = match resource {
            Resource::Page(n) => (
                "text/html; charset=utf-8",
                Bytes::from(self.page_html(n, host)),
            ),
            Resource::Robots => (
                "text/plain; charset=utf-8",
                Bytes::from_static(ROBOTS_TXT.as_bytes()),
            ),
            Resource::Txt(n) => ("text/plain; charset=utf-8", Bytes::from(text_file(n))),
            Resource::Bin(n) => ("application/octet-stream", Bytes::from(binary_file(n))),
        };
        Some(DemoResponse {
            status: 200,
            content_type,
            last_modified: last_modified(resource),
            body,
        })
    }

    /// A strong validator: a hash of everything the body is a function of.
    pub(super) fn etag(&self, resource: Resource, host: Option<&str>) -> String {
        let mut h = Fnv::new();
        match resource {
            Resource::Page(n) => {
                h.bytes(b"page");
                h.bytes(&n.to_le_bytes());
                h.bytes(&self.pages.to_le_bytes());
                h.bytes(host.unwrap_or("").as_bytes());
            }
            Resource::Robots => h.bytes(b"robots"),
            Resource::Txt(n) => {
                h.bytes(b"txt");
                h.bytes(&n.to_le_bytes());
            }
            Resource::Bin(n) => {
                h.bytes(b"bin");
                h.bytes(&n.to_le_bytes());
            }
        }
        format!("\"cs-{:016x}\"", h.0)
    }

    pub(super) fn links(&self, n: u32) -> PageLinks {
        let mut rng = Rng::new(n, STREAM_LINKS);
        let mut link = |target| Link::random(&mut rng, target);
        let mut nav = vec![link(Target::Page(0))];
        if n > 0 {
            nav.push(link(Target::Page((n - 1) / 10)));
        }
        let mut flow = Vec::with_capacity(28);
        let first_child = u64::from(n) * 10 + 1;
        for child in first_child..first_child + 10 {
            if child < u64::from(self.pages) {
                // In range: child < pages <= u32::MAX.
                flow.push(link(Target::Page(child as u32)));
            }
        }
        flow.push(link(Target::OffSite));
        flow.push(link(Target::Private));
        if self.has_txt(n) {
            flow.push(link(Target::Txt));
        }
        if self.has_bin(n) {
            flow.push(link(Target::Bin));
        }
        let footer = link(Target::Mailto);
        let randoms = 5 + rng.below(6);
        for _ in 0..randoms {
            let m = rng.below(self.pages);
            flow.push(Link::random(&mut rng, Target::Page(m)));
        }
        for i in (1..flow.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            flow.swap(i, j);
        }
        // A second link to a page already linked, in another spelling.
        let dup_of = rng.below(flow.len() as u32) as usize;
        let dup_at = rng.below(flow.len() as u32 + 1) as usize;
        if let Some(orig) = flow.get(dup_of).copied() {
            let dup = Link {
                form: (orig.form + 1 + rng.below(4) as u8) % 5,
                fragment: 1 + rng.below(9) as u8,
                ..orig
            };
            flow.insert(dup_at, dup);
        }
        PageLinks { nav, flow, footer }
    }
}

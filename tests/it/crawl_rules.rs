//! Every request obeys the point's rules: on a site whose faults each hide
//! behind one rule (a stylesheet's `url()`, an image under an excluded
//! prefix, another origin's image and link, a link robots.txt disallows, a
//! sitemap entry, a page `--include` leaves out), the rule keeps the URL
//! from being requested and from being a finding, and its clean twin (the
//! same crawl without the rule) requests it and finds it.

use crate::support::crawl::*;
use crate::support::{page, Reply, Resp, TestServer};

/// The fixture: its own server and another origin's.
struct Site {
    s: TestServer,
    other: TestServer,
}

fn site() -> Site {
    let s = TestServer::start();
    let other = TestServer::start();
    let home = format!(
        r#"<!DOCTYPE html><html><head><title>Home</title>
<link rel="stylesheet" href="/style.css"></head><body><h1>Home</h1>
<img src="/private/p.png" alt="private">
<img src="{ext_img}" alt="theirs">
<a href="{blocked}">blocked</a> <a href="{gone}">gone</a>
<a href="/keep/a">kept</a> <a href="/drop/b">dropped</a>
</body></html>"#,
        ext_img = other.url("/ext-gone.png"),
        blocked = other.url("/blocked/x"),
        gone = other.url("/gone-link"),
    );
    s.route("/", Reply::Respond(Resp::html(&home)));
    s.route(
        "/style.css",
        Reply::Respond(Resp::bytes(
            "text/css",
            b"body{background:url(/bg-missing.png)} .x{background:url(/bg.png)}".to_vec(),
        )),
    );
    s.route(
        "/bg.png",
        Reply::Respond(Resp::bytes("image/png", vec![1; 10])),
    );
    s.route("/keep/a", Reply::Respond(page("A", "kept", &[])));
    s.route(
        "/sitemap.xml",
        Reply::Respond(
            Resp::text(&format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                 <url><loc>{}</loc></url></urlset>",
                s.url("/listed-gone")
            ))
            .header("content-type", "application/xml"),
        ),
    );
    crate::support::robots(&other, "User-agent: *\nDisallow: /blocked/\n");
    // /bg-missing.png, /private/p.png, /drop/b, /listed-gone and the other
    // origin's /ext-gone.png, /blocked/x and /gone-link are not routed: 404.
    Site { s, other }
}

/// Whether `path` was asked of `server` with any method.
fn asked(server: &TestServer, path: &str) -> bool {
    server.requests().iter().any(|r| r.path == path)
}

/// One seeded fault: the rule that hides it, and where it lives.
struct Fault {
    name: &'static str,
    /// The flags that hide it (`{base}` / `{other}`: the servers' bases).
    rule: &'static [&'static str],
    /// The flags its clean twin needs to find it at all.
    twin: &'static [&'static str],
    on_other: bool,
    path: &'static str,
}

const FAULTS: &[Fault] = &[
    Fault {
        name: "a stylesheet's url() by --exclude-regex",
        rule: &["--exclude-regex", "bg-missing"],
        twin: &[],
        on_other: false,
        path: "/bg-missing.png",
    },
    Fault {
        name: "an image under an --exclude prefix",
        rule: &["--exclude", "{base}private/"],
        twin: &[],
        on_other: false,
        path: "/private/p.png",
    },
    Fault {
        name: "another origin's image by --exclude-regex",
        rule: &["--check-external", "--exclude-regex", "ext-gone"],
        twin: &["--check-external"],
        on_other: true,
        path: "/ext-gone.png",
    },
    Fault {
        name: "an external link by --exclude-regex",
        rule: &["--check-external", "--exclude-regex", "gone-link"],
        twin: &["--check-external"],
        on_other: true,
        path: "/gone-link",
    },
    Fault {
        name: "an external link its robots.txt disallows",
        rule: &["--check-external"],
        twin: &["--check-external", "--ignore-robots"],
        on_other: true,
        path: "/blocked/x",
    },
    Fault {
        name: "a sitemap entry by --exclude-regex",
        rule: &["--exclude-regex", "listed-gone"],
        twin: &[],
        on_other: false,
        path: "/listed-gone",
    },
    Fault {
        name: "a page --include leaves out",
        rule: &["--include", "/keep/|\\.(css|png)$|^http://[^/]+/$"],
        twin: &[],
        on_other: false,
        path: "/drop/b",
    },
];

/// Crawls a fresh copy of the site with `flags`: whether the fault's path
/// was asked, and whether `report broken` or `report external` lists it.
fn run(fault: &Fault, flags: &[&str]) -> (bool, bool) {
    let Site { s, other } = site();
    let db = tempfile::tempdir().unwrap();
    let (base, other_base) = (s.base(), other.base());
    let mut args = vec![base.clone()];
    args.extend(
        flags
            .iter()
            .map(|f| f.replace("{base}", &base).replace("{other}", &other_base)),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crawl_ok(db.path(), &args);
    let server = if fault.on_other { &other } else { &s };
    let url = server.url(fault.path);
    let found = ["broken", "external"].iter().any(|kind| {
        let rows = crate::support::json_of(db.path(), &["report", kind, "--json"]);
        rows.as_array()
            .is_some_and(|rows| rows.iter().any(|r| r["url"] == url))
    });
    (asked(server, fault.path), found)
}

#[test]
fn each_rule_keeps_its_fault_from_being_requested_and_its_twin_finds_it() {
    for fault in FAULTS {
        let (asked, found) = run(fault, fault.rule);
        assert!(!asked, "{}: requested despite the rule", fault.name);
        assert!(!found, "{}: a finding despite the rule", fault.name);
        let (asked, found) = run(fault, fault.twin);
        assert!(asked, "{}: the clean twin never asked", fault.name);
        assert!(found, "{}: the clean twin does not find it", fault.name);
    }
}

#[test]
fn a_section_clean_but_for_excluded_faults_passes_the_ci_step() {
    let Site { s, other } = site();
    let db = tempfile::tempdir().unwrap();
    let private = s.url("/private/");
    let out = crawl(
        db.path(),
        &[
            &s.base(),
            "--check-external",
            "--fail-on",
            "broken",
            "--exclude-regex",
            "bg-missing|ext-gone|gone-link|listed-gone|/drop/",
            "--exclude",
            &private,
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for path in [
        "/bg-missing.png",
        "/private/p.png",
        "/listed-gone",
        "/drop/b",
    ] {
        assert!(!asked(&s, path), "{path} requested");
    }
    for path in ["/ext-gone.png", "/gone-link", "/blocked/x"] {
        assert!(!asked(&other, path), "{path} requested");
    }
    assert!(asked(&s, "/bg.png"), "the rest is still checked");
    for kind in ["broken", "external"] {
        let rows = crate::support::json_of(db.path(), &["report", kind, "--json"]);
        assert_eq!(rows.as_array().map(Vec::len), Some(0), "{kind}: {rows}");
    }
}

//! The document parser against real-world and hostile markup.

use super::charset::PRESCAN_BYTES;
use super::extract::push_words;
use super::flatten::{flatten, needs_flatten, FLATTEN_ABOVE_TAGS};
use super::scan::MAX_ATTRIBUTES;
use super::*;

fn page() -> Url {
    Url::parse("http://h/dir/page.html").expect("test URL")
}

fn parse(html: &str) -> Document {
    parse_html(html.as_bytes(), Some("text/html"), &page())
}

/// The text's words, one space apart.
fn words_of(doc: &Document) -> String {
    collapse_whitespace(&doc.text)
}

fn link_strings(doc: &Document) -> Vec<&str> {
    doc.links.iter().map(|l| l.url.as_str()).collect()
}

#[test]
fn charset_from_header() {
    let body = b"caf\xe9";
    assert_eq!(
        decode(body, Some("text/html; charset=windows-1252")),
        "café"
    );
    assert_eq!(
        decode(body, Some("text/html;CHARSET=\"ISO-8859-1\"")),
        "café"
    );
    // an unknown label falls through to the default
    assert_eq!(
        decode(b"caf\xc3\xa9", Some("text/html; charset=bogus")),
        "café"
    );
}

#[test]
fn charset_from_bom() {
    let mut body = vec![0xFF, 0xFE];
    for unit in "héllo 東京".encode_utf16() {
        body.extend_from_slice(&unit.to_le_bytes());
    }
    assert_eq!(decode(&body, None), "héllo 東京");
    assert_eq!(decode(&body, Some("text/html")), "héllo 東京");
    assert_eq!(
        decode(b"\xEF\xBB\xBFok", Some("text/html; charset=iso-8859-1")),
        "ok"
    );
}

#[test]
fn charset_from_meta() {
    let body = b"<html><head><meta charset=\"iso-8859-1\"><title>\xe9t\xe9</title></head></html>";
    let doc = parse_html(body, Some("text/html"), &page());
    assert_eq!(doc.title.as_deref(), Some("été"));
    let body =
        b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">\x93q\x94";
    assert!(decode(body, None).ends_with("\u{201c}q\u{201d}"));
    let body = b"<META HTTP-EQUIV=content-type CONTENT='text/html;charset = koi8-r'>\xc1";
    assert!(decode(body, None).ends_with('а'));
    // the header wins over meta
    let body = b"<meta charset=iso-8859-1>\xc3\xa9";
    assert!(decode(body, Some("text/html; charset=utf-8")).ends_with('é'));
    // a meta claiming UTF-16 means UTF-8
    assert!(decode(b"<meta charset=utf-16>\xc3\xa9", None).ends_with('é'));
}

#[test]
fn meta_charset_must_be_a_real_tag_in_the_first_1024_bytes() {
    let commented = b"<!-- <meta charset=iso-8859-1> -->\xc3\xa9";
    assert!(decode(commented, None).ends_with('é'));
    let quoted = b"<div title='<meta charset=iso-8859-1>'>\xc3\xa9";
    assert!(decode(quoted, None).ends_with('é'));
    let mut late = vec![b' '; PRESCAN_BYTES];
    late.extend_from_slice(b"<meta charset=iso-8859-1>\xc3\xa9");
    assert!(decode(&late, None).ends_with('é'));
    let not_meta = b"<metadata charset=iso-8859-1>\xc3\xa9";
    assert!(decode(not_meta, None).ends_with('é'));
    let truncated = b"<meta charset=\"iso-8859-1";
    assert_eq!(decode(truncated, None), "<meta charset=\"iso-8859-1");
}

#[test]
fn invalid_bytes_replaced_and_nul_removed() {
    assert_eq!(decode(b"a\xff\xfeb", None), "a\u{fffd}\u{fffd}b");
    assert_eq!(decode(b"a\0b", None), "ab");
    assert_eq!(decode(b"a\0\xe9", Some("text/plain; charset=latin1")), "aé");
}

#[test]
fn title_handling() {
    let doc = parse("<title>  Hello \n\t  World  </title><p>body");
    assert_eq!(doc.title.as_deref(), Some("Hello World"));
    assert_eq!(parse("<p>no title").title, None);
    assert_eq!(parse("<title> \n </title>").title, None);
    let doc = parse("<title>first</title><title>second</title>");
    assert_eq!(doc.title.as_deref(), Some("first"));
    let long = format!("<title>{}</title>", "é".repeat(1000));
    let title = parse(&long).title.expect("title");
    assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
    let doc = parse("<title>a &amp; b</title>");
    assert_eq!(doc.title.as_deref(), Some("a & b"));
    // an svg title is a tooltip: text, not the page title
    let doc = parse("<body><svg><title>icon</title></svg><p>x</p></body>");
    assert_eq!(doc.title, None);
    assert_eq!(words_of(&doc), "icon x");
}

#[test]
fn meta_tags() {
    let doc = parse(concat!(
        "<meta name='Description' content='  A   page\n about\tthings '>",
        "<meta property='og:title' content='OG'>",
        "<meta name=keywords content=\"a\u{1}b\">",
        "<meta charset=utf-8><meta http-equiv=refresh content=5>",
        "<meta name=nocontent><meta name='' content=x>",
    ));
    let tag = |attr: &str, name: &str, content: &str| MetaTag {
        attr: attr.into(),
        name: name.into(),
        content: content.into(),
    };
    assert_eq!(
        doc.meta,
        vec![
            tag("name", "description", "A page about things"),
            tag("property", "og:title", "OG"),
            tag("name", "keywords", "ab"),
            tag("charset", "charset", "utf-8"),
            tag("http-equiv", "refresh", "5"),
        ]
    );
    assert_eq!(doc.description.as_deref(), Some("A page about things"));
    let doc = parse("<meta itemprop=Price content=3><meta name=description content=' '>");
    assert_eq!(
        doc.meta,
        vec![
            tag("itemprop", "price", "3"),
            tag("name", "description", "")
        ]
    );
    assert_eq!(doc.description, None, "a blank description is none");
    let many: String = (0..300)
        .map(|i| format!("<meta name=m{i} content=c>"))
        .collect();
    assert_eq!(parse(&many).meta.len(), MAX_META_TAGS);
    let long = format!("<meta name=x content='{}'>", "y ".repeat(5000));
    let content = &parse(&long).meta[0].content;
    assert!(content.chars().count() <= MAX_META_CONTENT_CHARS && !content.ends_with(' '));
}

#[test]
fn anchors_nofollow_headings_and_canonical() {
    let doc = parse(concat!(
        "<head><link rel='Canonical' href='/canon'><link rel=canonical href='/second'></head>",
        "<h1> Main <em>title</em> </h1><h1></h1><h1>Second</h1>",
        "<a href='a'>The <b>A</b>\n page</a>",
        "<a href='b' rel='external NoFollow'><img alt='logo'></a>",
        "<a href='c' rel=nofollow>c</a><a href='c'>c again</a>",
        "<h1><a href='d'>in a heading</a></h1>",
        "<map><area href='e' alt='an area'></map>",
    ));
    let links: Vec<(&str, &str, bool)> = doc
        .links
        .iter()
        .map(|l| (l.url.as_str(), l.anchor.as_str(), l.rel.nofollow()))
        .collect();
    assert_eq!(
        links,
        vec![
            ("http://h/dir/a", "The A page", false),
            ("http://h/dir/b", "logo", true),
            // nofollow only if every link to it is
            ("http://h/dir/c", "c", false),
            ("http://h/dir/d", "in a heading", false),
            ("http://h/dir/e", "an area", false),
        ]
    );
    assert_eq!(doc.h1, vec!["Main title", "Second", "in a heading"]);
    assert_eq!(
        doc.canonical.map(|u| u.to_string()).as_deref(),
        Some("http://h/canon")
    );
    let long = format!("<a href=x>{}</a>", "word ".repeat(1000));
    assert!(parse(&long).links[0].anchor.chars().count() <= MAX_ANCHOR_CHARS);
    let many: String = (0..100).map(|i| format!("<h1>h{i}</h1>")).collect();
    assert_eq!(parse(&many).h1.len(), MAX_H1);
}

#[test]
fn link_kinds_and_rejects() {
    let doc = parse(concat!(
        "<a href='a.html'>a</a><a>no href</a>",
        "<map><area href='/area'></map>",
        "<iframe src='//cdn.example/frame'></iframe>",
        "<frameset><frame src='f.html'></frameset>",
        "<a href='mailto:x@y'>m</a><a href='javascript:void(0)'>j</a>",
        "<a href='http://[bad'>b</a><a href='#top'>top</a>",
        "<link href='/style.css'><img src='/img.png'><script src='/s.js'></script>",
    ));
    assert_eq!(
        link_strings(&doc),
        vec![
            "http://h/dir/a.html",
            "http://h/area",
            "http://cdn.example/frame",
            "http://h/dir/page.html",
        ]
    );
    let frames = parse("<frameset><frame src='f.html'><frame src='/g'></frameset>");
    assert_eq!(
        link_strings(&frames),
        vec!["http://h/dir/f.html", "http://h/g"]
    );
}

#[test]
fn base_href() {
    let doc = parse("<head><base href='http://other/sub/'></head><a href='x'>x</a>");
    assert_eq!(link_strings(&doc), vec!["http://other/sub/x"]);
    // relative base, resolved against the page; only the first counts,
    // and it applies to links before it too
    let doc = parse("<a href='y'>y</a><base href='../b/'><base href='/c/'><a href='x'>");
    assert_eq!(link_strings(&doc), vec!["http://h/b/y", "http://h/b/x"]);
    let doc = parse("<base target=_blank><base href='javascript:x'><a href='x'>");
    assert_eq!(link_strings(&doc), vec!["http://h/dir/x"]);
}

#[test]
fn links_deduplicated_and_capped() {
    let doc = parse("<a href='b'>1</a><a href='a'>2</a><a href='./b#f'>3</a><a href='B'>4</a>");
    assert_eq!(
        link_strings(&doc),
        vec!["http://h/dir/b", "http://h/dir/a", "http://h/dir/B"]
    );
    let many: String = (0..MAX_LINKS_PER_PAGE + 50)
        .map(|i| format!("<a href='/p{i}'>x</a><a href='/p0'>dup</a>"))
        .collect();
    let doc = parse(&many);
    assert_eq!(doc.links.len(), MAX_LINKS_PER_PAGE);
    assert_eq!(doc.links[1].url.as_str(), "http://h/p1");
}

#[test]
fn text_excludes_hidden_elements() {
    let doc = parse(concat!(
        "<html><head><title>T</title><style>p{color:red}</style>",
        "<script>var head = 1;</script></head><body>",
        "<h1>Hello</h1><p>visible <b>bold</b>text</p>",
        "<script>var x = 'hidden';</script><noscript>nojs</noscript>",
        "<template><p>tmpl</p></template><style>.a{}</style>",
        "<iframe src='/f'>fallback</iframe><!-- comment -->",
        "<p>a</p><p>b</p>end</body></html>",
    ));
    assert_eq!(words_of(&doc), "Hello visible bold text a b end");
    assert_eq!(doc.title.as_deref(), Some("T"));
}

#[test]
fn words_split_on_unicode_whitespace_only() {
    let mut out = String::new();
    push_words(
        &mut out,
        "\u{a0} a\u{3000}b\u{2009}c\u{85}d\u{1680}e\u{200b}f é\u{2028}東京 \t\r\n",
    );
    assert_eq!(out, "a b c d e\u{200b}f é 東京");
    push_words(&mut out, "ü");
    assert_eq!(out, "a b c d e\u{200b}f é 東京 ü");
    for c in (0..=0x3000).filter_map(char::from_u32) {
        let (mut split, text) = (String::new(), format!("x{c}y"));
        push_words(&mut split, &text);
        let want: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(split, want.join(" "), "U+{:04X}", u32::from(c));
    }
}

#[test]
fn misnested_tags_lose_no_text() {
    let doc = parse("<em><div class=a><br><area href=three><p/></em>word <a href=x>y</a>");
    assert_eq!(words_of(&doc), "word y");
    assert_eq!(
        link_strings(&doc),
        vec!["http://h/dir/three", "http://h/dir/x"]
    );
    let doc = parse("<b>1<p>2</b>3<i>4<div>5</i>6</div><u><div><p>7</u>8");
    assert_eq!(words_of(&doc), "1 2 3 4 5 6 7 8");
}

#[test]
fn text_keeps_nodes_apart_and_decodes_entities() {
    let doc = parse("<p>  one\n\n two&nbsp;three &lt;four&gt; </p><div>five</div>six");
    assert_eq!(words_of(&doc), "one two three <four> five six");
    // Whitespace inside a node is left for the readers; blank nodes add nothing.
    let doc = parse("<ul>\n  <li>a\n b</li>\n  <li>c</li>\n</ul>");
    assert_eq!(doc.text, "a\n b c");
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 100_000;
    let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
    assert_eq!(words_of(&parse(&html)), "deep");
    let html = format!(
        "<title>t</title>{}<a href=x>deep</a>",
        "<span><b id=1>".repeat(depth)
    );
    let doc = parse(&html);
    assert_eq!(link_strings(&doc), vec!["http://h/dir/x"]);
    assert_eq!(
        (doc.title.as_deref(), words_of(&doc).as_str()),
        (Some("t"), "deep")
    );
    // just below the flattening bound the tree builder does the work
    let html = format!("{}deep", "<div>".repeat(FLATTEN_ABOVE_TAGS - 1));
    assert_eq!(words_of(&parse(&html)), "deep");
}

#[test]
fn hostile_shapes_stay_fast() {
    let n = 100_000;
    let shapes = [
        "<div><table></div>".repeat(n / 2),
        "<div><b id=x></div>y".repeat(n / 2),
        "<b><div></b>".repeat(n / 2),
        "<svg><foreignObject><div/>".repeat(n / 2),
        "<template>".repeat(n),
        "<frameset>".repeat(n),
        "<a href=x>".repeat(n),
        "<p><font color=red>x".repeat(n / 2),
        "<!--".repeat(n),
        "<".repeat(n),
        "</".repeat(n),
        format!(
            "<a href=x{}>x</a>",
            (0..n).map(|i| format!(" a{i}")).collect::<String>()
        ),
        format!(
            "<div{}",
            (0..n).map(|i| format!(" a{i}=''")).collect::<String>()
        ),
        format!("<svg><style>{}", "<b>".repeat(n)),
    ];
    // Against plain markup of the same length, in the CPU time this
    // thread spent: other processes on a loaded machine take the cores
    // for a while, not the work, and would stretch a wall clock's two
    // measures unevenly. A shape that went quadratic would take thousands
    // of times as long, not a few.
    let plain = |len: usize| "<p>a b c</p>".repeat(len / 12 + 1);
    for html in &shapes {
        let baseline = plain(html.len());
        let base = cpu_time_of(|| drop(parse(&baseline)));
        let took = cpu_time_of(|| drop(parse(html)));
        assert!(
            took < base * 40 + std::time::Duration::from_millis(200),
            "{}... took {took:?}, plain markup as long {base:?}",
            &html[..30.min(html.len())]
        );
    }
}

/// The CPU time this thread spends in `f`.
fn cpu_time_of(f: impl FnOnce()) -> std::time::Duration {
    let before = thread_cpu_time();
    f();
    thread_cpu_time().saturating_sub(before)
}

fn thread_cpu_time() -> std::time::Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(r, 0, "this thread's CPU clock");
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let nanos = u32::try_from(t.tv_nsec).unwrap_or(0);
    std::time::Duration::new(secs, nanos)
}

#[test]
fn flattening_keeps_what_is_extracted() {
    let mut html = String::from(concat!(
        "<!DOCTYPE html><html><head><title>Big &amp; page</title>",
        "<meta name=description content='d'><base href='/base/'>",
        "<style>p > a { color: red }</style><script>if (a < b) { x = '<p>'; }</script>",
        "</head><body><!-- <a href=commented> --><svg viewBox='0 0 1 1'><title>icon</title>",
        "<svg/><path d='M0'/></svg><template><a href=tmpl>t</a></template>",
        "<noscript><a href=ns>n</a></noscript><textarea><b>typed</b></textarea>",
        "<table><tr><td>cell<td>two</table><iframe src=frame>fallback</iframe>",
    ));
    for i in 0..FLATTEN_ABOVE_TAGS {
        html.push_str(&format!(
            "<p class=x>para <b>{i}</b><a href='p{}'>go</a><br>",
            i % 7
        ));
    }
    html.push_str("<p>caf&eacute;&nbsp;end</body></html>");
    let flat = flatten(&html);
    assert!(flat.len() < html.len());
    let direct = parse_source(&html, &page());
    // Flattening rewrites whitespace: the words are what must not change.
    let words = |d: Document| Document {
        text: words_of(&d),
        ..d
    };
    assert_eq!(words(parse_source(&flat, &page())), words(direct.clone()));
    assert_eq!(words(parse(&html)), words(direct.clone()));
    assert_eq!(direct.title.as_deref(), Some("Big & page"));
    assert_eq!(direct.links.len(), 8);
    assert_eq!(direct.links[0].url.as_str(), "http://h/base/frame");
    let text = words_of(&direct);
    assert!(text.starts_with("icon <b>typed</b> cell two para 0 go para 1 go"));
    assert!(
        text.ends_with("go café end"),
        "{}",
        &text[text.len() - 30..]
    );
}

#[test]
fn flattening_is_triggered_by_tag_and_attribute_floods() {
    let many = |tag: &str, n: usize| tag.repeat(n);
    assert!(!needs_flatten("<p>a <b>b</b> c</p>"));
    assert!(!needs_flatten(&many("<p>", FLATTEN_ABOVE_TAGS)));
    assert!(needs_flatten(&many("<p>", FLATTEN_ABOVE_TAGS + 1)));
    assert!(needs_flatten(&many("</p>", FLATTEN_ABOVE_TAGS + 1)));
    // raw text holds no tags ...
    let script = format!("<script>{}</script>", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
    assert!(!needs_flatten(&script));
    let plain = format!("<plaintext>{}", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
    assert!(!needs_flatten(&plain));
    // ... except in svg, where <style> is an ordinary element; and once
    // svg or math appeared, the scan no longer trusts raw text at all
    let svg = format!("<svg><style>{}", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
    assert!(needs_flatten(&svg));
    let after = format!("<math></svg><style>{}", many("<p>", 2 * FLATTEN_ABOVE_TAGS));
    assert!(needs_flatten(&after));
    let attrs = |n: usize| (0..n).map(|i| format!(" a{i}")).collect::<String>();
    assert!(!needs_flatten(&format!("<a{}>", attrs(MAX_ATTRIBUTES))));
    assert!(needs_flatten(&format!("<a{}>", attrs(MAX_ATTRIBUTES + 1))));
    assert!(needs_flatten(&format!("<a{}", attrs(MAX_ATTRIBUTES + 1))));
}

#[test]
fn flatten_caps_attributes_of_kept_tags() {
    let attrs = |n: usize| (0..n).map(|i| format!(" a{i}=\"v\"")).collect::<String>();
    let html = format!("<a href=/k{}>x</a><div{}>y</div>", attrs(200), attrs(200));
    let flat = flatten(&html);
    assert_eq!(
        flat,
        format!("<a href=/k{}>x</a>  y ", attrs(MAX_ATTRIBUTES - 1))
    );
    let doc = parse(&html);
    assert_eq!(link_strings(&doc), vec!["http://h/k"]);
    assert_eq!(words_of(&doc), "x y");
}

proptest::proptest! {
    #[test]
    fn flattening_keeps_title_meta_links_and_words(
        parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..60)
    ) {
        let html = parts.concat();
        let direct = parse_source(&html, &page());
        let flat = parse_source(&flatten(&html), &page());
        proptest::prop_assert_eq!(&flat.title, &direct.title, "{}", html);
        proptest::prop_assert_eq!(&flat.meta, &direct.meta, "{}", html);
        // Anchor texts may differ: nesting (an svg link inside a link) is
        // structure, which flattening gives up.
        let targets = |d: &Document| -> Vec<(String, bool)> {
            d.links.iter().map(|l| (l.url.to_string(), l.rel.nofollow())).collect()
        };
        proptest::prop_assert_eq!(targets(&flat), targets(&direct), "{}", html);
        // A stray end tag ("a</svg>b") glues text in the tree but is a
        // space once flattened: the same characters, maybe more words.
        let squeeze = |t: &str| t.split_whitespace().collect::<String>();
        proptest::prop_assert_eq!(squeeze(&flat.text), squeeze(&direct.text), "{}", html);
        let words = |t: &str| t.split_whitespace().count();
        proptest::prop_assert!(words(&flat.text) >= words(&direct.text), "{}", html);
    }
}

/// Markup pieces for the flattening property: no tables or selects,
/// whose error recovery moves content around, and svg only whole: HTML
/// inside an unclosed svg's <script> is error recovery that flattening
/// does not reproduce either.
pub(super) const FRAGMENTS: &[&str] = &[
    "word ",
    "two words",
    "x",
    "&amp;",
    "&eacute;t&eacute;",
    "&nbsp;",
    "&#x41;",
    " ",
    "<p>",
    "</p>",
    "<div class=a>",
    "</div>",
    "<b>",
    "</b>",
    "<i id=z>",
    "</i>",
    "<span>",
    "</span>",
    "<br>",
    "<img src=i.png alt=pic>",
    "<ul><li>one<li>two</ul>",
    "<h1>",
    "</h1>",
    "<a href=one>",
    "<a href='/two'>",
    "</a>",
    "<area href=three>",
    "<iframe src=four>fall</iframe>",
    "<title>Tee</title>",
    "<meta name=k content=v>",
    "<base href=/b/>",
    "<script>var s = '<p>';</script>",
    "<style>p{}</style>",
    "<noscript><p>ns</p></noscript>",
    "<template><a href=t>t</a></template>",
    "<textarea><b>typed</b></textarea>",
    "<!-- <a href=c> -->",
    "<!doctype html>",
    "<svg><title>icon</title><text>label</text><a href=s>s</a></svg>",
    "<svg><style>svg{}</style><g><desc>d</desc></g><script>1</script></svg>",
    "<math><mi>x</mi></math>",
    "<pre>pre  text</pre>",
    "<button>go</button>",
    "<head>",
    "</head>",
    "<body>",
    "</body>",
    "<html lang=en>",
    "<em>",
    "</em>",
    "<",
    "<p/>",
    "<div/>",
    "<svg/>",
];

#[test]
fn flatten_handles_unterminated_markup() {
    for html in [
        "<div",
        "<div class='x",
        "<!--",
        "<!-- a -",
        "<svg><g>",
        "<template><p>",
        "<script>a",
        "<svg",
        "</",
        "<title>x</titl",
        "<a href=\"",
        "<plaintext><div>x",
    ] {
        let flat = flatten(html);
        let _ = parse_source(&flat, &page());
    }
    assert_eq!(flatten("a<div>b</div>c"), "a b c");
    assert_eq!(
        flatten("<svg><title>t</title><g>in</g></svg>x"),
        "  t  in  x"
    );
    assert_eq!(
        flatten("<svg><svg/><style>s</style></svg><title>t</title>"),
        "    <title>t</title> "
    );
    assert_eq!(flatten("<svg><a href=x>y</a></svg>"), " <a href=x>y</a>  ");
    assert_eq!(
        flatten("<template><template></template>t</template>x"),
        " x"
    );
    assert_eq!(
        flatten("<script><div></script><p>"),
        "<script><div></script>  "
    );
    assert_eq!(flatten("<plaintext><div>"), "<plaintext><div>");
}

#[test]
fn binary_garbage_yields_a_bounded_clean_document() {
    /// What any body, however broken, must come out as.
    fn assert_sane(doc: &Document) {
        assert!(!doc.text.contains('\0'), "NUL bytes are removed");
        assert!(doc.links.len() <= MAX_LINKS_PER_PAGE);
        assert!(doc
            .links
            .iter()
            .all(|l| matches!(l.url.scheme(), "http" | "https") && l.url.host().is_some()));
        if let Some(t) = &doc.title {
            assert!(!t.is_empty() && t.chars().count() <= MAX_TITLE_CHARS);
            assert!(!t.chars().any(char::is_control), "{t:?}");
        }
        assert!(doc.meta.len() <= MAX_META_TAGS);
        for MetaTag { name, content, .. } in &doc.meta {
            assert!(name.chars().count() <= MAX_META_NAME_CHARS);
            assert!(content.chars().count() <= MAX_META_CONTENT_CHARS);
            assert!(!name.chars().chain(content.chars()).any(char::is_control));
        }
    }
    let mut state: u32 = 0x1234_5678;
    let garbage: Vec<u8> = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state.to_le_bytes()[0]
        })
        .collect();
    let doc = parse_html(&garbage, Some("text/html"), &page());
    assert_sane(&doc);
    assert!(!doc.text.is_empty(), "garbage still has words to index");
    assert_sane(&parse_html(
        &garbage,
        Some("text/html; charset=utf-16le"),
        &page(),
    ));
    assert_sane(&parse_text(&garbage, Some("text/plain; charset=shift_jis")));
    let mut tags = b"<meta charset=".to_vec();
    tags.extend_from_slice(&garbage[..2000]);
    assert_sane(&parse_html(&tags, None, &page()));
    for cut in 0..40 {
        let html = b"<meta http-equiv=content-type content='text/html; charset=\"x";
        let doc = parse_html(&html[..cut.min(html.len())], None, &page());
        assert_sane(&doc);
        assert!(doc.links.is_empty() && doc.title.is_none());
    }
}

#[test]
fn plain_text_document() {
    let doc = parse_text(
        b"<title>not html</title> <meta charset=iso-8859-1> \xc3\xa9",
        None,
    );
    assert_eq!(doc.title, None);
    assert!(doc.links.is_empty());
    assert_eq!(
        doc.text,
        "<title>not html</title> <meta charset=iso-8859-1> é"
    );
}

//! The URLs a stylesheet loads: every `url(...)` (quoted or not) and every
//! `@import "..."`, comments skipped, `data:` URLs left out. A scanner,
//! not a CSS parser: it needs no more than the tokens that hold URLs.

/// Calls `f` with each URL `css` loads, as written (unresolved), in order.
pub fn css_urls<'a>(css: &'a str, mut f: impl FnMut(&'a str)) {
    let b = css.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(css, i + 2, "*/").map_or(b.len(), |e| e + 2);
            }
            // A string outside url() and @import holds no URL, but may hold
            // text that looks like one ("url(" in a `content:`).
            q @ (b'"' | b'\'') => i = past(b, string_end(b, i + 1, q)),
            b'u' | b'U' if starts_with_ci(b, i, "url(") && !ident_before(b, i) => {
                let (url, end) = url_token(css, i + 4);
                emit(url, &mut f);
                i = end;
            }
            b'@' if starts_with_ci(b, i, "@import") => {
                let mut j = skip_space(b, i + 7);
                // `@import url(...)` is found by the url( case.
                if let Some(&q @ (b'"' | b'\'')) = b.get(j) {
                    let end = string_end(b, j + 1, q);
                    emit(css.get(j + 1..end).unwrap_or(""), &mut f);
                    j = past(b, end);
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

fn emit<'a>(url: &'a str, f: &mut impl FnMut(&'a str)) {
    let url = url.trim();
    let data = url
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"));
    if !url.is_empty() && !data {
        f(url);
    }
}

/// The URL inside `url(` (whose content starts at `i`) and where the token
/// ends.
fn url_token(css: &str, i: usize) -> (&str, usize) {
    let b = css.as_bytes();
    let j = skip_space(b, i);
    match b.get(j) {
        Some(&q @ (b'"' | b'\'')) => {
            let end = string_end(b, j + 1, q);
            let url = css.get(j + 1..end).unwrap_or("");
            let close = find(css, past(b, end), ")").map_or(b.len(), |e| e + 1);
            (url, close)
        }
        _ => match find(css, j, ")") {
            Some(e) => (css.get(j..e).unwrap_or(""), e + 1),
            None => ("", b.len()),
        },
    }
}

/// Where a string whose content starts at `i` ends: its closing quote `q`
/// (backslash escapes skipped) or line break, else the end of the text.
fn string_end(b: &[u8], mut i: usize, q: u8) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q || c == b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// The index after `i`, at most the end.
fn past(b: &[u8], i: usize) -> usize {
    (i + 1).min(b.len())
}

fn find(css: &str, from: usize, what: &str) -> Option<usize> {
    css.get(from..)?.find(what).map(|e| e + from)
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn starts_with_ci(b: &[u8], i: usize, what: &str) -> bool {
    b.get(i..i + what.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(what.as_bytes()))
}

/// Whether the byte before `i` continues an identifier (`myurl(` is a
/// function of its own, not `url(`).
fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'-' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stylesheet_urls_are_found_in_every_form() {
        let cases: &[(&str, &[&str])] = &[
            ("a{background:url(x.png)}", &["x.png"]),
            ("a{background:URL( \"y.png\" )}", &["y.png"]),
            ("a{background:url('z w.png')}", &["z w.png"]),
            ("@import \"base.css\";", &["base.css"]),
            ("@import 'p.css' screen;", &["p.css"]),
            ("@IMPORT url(q.css);", &["q.css"]),
            ("a{b:url(data:image/png;base64,AAAA)}", &[]),
            ("a{b:url(\"DATA:x\")}", &[]),
            ("/* url(no.png) */a{b:url(yes.png)}", &["yes.png"]),
            ("a{content:\"url(no.png)\"}", &[]),
            ("a{b:myurl(no.png)}", &[]),
            (
                "@font-face{src:url(f.woff2) format('woff2'),url(f.woff)}",
                &["f.woff2", "f.woff"],
            ),
            ("a{b:url(", &[]),
            ("a{b:url('unclosed", &["unclosed"]),
            ("", &[]),
        ];
        for (css, want) in cases {
            let mut got = Vec::new();
            css_urls(css, |u| got.push(u));
            assert_eq!(&got, want, "css {css:?}");
        }
    }
}

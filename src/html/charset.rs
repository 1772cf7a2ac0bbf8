//! Which encoding a body is in, and its text: a byte order mark, else the
//! Content-Type charset, else a `<meta>` charset in the first 1024 bytes
//! (the WHATWG prescan), else UTF-8.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

use super::scan::{
    attribute, find, find_ignore_case, is_space, is_tag_start, starts_with_ignore_case,
};

/// How far into the body a `<meta charset>` is looked for, as browsers do.
pub(super) const PRESCAN_BYTES: usize = 1024;

pub(super) fn decode_with(body: &[u8], content_type: Option<&str>, prescan: bool) -> String {
    let encoding = content_type
        .and_then(charset_param)
        .and_then(Encoding::for_label)
        .or_else(|| prescan.then(|| prescan_meta(body)).flatten())
        .unwrap_or(UTF_8);
    // encoding_rs lets a BOM override the chosen encoding, as browsers do: a
    // BOM is stronger evidence than a server's (often defaulted) header.
    let (text, _, _) = encoding.decode(body);
    match text {
        Cow::Borrowed(s) if !s.contains('\0') => s.to_owned(),
        Cow::Owned(s) if !s.contains('\0') => s,
        text => text.replace('\0', ""),
    }
}

/// The charset parameter of a Content-Type value, quotes removed.
pub(super) fn charset_param(content_type: &str) -> Option<&[u8]> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| {
            value
                .trim()
                .trim_matches(|c| c == '"' || c == '\'')
                .as_bytes()
        })
    })
}

/// The WHATWG "prescan a byte stream to determine its encoding" algorithm,
/// limited to the first 1024 bytes. Comments and other tags' attributes are
/// skipped so that a quoted "<meta charset>" does not count.
pub(super) fn prescan_meta(body: &[u8]) -> Option<&'static Encoding> {
    let s = &body[..body.len().min(PRESCAN_BYTES)];
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.first() != Some(&b'<') {
            i += 1;
        } else if rest.starts_with(b"<!--") {
            // "<!-->" closes at once: the "--" of the opener counts.
            i += find(&rest[2..], b"-->").map_or(rest.len(), |p| p + 5);
        } else if starts_with_ignore_case(rest, b"<meta")
            && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/')
        {
            let (encoding, end) = meta_encoding(s, i + 5);
            if encoding.is_some() {
                return encoding;
            }
            i = end;
        } else if is_tag_start(rest) {
            let mut j = i + 2;
            while j < s.len() && !is_space(s[j]) && s[j] != b'>' {
                j += 1;
            }
            loop {
                let (attr, end) = attribute(s, j);
                j = end;
                if attr.is_none() {
                    break;
                }
            }
            i = j + 1;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += find(rest, b">").map_or(rest.len(), |p| p + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// Reads the attributes of a `<meta` tag starting at `i`; returns the
/// encoding it declares, if any, and the position after the tag.
pub(super) fn meta_encoding(s: &[u8], mut i: usize) -> (Option<&'static Encoding>, usize) {
    let (mut charset, mut http_equiv, mut content) = (None, None, None);
    loop {
        let (attr, end) = attribute(s, i);
        i = end;
        let Some((name, value)) = attr else { break };
        let slot = if name.eq_ignore_ascii_case(b"charset") {
            &mut charset
        } else if name.eq_ignore_ascii_case(b"http-equiv") {
            &mut http_equiv
        } else if name.eq_ignore_ascii_case(b"content") {
            &mut content
        } else {
            continue;
        };
        // The first occurrence of an attribute wins.
        slot.get_or_insert(value);
    }
    let label = charset.or_else(|| {
        http_equiv
            .filter(|v| v.eq_ignore_ascii_case(b"content-type"))
            .and(content)
            .and_then(charset_from_content)
    });
    let encoding = label.and_then(Encoding::for_label).map(|e| {
        // A page readable as ASCII to find this tag cannot be UTF-16.
        if e == UTF_16LE || e == UTF_16BE {
            UTF_8
        } else if e == X_USER_DEFINED {
            WINDOWS_1252
        } else {
            e
        }
    });
    (encoding, i + 1)
}

/// The WHATWG "extract a character encoding from a meta element" algorithm.
pub(super) fn charset_from_content(content: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        i += find_ignore_case(&content[i..], b"charset")? + b"charset".len();
        while content.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        if content.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while content.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        let rest = &content[i.min(content.len())..];
        return match rest.first() {
            Some(&quote) if quote == b'"' || quote == b'\'' => {
                find(&rest[1..], &[quote]).map(|end| &rest[1..1 + end])
            }
            Some(_) => {
                let end = rest
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(rest.len());
                Some(&rest[..end])
            }
            None => None,
        };
    }
}

//! The tag scanner: reads start and end tags, comments and raw text the way
//! the HTML tokenizer does, in one linear pass over the bytes, for the
//! charset prescan and the hostile-input flattener alike.

/// Flattening also cuts tags down to this many attributes.
pub(super) const MAX_ATTRIBUTES: usize = 128;

pub(super) fn next_lt(s: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(b'<', s.get(from..)?).map(|p| p + from)
}

/// A start or end tag as the HTML tokenizer reads it.
pub(super) struct Tag<'a> {
    pub name: &'a [u8],
    pub closing: bool,
    pub self_closing: bool,
    /// Bytes up to and including the closing '>' (or to the end of input).
    pub len: usize,
    /// Where the attribute after the first `MAX_ATTRIBUTES` begins, if any.
    pub cut: Option<usize>,
}

impl<'a> Tag<'a> {
    /// The tag starting at `s[0] == b'<'`, None when it is not a tag.
    fn at(s: &'a [u8]) -> Option<Tag<'a>> {
        let closing = s.get(1) == Some(&b'/');
        let start = 1 + usize::from(closing);
        if !s.get(start).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut i = start;
        while i < s.len() && !is_space(s[i]) && s[i] != b'/' && s[i] != b'>' {
            i += 1;
        }
        let name = &s[start..i];
        let mut attributes = 0;
        let mut cut = None;
        loop {
            let before = i;
            let (attr, end) = attribute(s, i);
            i = end;
            if attr.is_none() {
                break;
            }
            attributes += 1;
            if attributes > MAX_ATTRIBUTES && cut.is_none() {
                cut = Some(before);
            }
        }
        Some(Tag {
            name,
            closing,
            self_closing: i > 0 && s.get(i - 1) == Some(&b'/'),
            len: (i + 1).min(s.len()),
            cut,
        })
    }
}

/// An attribute's (name, value) bytes, as written.
pub(super) type Attribute<'a> = (&'a [u8], &'a [u8]);

/// One attribute of a tag at `i`: `Some((name, value))`, or None at the end
/// of the tag (`>` or end of input); and the position after what was read.
pub(super) fn attribute(s: &[u8], mut i: usize) -> (Option<Attribute<'_>>, usize) {
    while i < s.len() && (is_space(s[i]) || s[i] == b'/') {
        i += 1;
    }
    if i >= s.len() || s[i] == b'>' {
        return (None, i);
    }
    let name_start = i;
    while i < s.len() {
        let b = s[i];
        if (b == b'=' && i > name_start) || is_space(b) || b == b'/' || b == b'>' {
            break;
        }
        i += 1;
    }
    let name = &s[name_start..i];
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    if s.get(i) != Some(&b'=') {
        return (Some((name, &[])), i);
    }
    i += 1;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let value = match s.get(i) {
        Some(&quote) if quote == b'"' || quote == b'\'' => {
            let start = i + 1;
            let end = find(&s[start..], &[quote]).map_or(s.len(), |p| start + p);
            i = (end + 1).min(s.len());
            &s[start..end]
        }
        _ => {
            let start = i;
            while i < s.len() && !is_space(s[i]) && s[i] != b'>' {
                i += 1;
            }
            &s[start..i]
        }
    };
    (Some((name, value)), i)
}

/// Length of the non-tag markup starting at `s[0] == b'<'`: a comment, a
/// doctype or bogus comment, or a lone '<' of text.
pub(super) fn markup_len(s: &[u8]) -> usize {
    if s.starts_with(b"<!--") {
        if s.starts_with(b"<!-->") {
            return 5;
        }
        if s.starts_with(b"<!--->") {
            return 6;
        }
        let body = &s[4..];
        let end = [
            find(body, b"-->").map(|p| p + 3),
            find(body, b"--!>").map(|p| p + 4),
        ]
        .into_iter()
        .flatten()
        .min();
        return 4 + end.unwrap_or(body.len());
    }
    if s.starts_with(b"<!") || s.starts_with(b"<?") || s.starts_with(b"</") {
        return find(s, b">").map_or(s.len(), |p| p + 1);
    }
    1
}

/// Where the raw text of element `name` that starts at `from` ends: at its
/// end tag, or at the end of input.
pub(super) fn raw_text_end(s: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(p) = find(&s[i..], b"</") {
        let at = i + p;
        let after = at + 2 + name.len();
        if s.get(at + 2..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && s.get(after)
                .is_none_or(|&b| is_space(b) || b == b'/' || b == b'>')
        {
            return at;
        }
        i = at + 2;
    }
    s.len()
}

/// The end (after its end tag's '>') of the element `name` whose start tag
/// ends at `from`, counting nested elements of the same name.
pub(super) fn subtree_end(s: &[u8], from: usize, name: &[u8]) -> usize {
    let mut depth = 1usize;
    for (lt, tag) in Tags::new(s, from) {
        if !tag.name.eq_ignore_ascii_case(name) {
            continue;
        }
        if tag.closing {
            depth -= 1;
            if depth == 0 {
                return lt + tag.len;
            }
        } else if !tag.self_closing {
            depth += 1;
        }
    }
    s.len()
}

/// The tags of a document in order, as the tokenizer meets them (comments,
/// doctypes and a stray '<' are stepped over), each with the offset of its
/// '<'. A caller that knows an element's content is raw text, or wants a
/// subtree skipped, moves on with [`Tags::skip_to`].
pub(super) struct Tags<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Tags<'a> {
    pub fn new(s: &'a [u8], from: usize) -> Tags<'a> {
        Tags { s, i: from }
    }

    pub fn skip_to(&mut self, i: usize) {
        self.i = i;
    }
}

impl<'a> Iterator for Tags<'a> {
    type Item = (usize, Tag<'a>);

    fn next(&mut self) -> Option<(usize, Tag<'a>)> {
        while let Some(lt) = next_lt(self.s, self.i) {
            let rest = &self.s[lt..];
            match Tag::at(rest) {
                Some(tag) => {
                    self.i = lt + tag.len;
                    return Some((lt, tag));
                }
                None => self.i = lt + markup_len(rest),
            }
        }
        None
    }
}

pub(super) fn is_one_of(name: &[u8], set: &[&str]) -> bool {
    set.iter().any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
}

pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

pub(super) fn is_tag_start(rest: &[u8]) -> bool {
    match rest.get(1) {
        Some(b) if b.is_ascii_alphabetic() => true,
        Some(b'/') => rest.get(2).is_some_and(u8::is_ascii_alphabetic),
        _ => false,
    }
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

pub(super) fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

pub(super) fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

//! Text as the extractor keeps it, for every part that reads markup:
//! whitespace collapsed and cut ([`clean`]), and a token looked up in a
//! space-separated attribute ([`has_token`]).

/// Whitespace runs collapsed to one space, trimmed, control characters
/// (NUL included) dropped, at most `max_chars` characters.
pub(super) fn clean(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars));
    let mut chars = 0;
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = chars > 0;
        } else if !c.is_control() {
            let needed = 1 + usize::from(space);
            if chars + needed > max_chars {
                break;
            }
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
            chars += needed;
        }
    }
    out
}

/// Whether a space-separated attribute (`rel`) holds `token`, in any case.
pub(super) fn has_token(value: Option<&str>, token: &str) -> bool {
    value.is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

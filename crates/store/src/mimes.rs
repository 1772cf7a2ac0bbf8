//! Mimetypes as the `mimetypes` table keys them: a Content-Type parsed,
//! bounded (a header is outside input) and made canonical, so one type
//! sent with its parameters in another order is one row.

use crate::schema::MimeRecord;

/// A Content-Type as the store keeps it: the essence in lower case, a
/// structured suffix, the parameters sorted.
pub(crate) fn parse(content_type: &str) -> MimeRecord {
    let mut parts = content_type.split(';');
    let essence: String = parts
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
        .chars()
        .take(100)
        .collect();
    let suffix = essence
        .split_once('+')
        .map(|(_, s)| s.to_string())
        .filter(|s| !s.is_empty());
    // Every parameter is kept (the base schema's `mime_parameter`), names
    // in lower case; values keep their case (they may be tokens) but the
    // charset's, which is case-insensitive. Bounded: a header is outside
    // input. Sorted by name (then value), so that one type sent with its
    // parameters in another order is the same mimetype, one row.
    let mut params: Vec<(String, String)> = parts
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| {
            let k: String = k.trim().to_ascii_lowercase().chars().take(50).collect();
            let v = v.trim().trim_matches('"');
            let v = if k == "charset" {
                v.to_ascii_lowercase()
            } else {
                v.to_string()
            };
            (k, v.chars().take(200).collect())
        })
        .filter(|(k, _)| !k.is_empty())
        .take(16)
        .collect();
    params.sort_unstable();
    MimeRecord {
        essence,
        suffix,
        params,
    }
}

/// The canonical string of a mimetype: never empty (LMDB keys cannot be)
/// and short enough to be a key.
pub(crate) fn key(m: &MimeRecord) -> String {
    let mut key = if m.essence.is_empty() {
        "(none)".to_string()
    } else {
        m.essence.clone()
    };
    for (k, v) in &m.params {
        key.push_str(&format!("; {k}={v}"));
    }
    key.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_is_split_and_canonical() {
        let m = parse("Application/XHTML+XML; Charset=\"UTF-8\"; Profile=Strict; =x; bad");
        assert_eq!(m.essence, "application/xhtml+xml");
        assert_eq!(m.suffix.as_deref(), Some("xml"));
        assert_eq!(
            m.params,
            vec![
                ("charset".into(), "utf-8".into()),
                ("profile".into(), "Strict".into())
            ]
        );
        assert_eq!(
            key(&m),
            "application/xhtml+xml; charset=utf-8; profile=Strict"
        );
        // One type whatever the order or case of its parameters; a
        // charset's value is case-insensitive (RFC 9110), others' are not.
        let one = [
            "text/html; charset=utf-8; foo=bar",
            "text/html; foo=bar; charset=UTF-8",
            "TEXT/HTML;FOO=bar;  Charset=\"utf-8\"",
        ];
        for ct in one {
            assert_eq!(key(&parse(ct)), "text/html; charset=utf-8; foo=bar", "{ct}");
        }
        assert_ne!(
            key(&parse("text/html; foo=BAR")),
            key(&parse("text/html; foo=bar"))
        );
        let many = format!("text/plain{}", "; a=b".repeat(100));
        assert_eq!(parse(&many).params.len(), 16);
        assert_eq!(key(&parse("")), "(none)");
    }
}

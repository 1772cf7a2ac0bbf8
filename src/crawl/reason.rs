//! The words a failed answer is named by: the reason phrase the server
//! sent (`599 Custom Broken Thing`), else the standard one, else the name
//! of the failure's class, and the status line people read (`404 Not
//! Found`). Every face shows these, so `page`, the reports, the CSV, the
//! console and `crawl`'s stderr agree.

/// The reason phrase the server sent, when it differs from the standard
/// one for its status: hyper keeps only such a phrase (HTTP/1 only; HTTP/2
/// has none). An empty or unreadable phrase counts as none sent.
pub fn sent(resp: &reqwest::Response) -> Option<String> {
    let phrase = resp.extensions().get::<hyper::ext::ReasonPhrase>()?;
    let phrase = std::str::from_utf8(phrase.as_bytes()).ok()?.trim();
    (!phrase.is_empty()).then(|| phrase.to_string())
}

/// Why an answer with `status` is what it is, in words: the server's own
/// phrase, else the standard one, else its class's name (`599` with no
/// phrase at all is a `server error`).
pub fn phrase(status: u16, sent: Option<&str>) -> String {
    if let Some(own) = sent {
        return own.to_string();
    }
    let standard = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason());
    match (standard, status / 100) {
        (Some(standard), _) => standard.to_string(),
        (None, 4) => "client error".to_string(),
        (None, 5) => "server error".to_string(),
        (None, _) => "status".to_string(),
    }
}

/// An HTTP status as people read it: `404 Not Found`, `599` when the code
/// has no standard phrase.
pub fn status_text(status: u16) -> String {
    match reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(phrase) => format!("{status} {phrase}"),
        None => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_own_phrase_comes_first_then_the_standard_then_the_class() {
        assert_eq!(
            phrase(599, Some("Custom Broken Thing")),
            "Custom Broken Thing"
        );
        assert_eq!(phrase(404, Some("Nope")), "Nope");
        assert_eq!(phrase(404, None), "Not Found");
        assert_eq!(phrase(418, None), "I'm a teapot");
        assert_eq!(phrase(599, None), "server error");
        assert_eq!(phrase(499, None), "client error");
    }
}

//! The request head as it goes on the wire, kept so the WARC export can
//! write the exchange back: the headers the client adds itself, then the
//! request's own, credentials redacted. Names are lowercase: that is how
//! hyper sends them.

use reqwest::header::{
    HeaderName, ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION, USER_AGENT,
};

/// What a credential header's value is replaced with: the header was
/// sent, its secret never leaves the process.
pub const REDACTED: &str = "[redacted]";
/// The Accept-Encoding reqwest adds to a request without one, for a client
/// built with its gzip, deflate and brotli features.
const CLIENT_ACCEPT_ENCODING: &str = "gzip,deflate,br";

fn is_secret(name: &HeaderName) -> bool {
    [AUTHORIZATION, PROXY_AUTHORIZATION, COOKIE].contains(name)
}

/// The request's headers as they go on the wire: Host, the client's
/// defaults unless the request sets its own, then the request's own.
pub fn sent(req: &reqwest::Request, user_agent: &str) -> Vec<(String, String)> {
    let url = req.url();
    let host = match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        (None, _) => String::new(),
    };
    let own = req.headers();
    let mut out = vec![("host".to_string(), host)];
    for (name, value) in [
        (USER_AGENT, user_agent),
        (ACCEPT, "*/*"),
        (ACCEPT_ENCODING, CLIENT_ACCEPT_ENCODING),
    ] {
        if !own.contains_key(&name) {
            out.push((name.as_str().to_string(), value.to_string()));
        }
    }
    for (name, value) in own {
        let value = if is_secret(name) {
            REDACTED.to_string()
        } else {
            String::from_utf8_lossy(value.as_bytes()).into_owned()
        };
        out.push((name.as_str().to_string(), value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_redacted_and_defaults_yield_to_own_headers() {
        let client = reqwest::Client::new();
        let req = client
            .get("http://example.test:8080/a?b=1")
            .basic_auth("u", Some("secret-pw"))
            .header("accept", "text/html")
            .header("cookie", "session=secret-cookie")
            .build()
            .unwrap();
        let h = sent(&req, "bot/1");
        let text = format!("{h:?}");
        assert!(!text.contains("secret"), "{text}");
        assert_eq!(h[0], ("host".into(), "example.test:8080".into()));
        let get = |n: &str| h.iter().filter(|(k, _)| k == n).count();
        assert_eq!(get("accept"), 1);
        assert_eq!(get("authorization"), 1);
        assert!(h.contains(&("user-agent".into(), "bot/1".into())));
    }
}

//! Splitting text into raw tokens: maximal runs of alphanumeric characters
//! (Unicode), in order. Lowercasing, stopwords and stemming are the
//! analyzer's job.

/// The tokens of `text`: runs of `char::is_alphanumeric` characters, in order.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// Replaces `buf` with the Unicode lowercase of `token`, reusing its
/// allocation (the analyzer's hot path allocates nothing per token).
pub(crate) fn lowercase_into(token: &str, buf: &mut String) {
    buf.clear();
    if token.is_ascii() {
        buf.push_str(token);
        buf.make_ascii_lowercase();
    } else {
        buf.extend(token.chars().flat_map(char::to_lowercase));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_non_alphanumerics() {
        let got: Vec<&str> = tokens("Hello, world! e-mail: a_b 3.14 l'été  ").collect();
        assert_eq!(
            got,
            ["Hello", "world", "e", "mail", "a", "b", "3", "14", "l", "été"]
        );
        assert_eq!(tokens("  --  ").count(), 0);
        assert_eq!(tokens("").count(), 0);
    }

    #[test]
    fn unicode_letters_and_digits_are_token_chars() {
        let got: Vec<&str> = tokens("東京タワー、Ünïcödé·٣٤ Ⅻ").collect();
        assert_eq!(got, ["東京タワー", "Ünïcödé", "٣٤", "Ⅻ"]);
    }

    #[test]
    fn lowercases_reusing_the_buffer() {
        let mut buf = String::from("leftover");
        lowercase_into("HeLLo", &mut buf);
        assert_eq!(buf, "hello");
        lowercase_into("ÜNÏCÖDÉ", &mut buf);
        assert_eq!(buf, "ünïcödé");
        lowercase_into("STRASSE", &mut buf);
        assert_eq!(buf, "strasse");
    }
}

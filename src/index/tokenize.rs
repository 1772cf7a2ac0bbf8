//! Splitting text into raw tokens: maximal runs of alphanumeric characters
//! (Unicode), in order. Lowercasing, stopwords and stemming are the
//! analyzer's job.

/// The tokens of `text`: runs of `char::is_alphanumeric` characters, in order.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
}

/// Appends the Unicode lowercase of `token` to `buf` (the analyzer
/// lowercases a run of tokens into one buffer: nothing is allocated per
/// token).
pub(crate) fn push_lowercase(token: &str, buf: &mut String) {
    if token.is_ascii() {
        let start = buf.len();
        buf.push_str(token);
        if let Some(added) = buf.get_mut(start..) {
            added.make_ascii_lowercase();
        }
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
    fn lowercases_onto_the_buffer() {
        let mut buf = String::from("Kept ");
        push_lowercase("HeLLo", &mut buf);
        assert_eq!(buf, "Kept hello");
        push_lowercase("ÜNÏCÖDÉ", &mut buf);
        assert_eq!(buf, "Kept helloünïcödé");
        buf.clear();
        push_lowercase("STRASSE", &mut buf);
        assert_eq!(buf, "strasse");
    }
}

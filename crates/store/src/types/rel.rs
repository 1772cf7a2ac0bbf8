//! A link's `rel` as the store keeps it: the tokens that matter to an SEO
//! audit and a link checker (`nofollow`, `ugc`, `sponsored`, `noopener`,
//! `noreferrer`, `external`) as a bit set of one byte; any other token
//! is dropped, the order written is not kept.

/// The kept tokens, each with its bit, in the order they are shown.
const TOKENS: [(&str, u8); 6] = [
    ("nofollow", 1),
    ("ugc", 1 << 1),
    ("sponsored", 1 << 2),
    ("noopener", 1 << 3),
    ("noreferrer", 1 << 4),
    ("external", 1 << 5),
];

/// The kept `rel` tokens of one link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Rel(u8);

impl Rel {
    pub const NOFOLLOW: Rel = Rel(1);

    /// The kept tokens of a `rel` attribute's value, in any case.
    pub fn parse(value: Option<&str>) -> Rel {
        let mut bits = 0;
        for token in value.unwrap_or("").split_ascii_whitespace() {
            if let Some((_, bit)) = TOKENS.iter().find(|(t, _)| t.eq_ignore_ascii_case(token)) {
                bits |= bit;
            }
        }
        Rel(bits)
    }

    pub fn nofollow(self) -> bool {
        self.0 & Rel::NOFOLLOW.0 != 0
    }

    /// The tokens every one of two links has: a target's links folded
    /// into one are nofollow only when each is.
    pub fn common(self, other: Rel) -> Rel {
        Rel(self.0 & other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The byte the store keeps.
    pub fn code(self) -> u8 {
        self.0
    }

    /// A stored byte read back; None when it holds a bit no token has.
    pub fn from_code(code: u8) -> Option<Rel> {
        let all = TOKENS.iter().fold(0, |a, (_, bit)| a | bit);
        (code & !all == 0).then_some(Rel(code))
    }
}

impl std::fmt::Display for Rel {
    /// The tokens space-separated, in a fixed order (`nofollow ugc`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (token, bit) in TOKENS {
            if self.0 & bit != 0 {
                if !first {
                    f.write_str(" ")?;
                }
                f.write_str(token)?;
                first = false;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Rel;

    #[test]
    fn keeps_the_tokens_that_matter_in_a_fixed_order() {
        let cases = [
            (None, ""),
            (Some(""), ""),
            (Some("nofollow"), "nofollow"),
            (Some("NoFollow"), "nofollow"),
            (Some("external noopener author"), "noopener external"),
            (
                Some("sponsored ugc noreferrer nofollow"),
                "nofollow ugc sponsored noreferrer",
            ),
            (Some("bookmark  tag"), ""),
        ];
        for (value, shown) in cases {
            let rel = Rel::parse(value);
            assert_eq!(rel.to_string(), shown, "{value:?}");
            assert_eq!(Rel::from_code(rel.code()), Some(rel));
        }
        assert_eq!(Rel::from_code(1 << 7), None);
        assert!(Rel::parse(Some("ugc nofollow")).nofollow());
        let folded = Rel::parse(Some("nofollow ugc")).common(Rel::parse(Some("ugc")));
        assert_eq!(folded.to_string(), "ugc");
    }
}

//! What a document's name may be: the one rule, asked by `documents` of
//! every name it is given and by `points` of a point's `--doc`.

/// The longest name, in characters.
pub const MAX_NAME: usize = 100;

/// A name refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "a document name is 1 to {MAX_NAME} characters, none of them a comma or a control character"
)]
pub struct BadName;

/// A document name as typed, trimmed; refused when empty, too long or
/// holding control characters (it is shown on one line) or a comma (the
/// console's point form lists a point's documents comma-separated).
pub fn parse(input: &str) -> Result<String, BadName> {
    let name = input.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME || name.chars().any(|c| c.is_control() || c == ',') {
        return Err(BadName);
    }
    Ok(name.to_string())
}

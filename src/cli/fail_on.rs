//! `--fail-on KIND[,KIND]|any` on `crawl` and `report`: after the normal
//! output, exit 3 when what the command covered has findings of those
//! kinds, saying how many of each. The counts are the summary's
//! (`report summary`'s `findings`), so every kind it counts can be named.

use std::collections::BTreeMap;

use clap::ValueEnum;

use super::CliError;
use crate::report::kinds::finding_names;
use crate::report::{self as rep, Ctx, Kind};

/// The kinds `--fail-on` was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailOn {
    Any,
    Kinds(Vec<String>),
}

/// The finding kind `name` names; a table kind (`slow`, `links`) is
/// refused as such: its rows are figures, nothing to fail on.
pub fn finding_kind(name: &str) -> Result<Kind, String> {
    match Kind::from_str(name, false) {
        Ok(kind) if kind.is_finding() => Ok(kind),
        Ok(_) => Err(format!("{name:?} is a table, not a finding kind")),
        Err(_) => Err(format!("no finding kind {name:?}")),
    }
}

/// `KIND[,KIND]` or `any`; an unknown kind is refused with the list.
pub fn parse(input: &str) -> Result<FailOn, String> {
    let known = finding_names().join(", ");
    let mut kinds = Vec::new();
    for name in input.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name == "any" {
            return Ok(FailOn::Any);
        }
        if let Err(why) = finding_kind(name) {
            return Err(format!("{why} [kinds: any, {known}]"));
        }
        if !kinds.iter().any(|k| k == name) {
            kinds.push(name.to_string());
        }
    }
    if kinds.is_empty() {
        return Err(format!("give a kind [kinds: any, {known}]"));
    }
    Ok(FailOn::Kinds(kinds))
}

impl FailOn {
    /// Err (exit 3) naming the counts when `findings` has any of the kinds.
    pub fn judge(&self, findings: &BTreeMap<&'static str, usize>) -> Result<(), CliError> {
        let found: Vec<String> = findings
            .iter()
            .filter(|(kind, n)| {
                **n > 0
                    && match self {
                        FailOn::Any => true,
                        FailOn::Kinds(kinds) => kinds.iter().any(|k| k == *kind),
                    }
            })
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        if found.is_empty() {
            Ok(())
        } else {
            Err(CliError::FailOn(found.join(", ")))
        }
    }

    /// Judges what `ctx` covers.
    pub fn judge_ctx(&self, ctx: &Ctx<'_, '_>) -> Result<(), CliError> {
        self.judge(&rep::summary::summary(ctx)?.findings)
    }
}

/// Adds each kind's count of `more` to `into`: the findings of several runs.
pub fn add(into: &mut BTreeMap<&'static str, usize>, more: BTreeMap<&'static str, usize>) {
    for (kind, n) in more {
        *into.entry(kind).or_default() += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_checked_and_counted() {
        assert_eq!(parse("any").unwrap(), FailOn::Any);
        assert_eq!(
            parse("broken,external,broken").unwrap(),
            FailOn::Kinds(vec!["broken".into(), "external".into()])
        );
        let refused = parse("broken,nope").unwrap_err();
        assert!(
            refused.contains("nope") && refused.contains("broken"),
            "{refused}"
        );
        assert!(parse("depth").is_err());
        for table in ["slow", "links", "hosts", "large", "mimetypes"] {
            let why = parse(table).unwrap_err();
            assert!(
                why.contains("is a table") && why.contains("broken"),
                "{why}"
            );
        }
        assert!(parse(",").is_err());
        let findings = BTreeMap::from([("broken", 3), ("titles", 0), ("external", 1)]);
        assert!(FailOn::Kinds(vec!["titles".into()])
            .judge(&findings)
            .is_ok());
        let err = FailOn::Any.judge(&findings).unwrap_err();
        assert_eq!(err.to_string(), "--fail-on: found 3 broken, 1 external");
        assert_eq!(err.exit_code(), 3);
    }
}

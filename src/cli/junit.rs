//! `report KIND --junit`: JUnit XML on stdout, which CI systems read. A
//! row of a list report is a failing test case (named by its first
//! column, the URL; its other columns are the failure's message, its
//! detail lines the failure's text); `report broken` adds a passing case
//! for each URL of the report that answered (2xx, or a redirect), so a CI
//! run shows what was checked. `report summary --junit` has a case per
//! finding kind, failing when the kind has findings.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use clap::ValueEnum;

use super::CliResult;
use crate::report::{Ctx, Kind, Row};
use crate::store::UrlState;

/// One test case: its name and, when it failed, the message and text.
struct Case {
    name: String,
    failure: Option<(String, String)>,
}

/// The rows of list kind `kind`, then its passing cases.
pub fn list<R: Row>(ctx: &Ctx<'_, '_>, kind: Kind, rows: &[R]) -> CliResult {
    let mut cases: Vec<Case> = rows.iter().map(failing).collect();
    if kind == Kind::Broken {
        for (page, state) in ctx.states()? {
            if matches!(state, UrlState::Done { .. } | UrlState::Redirected { .. }) {
                cases.push(Case {
                    name: ctx.url(*page)?,
                    failure: None,
                });
            }
        }
    }
    write(&kind_name(kind), &cases)
}

/// A case per finding kind of the summary.
pub fn summary(findings: &BTreeMap<&'static str, usize>) -> CliResult {
    let cases: Vec<Case> = findings
        .iter()
        .map(|(kind, n)| Case {
            name: (*kind).to_string(),
            failure: (*n > 0).then(|| (format!("{n} {kind}"), String::new())),
        })
        .collect();
    write("summary", &cases)
}

fn kind_name(kind: Kind) -> String {
    kind.to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// A finding as a failing case: the first cell names it, the others
/// (`column: value`, the empty ones left out) are the message.
fn failing<R: Row>(row: &R) -> Case {
    let cells = row.cells();
    let name = cells.first().cloned().unwrap_or_default();
    let message = R::COLUMNS
        .iter()
        .zip(&cells)
        .skip(1)
        .filter(|(_, v)| !v.is_empty())
        .map(|(c, v)| format!("{c}: {v}"))
        .collect::<Vec<_>>()
        .join("; ");
    Case {
        name,
        failure: Some((message, row.details().join("\n"))),
    }
}

fn write(kind: &str, cases: &[Case]) -> CliResult {
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let suite = escape(&format!("crawlscope report {kind}"));
    let _ = writeln!(
        xml,
        "<testsuites name=\"{suite}\" tests=\"{}\" failures=\"{failures}\">",
        cases.len()
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        cases.len()
    );
    let class = escape(kind);
    for case in cases {
        let name = escape(&case.name);
        match &case.failure {
            None => {
                let _ = writeln!(xml, "    <testcase classname=\"{class}\" name=\"{name}\"/>");
            }
            Some((message, text)) => {
                let _ = writeln!(
                    xml,
                    "    <testcase classname=\"{class}\" name=\"{name}\">\n      <failure type=\"{class}\" message=\"{}\">{}</failure>\n    </testcase>",
                    escape(message),
                    escape(text)
                );
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>");
    outln!("{xml}");
    Ok(())
}

/// Text as XML 1.0 takes it in an attribute or an element: characters
/// XML cannot hold at all (controls other than tab and line breaks)
/// replaced, then markup escaped.
fn escape(s: &str) -> String {
    let held: String = s
        .chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect();
    quick_xml::escape::escape(held.as_str()).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_leaves_no_markup_and_no_forbidden_characters() {
        assert_eq!(
            super::escape("a<b>&\"c'\u{1}\n"),
            "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}\n"
        );
    }
}

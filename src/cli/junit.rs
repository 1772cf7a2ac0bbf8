//! `report KIND --junit`: JUnit XML on stdout, which CI systems read. A
//! row of a finding kind is a test case named by its first column, the
//! URL: failing when the row is a finding (its other columns are the
//! failure's message, its detail lines the failure's text), passing when
//! not (a resource that answered); `report broken` adds a passing case
//! for each URL of the report that answered (2xx, or a redirect), so a CI
//! run shows what was checked. `report summary --junit` has a case per
//! finding kind, failing when the kind has findings.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{CliError, CliResult};
use crate::report::{Ctx, Kind, Row};
use crate::store::UrlState;

/// One test case: its name and, when it failed, the message and text.
pub struct Case {
    name: String,
    failure: Option<(String, String)>,
}

/// The rows of list kind `kind`, then its passing cases.
pub fn list<R: Row>(ctx: &Ctx<'_, '_>, kind: Kind, rows: &[R]) -> CliResult {
    write(&[(kind.name(), cases(ctx, kind, rows)?)])
}

/// The cases of list kind `kind`: a case per row, then for `broken` a
/// passing case per URL of the view that answered.
pub fn cases<R: Row>(ctx: &Ctx<'_, '_>, kind: Kind, rows: &[R]) -> Result<Vec<Case>, CliError> {
    let mut cases: Vec<Case> = rows.iter().map(case).collect();
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
    Ok(cases)
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
    write(&[("summary", cases)])
}

/// A row as a case: the first cell names it; a finding fails, its other
/// cells (`column: value`, the empty ones left out) the message.
fn case<R: Row>(row: &R) -> Case {
    let cells = row.cells();
    let name = cells.first().cloned().unwrap_or_default();
    if !row.is_finding() {
        return Case {
            name,
            failure: None,
        };
    }
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

/// One JUnit document: a suite per kind, `crawlscope` the whole.
pub fn write(suites: &[(&str, Vec<Case>)]) -> CliResult {
    let all = |f: fn(&Case) -> bool| -> usize {
        suites
            .iter()
            .map(|(_, c)| c.iter().filter(|c| f(c)).count())
            .sum()
    };
    let (tests, failures) = (all(|_| true), all(|c| c.failure.is_some()));
    let name = match suites {
        [(kind, _)] => format!("crawlscope report {kind}"),
        _ => "crawlscope".to_string(),
    };
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\">",
        escape(&name)
    );
    for (kind, cases) in suites {
        suite(&mut xml, kind, cases);
    }
    xml.push_str("</testsuites>");
    outln!("{xml}");
    Ok(())
}

fn suite(xml: &mut String, kind: &str, cases: &[Case]) {
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let suite = escape(&format!("crawlscope report {kind}"));
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
    xml.push_str("  </testsuite>\n");
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

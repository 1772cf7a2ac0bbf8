//! `crawl --format table|json|markdown|junit`: when the crawl ends, the
//! findings of the run each crawled point made, of the `--fail-on` kinds
//! (every finding kind when none or `any` is named), on stdout in that
//! format, so one command is the whole CI step. Rows that are not findings
//! (a resource that answered) are left out, except in JUnit, where they
//! are the passing cases that show what was checked.

use std::collections::BTreeMap;

use super::args::FindingsFormat;
use super::fail_on::FailOn;
use super::junit::{self, Case};
use super::report::{markdown_lines, table_lines};
use super::{print_json, CliError, CliResult};
use crate::report::kinds::VisitList;
use crate::report::{self as rep, Ctx, Kind, ListKind, Row};

/// One kind's findings over every crawled point, in the chosen format.
enum Printed {
    /// A table: its header lines, then the rows' lines.
    Lines {
        header: usize,
        lines: Vec<String>,
    },
    Json(Vec<serde_json::Value>),
    Cases(Vec<Case>),
}

/// The kinds `fail_on` names, in the order declared; all findings when
/// none or `any`.
fn kinds(fail_on: Option<&FailOn>) -> Vec<Kind> {
    match fail_on {
        Some(FailOn::Kinds(names)) => (Kind::FINDINGS.iter().copied())
            .filter(|k| names.iter().any(|n| n == k.name()))
            .collect(),
        Some(FailOn::Any) | None => Kind::FINDINGS.to_vec(),
    }
}

/// Prints the findings of `runs` (each a view of one point's last run).
pub fn print(format: FindingsFormat, fail_on: Option<&FailOn>, runs: &[Ctx<'_, '_>]) -> CliResult {
    let mut by_kind = Vec::new();
    for kind in kinds(fail_on) {
        let mut printed: Option<Printed> = None;
        for ctx in runs {
            if let Some(one) = kind.visit_list(Print { format, kind, ctx }) {
                printed = Some(match printed {
                    None => one?,
                    Some(p) => p.join(one?),
                });
            }
        }
        by_kind.extend(printed.map(|p| (kind.name(), p)));
    }
    match format {
        FindingsFormat::Junit => {
            let suites: Vec<(&str, Vec<Case>)> = (by_kind.into_iter())
                .map(|(k, p)| match p {
                    Printed::Cases(c) => (k, c),
                    _ => (k, Vec::new()),
                })
                .collect();
            junit::write(&suites)
        }
        FindingsFormat::Json => {
            let map: BTreeMap<&str, Vec<serde_json::Value>> = (by_kind.into_iter())
                .map(|(k, p)| match p {
                    Printed::Json(rows) => (k, rows),
                    _ => (k, Vec::new()),
                })
                .collect();
            print_json(&map)
        }
        FindingsFormat::Table | FindingsFormat::Markdown => {
            let mut any = false;
            for (kind, p) in by_kind {
                let Printed::Lines { header, lines } = p else {
                    continue;
                };
                if lines.len() == header {
                    continue;
                }
                any = true;
                if format == FindingsFormat::Markdown {
                    outln!("## {kind}\n");
                } else {
                    outln!("{kind}:");
                }
                for line in lines {
                    outln!("{line}");
                }
                outln!();
            }
            if !any {
                outln!("no findings");
            }
            Ok(())
        }
    }
}

impl Printed {
    /// Two points' findings of one kind as one: the second's rows after
    /// the first's (a table keeps the first's header).
    fn join(self, more: Printed) -> Printed {
        match (self, more) {
            (Printed::Json(mut a), Printed::Json(b)) => {
                a.extend(b);
                Printed::Json(a)
            }
            (Printed::Cases(mut a), Printed::Cases(b)) => {
                a.extend(b);
                Printed::Cases(a)
            }
            (
                Printed::Lines { header, mut lines },
                Printed::Lines {
                    header: h,
                    lines: b,
                },
            ) => {
                lines.extend(b.into_iter().skip(h));
                Printed::Lines { header, lines }
            }
            (a, _) => a,
        }
    }
}

/// One kind's findings of one view, printed.
struct Print<'c, 'a, 's> {
    format: FindingsFormat,
    kind: Kind,
    ctx: &'c Ctx<'a, 's>,
}

impl VisitList for Print<'_, '_, '_> {
    type Out = Result<Printed, CliError>;

    fn visit<K: ListKind>(self, _: &'static str) -> Self::Out {
        let mut rows = rep::list::<K>(self.ctx, usize::MAX)?.rows;
        if self.format == FindingsFormat::Junit {
            return Ok(Printed::Cases(junit::cases(self.ctx, self.kind, &rows)?));
        }
        rows.retain(Row::is_finding);
        Ok(match self.format {
            FindingsFormat::Json => Printed::Json(
                (rows.iter())
                    .map(serde_json::to_value)
                    .collect::<Result<_, _>>()?,
            ),
            FindingsFormat::Markdown => Printed::Lines {
                header: 2,
                lines: markdown_lines(&rows),
            },
            _ => Printed::Lines {
                header: 1,
                lines: table_lines(&rows),
            },
        })
    }
}

//! `report [KIND]`: what the crawl found, as a table for people, `--json`
//! (the shapes of docs/CLI.md) or `--csv` (a header row, then a row per
//! item). The findings themselves are `crate::report`'s.

use std::path::PathBuf;

use super::args::ReportArgs;
use super::fail_on::FailOn;
use super::{junit, open_existing, print_json, CliError, CliResult};
use crate::report::kinds::VisitList;
use crate::report::{self as rep, csv_field, Ctx, Kind, ListKind, Listing, Row};
use crate::store::Store;

/// The runs a report answers for, as its first line.
fn name_runs(ctx: &Ctx<'_, '_>) -> CliResult {
    if let Some(as_of) = ctx.as_of(rep::NamedRun::describe) {
        outln!("{as_of}");
    }
    Ok(())
}

/// Rows a table shows when no `--limit` is given; `--json` and `--csv`
/// list every row unless told otherwise.
pub const TABLE_ROWS: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Csv,
    /// `--junit`: JUnit XML (`super::junit`).
    Junit,
}

/// What a report is about: a point's URLs or all, which runs, and for
/// `changes` the runs compared.
pub struct On {
    pub point: Option<u32>,
    pub scope: rep::Scope,
    pub between: rep::changes::Between,
    /// `--doc NAME`: what that document's points reached.
    pub doc: Option<String>,
    /// `near-duplicates`: the similarity a pair must reach.
    pub near_threshold: f64,
    /// `--fail-on`: judged on what the report covers, after it.
    pub fail_on: Option<FailOn>,
    /// `--sources N`: the pages of a row's sources listed (0: all).
    pub sources: usize,
    /// `--name`: the `--extract`/`--search` rule listed.
    pub rule: Option<String>,
}

/// `report` as its flags ask; the store is opened once they agree.
pub fn from_flags(db: Option<PathBuf>, flags: ReportArgs) -> CliResult {
    let format = match (flags.json, flags.csv) {
        _ if flags.junit => Format::Junit,
        (true, _) => Format::Json,
        (_, true) => Format::Csv,
        _ => Format::Text,
    };
    let scope = match (flags.run, flags.all_runs) {
        (Some(id), _) => rep::Scope::Run(id),
        (None, true) => rep::Scope::AllRuns,
        (None, false) => rep::Scope::Latest,
    };
    let on = On {
        point: flags.point,
        scope,
        between: rep::changes::Between {
            from: flags.from,
            to: flags.to,
        },
        doc: flags.doc,
        near_threshold: flags.near_threshold,
        fail_on: flags.fail_on,
        sources: flags.sources,
        rule: flags.name,
    };
    junit_allowed(flags.kind, format)?;
    run(&open_existing(db)?, flags.kind, format, flags.limit, on)
}

/// A failing JUnit case must be a finding: a table's rows are figures.
fn junit_allowed(kind: Kind, format: Format) -> CliResult {
    match format == Format::Junit && !kind.is_finding() && kind != Kind::Summary {
        true => Err(CliError::NoJunit(kind.name())),
        false => Ok(()),
    }
}

pub fn run(store: &Store, kind: Kind, format: Format, limit: Option<usize>, on: On) -> CliResult {
    // Every kind of the default view reads kept figures or findings.
    if on.point.is_none() && on.doc.is_none() && on.scope == rep::Scope::Latest {
        rep::kept::ensure(store);
    }
    let r = store.read()?;
    let ctx = match &on.doc {
        Some(doc) => Ctx::for_document(&r, doc, on.scope)?,
        None => Ctx::with_scope(&r, on.point, on.scope)?,
    }
    .listing_sources(on.sources)
    .of_rule(on.rule);
    let between = on.between;
    if format == Format::Text && kind != Kind::Changes {
        name_runs(&ctx)?;
    }
    let limit = limit.unwrap_or(match format {
        Format::Text => TABLE_ROWS,
        Format::Json | Format::Csv | Format::Junit => usize::MAX,
    });
    let out = Out {
        format,
        limit,
        between,
        kind,
    };
    let answered = match kind {
        Kind::Summary => summary(&ctx, format),
        Kind::Depth => out.depth(&ctx),
        Kind::Changes => out.changes(&ctx),
        Kind::External if !rep::external::any_checked(&ctx)? => {
            let why = rep::external::nothing_checked(&ctx)?;
            if format == Format::Text {
                outln!("{why}");
                return judge(&ctx, on.fail_on.as_ref());
            }
            eprintln!("note: {why}");
            out.kind(&ctx)
        }
        Kind::NearDuplicates => {
            // The default threshold's pairs are kept; another's are found.
            use rep::near_duplicates::{find, NearDuplicates, DEFAULT_THRESHOLD};
            let kept = match on.near_threshold == DEFAULT_THRESHOLD {
                true => rep::kept_lists::read::<NearDuplicates>(&ctx)?,
                false => None,
            };
            let pairs = match kept {
                Some(pairs) => pairs,
                None => find(&ctx, on.near_threshold)?,
            };
            let listing = rep::listing::<NearDuplicates>(&ctx, pairs, out.limit)?;
            out.rows(&ctx, &listing, "near-duplicate pairs")
        }
        _ => out.kind(&ctx),
    };
    answered?;
    judge(&ctx, on.fail_on.as_ref())
}

/// `--fail-on`, after the report: exit 3 when what it covers has findings
/// of the kinds named.
fn judge(ctx: &Ctx<'_, '_>, fail_on: Option<&FailOn>) -> CliResult {
    fail_on.map_or(Ok(()), |f| f.judge_ctx(ctx))
}

struct Out {
    format: Format,
    limit: usize,
    between: rep::changes::Between,
    kind: Kind,
}

/// A list kind printed by [`Out`].
struct ListOut<'o, 'c, 'a, 's> {
    out: &'o Out,
    ctx: &'c Ctx<'a, 's>,
}

impl VisitList for ListOut<'_, '_, '_, '_> {
    type Out = CliResult;
    fn visit<K: ListKind>(self, noun: &'static str) -> CliResult {
        let listing = rep::list::<K>(self.ctx, self.out.limit)?;
        self.out.rows(self.ctx, &listing, noun)
    }
}

impl Out {
    /// The list of `self.kind` (a kind that answers one object prints
    /// nothing here: `run` answers those itself).
    fn kind(&self, ctx: &Ctx<'_, '_>) -> CliResult {
        (self.kind.visit_list(ListOut { out: self, ctx })).unwrap_or(Ok(()))
    }

    fn rows<R: Row>(&self, ctx: &Ctx<'_, '_>, l: &Listing<R>, what: &str) -> CliResult {
        if self.format != Format::Text {
            self.note_rows_from(ctx);
        }
        match self.format {
            Format::Junit => {
                junit::list(ctx, self.kind, &l.rows)?;
                self.note_cut(l.rows.len(), l.total);
                Ok(())
            }
            Format::Json => {
                print_json(&l.rows)?;
                self.note_cut(l.rows.len(), l.total);
                Ok(())
            }
            Format::Csv => {
                csv_rows(&l.rows)?;
                self.note_cut(l.rows.len(), l.total);
                Ok(())
            }
            Format::Text => {
                if l.total == 0 {
                    outln!("no {what}");
                    return Ok(());
                }
                if !l.rows.is_empty() {
                    table(&l.rows)?;
                }
                shown(l.rows.len(), l.total, what, self.limit)
            }
        }
    }

    /// A list's JSON is an array, so what the table's header says of
    /// older runs goes on stderr for JSON, CSV and JUnit.
    fn note_rows_from(&self, ctx: &Ctx<'_, '_>) {
        let older = ctx.rows_from_runs();
        if !older.is_empty() {
            let ids: Vec<String> = older.iter().map(|id| id.to_string()).collect();
            eprintln!("note: rows from runs {}", ids.join(", "));
        }
    }

    /// Scripts read every row unless they asked for fewer: say on stderr
    /// when `--limit` left some out.
    fn note_cut(&self, shown: usize, total: usize) {
        if shown < total {
            eprintln!("note: {shown} of {total} rows (--limit {})", self.limit);
        }
    }

    fn depth(&self, ctx: &Ctx<'_, '_>) -> CliResult {
        let d = rep::depth::depth(ctx, self.limit)?;
        match self.format {
            Format::Junit => Err(CliError::NoJunit("depth")),
            Format::Json => print_json(&d),
            Format::Csv => csv_rows(&d.rows()),
            Format::Text => {
                if d.total == 0 {
                    outln!("no pages");
                    return Ok(());
                }
                table(&d.rows())?;
                outln!();
                if !d.deepest.is_empty() {
                    outln!("deepest pages:");
                    table(&d.deepest)?;
                }
                shown(d.deepest.len(), d.total, "pages", self.limit)
            }
        }
    }

    fn changes(&self, ctx: &Ctx<'_, '_>) -> CliResult {
        let c = rep::changes::changes(ctx, self.limit, self.between)?;
        let rows = c.rows();
        let total: usize = c.totals.iter().sum();
        match self.format {
            Format::Junit => return Err(CliError::NoJunit("changes")),
            Format::Json => {
                print_json(&c)?;
                self.note_cut(rows.len(), total);
            }
            Format::Csv => {
                if let Some(note) = &c.note {
                    eprintln!("note: {note}");
                }
                csv_rows(&rows)?;
                self.note_cut(rows.len(), total);
            }
            Format::Text => {
                if let (Some(from), Some(to)) = (c.from_run, c.to_run) {
                    outln!("run {from} → run {to}: {} new, {} gone, {} status, {} title, {} content changes",
                        c.totals[0], c.totals[1], c.totals[2], c.totals[3], c.totals[4]);
                }
                if let Some(note) = &c.note {
                    outln!("{note}");
                }
                if !rows.is_empty() {
                    table(&rows)?;
                }
                if c.from_run.is_some() {
                    shown(rows.len(), total, "changes", self.limit)?;
                }
            }
        }
        Ok(())
    }
}

fn summary(ctx: &Ctx<'_, '_>, format: Format) -> CliResult {
    let s = rep::summary::summary(ctx)?;
    if format == Format::Json {
        return print_json(&s);
    }
    if format == Format::Junit {
        return junit::summary(&s.findings);
    }
    let b = &s.by_status;
    let mut lines: Vec<(String, String)> = vec![
        ("pages".into(), s.pages.to_string()),
        ("urls".into(), s.urls.to_string()),
        ("by_status.2xx".into(), b.ok.to_string()),
        ("by_status.3xx".into(), b.redirect.to_string()),
        ("by_status.4xx".into(), b.client_error.to_string()),
        ("by_status.5xx".into(), b.server_error.to_string()),
        ("by_status.failed".into(), b.failed.to_string()),
    ];
    let mut group = |name: &str, entries: Vec<(String, String)>| {
        lines.extend(entries.into_iter().map(|(k, v)| (format!("{name}.{k}"), v)));
    };
    group(
        "skipped",
        s.skipped
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    group(
        "by_depth",
        s.by_depth
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain((s.no_link_depth > 0).then(|| ("none".to_string(), s.no_link_depth.to_string())))
            .collect(),
    );
    group(
        "by_mime",
        s.by_mime
            .iter()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect(),
    );
    // "external 0" would read as "every external link works".
    let unchecked = s.external_checked == Some(false);
    group(
        "findings",
        s.findings
            .iter()
            .map(|(&k, v)| match k {
                "external" if unchecked => (k.to_string(), "not checked".to_string()),
                _ => (k.to_string(), v.to_string()),
            })
            .collect(),
    );
    if format == Format::Csv {
        outln!("metric,value");
        for (k, v) in &lines {
            outln!("{},{}", csv_field(k), csv_field(v));
        }
        return Ok(());
    }
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in &lines {
        outln!("{k:<width$}  {v}");
    }
    Ok(())
}

/// "N of M shown", and how to see the rest.
fn shown(n: usize, total: usize, what: &str, limit: usize) -> CliResult {
    if total == 0 {
        outln!("no {what}");
    } else if n == 0 {
        outln!("{total} {what} (none listed: --limit {limit})");
    } else if n < total {
        outln!("{n} of {total} {what} shown (--limit N for more)");
    } else {
        outln!("{n} of {total} {what} shown");
    }
    Ok(())
}

fn csv_rows<R: Row>(rows: &[R]) -> CliResult {
    for line in rep::csv_lines(rows) {
        outln!("{line}");
    }
    Ok(())
}

/// Columns wider than this push the rest of their row to the right rather
/// than widening every row.
const MAX_COLUMN: usize = 70;

fn table<R: Row>(rows: &[R]) -> CliResult {
    for line in table_lines(rows) {
        outln!("{line}");
    }
    Ok(())
}

/// The table people read: a header, then a line per row and its details
/// indented under it.
pub(super) fn table_lines<R: Row>(rows: &[R]) -> Vec<String> {
    let header = R::table_columns();
    let cells: Vec<Vec<String>> = rows.iter().map(|r| r.table_cells()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count()).min(MAX_COLUMN);
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  "));
            }
        }
        s.trim_end().to_string()
    };
    let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut out = vec![line(&head)];
    for (row, cells) in rows.iter().zip(&cells) {
        out.push(line(cells));
        out.extend(row.details().into_iter().map(|d| format!("    {d}")));
    }
    out
}

/// A GitHub-flavoured Markdown table of the rows (every CSV column: a
/// pull request comment is read in full), pipes and line breaks escaped.
pub(super) fn markdown_lines<R: Row>(rows: &[R]) -> Vec<String> {
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells
            .iter()
            .map(|c| c.replace('|', "\\|").replace(['\n', '\r'], " "))
            .collect();
        format!("| {} |", cells.join(" | "))
    };
    let head: Vec<String> = R::COLUMNS.iter().map(|h| h.to_string()).collect();
    let mut out = vec![line(&head), format!("|{}", "---|".repeat(head.len()))];
    out.extend(rows.iter().map(|r| line(&r.cells())));
    out
}

#[cfg(test)]
mod tests {
    use crate::report::csv_field;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }
}

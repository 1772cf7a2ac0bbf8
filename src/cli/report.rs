//! `report [KIND]`: what the crawl found, as a table for people, `--json`
//! (the shapes of docs/CLI.md) or `--csv` (a header row, then a row per
//! item). The findings themselves are `crate::report`'s.

use super::fail_on::FailOn;
use super::{junit, print_json, CliError, CliResult};
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
    .listing_sources(on.sources);
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
        Kind::Broken => out.list::<rep::broken::Broken>(&ctx, "broken URLs"),
        Kind::Redirects => out.list::<rep::redirects::Redirects>(&ctx, "redirect chains"),
        Kind::Titles => out.list::<rep::titles::Titles>(&ctx, "title issues"),
        Kind::Descriptions => {
            out.list::<rep::descriptions::Descriptions>(&ctx, "description issues")
        }
        Kind::Headings => out.list::<rep::headings::Headings>(&ctx, "heading issues"),
        Kind::Duplicates => out.list::<rep::duplicates::Duplicates>(&ctx, "duplicate groups"),
        Kind::Directives => out.list::<rep::directives::Directives>(&ctx, "pages with directives"),
        Kind::Canonicals => out.list::<rep::canonicals::Canonicals>(&ctx, "canonical issues"),
        Kind::Slow => out.list::<rep::slow::Slow>(&ctx, "pages"),
        Kind::Large => out.list::<rep::large::Large>(&ctx, "pages"),
        Kind::Mimetypes => out.list::<rep::mimetypes::Mimetypes>(&ctx, "mimetypes"),
        Kind::Hosts => out.list::<rep::hosts::Hosts>(&ctx, "origins"),
        Kind::External => {
            if !rep::external::any_checked(&ctx)? {
                let why = rep::external::nothing_checked(&ctx)?;
                if format == Format::Text {
                    outln!("{why}");
                    return judge(&ctx, on.fail_on.as_ref());
                }
                eprintln!("note: {why}");
            }
            out.list::<rep::external::External>(&ctx, "broken external links")
        }
        Kind::Depth => out.depth(&ctx),
        Kind::Changes => out.changes(&ctx),
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
            let listing =
                rep::listing::<rep::near_duplicates::NearDuplicates>(&ctx, pairs, out.limit)?;
            out.rows(&ctx, &listing, "near-duplicate pairs")
        }
        Kind::Fragments => out.list::<rep::fragments::Fragments>(&ctx, "missing fragments"),
        Kind::Indexability => {
            out.list::<rep::indexability::NonIndexable>(&ctx, "non-indexable pages")
        }
        Kind::Links => out.list::<rep::links::Links>(&ctx, "pages"),
        Kind::Sitemaps => out.list::<rep::sitemaps::Sitemaps>(&ctx, "sitemap issues"),
        Kind::Resources => out.list::<rep::resources::Resources>(&ctx, "resources"),
        Kind::Images => out.list::<rep::images::Images>(&ctx, "image issues"),
        Kind::Javascript => out.list::<rep::javascript::Javascript>(&ctx, "rendering changes"),
        Kind::Hreflang => out.list::<rep::hreflang::Hreflang>(&ctx, "hreflang issues"),
        Kind::StructuredData => {
            out.list::<rep::structured_data::StructuredData>(&ctx, "structured data issues")
        }
        Kind::Pagination => out.list::<rep::pagination::Pagination>(&ctx, "pagination issues"),
        Kind::Security => out.list::<rep::security::Security>(&ctx, "security issues"),
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

impl Out {
    fn list<K: ListKind>(&self, ctx: &Ctx<'_, '_>, what: &str) -> CliResult {
        let listing = rep::list::<K>(ctx, self.limit)?;
        self.rows(ctx, &listing, what)
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
    outln!("{}", line(&head));
    for (row, cells) in rows.iter().zip(&cells) {
        outln!("{}", line(cells));
        for d in row.details() {
            outln!("    {d}");
        }
    }
    Ok(())
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
